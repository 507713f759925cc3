#!/bin/sh
# scripts/x86-pipes.py (which vector operations take issue slots from
# AESENC) at every width this CPU has: it compiles and runs its loops, and
# its report has the rows it promises (every operation not left out at
# three densities, the mix), with times that are times; bad arguments are
# refused with a message. The figures themselves are this CPU's and are
# not checked here (README, "AES-GCM, AMD Zen 5").
#   sh tests/x86_pipes.sh SCRIPT
set -u
SCRIPT=$1
PY=/usr/bin/python3
[ -x "$PY" ] || { echo "skip: needs /usr/bin/python3"; exit 77; }
command -v cc >/dev/null || { echo "skip: needs cc"; exit 77; }
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "ok: $*"; }

widths=0
for w in xmm ymm zmm; do
    # (best of 3: a time is a ratio to the rounds-alone loop's best, which
    # a preemption in every repetition would inflate)
    if ! "$PY" "$SCRIPT" --width "$w" --reps 3 --iters 20000 --json \
            >"$T/$w.json" 2>"$T/$w.err"; then
        if grep -q "which this CPU lacks" "$T/$w.err"; then
            echo "($w: $(cat "$T/$w.err"))"
            continue
        fi
        fail "$w: $(cat "$T/$w.err")"
        continue
    fi
    widths=$((widths + 1))
    "$PY" - "$T/$w.json" "$w" <<'EOF' && pass "$w: every row, times that are times" || fail "$w: report"
import json, math, sys
r = json.load(open(sys.argv[1]))
w = sys.argv[2]
ok = r["width"] == w and r["chains"] == 12 and r["aes_per_ns"] > 0
# the width's own loop is the default mix
ok = ok and r["mix"] == {"zmm": "vaes-avx512-kara", "ymm": "vaes-avx2",
                         "xmm": "aesni"}[w] and "/112" in r["mix_spec"]
left = {s.split()[0] for s in r["skipped"]}
ops = {}
for row in r["rows"]:
    ops.setdefault(row["op"], []).append(row)
    t = row["ratio"]
    # a loop with more instructions in it is not twice as fast
    ok = ok and math.isfinite(t) and 0.5 < t < 50
for name in ("xor", "add", "shufb", "shufd", "clmul", "load"):
    ok = ok and (name in ops or name in left)
for name, rows in ops.items():
    if name == "mix":
        ok = ok and len(rows) == 1 and rows[0]["count"] > 0
    else:
        ok = ok and sorted(x["per_round"] for x in rows) == [0.25, 0.5, 1.0]
ok = ok and ("mix" in ops) != ("the" in left)
if not ok:
    print(json.dumps(r, indent=1))
sys.exit(0 if ok else 1)
EOF
done
[ $widths -gt 0 ] || { echo "skip: no AES-NI with AVX on this CPU"; exit 77; }

# the text report: a header, a line per row, the mix
if "$PY" "$SCRIPT" --reps 1 --iters 20000 >"$T/out" 2>&1 &&
   grep -q "^x86-pipes: [xyz]mm, 12 chains; rounds alone: " "$T/out" &&
   grep -qE "^clmul +1\.00 " "$T/out" &&
   grep -qE "^mix (vaes-avx512-kara|vaes-avx2|aesni) on [0-9]+ rounds: " "$T/out" &&
   grep -q "^    (clmul:26," "$T/out"
then pass "text report"; else fail "text report: $(cat "$T/out")"; fi

# refused, with a message
refuse() { # what args...
    what=$1; shift
    if "$PY" "$SCRIPT" "$@" >"$T/out" 2>&1; then
        fail "$what: accepted"
    elif grep -q "x86-pipes: \|usage: " "$T/out"; then
        pass "$what: refused ($(head -n 1 "$T/out"))"
    else
        fail "$what: no message: $(cat "$T/out")"
    fi
}
refuse "unknown operation in --mix" --mix "xor:2,nosuch:1"
refuse "unknown loop in --mix" --mix "vaes-avx1024"
refuse "negative count in --mix" --mix "xor:-1"
refuse "rounds not a number" --mix "xor:2/x"
refuse "3 chains" --chains 3
refuse "13 chains" --chains 13
refuse "no repetitions" --reps 0
refuse "unknown width" --width qmm

[ $fails -eq 0 ] || { echo "$fails failed"; exit 1; }
echo "all passed"

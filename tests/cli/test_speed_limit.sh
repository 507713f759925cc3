#!/bin/sh
# The AES instruction limit of `rijn speed` (tools/speed/limit.c): short
# runs print the limit lines for the widths this CPU has (and "not
# measured" for those it lacks or RIJN_CPU_MASK removes), the "of limit"
# column, and in --json the "aes_limit" object and a limit_width and
# limit_fraction per row (against the limit timed again between the
# row's repetitions, limit_gbps). Rows of a backend with AES instructions
# (aesni, vaes-avx2, vaes-avx512, armv8, ppc8) must reach a fraction in
# (0, 1.2] (a fraction above 1.2 means the limit was measured wrong);
# rows of the other backends and per-operation rows have none. With
# --gcm, the GCM limit too (x86-64: AES rounds with GHASH's carry-less
# multiplies): a line per width, measured where the CPU has the
# instructions, its c/B not below the AES limit's, its fraction of the
# AES limit in (0, 1] and equal to the ratio of the two c/B; in --json a
# gcm_limit per width, and per row the GCM limit timed beside it
# (gcm_limit_gbps) and the fraction against it; elsewhere "not measured". Copies of the output with a wrong
# GCM limit put in must be rejected (the checks can fail).
#
#   sh tests/cli/test_speed_limit.sh path/to/rijn
#
# RIJN_TEST_EMULATED=1 (set by CMake in a cross build): timings under an
# emulator mean nothing, so only the fraction's presence is checked. A
# RIJN_CPU_MASK list in the environment applies to every run; the runs
# that take vaes or avx512f away add to it.
# Each run of rijn speed and its checks gets up to 3 tries (attempt):
# the bounds on timings can meet a busy neighbour; a wrong report fails all.
# Exit status: 0 pass, 1 fail, 77 skipped (no AES instructions here).
set -u

RIJN=${1:?usage: test_speed_limit.sh path/to/rijn}
EMULATED=${RIJN_TEST_EMULATED:-0}
M0=${RIJN_CPU_MASK:-}
T=$(mktemp -d "${TMPDIR:-/tmp}/rijn-speed-limit.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP

failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}
pass() {
    echo "ok: $*"
}

# Tiny runs: few short repetitions, a 64 KiB long buffer.
# thread CPU time: the limit and the rows are timed alike, and a busy
# machine (ctest -j, CI) descheduling one of them does not skew the ratio
SHORT="--quick --cpu-time --reps 3 --rep-ms 1 --long-kib 64"
HW="aesni vaes-avx2 vaes-avx512 armv8 ppc8" # backends with a limit

# The AES backends this CPU runs, under the RIJN_CPU_MASK given as $1.
available() {
    RIJN_CPU_MASK=$1 "$RIJN" impl |
        awk '/^AES backends/ {on = 1; next} /^$/ && seen {on = 0}
             on && $2 == "yes" {print $1; seen = 1}'
}
# The CPU features rijn sees under the RIJN_CPU_MASK given as $1.
features() {
    RIJN_CPU_MASK=$1 "$RIJN" impl | sed -n 's/^cpu features: //p'
}
has_feature() { # features, name
    case ",$1," in *",$2,"*) return 0 ;; esac
    return 1
}
is_hw() {
    case " $HW " in *" $1 "*) return 0 ;; esac
    return 1
}
# The width of a backend with a limit.
width_of() {
    case $1 in
    aesni) echo xmm ;; vaes-avx2) echo ymm ;; vaes-avx512) echo zmm ;;
    armv8 | ppc8) echo v128 ;; esac
}

# check_table NAME FILE: the rows of a text table (backend first, the
# fraction last; a GCM table then the fraction of the GCM limit, "GCM
# lim"): hardware-AES rows with bytes have a fraction in (0, 1.2], the
# others "-"; at least one row has a fraction; a GCM row's fraction of the
# GCM limit, where there is one, is at least its fraction of the AES limit
# (the GCM limit timed beside the row is capped by the AES limit timed
# beside it; where the multiplies take no AES slots they are equal) and at
# most 1.2.
check_table() {
    awk -v hw=" $HW " -v emu="$EMULATED" -v name="$1" '
        /^backend / {
            gcm = $(NF - 1) == "GCM" && $NF == "lim"
            if ($(NF - 1 - 2 * gcm) != "of" || $(NF - 2 * gcm) != "limit") {
                print name ": header does not end with \"of limit\"" \
                    " (and \"GCM lim\" for --gcm): " $0
                bad = 1
            }
            table = 1
            next
        }
        !table || NF < 8 || $0 ~ /^threads:/ { next }
        {
            rows++
            f = $(NF - gcm)
            g = gcm ? $NF : "-"
            want = index(hw, " " $1 " ") > 0 && $0 !~ /\[cyc\]/
            if (!want) {
                if (f != "-" || g != "-") {
                    print name ": fraction on a row without limit: " $0
                    bad = 1
                }
                next
            }
            if (f !~ /^[0-9]+\.[0-9]+$/ || f + 0 <= 0 ||
                (emu != 1 && f + 0 > 1.2)) {
                print name ": fraction not in (0, 1.2]: " $0
                bad = 1
            }
            if (g != "-" && (g !~ /^[0-9]+\.[0-9]+$/ || g + 0.0015 < f + 0 ||
                             (emu != 1 && g + 0 > 1.2))) {
                print name ": GCM-limit fraction not in [fraction, 1.2]: " $0
                bad = 1
            }
            nfrac++
        }
        END {
            if (rows == 0 || nfrac == 0) {
                print name ": no rows with a fraction"
                bad = 1
            }
            if (!bad)
                print name ": " rows " rows, " nfrac " fractions in " \
                    (emu == 1 ? "(0, inf) (emulated)" : "(0, 1.2]")
            exit bad
        }' "$2" >"$T/why" && pass "$(cat "$T/why")" || fail "$(cat "$T/why")"
}

# The AES limit's lines of a report (the GCM limit's follow with --gcm).
aes_section() {
    awk '/^GCM limit|^ratio/ {exit} /^AES limit/ {on = 1} on' "$1"
}

# check_limits NAME FILE MASK: a limit line per width of this build; a
# measured one (positive numbers) exactly where the CPU, under MASK, has
# the instruction.
check_limits() {
    feat=$(features "$3")
    bad=
    grep -qE '^AES limit: (AES round instructions alone|none of these)' "$2" ||
        bad="no limit header"
    for w in xmm ymm zmm v128; do
        case $w in
        xmm) need=aesni ;;
        ymm) need="aesni vaes avx" ;;
        zmm) need="aesni vaes avx512f" ;;
        v128) need= ;;
        esac
        line=$(aes_section "$2" | grep -E "^  $w +")
        [ -n "$line" ] || continue
        have=1
        for n in $need; do has_feature "$feat" "$n" || have=0; done
        if [ $w = v128 ]; then # armv8 or ppc8: measured if it runs
            case $(available "$3") in *armv8* | *ppc8*) have=1 ;;
            *) have=0 ;; esac
        fi
        if [ $have = 1 ]; then
            echo "$line" | awk '{
                for (i = NF - 6; i <= NF; i++) if ($i + 0 <= 0) exit 1
            }' || bad="$bad; $w not measured: $line"
        else
            echo "$line" | grep -q 'not measured: needs' ||
                bad="$bad; $w measured without $need: $line"
        fi
    done
    grep -qE '^  xmm |^  v128 ' "$2" || bad="$bad; no xmm or v128 line"
    [ -z "$bad" ] && pass "$1: limit lines (features: $feat)" ||
        fail "$1: $bad: $(sed -n '/^AES limit/,/^ratio/p' "$2")"
}

# gcm_limit_problems FILE MASK: what is wrong with the GCM limit lines of
# a --gcm report, one line each (nothing if they are right). x86-64 (the
# AES limit has an xmm line): a line per width, measured exactly where the
# CPU, under MASK, has the instructions; there each key size's c/B is at
# least the AES limit's, and the fraction of the AES limit is in (0, 1]
# (limit.c caps it: the GCM loop is the AES loop's rounds and more) and
# equals AES c/B / GCM c/B (emulated: only positive).
# Elsewhere "GCM limit: not measured (...)" and no such line.
gcm_limit_problems() {
    feat=$(features "$2")
    want=
    for w in xmm ymm zmm; do
        case $w in
        xmm) need="aesni pclmul" ;;
        ymm) need="aesni vaes avx vpclmul" ;;
        zmm) need="aesni vaes avx512f vpclmul" ;;
        esac
        have=1
        for n in $need; do has_feature "$feat" "$n" || have=0; done
        want="$want $w=$have"
    done
    awk -v want="$want" -v emu="$EMULATED" '
        function abs(x) { return x < 0 ? -x : x }
        BEGIN {
            n = split(want, a, " ")
            for (i = 1; i <= n; i++) {
                split(a[i], kv, "=")
                need[kv[1]] = kv[2]
            }
            num = "^[0-9]+\\.[0-9]+$"
        }
        /^AES limit:/ { sec = "aes"; next }
        /^GCM limit:/ { sec = "gcm"; head = $0; next }
        /^ratio =/ { sec = "" }
        sec == "" || $0 !~ /^  (xmm|ymm|zmm|v128) / { next }
        sec == "aes" {
            if ($1 == "xmm")
                x86 = 1
            if ($0 !~ /not measured/)
                for (k = 0; k < 3; k++)
                    aes[$1, k] = $(NF - 5 + k)
            next
        }
        {
            w = $1
            seen[w]++
            if (need[w] != 1) {
                if ($0 !~ /not measured: needs/)
                    print w ": measured without its instructions: " $0
                next
            }
            if ($0 ~ /not measured/) {
                print w ": not measured: " $0
                next
            }
            for (k = 0; k < 3; k++) {
                c = $(NF - 5 + k)
                f = $(NF - 2 + k)
                ca = aes[w, k]
                b = 128 + 64 * k
                if (c !~ num || f !~ num || c + 0 <= 0 || f + 0 <= 0) {
                    print w " " b ": c/B " c " or fraction " f \
                        " not a positive number"
                    continue
                }
                if (emu == 1)
                    continue
                if (f + 0 > 1)
                    print w " " b ": fraction of the AES limit " f " > 1"
                if (ca !~ num)
                    print w " " b ": no AES limit to compare with"
                else if (c + 0 < ca - 0.0015)
                    print w " " b ": GCM limit " c " c/B below the AES " \
                        "limit " ca " c/B"
                else if (abs(f - ca / c) > 0.005 + 0.01 * f)
                    print w " " b ": fraction " f " is not AES c/B / " \
                        "GCM c/B = " ca "/" c
            }
        }
        END {
            if (!x86) {
                if (head !~ /^GCM limit: not measured \(/)
                    print "no \"GCM limit: not measured\" line: " head
                for (w in seen)
                    print "a GCM limit line for " w " here"
                exit
            }
            if (head !~ /^GCM limit: (the AES rounds|none of these)/)
                print "no GCM limit header: \"" head "\""
            for (w in need)
                if (seen[w] != 1)
                    print w ": " (seen[w] + 0) " GCM limit lines"
        }' "$1"
}

# check_gcm_limits NAME FILE MASK
check_gcm_limits() {
    gcm_limit_problems "$2" "$3" >"$T/gcmwhy"
    [ ! -s "$T/gcmwhy" ] && pass "$1: GCM limit lines" ||
        fail "$1: $(cat "$T/gcmwhy"): $(sed -n '/^GCM limit/,/^ratio/p' "$2")"
}

# The checks can fail: each copy of FILE (a --gcm report with a measured
# GCM limit) with one thing made wrong must be rejected.
check_gcm_rejects() {
    for bad in fraction cpb ratio header; do
        awk -v bad=$bad '
            /^GCM limit:/ { sec = 1; if (bad == "header") next }
            /^ratio =/ { sec = 0 }
            sec && !done && /^  (xmm|ymm|zmm) / && !/not measured/ {
                if (bad == "fraction") $NF = "1.300"
                if (bad == "cpb") $(NF - 5) = "0.001"
                if (bad == "ratio") $(NF - 2) = "0.010"
                done = 1
            }
            { print }' "$1" >"$T/bad.txt"
        if cmp -s "$1" "$T/bad.txt"; then
            fail "GCM limit check ($bad): nothing to make wrong"
        elif [ -n "$(gcm_limit_problems "$T/bad.txt" "$M0")" ]; then
            pass "GCM limit check rejects a report with a wrong $bad"
        else
            fail "GCM limit check accepts a report with a wrong $bad"
        fi
    done
}

# ---------------------------------------------------------------------------
list=
for b in $(available "$M0"); do
    is_hw "$b" && list="$list,$b"
done
if [ -z "$list" ]; then
    "$RIJN" speed $SHORT --impl ct64 --bits 128 >"$T/none.txt" 2>&1 &&
        grep -qE '^AES limit: (not measured|none of these)' "$T/none.txt" &&
        [ "$(awk '/^backend /{t=1; next} t && NF > 8 && $NF != "-"' "$T/none.txt")" = "" ] ||
        fail "no AES instructions here, yet: $(head -12 "$T/none.txt")"
    [ $failures -eq 0 ] || exit 1
    echo "skip: no backend with AES instructions on this CPU"
    exit 77
fi
list=${list#,}

# attempt NAME FN [ARGS]: FN runs rijn speed and checks what it printed.
# Some bounds are on timings (a row's fraction at most 1.2), and a
# neighbour on a shared machine (another test under ctest -j2, another
# guest on the host) can push one short run past them. (The GCM limit's
# "/AES" was one, at most 1.10, while it was the median of all pairs: CI
# saw 1.18 once, and on a Zen 5 host short runs gave 0.94-1.07 where the
# truth is 1.00; since 2026-12-07 limit.c takes the pairs a neighbour did
# not slow and caps the ratio at 1.)
# So a failed FN runs again, 3 tries in all, and only the last one counts;
# a check that fails for any other reason fails every try.
attempt() {
    a_name=$1
    shift
    a_try=1
    while :; do
        a_before=$failures
        "$@" >"$T/try.log" 2>&1
        if [ $failures -eq $a_before ] || [ $a_try -ge 3 ]; then
            cat "$T/try.log"
            return
        fi
        echo "note: $a_name: try $a_try failed (timing on a busy machine?), again:"
        grep '^FAIL' "$T/try.log" | cut -c1-300 | sed 's/^/  /'
        failures=$a_before
        a_try=$((a_try + 1))
    done
}

# AES-CTR, every hardware-AES backend and ct64, with the peers' columns
ctr_run() {
    "$RIJN" speed $SHORT --bits 128,256 --impl "$list,ct64" >"$T/ctr.txt" ||
        fail "rijn speed --impl $list,ct64 failed"
    check_limits "speed (CTR)" "$T/ctr.txt" "$M0"
    check_table "speed (CTR) --impl $list,ct64" "$T/ctr.txt"
    grep -q '^GCM limit' "$T/ctr.txt" &&
        fail "speed (CTR): a GCM limit without --gcm" ||
        pass "speed (CTR): no GCM limit without --gcm"
}
attempt "speed (CTR)" ctr_run

# AES-GCM, without peers: the AES and the GCM limit
gcm_run() {
    "$RIJN" speed --gcm $SHORT --bits 256 --no-openssl --no-gcrypt \
        --impl "$list" >"$T/gcm.txt" || fail "rijn speed --gcm failed"
    check_limits "speed --gcm" "$T/gcm.txt" "$M0"
    check_gcm_limits "speed --gcm" "$T/gcm.txt" "$M0"
    check_table "speed --gcm --impl $list" "$T/gcm.txt"
    if [ "$EMULATED" != 1 ] &&
        grep -qE '^GCM limit: the AES rounds' "$T/gcm.txt"; then
        check_gcm_rejects "$T/gcm.txt"
        # and the table check rejects a row whose fraction of the GCM limit is
        # below its fraction of the AES limit
        awk '/^backend / { t = 1 }
             t && !d && $NF ~ /^[0-9]+\.[0-9]+$/ && $(NF - 1) ~ /^[0-9]+\.[0-9]+$/ {
                 $NF = sprintf("%.3f", $(NF - 1) / 2); d = 1 }
             { print }' "$T/gcm.txt" >"$T/badrow.txt"
        if cmp -s "$T/gcm.txt" "$T/badrow.txt"; then
            fail "GCM table check: no row to make wrong"
        elif (check_table "bad row" "$T/badrow.txt") 2>&1 | grep -q "^FAIL"; then
            pass "GCM table check rejects a GCM-limit fraction under the AES one"
        else
            fail "GCM table check accepts a GCM-limit fraction under the AES one"
        fi
    fi
}
attempt "speed --gcm" gcm_run

# --json: the aes_limit object and the fields of every row
json_run() {
    "$RIJN" speed $SHORT --bits 192 --no-openssl --no-gcrypt --json \
        --impl "$list,ct64" >"$T/ctr.json" || fail "rijn speed --json failed"
    if command -v python3 >/dev/null 2>&1; then
        python3 -m json.tool "$T/ctr.json" >/dev/null &&
            pass "speed --json: valid JSON (python3 -m json.tool)" ||
            fail "speed --json: not valid JSON"
        python3 - "$T/ctr.json" "$EMULATED" "$(features "$M0")" <<'EOF' &&
import json, sys
d = json.load(open(sys.argv[1]))
emulated, feat = sys.argv[2] == "1", sys.argv[3].split(",")
lim = d["aes_limit"]
assert lim["measured"] is True and lim["chains"] > 0 and lim["runs"] > 0, lim
widths = {w["width"]: w for w in lim["widths"]}
x86 = "xmm" in widths
assert x86 or "v128" in widths, widths
if x86:
    have = {"xmm": ["aesni"], "ymm": ["aesni", "vaes", "avx"],
            "zmm": ["aesni", "vaes", "avx512f"]}
    for w, need in have.items():
        assert widths[w]["available"] == all(n in feat for n in need), (w, feat)
for w in widths.values():
    if not w["available"]:
        continue
    assert w["byte_rounds_per_cycle"] > 0 and w["byte_rounds_per_second"] > 0
    assert [(x["bits"], x["rounds"]) for x in w["limits"]] == \
        [(128, 10), (192, 12), (256, 14)], w
    for x in w["limits"]:
        assert x["cycles_per_byte"] > 0 and x["gbps"] > 0, x
hw = {"aesni": "xmm", "vaes-avx2": "ymm", "vaes-avx512": "zmm",
      "armv8": "v128", "ppc8": "v128"}
n = 0
for r in d["results"]:
    assert "limit_width" in r and "limit_fraction" in r, r
    assert r["limit_width"] == hw.get(r["impl"]), r
    f = r["limit_fraction"]
    if r["impl"] in hw and r["bytes"] > 0:
        assert f is not None and f > 0 and (emulated or f <= 1.2), r
        # the fraction is rijn's bytes/s over the limit of width and size
        # timed between the row's repetitions (limit_gbps), the same loop
        # as the limit at start: within a factor 1.5 of it (30% here is
        # the clock of a shared machine moving, not a wrong loop)
        w = widths[r["limit_width"]]
        g = [x["gbps"] for x in w["limits"] if x["bits"] == r["bits"]][0]
        lg = r["limit_gbps"]
        assert lg is not None and lg > 0, r
        assert emulated or g / 1.5 <= lg <= g * 1.5, (r, g)
        assert abs(f - r["rijn"]["gbps"] / lg) <= 0.002 + 0.002 * f, (r, lg)
        n += 1
    else:
        assert f is None and r["limit_gbps"] is None, r
assert n > 0
assert all("gcm_limit" not in w for w in lim["widths"]), "gcm_limit in CTR"
EOF
            pass "speed --json: aes_limit and per-row limit fields" ||
            fail "speed --json: aes_limit or row fields wrong"
        # --gcm: a gcm_limit per width
        "$RIJN" speed --gcm $SHORT --bits 128 --no-openssl --no-gcrypt --json \
            --impl "${list%%,*}" >"$T/gcm.json" ||
            fail "rijn speed --gcm --json failed"
        cat >"$T/gcm_json.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
emulated, feat = sys.argv[2] == "1", sys.argv[3].split(",")
need = {"xmm": ["aesni", "pclmul"], "ymm": ["aesni", "vaes", "avx", "vpclmul"],
        "zmm": ["aesni", "vaes", "avx512f", "vpclmul"]}
n = want = 0
for w in d["aes_limit"]["widths"]:
    g = w["gcm_limit"]
    if w["width"] not in need:  # aarch64, ppc64: no GCM limit
        assert g["available"] is False and g["reason"], g
        continue
    have = all(x in feat for x in need[w["width"]])
    want += have
    assert g["available"] == have, (w["width"], feat, g)
    if not have:
        assert g["needs"], g
        continue
    assert g["multiplies_per_register"] == 3 and g["chains"] > 0 and \
        g["runs"] > 0, g
    assert [(x["bits"], x["rounds"]) for x in g["limits"]] == \
        [(128, 10), (192, 12), (256, 14)], g
    aes = {x["bits"]: x["cycles_per_byte"] for x in w["limits"]}
    for x in g["limits"]:
        f, c, ca = x["fraction_of_aes_limit"], x["cycles_per_byte"], \
            aes[x["bits"]]
        assert f is not None and f > 0 and c > 0 and x["gbps"] > 0, x
        if not emulated:
            assert f <= 1 and c >= ca - 0.0002, (x, ca)
        assert abs(f - ca / c) <= 0.002 + 0.002 * f, (x, ca)
        n += 1
assert n == 3 * want, (n, want)
# every row: gcm_limit_gbps, the GCM limit timed between its repetitions
# (fastest of those runs, at most the AES limit timed beside it), and
# gcm_limit_fraction, rijn's bytes/s over it
gcm = {w["width"]: w["gcm_limit"] for w in d["aes_limit"]["widths"]}
rows = 0
for r in d["results"]:
    gl, gf = r["gcm_limit_gbps"], r["gcm_limit_fraction"]
    g = gcm.get(r["limit_width"])
    if r["limit_gbps"] is None or g is None or not g["available"]:
        assert gl is None and gf is None, r
        continue
    start = [x["gbps"] for x in g["limits"] if x["bits"] == r["bits"]][0]
    assert gl is not None and 0 < gl <= r["limit_gbps"] + 0.0002, r
    assert emulated or start / 1.5 <= gl <= start * 1.5, (r, start)
    assert gf is not None and gf >= r["limit_fraction"] - 0.002, r
    assert abs(gf - r["rijn"]["gbps"] / gl) <= 0.002 + 0.002 * gf, r
    rows += 1
assert rows > 0 or want == 0, (rows, want)
EOF
        python3 "$T/gcm_json.py" "$T/gcm.json" "$EMULATED" "$(features "$M0")" &&
            pass "speed --gcm --json: gcm_limit per width" ||
            fail "speed --gcm --json: gcm_limit wrong"
        # ... and the check can fail: a fraction of the AES limit of 1.3; a
        # row's GCM limit doubled, or its fraction of it halved
        if [ "$EMULATED" != 1 ] &&
            grep -q '"fraction_of_aes_limit": [0-9]' "$T/gcm.json"; then
            f='"fraction_of_aes_limit"'
            sed "s/$f: [0-9.]*/$f: 1.3/" "$T/gcm.json" >"$T/bad.json"
            python3 "$T/gcm_json.py" "$T/bad.json" 0 "$(features "$M0")" \
                2>/dev/null &&
                fail "speed --gcm --json: check accepts a fraction of 1.3" ||
                pass "speed --gcm --json: check rejects a fraction of 1.3"
            for key in gcm_limit_gbps:2 gcm_limit_fraction:0.5; do
                python3 - "$T/gcm.json" "${key%%:*}" "${key#*:}" \
                    >"$T/bad.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
r = next(r for r in d["results"] if r.get(sys.argv[2]) is not None)
r[sys.argv[2]] *= float(sys.argv[3])
json.dump(d, sys.stdout)
EOF
                python3 "$T/gcm_json.py" "$T/bad.json" 0 \
                    "$(features "$M0")" 2>/dev/null &&
                    fail "speed --gcm --json: check accepts a row's ${key%%:*} x ${key#*:}" ||
                    pass "speed --gcm --json: check rejects a row's ${key%%:*} x ${key#*:}"
            done
        fi
    else
        grep -q '"aes_limit": {"measured": true' "$T/ctr.json" &&
            grep -q '"limit_fraction": [0-9]' "$T/ctr.json" &&
            pass "speed --json: fields present (python3 absent: not parsed)" ||
            fail "speed --json: aes_limit or limit_fraction missing"
    fi
}
attempt "speed --json" json_run

# --no-limit: nothing measured, no fraction
"$RIJN" speed $SHORT --bits 128 --no-openssl --no-gcrypt --no-limit \
    --impl "${list%%,*}" >"$T/off.txt" || fail "rijn speed --no-limit failed"
grep -q '^AES limit: not measured (--no-limit)$' "$T/off.txt" &&
    [ "$(awk '/^backend /{t=1; next} t && NF > 8 && $NF != "-"' "$T/off.txt")" = "" ] &&
    pass "speed --no-limit: no limit, no fractions" ||
    fail "speed --no-limit: $(cat "$T/off.txt")"

# mask_run: speed --gcm under RIJN_CPU_MASK=$mask, the backends $mlist
mask_run() {
    RIJN_CPU_MASK=$mask "$RIJN" speed --gcm $SHORT --bits 128 \
        --no-openssl --no-gcrypt --impl "${mlist:-ct64}" >"$T/mask.txt" ||
        fail "RIJN_CPU_MASK=$mask rijn speed --gcm failed"
    check_limits "RIJN_CPU_MASK=$mask speed --gcm" "$T/mask.txt" "$mask"
    check_gcm_limits "RIJN_CPU_MASK=$mask speed --gcm" "$T/mask.txt" "$mask"
    # with no backend left that has AES instructions, nothing to check
    [ -z "$mlist" ] ||
        check_table "RIJN_CPU_MASK=$mask speed --gcm --impl $mlist" \
            "$T/mask.txt"
}

# RIJN_CPU_MASK takes widths away: x86 the VAES and AVX-512 ones, or all
# with aesni; aarch64 (aes) and ppc64 (vcrypto) the only one
feat=$(features "$M0")
for m in vaes avx512f aesni aes vcrypto; do
    if ! has_feature "$feat" "$m"; then
        echo "skip: RIJN_CPU_MASK=$m: this CPU has no $m (or it is masked)"
        continue
    fi
    case $M0 in
    0x* | 0X*)
        echo "skip: RIJN_CPU_MASK=$M0 is a hexadecimal mask: not adding $m"
        continue ;;
    esac
    mask=${M0:+$M0,}$m
    mlist=
    for b in $(available "$mask"); do
        is_hw "$b" && mlist="$mlist,$b"
    done
    mlist=${mlist#,}
    attempt "RIJN_CPU_MASK=$mask" mask_run
done

[ $failures -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
exit 0

#!/bin/sh
# Masking each CPU feature in turn turns off exactly what needs it.
#
#   cpu_masks.sh RIJN      (RIJN: the tool, or its rijn-emulated wrapper)
#
# For every feature in the `cpu features:` line of `rijn impl`, runs
# `rijn impl` again with that feature masked and checks, in each table
# (AES backends, Poly1305 engines, GHASH engines) and on the `hash:` line
# (the SHA-NI path of SHA-1/SHA-256):
#   - every implementation whose needs name the feature is unavailable;
#   - every other one keeps the availability it had without the mask;
#   - the defaults (`<- default`, the GHASH engines marked `<- for ...`,
#     the pair of `gcm default:`) are available ones;
#   - `cpu features:` lost that feature and nothing else.
# A RIJN_CPU_MASK already in the environment (the x86 qemu models set
# one) is honoured: the features it removes stay removed, in name form,
# and only what is left is masked in turn. RIJN_IMPL and the other
# overrides are unset: the test is about the library's own picks.
# Exit 0: all good; 1: a failure; 77: no feature to mask (skipped).
set -u
[ $# -eq 1 ] || { echo "usage: $0 RIJN" >&2; exit 2; }
rijn=$1
unset RIJN_IMPL RIJN_POLY1305_IMPL RIJN_GHASH_IMPL RIJN_ALLOW_VARIABLE_TIME
tmp=${TMPDIR:-/tmp}/rijn-cpu-masks.$$
mkdir -p "$tmp" || exit 1
trap 'rm -rf "$tmp"' EXIT

impl() { # mask outfile
  RIJN_CPU_MASK=$1 "$rijn" impl >"$2" 2>&1 || {
    echo "FAIL: RIJN_CPU_MASK=$1 rijn impl exited non-zero:"
    sed 's/^/  | /' "$2"
    exit 1
  }
}
features() { sed -n 's/^cpu features: *//p' "$1"; }

# One line per implementation: "table name available needs mark", mark
# being "pick" for a default or a GHASH engine some backend pairs with,
# else "-"; then the hash path and the gcm pair.
rows() {
  awk '
    /^AES backends/ { t = "aes" } /^Poly1305 engines/ { t = "poly1305" }
    /^GHASH engines/ { t = "ghash" } /^cpu features/ { t = "" }
    t != "" && /^  [a-z0-9-]+ +(yes|no) +(yes|NO) / {
      print t, $1, $2, $4, (/<- (default|for )/ ? "pick" : "-")
    }
    /^hash: / {
      n = split($0, w, " ")
      if (w[n - 1] == "needs") {
        name = w[n - 2]; needs = w[n]; sub(/\)$/, "", needs)
        print "hash", name, ($2 == name ? "yes" : "no"), needs, "-"
      }
    }
    /^gcm default: / { print "gcmpair", $3, $5 }
  ' "$1"
}

impl "" "$tmp/full"
impl "${RIJN_CPU_MASK-}" "$tmp/base"
full=$(features "$tmp/full")
base=$(features "$tmp/base")
rows "$tmp/base" >"$tmp/base.rows"
# Features the environment's mask removed, as names.
removed=$(echo "$full" | tr ',' '\n' |
  awk -v b=",$base," 'NF && index(b, "," $0 ",") == 0' | paste -sd, -)
echo "cpu features: ${base:-(none)}${RIJN_CPU_MASK:+ (RIJN_CPU_MASK=$RIJN_CPU_MASK removes ${removed:-nothing})}"
for t in aes poly1305 ghash; do
  grep -q "^$t " "$tmp/base.rows" || {
    echo "FAIL: no $t table in rijn impl"; sed 's/^/  | /' "$tmp/base"; exit 1; }
done
if [ -z "$base" ]; then
  echo "SKIPPED: this CPU (after RIJN_CPU_MASK) has no feature to mask"
  exit 77
fi

status=0
for f in $(echo "$base" | tr ',' ' '); do
  mask=${removed:+$removed,}$f
  impl "$mask" "$tmp/masked"
  rows "$tmp/masked" >"$tmp/masked.rows"
  want=$(echo "$base" | tr ',' '\n' | grep -vx "$f" | paste -sd, -)
  got=$(features "$tmp/masked")
  [ "$got" = "$want" ] || {
    echo "FAIL: RIJN_CPU_MASK=$mask: cpu features '$got', expected '$want'"
    status=1
  }
  # awk: the checks; prints one FAIL line per problem, then a summary.
  awk -v f="$f" -v mask="$mask" '
    function needs_f(needs,   n, i, a) {
      n = split(needs, a, ",")
      for (i = 1; i <= n; i++) if (a[i] == f) return 1
      return 0
    }
    function fail(msg) { print "FAIL: RIJN_CPU_MASK=" mask ": " msg; bad = 1 }
    FNR == NR { if ($1 != "gcmpair") was[$1 " " $2] = $3; next }
    $1 == "gcmpair" { pair_aes = $2; pair_gh = $3; next }
    {
      k = $1 " " $2; seen[k] = 1; avail[k] = $3
      if (!(k in was)) fail($1 " " $2 " is new")
      else if (needs_f($4)) {
        if ($3 != "no") fail(k " needs " f " (" $4 ") but is available")
        off = off " " $2
      } else if ($3 != was[k])
        fail(k " does not need " f " (" $4 ") but its availability " \
             "changed from " was[k] " to " $3)
      if ($5 == "pick" && $3 != "yes") fail(k " is picked but unavailable")
      checked++
    }
    END {
      for (k in was) if (!(k in seen)) fail(k " is no longer listed")
      if (pair_aes == "" || avail["aes " pair_aes] != "yes" ||
          avail["ghash " pair_gh] != "yes")
        fail("gcm default \"" pair_aes " with " pair_gh "\" is not an available pair")
      printf "masked %-10s %2d implementations checked; unavailable now:%s\n",
        f, checked, off == "" ? " (none)" : off
      exit bad
    }' "$tmp/base.rows" "$tmp/masked.rows" || status=1
done
[ $status -eq 0 ] && echo "all masks: OK"
exit $status

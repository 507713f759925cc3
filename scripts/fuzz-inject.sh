#!/usr/bin/env bash
# Proof that the fuzzers' oracles bite (issue 19): for each deliberate bug
# of src/inject.h, run the fuzz target that should find it, in a build with
# -DRIJN_FUZZ=ON -DRIJN_INJECT_BUGS=ON and RIJN_INJECT=n, fresh (a new work
# folder, started from a copy of the committed seed corpus), for at most
# $RIJN_INJECT_SECONDS (default 120) seconds, and print a table:
#
#   bug  target  found  seconds  how  without the bug
#
#   found            yes/no: the target failed (an oracle or a sanitizer)
#   seconds          wall time from the start to the failure
#   how              "seeds": while loading the seed corpus; "fuzzing": on
#                    an input libFuzzer made
#   without the bug  the failing input run again with RIJN_INJECT unset:
#                    "passes" (the failure was the bug's) or "FAILS" (a
#                    false positive, or a real bug: look at it)
#
#   scripts/fuzz-inject.sh [--empty] [BUG...]      (default: bugs 1..8)
#
# --empty starts from an empty corpus instead of the seeds. A bug whose
# RIJN_INJECTED(n) appears nowhere under src/ is listed as "not injected".
# Exit status 1 if an injected bug was not found, or a finding also fails
# without the bug.
#
# Environment: RIJN_FUZZ_INJECT_DIR (build folder, default
# ./build-fuzz-inject), RIJN_INJECT_SECONDS, RIJN_JOBS.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${RIJN_FUZZ_INJECT_DIR:-$root/build-fuzz-inject}
secs=${RIJN_INJECT_SECONDS:-120}
jobs=${RIJN_JOBS:-$(nproc)}

# The target that should find each bug (src/inject.h describes them).
target_of() {
  case $1 in
  1 | 2 | 3 | 4 | 8) echo gcm ;;
  5) echo ctr ;;
  6) echo poly1305aes ;;
  7) echo chunked ;;
  *) return 1 ;;
  esac
}
what_of() {
  case $1 in
  1) echo "GCM inc32 carries into the upper 96 bits" ;;
  2) echo "GCM wrong power of H for a tail" ;;
  3) echo "GCM extra zero block after 16n bytes of AAD" ;;
  4) echo "GCM streaming split in a partial block loses state" ;;
  5) echo "CTR carry stops at byte 8" ;;
  6) echo "Poly1305 missing final carry" ;;
  7) echo "chunked last-chunk flag ignored" ;;
  8) echo "GCM tag compared on 12 of 16 bytes" ;;
  esac
}

empty=0
bugs=()
for a in "$@"; do
  case $a in
  --empty) empty=1 ;;
  [1-8]) bugs+=("$a") ;;
  *) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
  esac
done
[ ${#bugs[@]} -gt 0 ] || bugs=(1 2 3 4 5 6 7 8)

mkdir -p "$dir" || exit 1
if ! cmake -S "$root" -B "$dir" -DCMAKE_C_COMPILER=clang -DRIJN_FUZZ=ON \
    -DRIJN_INJECT_BUGS=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIJN_WERROR=ON \
    >"$dir/configure.log" 2>&1; then
  cat "$dir/configure.log" >&2
  exit 1
fi
targets=()
for b in "${bugs[@]}"; do targets+=("fuzz_$(target_of "$b")"); done
mapfile -t targets < <(printf '%s\n' "${targets[@]}" | sort -u)
if ! cmake --build "$dir" -j"$jobs" --target "${targets[@]}" >"$dir/build.log" 2>&1; then
  grep -E "error|Error" "$dir/build.log" | head -n 40 >&2
  echo "fuzz-inject.sh: build failed (see $dir/build.log)" >&2
  exit 1
fi

export RIJN_ALLOW_VARIABLE_TIME=1
status=0
rows=()
for b in "${bugs[@]}"; do
  t=$(target_of "$b")
  if ! grep -rqF "RIJN_INJECTED($b)" "$root/src"; then
    rows+=("$(printf '%-3s %-12s %-6s %8s  %-8s %-15s %s' "$b" "$t" "-" "-" "-" "-" \
      "$(what_of "$b"): not injected (no RIJN_INJECTED($b) under src/)")")
    continue
  fi
  run=$dir/inject-$b
  rm -rf "$run"
  mkdir -p "$run/work" "$run/seeds"
  [ $empty -eq 1 ] || cp "$root/tests/fuzz/corpus/$t"/* "$run/seeds"/ 2>/dev/null
  read -r -a flags <"$dir/tests/fuzz/fuzz_$t.flags" || flags=()
  echo "=== bug $b ($(what_of "$b")): fuzz_$t, up to $secs s" >&2
  start=$(date +%s.%N)
  RIJN_INJECT=$b "$dir/tests/fuzz/fuzz_$t" "${flags[@]}" -max_total_time="$secs" \
    -timeout=30 -error_exitcode=1 -artifact_prefix="$run/" "$run/work" "$run/seeds" \
    >"$run/log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  if [ $rc -eq 0 ]; then
    found=no
    took=-
    how=-
    clean=-
    status=1
  else
    found=yes
    took=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
    # libFuzzer prints INITED once the seed corpus is loaded
    if grep -q "INITED" "$run/log"; then how=fuzzing; else how=seeds; fi
    art=$(ls "$run"/crash-* "$run"/leak-* "$run"/timeout-* "$run"/oom-* 2>/dev/null | head -n 1)
    if [ -n "$art" ] && "$dir/tests/fuzz/fuzz_$t" "$art" >"$run/clean.log" 2>&1; then
      clean=passes
    else
      clean=FAILS
      status=1
    fi
  fi
  why=$(grep -m1 -oE "FUZZ ORACLE FAILURE: .{0,100}|ERROR: [A-Za-z]+Sanitizer: [a-z-]+|runtime error: .{0,60}" "$run/log")
  rows+=("$(printf '%-3s %-12s %-6s %8s  %-8s %-15s %s' "$b" "$t" "$found" "$took" "$how" "$clean" \
    "$(what_of "$b")${why:+ -- ${why#FUZZ ORACLE FAILURE: }}")")
done

echo
echo "injected bugs, from the $([ $empty -eq 1 ] && echo "empty corpus" || echo "seed corpus"), at most $secs s each:"
printf '%-3s %-12s %-6s %8s  %-8s %-15s %s\n' bug target found seconds how "without the bug" "bug -- first failure"
for r in "${rows[@]}"; do echo "$r"; done
exit $status

#!/usr/bin/env bash
# Runs one libFuzzer target of tests/fuzz for a while (issue 19).
#
#   scripts/fuzz.sh TARGET [SECONDS] [--merge] [-- libFuzzer options...]
#   scripts/fuzz.sh --list
#
# Builds the fuzzing build (clang, -DRIJN_FUZZ=ON: ASan+UBSan and
# libFuzzer; folder $RIJN_FUZZ_DIR, default ./build-fuzz) and runs
# fuzz_TARGET for SECONDS (default 600) from tests/fuzz/corpus/TARGET and
# tests/fuzz/regress/TARGET with the target's own options (its FLAGS in
# tests/fuzz/CMakeLists.txt). New inputs go to $RIJN_FUZZ_DIR/work/TARGET
# (kept between runs), never into the source tree; a finding is saved as
# $RIJN_FUZZ_DIR/artifacts/TARGET-crash-* and makes the exit status 1:
# replay it with `fuzz_replay_TARGET FILE` (any build), fix the bug, and
# commit the file into tests/fuzz/regress/TARGET/.
#
# --merge: afterwards, minimise the committed corpus together with what
# the run found (libFuzzer -merge=1 -use_counters=0: a small set of inputs
# that reaches every edge they reach) and write it back to
# tests/fuzz/corpus/TARGET (review and commit it; SECONDS 0 merges only).
#
# Environment: RIJN_FUZZ_DIR, RIJN_JOBS (build jobs, default nproc),
# RIJN_INJECT=n with RIJN_FUZZ_DIR pointing at a -DRIJN_INJECT_BUGS=ON build
# (scripts/fuzz-inject.sh does that).
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${RIJN_FUZZ_DIR:-$root/build-fuzz}
jobs=${RIJN_JOBS:-$(nproc)}

usage() {
  sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 2
}

configure() {
  mkdir -p "$dir" || exit 1
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    if ! cmake -S "$root" -B "$dir" -DCMAKE_C_COMPILER=clang -DRIJN_FUZZ=ON \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIJN_WERROR=ON \
        ${RIJN_FUZZ_CMAKE_ARGS:-} >"$dir/configure.log" 2>&1; then
      cat "$dir/configure.log" >&2
      echo "fuzz.sh: configure failed (clang with libFuzzer: scripts/setup.sh --test)" >&2
      exit 1
    fi
  else
    cmake "$dir" >"$dir/configure.log" 2>&1 || { cat "$dir/configure.log" >&2; exit 1; }
  fi
}

[ $# -ge 1 ] || usage
if [ "$1" = --list ]; then
  configure
  cat "$dir/tests/fuzz/targets.txt"
  exit 0
fi
case $1 in -*) usage ;; esac
target=$1
shift
secs=600
merge=0
extra=()
while [ $# -gt 0 ]; do
  case $1 in
  --merge) merge=1 ;;
  --) shift; extra=("$@"); break ;;
  [0-9]*) secs=$1 ;;
  *) usage ;;
  esac
  shift
done

configure
if ! grep -qx "$target" "$dir/tests/fuzz/targets.txt"; then
  echo "fuzz.sh: no target '$target'; targets: $(tr '\n' ' ' <"$dir/tests/fuzz/targets.txt")" >&2
  exit 2
fi
if ! cmake --build "$dir" -j"$jobs" --target "fuzz_$target" >"$dir/build.log" 2>&1; then
  grep -E "error|Error" "$dir/build.log" | head -n 40 >&2
  echo "fuzz.sh: build failed (see $dir/build.log)" >&2
  exit 1
fi

bin=$dir/tests/fuzz/fuzz_$target
corpus=$root/tests/fuzz/corpus/$target
regress=$root/tests/fuzz/regress/$target
work=$dir/tests/fuzz/work/$target
art=$dir/tests/fuzz/artifacts
mkdir -p "$work" "$art" "$corpus" "$regress"
read -r -a flags <"$dir/tests/fuzz/fuzz_$target.flags" || flags=()
export RIJN_ALLOW_VARIABLE_TIME=1

status=0
if [ "$secs" -gt 0 ]; then
  echo "fuzz.sh: fuzz_$target for $secs s (corpus $corpus, new inputs in $work)"
  "$bin" "${flags[@]}" -max_total_time="$secs" -timeout=30 -error_exitcode=1 -print_final_stats=1 \
    -artifact_prefix="$art/$target-" "${extra[@]}" "$work" "$corpus" "$regress" \
    >"$dir/fuzz-$target.log" 2>&1
  status=$?
  grep -E "^#[0-9]+[[:space:]]+DONE|^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)" \
    "$dir/fuzz-$target.log"
  if [ $status -ne 0 ]; then
    echo "fuzz.sh: FINDING (exit $status); the report:"
    grep -E "FUZZ ORACLE FAILURE|ERROR: |SUMMARY: |Test unit written to|runtime error" \
      "$dir/fuzz-$target.log" | head -n 20
    echo "fuzz.sh: full log: $dir/fuzz-$target.log"
  fi
fi

if [ $merge -eq 1 ]; then
  new=$dir/tests/fuzz/merged-$target
  rm -rf "$new"
  mkdir -p "$new"
  # -use_counters=0: keep the inputs that reach new edges (not new hit
  # counts of the same edges): a small corpus, cheap to replay under qemu
  if "$bin" "${flags[@]}" -merge=1 -use_counters=0 -timeout=30 "$new" "$corpus" "$work" \
      >"$dir/merge-$target.log" 2>&1; then
    before=$(find "$corpus" -type f | wc -l)
    rm -f "$corpus"/*
    cp "$new"/* "$corpus"/ 2>/dev/null
    echo "fuzz.sh: corpus minimised: $before -> $(find "$corpus" -type f | wc -l) files," \
      "$(du -sb "$corpus" | cut -f1) bytes in $corpus (review and commit)"
  else
    tail -n 20 "$dir/merge-$target.log"
    echo "fuzz.sh: merge failed (see $dir/merge-$target.log)" >&2
    status=1
  fi
fi
exit $status

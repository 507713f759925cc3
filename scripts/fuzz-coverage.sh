#!/usr/bin/env bash
# Source coverage of the fuzz corpora (issue 19): builds the replay drivers
# of tests/fuzz with clang's source-based coverage (-fprofile-instr-generate
# -fcoverage-mapping; no sanitizers, no libFuzzer), replays
# tests/fuzz/corpus/<target> and tests/fuzz/regress/<target> of every
# target, merges the profiles and prints llvm-cov's per-file line and
# region coverage of src/modes, src/file, src/mac, src/ghash and
# src/aes/x86 (the code that runs on this machine: another architecture's
# files show as not compiled in).
#
#   scripts/fuzz-coverage.sh [TARGET...]     (default: every target)
#
# Also writes, in the build folder: coverage.txt (the table),
# uncovered.txt (each file's lines that no input reached, from llvm-cov
# show) and coverage.profdata.
#
# Environment: RIJN_FUZZ_COV_DIR (build folder, default ./build-fuzz-cov),
# RIJN_JOBS. Needs clang and llvm-profdata/llvm-cov of the same version
# (Debian: clang, llvm; scripts/setup.sh --test).
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${RIJN_FUZZ_COV_DIR:-$root/build-fuzz-cov}
jobs=${RIJN_JOBS:-$(nproc)}

# llvm tools of clang's version
major=$(clang --version 2>/dev/null | sed -nE 's/.*clang version ([0-9]+).*/\1/p' | head -n 1)
tool() {
  if command -v "$1-$major" >/dev/null 2>&1; then echo "$1-$major"
  elif command -v "$1" >/dev/null 2>&1; then echo "$1"
  else echo "fuzz-coverage.sh: $1 not found (apt-get install llvm; scripts/setup.sh --test)" >&2; exit 1
  fi
}
profdata=$(tool llvm-profdata) || exit 1
cov=$(tool llvm-cov) || exit 1

mkdir -p "$dir" || exit 1
flags="-fprofile-instr-generate -fcoverage-mapping"
if ! cmake -S "$root" -B "$dir" -DCMAKE_C_COMPILER=clang \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fprofile-instr-generate" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fprofile-instr-generate" \
    >"$dir/configure.log" 2>&1; then
  cat "$dir/configure.log" >&2
  exit 1
fi
if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(grep -v '^$' "$dir/tests/fuzz/targets.txt")
fi
bins=()
for t in "${targets[@]}"; do bins+=("fuzz_replay_$t"); done
if ! cmake --build "$dir" -j"$jobs" --target "${bins[@]}" >"$dir/build.log" 2>&1; then
  grep -E "error|Error" "$dir/build.log" | head -n 40 >&2
  echo "fuzz-coverage.sh: build failed (see $dir/build.log)" >&2
  exit 1
fi

prof=$dir/profiles
rm -rf "$prof"
mkdir -p "$prof"
export RIJN_ALLOW_VARIABLE_TIME=1
status=0
objs=()
for t in "${targets[@]}"; do
  bin=$dir/tests/fuzz/fuzz_replay_$t
  objs+=(-object "$bin")
  # %p: every process (a target may run the tool) writes its own profile
  LLVM_PROFILE_FILE="$prof/$t-%p.profraw" "$bin" "$root/tests/fuzz/corpus/$t" \
    "$root/tests/fuzz/regress/$t" >"$dir/replay-$t.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ] || [ $rc -eq 77 ]; then
    echo "replayed $t: $(tail -n 1 "$dir/replay-$t.log")"
  else
    echo "fuzz-coverage.sh: replay of $t failed (exit $rc, see $dir/replay-$t.log)" >&2
    status=1
  fi
done
# the rijn tool, when a target ran it
[ -x "$dir/tools/rijn" ] && objs+=(-object "$dir/tools/rijn")

"$profdata" merge -sparse "$prof"/*.profraw -o "$dir/coverage.profdata" || exit 1
paths=()
for p in src/modes src/file src/mac src/ghash src/aes/x86; do paths+=("$root/$p"); done
# the first -object is the main binary
"$cov" report "${objs[@]:1}" -instr-profile="$dir/coverage.profdata" \
  -show-region-summary=true -show-functions=false "${paths[@]}" \
  2>"$dir/cov.err" | sed "s|$root/||" >"$dir/coverage.txt"
"$cov" show "${objs[@]:1}" -instr-profile="$dir/coverage.profdata" \
  -show-line-counts=true "${paths[@]}" 2>/dev/null |
  awk -v root="$root/" '
    /^\/.*:$/ { file = $0; sub(":$", "", file); sub(root, "", file); next }
    /^ *[0-9]+\| *0\|/ { split($0, f, "|"); n = f[1] + 0; print file ":" n ":" f[3] }' \
  >"$dir/uncovered.txt"
cat "$dir/coverage.txt"
echo
echo "lines no input reached: $dir/uncovered.txt ($(wc -l <"$dir/uncovered.txt") lines)"
exit $status

#!/usr/bin/env bash
# Builds rijn every way CI checks it and runs every test suite:
#   1. gcc, -Werror, constant-time validation build (valgrind ctgrind tests)
#   2. clang, -Werror
#   3. ASan + UBSan, without the implementations this CPU cannot run (their
#      tests skip in 1 and 2; CMakeLists.txt, RIJN_OMIT)
#   3b. fuzzing: clang, -DRIJN_FUZZ=ON (libFuzzer, ASan+UBSan; RIJN_OMIT as
#      in 3): every fuzz
#      target of tests/fuzz for $RIJN_TEST_FUZZ_SECONDS (default 10) from its
#      corpus, and the corpus replay (which every other build runs too);
#      skipped, with the reason, where clang's libFuzzer is missing
#   4. install, then find_package(rijn) and pkg-config from an outside project
#   5. cross builds run under qemu-user: ppc (G4), ppc64 (G5), ppc64 on POWER8,
#      ppc64le (POWER8), aarch64 (and again as a core without the crypto
#      extension: RIJN_CPU_MASK=aes,pmull, neon-bs picked), armhf (32-bit
#      ARMv7, Cortex-A7: the library's suites, not the CLI's)
#   6. x86 CPU models under qemu: the x86-64 build on CPUs without AES-NI,
#      without AVX2, without VAES, and qemu's widest (scripts/x86-models.sh)
# Set RIJN_TEST_SKIP_CROSS=1 to skip steps 5 and 6 (e.g. without qemu).
# The last line sums every ctest run: "tests: N passed, M failed, K skipped".
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${RIJN_TEST_DIR:-$root/build-test}
jobs=$(nproc)
mkdir -p "$work"

# A backend or engine whose CPU features are present must be tested (a
# skip is then a failure); one whose features this CPU lacks is skipped
# with the reason, which the summary at the end lists (tests/testutil.h,
# tu_require_available).
export RIJN_TEST_REQUIRE_ALL=1

passed=0
failed=0
skipped=0
broken=()

note() { printf '\n=== %s ===\n' "$*"; }

# Every skipped test with its reason, one "label<TAB>reason" line each.
skips=$work/skips.txt
: >"$skips"

# Appends the skipped tests of one ctest run to $skips. The reason is the
# test's "SKIPPED: ..." line (a backend or engine whose CPU features are
# missing) or, failing that, its "skip: ..." line, from ctest's full log.
collect_skips() { # label ctest-output-log LastTest.log
  local t reason
  grep -- '\*\*\*Skipped' "$2" | sed -E 's/.*Test +#[0-9]+: ([^ ]+) .*/\1/' |
  while read -r t; do
    reason=$(awk -v t="$t" '
      $0 ~ "^[0-9]+/[0-9]+ Test: " t "$" { on = 1; next }
      on && /^[0-9]+\/[0-9]+ Test: / { exit }
      on && /SKIPPED: / { sub(/.*SKIPPED: /, ""); print; exit }
      on && /^skip: / { sub(/^skip: /, ""); print; exit }' "$3" 2>/dev/null)
    printf '%s\t%s\n' "$1" "${reason:-$t: no reason printed}" >>"$skips"
  done
}

# Adds one ctest log's summary ("... N tests failed out of M") to the totals.
count() { # label log status
  local line n_fail n_all
  line=$(grep -E 'tests? failed out of [0-9]+' "$2" | tail -n 1)
  if [ -z "$line" ]; then
    broken+=("$1: no test summary")
    return
  fi
  n_fail=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")
  n_all=$(sed -E 's/.* failed out of ([0-9]+).*/\1/' <<<"$line")
  n_skip=$(grep -c -- '\*\*\*Skipped' "$2")
  passed=$((passed + n_all - n_fail - n_skip))
  failed=$((failed + n_fail))
  skipped=$((skipped + n_skip))
  [ "$n_fail" -eq 0 ] && [ "$3" -eq 0 ] || broken+=("$1")
}

# native build + ctest: label builddir [cmake args...] -- [ctest args...]
native() {
  local label=$1 dir=$work/$1
  shift
  local cargs=() targs=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do cargs+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  targs=("$@")
  note "$label"
  if ! cmake -S "$root" -B "$dir" -DRIJN_WERROR=ON "${cargs[@]}" >"$dir.configure.log" 2>&1; then
    cat "$dir.configure.log"; broken+=("$label: configure"); return
  fi
  if ! cmake --build "$dir" -j"$jobs" >"$dir.build.log" 2>&1; then
    tail -n 60 "$dir.build.log"; broken+=("$label: build"); return
  fi
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" "${targs[@]}" >"$dir.ctest.log" 2>&1
  local st=$?
  grep -E '^(The following tests|[[:space:]]+[0-9]+ - |[0-9]+% tests passed)|(Failed|\*\*\*)' "$dir.ctest.log" | tail -n 40
  # what a failing test said (its FAIL lines; dudect's measurements)
  [ $st -eq 0 ] || grep -E ': FAIL: |^FAIL: |^dudect\.' "$dir.ctest.log" | head -n 40
  count "$label" "$dir.ctest.log" "$st"
  collect_skips "$label" "$dir.ctest.log" "$dir/Testing/Temporary/LastTest.log"
}

start=$(date +%s)

native gcc-ctgrind -DCMAKE_C_COMPILER=gcc -DRIJN_CTGRIND=ON
if command -v clang >/dev/null; then
  native clang -DCMAKE_C_COMPILER=clang -DRIJN_TEST_BIG=OFF -- -E '^ctgrind'
else
  broken+=("clang: not installed (scripts/setup.sh --test)")
fi

# The implementations this CPU cannot run (`rijn impl` of the first build,
# its "available" column): the sanitizer and fuzzing builds leave them out
# (CMakeLists.txt, RIJN_OMIT), where they would be compiled for minutes
# only for their tests to be skipped; the two builds above compile every
# one and list each skipped test with its reason.
omit=$("$work/gcc-ctgrind/tools/rijn" impl 2>/dev/null |
       awk '$2 == "no" && NF >= 3 { print $1 }' | sort -u | paste -sd';' -)

native asan-ubsan -DCMAKE_C_COMPILER=gcc -DRIJN_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIJN_TEST_BIG=OFF "-DRIJN_OMIT=$omit" -- -E '^ctgrind'

# 3b: the libFuzzer targets, time-boxed (tests/fuzz/CMakeLists.txt: the
# ctest entries fuzz.run.<target> and fuzz.replay.<target>).
fuzz_step() {
  local dir=$work/fuzz secs=${RIJN_TEST_FUZZ_SECONDS:-10} t0 why=""
  note "fuzz (libFuzzer, $secs s per target)"
  t0=$(date +%s)
  mkdir -p "$dir"
  printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
    >"$dir.probe.c"
  if ! command -v clang >/dev/null; then
    why="clang is not installed (scripts/setup.sh --test)"
  elif ! clang -fsanitize=fuzzer,address,undefined "$dir.probe.c" -o "$dir.probe" >"$dir.probe.log" 2>&1; then
    why="clang's libFuzzer is missing (libclang-rt-dev; scripts/setup.sh --test)"
  fi
  if [ -n "$why" ]; then
    echo "fuzz: SKIPPED: $why"
    printf 'fuzz\t%s\n' "$why" >>"$skips"
    skipped=$((skipped + 1))
    return
  fi
  if ! cmake -S "$root" -B "$dir" -DCMAKE_C_COMPILER=clang -DRIJN_FUZZ=ON -DRIJN_WERROR=ON \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRIJN_FUZZ_SECONDS="$secs" "-DRIJN_OMIT=$omit" \
      >"$dir.configure.log" 2>&1; then
    cat "$dir.configure.log"; broken+=("fuzz: configure"); return
  fi
  local targets=() t
  while read -r t; do
    [ -n "$t" ] && targets+=("fuzz_$t" "fuzz_replay_$t")
  done <"$dir/tests/fuzz/targets.txt"
  if ! cmake --build "$dir" -j"$jobs" --target "${targets[@]}" >"$dir.build.log" 2>&1; then
    tail -n 60 "$dir.build.log"; broken+=("fuzz: build"); return
  fi
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" -L '^fuzz-(run|replay)$' >"$dir.ctest.log" 2>&1
  local st=$?
  grep -E '^(The following tests|[[:space:]]+[0-9]+ - |[0-9]+% tests passed)|(Failed|\*\*\*)' "$dir.ctest.log" | tail -n 40
  [ $st -eq 0 ] || grep -E 'FUZZ ORACLE FAILURE|ERROR: |SUMMARY: |Test unit written' "$dir.ctest.log" | head -n 40
  # executions per second of each target (libFuzzer's final stats)
  awk '/^[0-9]+\/[0-9]+ Test: fuzz\.run\./ { t = $3 }
       /^stat::average_exec_per_sec:/ && t { printf "  %s: %s exec/s\n", t, $2; t = "" }' \
    "$dir/Testing/Temporary/LastTest.log" 2>/dev/null
  count fuzz "$dir.ctest.log" "$st"
  collect_skips fuzz "$dir.ctest.log" "$dir/Testing/Temporary/LastTest.log"
  echo "fuzz step: $(( $(date +%s) - t0 )) s (build, runs and replay)"
}
fuzz_step

note "install + find_package + pkg-config"
if "$root/scripts/install-check.sh" "$work/install-check" >"$work/install-check.log" 2>&1; then
  tail -n 3 "$work/install-check.log"; passed=$((passed + 1))
else
  cat "$work/install-check.log"; failed=$((failed + 1)); broken+=("install-check")
fi

if [ "${RIJN_TEST_SKIP_CROSS:-0}" != 1 ]; then
  for arch in ppc ppc64 ppc64-power8 ppc64le aarch64 armhf; do
    note "cross $arch (qemu-user)"
    log=$work/cross-$arch.log
    mlog=$work/cross/build-cross-$arch/cross-test-masked.log
    rm -f "$mlog"
    # (The G5, qemu-ppc64 -cpu 970, lacks POWER8's vcrypto: its ppc8
    # tests are skipped with that reason.) armhf runs the library's
    # suites (1-2 minutes); the CLI and sealed-file tool tests would add 6
    # minutes under qemu-arm, so they are left to the native and aarch64
    # runs here (`scripts/cross-test.sh armhf` runs them too).
    ctest_args=${RIJN_CTEST_ARGS:-}
    [ "$arch" = armhf ] && ctest_args="-E ^(cli|seal\.cli)\. $ctest_args"
    RIJN_CROSS_DIR=$work/cross RIJN_CTEST_ARGS=$ctest_args \
      "$root/scripts/cross-test.sh" "$arch" >"$log" 2>&1
    st=$?
    grep -E '^(The following tests|[[:space:]]+[0-9]+ - |[0-9]+% tests passed)|(Failed|\*\*\*)' "$log" | tail -n 20
    count "cross-$arch" "$log" "$st"
    collect_skips "cross-$arch" "$log" \
      "$work/cross/build-cross-$arch/Testing/Temporary/LastTest.log"
    # aarch64's second pass, without the crypto extension (cross-test.sh)
    if [ -f "$mlog" ]; then
      grep -E '^(masked:|PICK WRONG)' "$mlog"
      mst=0
      grep -qE '^(PICK WRONG|masked: no ctest)' "$mlog" && mst=1
      count "cross-$arch (RIJN_CPU_MASK)" "$mlog" "$mst"
      collect_skips "cross-$arch (RIJN_CPU_MASK)" "$mlog" "$mlog"
    fi
    [ "$st" -eq 0 ] || tail -n 40 "$log"
  done
fi

if [ "${RIJN_TEST_SKIP_CROSS:-0}" != 1 ] && [ "$(uname -m)" = x86_64 ]; then
  note "x86 CPU models under qemu"
  log=$work/x86-models.log
  "$root/scripts/x86-models.sh" "$work/x86-models" >"$log" 2>&1
  st=$?
  sed -n '/^=== x86 CPU models under qemu/,$p' "$log"
  line=$(grep -E "^tests: " "$log" | tail -n 1)
  if [[ $line =~ ^tests:\ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
    passed=$((passed + BASH_REMATCH[1]))
    failed=$((failed + BASH_REMATCH[2]))
    skipped=$((skipped + BASH_REMATCH[3]))
  else
    broken+=("x86 CPU models under qemu: no test summary")
  fi
  cat "$work/x86-models/skips.txt" >>"$skips" 2>/dev/null
  [ "$st" -eq 0 ] || broken+=("x86 CPU models under qemu (see $log)")
fi

note "summary ($(( $(date +%s) - start )) s)"
for b in "${broken[@]}"; do echo "FAILED: $b"; done
[ -z "$omit" ] ||
  echo "left out of the asan-ubsan and fuzz builds, as this CPU cannot run them: ${omit//;/, }"
if [ -s "$skips" ]; then
  # One line per reason: how many tests, in which runs.
  echo "skipped, by reason:"
  cut -f2 "$skips" | sort | uniq -c | sort -rn | while read -r n reason; do
    runs=$(awk -F'\t' -v r="$reason" '$2 == r { print $1 }' "$skips" |
           sort | uniq -c | awk '{ printf "%s%s %s", sep, $2, $1; sep = ", " }')
    printf '  %3d  %s  [%s]\n' "$n" "$reason" "$runs"
  done
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ ${#broken[@]} -eq 0 ] && [ "$failed" -eq 0 ]

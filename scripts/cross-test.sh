#!/bin/sh
# Cross-architecture build and test under qemu-user.
#
#   scripts/cross-test.sh [arch...]     arch: ppc ppc64 ppc64le aarch64
#                                       (also ppc64-power8); default: all four
#
# For each arch: configure build-cross-<arch> under $RIJN_CROSS_DIR (default
# ./build-cross) with cmake/toolchains/<arch>.cmake, -DRIJN_WERROR=ON
# -DRIJN_BUILD_TOOLS=ON, build with -j$RIJN_JOBS (default 2), run ctest
# --output-on-failure under the toolchain's qemu, and print the ctest
# summary per arch. Exit status is non-zero if any arch failed to
# configure, build or pass its tests.
#
# Environment: RIJN_CROSS_DIR, RIJN_JOBS, RIJN_QEMU_CPU (qemu -cpu
# override), RIJN_CTEST_ARGS (extra ctest arguments, e.g. "-R estream"),
# RIJN_CMAKE_ARGS (extra configure arguments), RIJN_CTEST_TIMEOUT (seconds
# per test, default 300).
# Needs: cmake, qemu-user, gcc-{powerpc,powerpc64,powerpc64le,aarch64}-linux-gnu.
set -u

here=$(cd "$(dirname "$0")/.." && pwd)
crossdir=${RIJN_CROSS_DIR:-./build-cross}
jobs=${RIJN_JOBS:-2}
mkdir -p "$crossdir" || exit 1
crossdir=$(cd "$crossdir" && pwd)

[ $# -gt 0 ] || set -- ppc ppc64 ppc64le aarch64

summary=""
status=0
for arch in "$@"; do
    tc="$here/cmake/toolchains/$arch.cmake"
    bdir="$crossdir/build-cross-$arch"
    log="$bdir/cross-test.log"
    if [ ! -f "$tc" ]; then
        echo "cross-test: no toolchain file $tc" >&2
        summary="$summary
$arch: unknown arch"
        status=1
        continue
    fi
    mkdir -p "$bdir"
    echo "=== $arch: configure ($bdir)"
    # shellcheck disable=SC2086
    if ! cmake -S "$here" -B "$bdir" -DCMAKE_TOOLCHAIN_FILE="$tc" \
            -DCMAKE_BUILD_TYPE=Release -DRIJN_WERROR=ON \
            -DRIJN_BUILD_TOOLS=ON -DRIJN_BUILD_TESTS=ON \
            ${RIJN_QEMU_CPU:+-DRIJN_QEMU_CPU=$RIJN_QEMU_CPU} \
            ${RIJN_CMAKE_ARGS:-} >"$bdir/configure.log" 2>&1; then
        tail -n 30 "$bdir/configure.log"
        summary="$summary
$arch: CONFIGURE FAILED (see $bdir/configure.log)"
        status=1
        continue
    fi
    grep -E "^(RIJN_QEMU|RIJN_QEMU_CPU|CMAKE_C_COMPILER):" "$bdir/CMakeCache.txt" | sed 's/^/    /'
    echo "=== $arch: build"
    if ! cmake --build "$bdir" -j"$jobs" >"$bdir/build.log" 2>&1; then
        grep -E "error|Error" "$bdir/build.log" | head -n 40
        summary="$summary
$arch: BUILD FAILED (see $bdir/build.log)"
        status=1
        continue
    fi
    echo "=== $arch: ctest"
    # shellcheck disable=SC2086
    (cd "$bdir" && ctest --output-on-failure --timeout "${RIJN_CTEST_TIMEOUT:-300}" \
        ${RIJN_CTEST_ARGS:-}) >"$log" 2>&1
    rc=$?
    # show failures and the summary lines
    grep -E "\*\*\*|Failed|Not Run|tests passed|Total Test time" "$log" | tail -n 40
    line=$(grep -E "tests passed" "$log" | tail -n 1)
    skipped=$(grep -c "\*\*\*Skipped" "$log")
    summary="$summary
$arch: ${line:-no ctest summary (see $log)}; $skipped skipped"
    [ $rc -eq 0 ] || status=1
done

echo
echo "=== cross-test summary"
echo "$summary" | sed '/^$/d'
exit $status

#!/bin/sh
# Cross-architecture build and test under qemu-user.
#
#   scripts/cross-test.sh [arch...]     arch: ppc ppc64 ppc64le aarch64
#                                       armhf (also ppc64-power8); default:
#                                       all five
#
# For each arch: configure build-cross-<arch> under $RIJN_CROSS_DIR (default
# ./build-cross) with cmake/toolchains/<arch>.cmake, -DRIJN_WERROR=ON
# -DRIJN_BUILD_TOOLS=ON, build with -j$RIJN_JOBS (default 2), run ctest
# --output-on-failure -j$RIJN_JOBS under the toolchain's qemu, and print the ctest
# summary per arch (and, after configuring, the OpenSSL the *_openssl
# suites compare with: aarch64's and ppc64le's, see setup.sh --test).
# Exit status is non-zero if any arch failed to configure, build or pass
# its tests.
#
# aarch64 gets a second, short pass as a core without the crypto extension
# (Cortex-A53/A72: Raspberry Pi 3 and 4). qemu's models all have AES and
# PMULL, so neon-bs and the neon GHASH would never be the library's own
# pick there: with RIJN_CPU_MASK=aes,pmull, `rijn impl` must pick neon-bs,
# the neon GHASH and the neon Poly1305 (and the OpenSSL provider module
# rijn.so, when built, neon-bs and the neon GHASH: its buildinfo), and the
# suites whose pairing follows the pick run again (GCM with neon-bs and
# the neon GHASH together, Poly1305-AES's stack check on the default
# backend, the CLI's vectors, the provider's stanzas, differential and
# DRBG). Its log is build-cross-aarch64/cross-test-masked.log, with the
# line "masked: N passed, M failed, K skipped" (scripts/test.sh counts
# it); the first pass keeps Testing/Temporary/LastTest.log.
#
# Environment: RIJN_CROSS_DIR, RIJN_JOBS, RIJN_QEMU_CPU (qemu -cpu
# override), RIJN_CTEST_ARGS (extra ctest arguments, e.g. "-R estream"),
# RIJN_CMAKE_ARGS (extra configure arguments), RIJN_CTEST_TIMEOUT (seconds
# per test, default 300).
# Needs: cmake, qemu-user, gcc-{powerpc,powerpc64,powerpc64le,aarch64}-linux-gnu,
# gcc-arm-linux-gnueabihf.
set -u

here=$(cd "$(dirname "$0")/.." && pwd)
crossdir=${RIJN_CROSS_DIR:-./build-cross}
jobs=${RIJN_JOBS:-2}
mkdir -p "$crossdir" || exit 1
crossdir=$(cd "$crossdir" && pwd)

[ $# -gt 0 ] || set -- ppc ppc64 ppc64le aarch64 armhf

# The masked pass of an arch (see above): mask, ctest regex, and the
# picks `rijn impl` must then report ("default:", "gcm default:" and the
# Poly1305 engine marked default).
masked_spec() { # arch
    case $1 in
    aarch64)
        m_mask=aes,pmull
        m_regex='^(gcm_vectors\.(neon-bs|ghash-neon)|gcm_props\.(neon-bs|ghash-neon)|gcm_race\.(neon-bs|ghash-neon)|supercop_aead\.neon-bs|stackwipe\.neon-bs|cli\.vectors|dispatch\.unit|provider\.(stanza\.(rijn|same)|diff|drbg))$'
        m_aes=neon-bs
        m_gcm="neon-bs with neon"
        m_ghash=neon
        m_poly=neon
        return 0 ;;
    esac
    return 1
}

# Runs the masked pass of arch in bdir; 0 if the picks are right and the
# tests pass. Output in $bdir/cross-test-masked.log.
masked_pass() { # arch bdir
    mlog="$2/cross-test-masked.log"
    echo "=== $1: RIJN_CPU_MASK=$m_mask"
    qemu=$(sed -n 's/^RIJN_QEMU:[A-Z]*=//p' "$2/CMakeCache.txt")
    qcpu=$(sed -n 's/^RIJN_QEMU_CPU:[A-Z]*=//p' "$2/CMakeCache.txt")
    m_ok=0
    impl=$(RIJN_CPU_MASK=$m_mask "$qemu" -cpu "$qcpu" "$2/tools/rijn" impl 2>&1)
    {
        echo "$impl"
        echo
        for want in "default: $m_aes " "gcm default: $m_gcm "; do
            if echo "$impl" | grep -q "^$want"; then
                echo "pick ok: $want"
            else
                echo "PICK WRONG: expected \"$want...\""
                m_ok=1
            fi
        done
        if echo "$impl" | sed -n '/^Poly1305 engines/,/^GHASH/p' |
                grep -Eq "^  $m_poly .*<- default"; then
            echo "pick ok: Poly1305 $m_poly"
        else
            echo "PICK WRONG: expected the Poly1305 engine $m_poly"
            m_ok=1
        fi
        # the provider module's own pick (its buildinfo), through the
        # dynamically linked probe of cmake/RijnProviderTest.cmake
        if [ -x "$2/rijn-qemu-dynamic" ] && [ -f "$2/provider/rijn.so" ]; then
            mod=$(RIJN_CPU_MASK=$m_mask "$2/rijn-qemu-dynamic" "$2/rijn-ossl-probe" \
                "$2/provider/rijn.so" 2>&1)
            p_rc=$?
            echo "$mod"
            p_want="(AES $m_aes, GHASH $m_ghash)"
            if [ $p_rc -eq 77 ]; then
                echo "pick not checked: rijn.so $(echo "$mod" | head -n 1)"
            elif [ $p_rc -eq 0 ] && echo "$mod" | grep -qF "module buildinfo: rijn " &&
                    echo "$mod" | grep -qF "$p_want"; then
                echo "pick ok: rijn.so $p_want"
            else
                echo "PICK WRONG: expected rijn.so's buildinfo to say \"$p_want\""
                m_ok=1
            fi
        fi
    } >"$mlog"
    grep -E "^(pick ok|pick not checked|PICK WRONG)" "$mlog" | sed 's/^/    /'
    # keep the first pass's LastTest.log (scripts/test.sh reads the skip
    # reasons from it)
    tmp="$2/Testing/Temporary"
    [ -f "$tmp/LastTest.log" ] && cp "$tmp/LastTest.log" "$tmp/LastTest.first.log"
    # shellcheck disable=SC2086
    (cd "$2" && RIJN_CPU_MASK=$m_mask ctest --output-on-failure -j"$jobs" \
        --timeout "${RIJN_CTEST_TIMEOUT:-300}" -R "$m_regex") >>"$mlog" 2>&1 || m_ok=1
    [ -f "$tmp/LastTest.first.log" ] && mv "$tmp/LastTest.first.log" "$tmp/LastTest.log"
    line=$(grep -E "tests passed" "$mlog" | tail -n 1)
    n_all=$(echo "$line" | sed -nE 's/.* out of ([0-9]+).*/\1/p')
    n_fail=$(echo "$line" | sed -nE 's/.* ([0-9]+) tests? failed.*/\1/p')
    n_skip=$(grep -c "\*\*\*Skipped" "$mlog")
    if [ -z "$n_all" ]; then
        echo "masked: no ctest summary" | tee -a "$mlog"
        m_ok=1
    else
        echo "masked: $((n_all - n_fail - n_skip)) passed, $n_fail failed, $n_skip skipped" |
            tee -a "$mlog"
    fi
    grep -E "\*\*\*(Failed|Timeout|Exception)" "$mlog" | sed 's/^/    /' | tail -n 20
    return $m_ok
}

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
    # the OpenSSL the *_openssl suites compare with (rijn-cross-common.cmake)
    ossl_lib=$(sed -n 's/^OPENSSL_CRYPTO_LIBRARY:[A-Z]*=//p' "$bdir/CMakeCache.txt")
    ossl_inc=$(sed -n 's/^OPENSSL_INCLUDE_DIR:[A-Z]*=//p' "$bdir/CMakeCache.txt")
    ossl_ver=$(sed -n 's/^# *define OPENSSL_FULL_VERSION_STR "\(.*\)"/\1/p' \
        "$ossl_inc/openssl/opensslv.h" 2>/dev/null)
    case $ossl_lib in
    *NOTFOUND*|"") echo "    OpenSSL peer: none (no *_openssl suites)" ;;
    *) echo "    OpenSSL peer: ${ossl_ver:-?} ($ossl_lib)" ;;
    esac
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
    (cd "$bdir" && ctest --output-on-failure -j"$jobs" \
        --timeout "${RIJN_CTEST_TIMEOUT:-300}" ${RIJN_CTEST_ARGS:-}) >"$log" 2>&1
    rc=$?
    # show failures and the summary lines
    grep -E "\*\*\*|Failed|Not Run|tests passed|Total Test time" "$log" | tail -n 40
    line=$(grep -E "tests passed" "$log" | tail -n 1)
    skipped=$(grep -c "\*\*\*Skipped" "$log")
    summary="$summary
$arch: ${line:-no ctest summary (see $log)}; $skipped skipped"
    [ $rc -eq 0 ] || status=1
    if masked_spec "$arch"; then
        masked_pass "$arch" "$bdir"
        mrc=$?
        summary="$summary
$arch with RIJN_CPU_MASK=$m_mask: $(grep '^masked:' "$bdir/cross-test-masked.log" | tail -n 1)$([ $mrc -eq 0 ] || echo ' (FAILED: see cross-test-masked.log)')"
        [ $mrc -eq 0 ] || status=1
    fi
done

echo
echo "=== cross-test summary"
echo "$summary" | sed '/^$/d'
exit $status

#!/bin/sh
# Guest-instruction counts on 64-bit ARM under qemu-aarch64, rijn next to
# OpenSSL: the table of the ARM64 work (AES-CTR, Poly1305, AES-GCM).
#
#   bench/arm64-insncount.sh [-c CPU] [-b DIR] [-i "IMPLS"] [-s SCALE] [-O]
#
#   -c CPU    qemu -cpu (default max: AES, PMULL, SHA3 ...)
#   -b DIR    work directory (default ./build-insncount-arm64)
#   -i IMPLS  rijn AES backends (default: every constant-time one the
#             emulated CPU runs; ref needs RIJN_ALLOW_VARIABLE_TIME=1);
#             each row uses the GHASH engine a GCM key picks for it and the
#             default Poly1305 engine (named under the table)
#   -s SCALE  multiply the repetition counts (default 1)
#   -O        no OpenSSL rows
#
# rijn: the library cross-compiled with cmake/toolchains/aarch64.cmake and
# bench/insncount_driver.c, linked statically. OpenSSL: Debian's arm64
# libssl3 and libssl-dev, fetched with `apt-get download` and unpacked
# with `dpkg -x` into DIR (when the arm64 architecture is not known to
# apt yet and this runs as root, `dpkg --add-architecture arm64` and
# `apt-get update` first), bench/openssl_insncount.c linked against that
# libcrypto with aarch64-linux-gnu-gcc and run by qemu-aarch64 with -L
# /usr/aarch64-linux-gnu and LD_LIBRARY_PATH; rows with the crypto
# extension (OpenSSL's default here), with OPENSSL_armcap=1 (NEON only:
# vpaes, NEON Poly1305, NEON GHASH) and OPENSSL_armcap=0 (plain C).
#
# Every figure is (count(N) - count(0)) / N / bytes: process start-up, key
# setup and first-call costs cancel. Columns (bytes per operation):
#   CTR long      the next 4096 bytes of one stream
#   40 B + IV     IV setup then a 40-byte packet
#   key setup     one AES-128 key expansion (instructions, not per byte)
#   Poly1305      the next 4096 bytes of one MAC / a 64-byte message with
#                 its key (init, update, final)
#   GCM long      the next 4096 bytes of one AES-GCM encryption
#   GCM 1420/64   one message: 12-byte IV, no AAD, 16-byte tag, key once
# Needs: cmake, gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, qemu-user,
# the host gcc (for the TCG plugin, ../shared/tools/qemu-insncount or
# $RIJN_INSNCOUNT_SRC), apt-get and dpkg (for OpenSSL).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
name=arm64-insncount
# shellcheck source=bench/insncount-lib.sh
. "$here/bench/insncount-lib.sh"
cpu=max
bdir=./build-insncount-arm64
fmt=%.2f
with_openssl=1

while getopts c:b:i:s:Oh opt; do
    common_opt "$opt" || case $opt in
    O) with_openssl=0 ;;
    *) usage ;;
    esac
done

workdir
build_plugin
build_rijn aarch64 "$bdir/rijn"
build_driver "$here/bench/insncount_driver.c" "$bdir/rijn_driver"

# Debian's arm64 OpenSSL, unpacked into $bdir/openssl
ossl=$bdir/openssl
if [ "$with_openssl" = 1 ] && [ ! -f "$ossl/usr/lib/aarch64-linux-gnu/libcrypto.so.3" ]; then
    echo "== fetching libssl3:arm64 and libssl-dev:arm64 into $ossl" >&2
    mkdir -p "$ossl/debs"
    if ! (cd "$ossl/debs" && apt-get download libssl3:arm64 libssl-dev:arm64) >"$bdir/apt.log" 2>&1; then
        if [ "$(id -u)" = 0 ]; then
            dpkg --add-architecture arm64
            apt-get update -qq >>"$bdir/apt.log" 2>&1
            (cd "$ossl/debs" && apt-get download libssl3:arm64 libssl-dev:arm64) >>"$bdir/apt.log" 2>&1 ||
                { cat "$bdir/apt.log" >&2; exit 1; }
        else
            cat "$bdir/apt.log" >&2
            echo "arm64-insncount: as root: dpkg --add-architecture arm64 && apt-get update" >&2
            exit 1
        fi
    fi
    for d in "$ossl"/debs/*.deb; do dpkg -x "$d" "$ossl"; done
fi
if [ "$with_openssl" = 1 ]; then
    aarch64-linux-gnu-gcc -std=c11 -O2 -I"$ossl/usr/include" \
        -I"$ossl/usr/include/aarch64-linux-gnu" "$here/bench/openssl_insncount.c" \
        -L"$ossl/usr/lib/aarch64-linux-gnu" -lcrypto -o "$bdir/openssl_driver"
fi

# guest ARGS: qemu-aarch64 for the driver of $prog (rijn or openssl)
guest() {
    if [ "$prog" = rijn ]; then
        qemu-aarch64 -cpu "$cpu" "$@"
    else
        qemu-aarch64 -cpu "$cpu" -L /usr/aarch64-linux-gnu \
            -E LD_LIBRARY_PATH="$ossl/usr/lib/aarch64-linux-gnu" "$@"
    fi
}

row() { # PROGRAM LABEL
    prog=$1
    if [ "$prog" = rijn ]; then
        drv=$bdir/rijn_driver expect="impl $RIJN_IMPL "
    else
        drv=$bdir/openssl_driver expect="openssl "
    fi
    ctr128=$(per stream 128 "$(s 16)" 4096)
    ctr256=$(per stream 256 "$(s 16)" 4096)
    p40=$(per p40 128 "$(s 100)" 40)
    key=$(per key 128 "$(s 20)" 0)
    poly=$(per poly 128 "$(s 16)" 4096)
    poly64=$(per poly64 128 "$(s 50)" 64)
    gcm=$(per gcm 128 "$(s 16)" 4096)
    gcm1420=$(per gcm1420 128 "$(s 10)" 1420)
    gcm64=$(per gcm64 128 "$(s 50)" 64)
    gcm256=$(per gcm 256 "$(s 16)" 4096)
    count gcm 128 0 >/dev/null
    printf '| %s | %s | %s | %s | %s | %s / %s | %s / %s / %s | %s |\n' "$2" \
        "$ctr128" "$ctr256" "$p40" "$key" "$poly" "$poly64" "$gcm" "$gcm1420" \
        "$gcm64" "$gcm256"
}

prog=rijn
if [ -z "$impls" ]; then
    impls=$(guest "$bdir/rijn_driver" list | grep -vx ref | tr '\n' ' ')
fi

printf '\nGuest instructions under qemu-aarch64 -cpu %s: instructions/byte; key setup\n' "$cpu"
printf 'in instructions (AES-128); each figure (count(N) - count(0)) / N / bytes.\n\n'
printf '| | AES-128-CTR long | AES-256-CTR long | 40 B + IV | key setup | Poly1305 long / 64 B | AES-128-GCM long / 1420 B / 64 B | AES-256-GCM long |\n'
printf '|---|---|---|---|---|---|---|---|\n'
notes=""
for impl in $impls; do
    RIJN_IMPL=$impl
    export RIJN_IMPL
    out=$(guest "$bdir/rijn_driver" gcm 128 0)
    ghash=$(echo "$out" | sed -n 's/.* ghash \([^ ]*\) .*/\1/p')
    pengine=$(echo "$out" | sed -n 's/.* poly1305 \([^ ]*\) check.*/\1/p')
    row rijn "rijn \`$impl\` (GHASH \`$ghash\`)"
done
unset RIJN_IMPL
notes="rijn's Poly1305 columns: the default engine, \`$pengine\`."
if [ "$with_openssl" = 1 ]; then
    unset OPENSSL_armcap || true
    prog=openssl
    version=$(guest "$bdir/openssl_driver" key 128 0 | sed -n 's/^openssl \(.*\) check.*/\1/p')
    row openssl "*OpenSSL, crypto extension (aesv8-armx, PMULL)*"
    OPENSSL_armcap=1
    export OPENSSL_armcap
    row openssl "*OpenSSL, NEON only (\`OPENSSL_armcap=1\`: vpaes)*"
    OPENSSL_armcap=0
    row openssl "*OpenSSL, plain C (\`OPENSSL_armcap=0\`)*"
    unset OPENSSL_armcap
    notes="$notes OpenSSL: $version (Debian arm64), through EVP."
fi
printf '\n%s\n' "$notes"

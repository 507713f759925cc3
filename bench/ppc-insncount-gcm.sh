#!/bin/sh
# Guest-instruction counts of AES-GCM under qemu-user, per AES backend and
# GHASH engine: the GCM sibling of bench/ppc-insncount.sh (same build and
# method; see doc/powerpc.md).
#
#   bench/ppc-insncount-gcm.sh [-a ARCH] [-c CPU] [-b DIR] [-i "PAIRS"]
#                              [-k "BITS"] [-s SCALE] [-p]
#
#   -a ARCH   cmake/toolchains/ARCH.cmake: ppc (default), ppc64,
#             ppc64-power8, ppc64le, aarch64
#   -c CPU    qemu -cpu (default: 7447 for ppc, 970 for ppc64, power8 for
#             ppc64le and ppc64-power8, max for aarch64)
#   -b DIR    build directory (default ./build-insncount-gcm-ARCH)
#   -i PAIRS  AES:GHASH pairs to measure, e.g. "altivec-bs:altivec
#             ct64:ctmul32" (default: every constant-time AES backend the
#             emulated CPU runs, with the engine its key picks)
#   -k BITS   key sizes (default "128 256")
#   -s SCALE  multiply the repetition counts (default 1)
#   -p        two decimals for instructions/byte (default one)
#
# Columns: instructions per byte for a long message (the next 4096 bytes
# of one streaming encryption, and decryption), GHASH alone (4096 bytes of
# AAD), one-shot packets of 16, 64, 576 and 1420 bytes (12-byte IV, no
# AAD, tag: everything rijn_gcm_encrypt does, per data byte), and
# instructions per key setup (rijn_gcm_setkey). Each figure is
# (count(N) - count(0)) / N / bytes.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
arch=ppc
cpu=""
bdir=""
pairs=""
bitslist="128 256"
scale=1
fmt=%.1f

while getopts a:c:b:i:k:s:ph opt; do
    case $opt in
    a) arch=$OPTARG ;;
    c) cpu=$OPTARG ;;
    b) bdir=$OPTARG ;;
    i) pairs=$OPTARG ;;
    k) bitslist=$OPTARG ;;
    s) scale=$OPTARG ;;
    p) fmt=%.2f ;;
    *) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
    esac
done

case $arch in
ppc) qemu=qemu-ppc; defcpu=7447 ;;
ppc64) qemu=qemu-ppc64; defcpu=970 ;;
ppc64-power8) qemu=qemu-ppc64; defcpu=power8 ;;
ppc64le) qemu=qemu-ppc64le; defcpu=power8 ;;
aarch64) qemu=qemu-aarch64; defcpu=max ;;
*) echo "ppc-insncount-gcm: unknown arch $arch" >&2; exit 2 ;;
esac
[ -n "$cpu" ] || cpu=$defcpu
[ -n "$bdir" ] || bdir=./build-insncount-gcm-$arch
mkdir -p "$bdir"
bdir=$(cd "$bdir" && pwd)

# 1. the TCG plugin (host gcc)
src=${RIJN_INSNCOUNT_SRC:-$here/../shared/tools/qemu-insncount/insncount.c}
if [ ! -f "$src" ]; then
    echo "ppc-insncount-gcm: plugin source not found: $src (set RIJN_INSNCOUNT_SRC)" >&2
    exit 1
fi
plugin=$bdir/libinsncount.so
if [ ! -f "$plugin" ] || [ "$src" -nt "$plugin" ]; then
    gcc -O2 -shared -fPIC -o "$plugin" "$src"
fi

# 2. the library, cross-compiled with the project's toolchain file
echo "== building librijn for $arch in $bdir" >&2
cmake -S "$here" -B "$bdir" -DCMAKE_TOOLCHAIN_FILE="$here/cmake/toolchains/$arch.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DRIJN_QEMU_CPU="$cpu" \
    -DRIJN_BUILD_TESTS=OFF -DRIJN_BUILD_TOOLS=OFF >"$bdir/configure.log" 2>&1 ||
    { tail -n 20 "$bdir/configure.log" >&2; exit 1; }
cmake --build "$bdir" -j"${RIJN_JOBS:-2}" --target rijn_static >"$bdir/build.log" 2>&1 ||
    { grep -E "error" "$bdir/build.log" | head -n 20 >&2; exit 1; }

# 3. the driver, with the same compiler and link flags
cc=$(sed -n 's/^set(CMAKE_C_COMPILER "\(.*\)")$/\1/p' "$bdir"/CMakeFiles/*/CMakeCCompiler.cmake | head -n 1)
[ -n "$cc" ] || { echo "ppc-insncount-gcm: no C compiler found in $bdir" >&2; exit 1; }
extra=""
if [ -f "$bdir/rijn-qemu-memset-fix.o" ]; then
    extra="-Wl,--wrap=memset $bdir/rijn-qemu-memset-fix.o"
fi
# shellcheck disable=SC2086
"$cc" -std=c11 -O2 -static -I"$here/include" "$here/bench/insncount_gcm.c" \
    "$bdir/librijn.a" $extra -o "$bdir/insncount_gcm"
drv=$bdir/insncount_gcm

# count OP BITS N -> guest instructions of the whole process
count() {
    out=$("$qemu" -cpu "$cpu" -plugin "$plugin" -d plugin "$drv" "$1" "$2" "$3" 2>&1) || {
        echo "ppc-insncount-gcm: driver failed: $RIJN_IMPL:$RIJN_GHASH_IMPL $1 $2 $3" >&2
        echo "$out" >&2
        exit 1
    }
    case $out in
    *"impl $RIJN_IMPL ghash $RIJN_GHASH_IMPL "*) ;;
    *) echo "ppc-insncount-gcm: $RIJN_IMPL:$RIJN_GHASH_IMPL did not run: $out" >&2; exit 1 ;;
    esac
    echo "$out" | sed -n 's/.*insns_total \([0-9]*\).*/\1/p'
}

# per OP BITS N BYTES -> instructions per byte (BYTES > 0) or per operation
per() {
    c0=$(count "$1" "$2" 0)
    cn=$(count "$1" "$2" "$3")
    awk -v a="$c0" -v b="$cn" -v n="$3" -v by="$4" -v f="$fmt" 'BEGIN {
        v = (b - a) / n; if (by > 0) printf f, v / by; else printf "%.0f", v }'
}

if [ -z "$pairs" ]; then
    pairs=$("$qemu" -cpu "$cpu" "$drv" list | tr ' ' ':' | tr '\n' ' ')
fi

s() { echo $(($1 * scale)); }

printf '\nAES-GCM guest instructions, %s -cpu %s (%s). Data: instructions/byte;\n' "$qemu" "$cpu" "$arch"
printf 'packets: 12-byte IV, no AAD, tag, per data byte; key setup: instructions.\n\n'
printf '| AES | GHASH | key | long enc | long dec | GHASH only | 16 B | 64 B | 576 B | 1420 B | key setup |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
for pair in $pairs; do
    RIJN_IMPL=${pair%%:*}
    RIJN_GHASH_IMPL=${pair#*:}
    export RIJN_IMPL RIJN_GHASH_IMPL
    for bits in $bitslist; do
        st=$(per stream "$bits" "$(s 16)" 4096)
        dst=$(per dstream "$bits" "$(s 16)" 4096)
        gh=$(per aad "$bits" "$(s 16)" 4096)
        p16=$(per p16 "$bits" "$(s 100)" 16)
        p64=$(per p64 "$bits" "$(s 100)" 64)
        p576=$(per p576 "$bits" "$(s 20)" 576)
        p1420=$(per p1420 "$bits" "$(s 10)" 1420)
        key=$(per key "$bits" "$(s 20)" 0)
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
            "$RIJN_IMPL" "$RIJN_GHASH_IMPL" "$bits" "$st" "$dst" "$gh" \
            "$p16" "$p64" "$p576" "$p1420" "$key"
    done
done
unset RIJN_IMPL RIJN_GHASH_IMPL

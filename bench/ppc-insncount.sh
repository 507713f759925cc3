#!/bin/sh
# Guest-instruction counts of every rijn backend under qemu-user, in the
# columns of the eSTREAM benchmark (see doc/powerpc.md for the method).
#
#   bench/ppc-insncount.sh [-a ARCH] [-c CPU] [-b DIR] [-i "IMPLS"]
#                          [-k "BITS"] [-s SCALE] [-p] [-q]
#
#   -a ARCH   cmake/toolchains/ARCH.cmake: ppc (default), ppc64,
#             ppc64-power8, ppc64le, aarch64
#   -c CPU    qemu -cpu (default: 7447 for ppc, 970 for ppc64, power8 for
#             ppc64le and ppc64-power8, max for aarch64)
#   -b DIR    build directory (default ./build-insncount-ARCH)
#   -i IMPLS  backends to measure (default: every backend the emulated CPU
#             runs, as the library lists them)
#   -k BITS   key sizes (default "128 256")
#   -s SCALE  multiply the repetition counts (default 1)
#   -p        two decimals for instructions/byte (default one)
#   -q        do not print the published reference rows
#
# Needs cmake, the cross gcc of the toolchain file, qemu-user and the host
# gcc (for the TCG plugin). The plugin source is
# ../shared/tools/qemu-insncount/insncount.c next to the repository, or
# $RIJN_INSNCOUNT_SRC; it is built into DIR, never into the source tree.
#
# Output: instructions per byte for a long stream, 40-, 576- and 1500-byte
# packets (each with its IV setup) and eSTREAM's Imix (7:4:1), and
# instructions per key setup and per IV setup. Each figure is
# (count(N) - count(0)) / N / bytes, so process start-up, the first key
# setup and first-call costs cancel.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
arch=ppc
cpu=""
bdir=""
impls=""
bitslist="128 256"
scale=1
published=1
fmt=%.1f

while getopts a:c:b:i:k:s:pqh opt; do
    case $opt in
    a) arch=$OPTARG ;;
    c) cpu=$OPTARG ;;
    b) bdir=$OPTARG ;;
    i) impls=$OPTARG ;;
    k) bitslist=$OPTARG ;;
    s) scale=$OPTARG ;;
    p) fmt=%.2f ;;
    q) published=0 ;;
    *) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
    esac
done

case $arch in
ppc) qemu=qemu-ppc; defcpu=7447 ;;
ppc64) qemu=qemu-ppc64; defcpu=970 ;;
ppc64-power8) qemu=qemu-ppc64; defcpu=power8 ;;
ppc64le) qemu=qemu-ppc64le; defcpu=power8 ;;
aarch64) qemu=qemu-aarch64; defcpu=max ;;
*) echo "ppc-insncount: unknown arch $arch" >&2; exit 2 ;;
esac
[ -n "$cpu" ] || cpu=$defcpu
[ -n "$bdir" ] || bdir=./build-insncount-$arch
mkdir -p "$bdir"
bdir=$(cd "$bdir" && pwd)

# 1. the TCG plugin (host gcc)
src=${RIJN_INSNCOUNT_SRC:-$here/../shared/tools/qemu-insncount/insncount.c}
if [ ! -f "$src" ]; then
    echo "ppc-insncount: plugin source not found: $src (set RIJN_INSNCOUNT_SRC)" >&2
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
[ -n "$cc" ] || { echo "ppc-insncount: no C compiler found in $bdir" >&2; exit 1; }
extra=""
if [ -f "$bdir/rijn-qemu-memset-fix.o" ]; then
    extra="-Wl,--wrap=memset $bdir/rijn-qemu-memset-fix.o"
fi
# shellcheck disable=SC2086
"$cc" -std=c11 -O2 -static -I"$here/include" "$here/bench/insncount_driver.c" \
    "$bdir/librijn.a" $extra -o "$bdir/insncount_driver"
drv=$bdir/insncount_driver

# count OP BITS N -> guest instructions of the whole process
count() {
    out=$("$qemu" -cpu "$cpu" -plugin "$plugin" -d plugin "$drv" "$1" "$2" "$3" 2>&1) || {
        echo "ppc-insncount: driver failed: RIJN_IMPL=${RIJN_IMPL:-} $1 $2 $3" >&2
        echo "$out" >&2
        exit 1
    }
    case $out in
    *"impl $RIJN_IMPL "*) ;;
    *) echo "ppc-insncount: backend $RIJN_IMPL did not run: $out" >&2; exit 1 ;;
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

if [ -z "$impls" ]; then
    impls=$("$qemu" -cpu "$cpu" "$drv" list | tr '\n' ' ')
fi

s() { echo $(($1 * scale)); }

printf '\nGuest instructions, %s -cpu %s (%s). Streams and packets: instructions/byte;\n' "$qemu" "$cpu" "$arch"
printf 'key and IV setup: instructions. Packets include their IV setup.\n\n'
printf '| backend | key | long stream | 40 B | 576 B | 1500 B | Imix | key setup | IV setup |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for impl in $impls; do
    RIJN_IMPL=$impl
    export RIJN_IMPL
    for bits in $bitslist; do
        st=$(per stream "$bits" "$(s 16)" 4096)
        p40=$(per p40 "$bits" "$(s 100)" 40)
        p576=$(per p576 "$bits" "$(s 20)" 576)
        p1500=$(per p1500 "$bits" "$(s 10)" 1500)
        imix=$(per imix "$bits" "$(s 5)" 4084)
        key=$(per key "$bits" "$(s 20)" 0)
        iv=$(per iv "$bits" "$(s 100)" 0)
        printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
            "$impl" "$bits" "$st" "$p40" "$p576" "$p1500" "$imix" "$key" "$iv"
    done
done
unset RIJN_IMPL
if [ "$published" = 1 ]; then
    printf '| *aes-altivec (Kasper-Schwabe port)* | 128 | 24.0 | 96.5 | 27.9 | 25.1 | 31.6 | 3969 | 54 |\n'
    printf '| *eSTREAM bernstein/big-1 C* | 128 | 37.4 | 50.3 | 37.6 | 37.6 | 38.5 | 244 | 16 |\n'
    printf '| *Schwabe table-based asm* | 128 | 29.0 | 43.9 | 30.1 | 29.2 | 30.7 | 296 | 21 |\n'
    printf '| *target, best AltiVec backend* | 128 | <= 16 | <= 40 | <= 18 | <= 17 | <= 21 | <= 300 | <= 20 |\n'
fi

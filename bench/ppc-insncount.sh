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
name=ppc-insncount
# shellcheck source=bench/insncount-lib.sh
. "$here/bench/insncount-lib.sh"
published=1

while getopts a:c:b:i:k:s:pqh opt; do
    common_opt "$opt" || case $opt in
    q) published=0 ;;
    *) usage ;;
    esac
done

ppc_setup insncount_driver "./build-insncount-$arch"

if [ -z "$impls" ]; then
    impls=$(guest "$drv" list | tr '\n' ' ')
fi

printf '\nGuest instructions, %s -cpu %s (%s). Streams and packets: instructions/byte;\n' "$qemu" "$cpu" "$arch"
printf 'key and IV setup: instructions. Packets include their IV setup.\n\n'
printf '| backend | key | long stream | 40 B | 576 B | 1500 B | Imix | key setup | IV setup |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
# the columns, OP:N:BYTES (see per and cells in insncount-lib.sh)
cols="stream:16:4096 p40:100:40 p576:20:576 p1500:10:1500 imix:5:4084 key:20:0 iv:100:0"
for impl in $impls; do
    RIJN_IMPL=$impl
    export RIJN_IMPL
    expect="impl $impl "
    for bits in $bitslist; do
        # shellcheck disable=SC2086
        row=$(cells "$bits" $cols)
        printf '| %s | %s |%s\n' "$impl" "$bits" "$row"
    done
done
unset RIJN_IMPL
if [ "$published" = 1 ]; then
    printf '| *aes-altivec (Kasper-Schwabe port)* | 128 | 24.0 | 96.5 | 27.9 | 25.1 | 31.6 | 3969 | 54 |\n'
    printf '| *eSTREAM bernstein/big-1 C* | 128 | 37.4 | 50.3 | 37.6 | 37.6 | 38.5 | 244 | 16 |\n'
    printf '| *Schwabe table-based asm* | 128 | 29.0 | 43.9 | 30.1 | 29.2 | 30.7 | 296 | 21 |\n'
    printf '| *target, best AltiVec backend* | 128 | <= 16 | <= 40 | <= 18 | <= 17 | <= 21 | <= 300 | <= 20 |\n'
fi

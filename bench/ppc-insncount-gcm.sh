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
name=ppc-insncount-gcm
# shellcheck source=bench/insncount-lib.sh
. "$here/bench/insncount-lib.sh"

while getopts a:c:b:i:k:s:ph opt; do
    common_opt "$opt" || usage
done
pairs=$impls # -i PAIRS

ppc_setup insncount_gcm "./build-insncount-gcm-$arch"

if [ -z "$pairs" ]; then
    pairs=$(guest "$drv" list | tr ' ' ':' | tr '\n' ' ')
fi

printf '\nAES-GCM guest instructions, %s -cpu %s (%s). Data: instructions/byte;\n' "$qemu" "$cpu" "$arch"
printf 'packets: 12-byte IV, no AAD, tag, per data byte; key setup: instructions.\n\n'
printf '| AES | GHASH | key | long enc | long dec | GHASH only | 16 B | 64 B | 576 B | 1420 B | key setup |\n'
printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
# the columns, OP:N:BYTES (see per and cells in insncount-lib.sh)
cols="stream:16:4096 dstream:16:4096 aad:16:4096 p16:100:16 p64:100:64 p576:20:576 p1420:10:1420 key:20:0"
for pair in $pairs; do
    RIJN_IMPL=${pair%%:*}
    RIJN_GHASH_IMPL=${pair#*:}
    export RIJN_IMPL RIJN_GHASH_IMPL
    expect="impl $RIJN_IMPL ghash $RIJN_GHASH_IMPL "
    for bits in $bitslist; do
        # shellcheck disable=SC2086
        row=$(cells "$bits" $cols)
        printf '| %s | %s | %s |%s\n' "$RIJN_IMPL" "$RIJN_GHASH_IMPL" "$bits" "$row"
    done
done
unset RIJN_IMPL RIJN_GHASH_IMPL

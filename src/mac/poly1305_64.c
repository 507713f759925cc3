/*
 * poly64: portable Poly1305 in radix 2^64 for 64-bit hosts with a 128-bit
 * product type (unsigned __int128: gcc and clang on x86-64, AArch64,
 * ppc64). One block at a time: h = (h + m) r mod 2^130-5 with h held as
 * two 64-bit words plus a few bits, r as two words (r1 a multiple of 4, so
 * the 2^128 terms fold in with s1 = 5 r1 / 4); the arithmetic is in
 * poly1305_internal.h, shared with the SIMD engines.
 *
 * Constant time: assumes 64x64->128 multiplication with operand-independent
 * latency (true of x86-64 MUL/MULX, AArch64 MUL/UMULH, POWER MULLD/MULHDU);
 * no branch or memory index depends on the key or the message, and the
 * final reduction selects with masks.
 */
#include "mac/poly1305_internal.h"

#if defined(RIJN_HAVE_U128)

static void poly64_init(uint64_t *st, const uint8_t r16[16])
{
    p64_init(st, r16);
}

static void poly64_blocks(uint64_t *st, const uint8_t *m, size_t nblocks,
                          unsigned hibit)
{
    p64_blocks(st, m, nblocks, hibit);
}

static void poly64_finish(uint64_t *st, uint8_t tag[16],
                          const uint8_t pad[16])
{
    p64_finish(st, tag, pad);
}

const rijn_poly1305_engine rijn_poly1305_poly64 = {
    .base = {.name = "poly64", .needs = 0, .constant_time = 1, .rank = 20},
    .init = poly64_init,
    .blocks = poly64_blocks,
    .finish = poly64_finish,
};

#endif

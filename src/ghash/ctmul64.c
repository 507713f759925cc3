/*
 * ctmul64: GHASH in portable C, constant time, with integer
 * multiplications (the technique of BearSSL's ghash_ctmul64).
 *
 * A carry-less 64x64 product from ordinary ones: split each operand into
 * four interleaved parts (every fourth bit: x & 0x1111..., x & 0x2222...,
 * ...). The integer product of two such parts has its terms at one residue
 * class of bit positions mod 4, at most 16 terms per position, and a
 * count below 16 carries only into the three positions above it, which
 * belong to other classes; so its bit at each position of its class is
 * the parity of the terms, i.e. the carry-less product, once the other
 * classes are masked off (a count of 16 only occurs at bit 63, whose carry
 * leaves the word). 16 multiplications give the low 64 bits of x (.) y;
 * the high 64 come from the same on bit-reversed operands, reversed back
 * (rev(x) (.) rev(y) = rev(x (.) y) over 127 bits). Karatsuba makes the
 * 128x128 product from three such 64x64 products (96 multiplications).
 *
 * Bit order: a block is read as a big-endian 128-bit integer N, whose bit
 * 127 - i is the coefficient of x^i (GCM numbers bits from the left). The
 * carry-less product of two such integers is the product polynomial with
 * its bits reversed over 255 positions; shifted left once it is reversed
 * over 256, and the reduction modulo x^128 + x^7 + x^2 + x + 1 becomes,
 * for the low half L (the x^128..x^255 coefficients) and the high half U:
 *   U ^ L ^ L>>1 ^ L>>2 ^ L>>7 ^ O ^ O>>1 ^ O>>2 ^ O>>7,
 *   O = L<<127 ^ L<<126 ^ L<<121   (what the shifts of L pushed out)
 * (the reflected reduction of Gueron and Kounavis' PCLMULQDQ paper).
 *
 * Constant time: no branch or index depends on data; it assumes the CPU's
 * 64x64 -> 64 multiplication takes the same time for all operands. It
 * does on x86-64 (MUL/IMUL), AArch64 (MUL), POWER7+ (MULLD), and on the
 * usual 64-bit cores; it does not on some old or small cores (ARM
 * Cortex-M3, some PowerPC 6xx/7xx/74xx multiply faster for small
 * operands, a 32-bit host emulates 64-bit products from 32-bit ones): the
 * registry picks ctmul32 or altivec there (see those files).
 *
 * hk: words 0-5 = H's high and low 64-bit halves, their XOR (Karatsuba),
 * and the bit reversals of those three.
 */
#include "ghash/ghash.h"

/* The bits of x in reverse order. */
static inline uint64_t rev64(uint64_t x)
{
    x = ((x & 0x5555555555555555ULL) << 1) | ((x >> 1) & 0x5555555555555555ULL);
    x = ((x & 0x3333333333333333ULL) << 2) | ((x >> 2) & 0x3333333333333333ULL);
    x = ((x & 0x0f0f0f0f0f0f0f0fULL) << 4) | ((x >> 4) & 0x0f0f0f0f0f0f0f0fULL);
    x = ((x & 0x00ff00ff00ff00ffULL) << 8) | ((x >> 8) & 0x00ff00ff00ff00ffULL);
    x = ((x & 0x0000ffff0000ffffULL) << 16) | ((x >> 16) & 0x0000ffff0000ffffULL);
    return (x << 32) | (x >> 32);
}

/* The low 64 bits of the carry-less product x (.) y (see the top). */
static inline uint64_t bmul64(uint64_t x, uint64_t y)
{
    const uint64_t m0 = 0x1111111111111111ULL, m1 = m0 << 1, m2 = m0 << 2,
                   m3 = m0 << 3;
    const uint64_t x0 = x & m0, x1 = x & m1, x2 = x & m2, x3 = x & m3;
    const uint64_t y0 = y & m0, y1 = y & m1, y2 = y & m2, y3 = y & m3;
    uint64_t z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
    uint64_t z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
    uint64_t z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
    uint64_t z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);

    return (z0 & m0) | (z1 & m1) | (z2 & m2) | (z3 & m3);
}

static void ctmul64_init(uint64_t *hk, const uint8_t h[16])
{
    hk[0] = rijn_load64_be(h);
    hk[1] = rijn_load64_be(h + 8);
    hk[2] = hk[0] ^ hk[1];
    hk[3] = rev64(hk[0]);
    hk[4] = rev64(hk[1]);
    hk[5] = rev64(hk[2]);
}

static void ctmul64_blocks(const uint64_t *hk, uint8_t y[16],
                           const uint8_t *in, size_t nblocks)
{
    uint64_t yh = rijn_load64_be(y), yl = rijn_load64_be(y + 8);

    for (; nblocks > 0; nblocks--, in += 16) {
        uint64_t a0, a1, b0, b1, c0, c1, p0, p1, p2, p3, ym, o;

        yh ^= rijn_load64_be(in);
        yl ^= rijn_load64_be(in + 8);
        ym = yh ^ yl;
        /* Karatsuba: a = yl.hl, b = yh.hh, c = ym.hm ^ a ^ b */
        a0 = bmul64(yl, hk[1]);
        b0 = bmul64(yh, hk[0]);
        c0 = bmul64(ym, hk[2]);
        a1 = rev64(bmul64(rev64(yl), hk[4])) >> 1;
        b1 = rev64(bmul64(rev64(yh), hk[3])) >> 1;
        c1 = rev64(bmul64(rev64(ym), hk[5])) >> 1;
        c0 ^= a0 ^ b0;
        c1 ^= a1 ^ b1;
        /* the 256-bit product p3:p2:p1:p0, shifted left once */
        p0 = a0;
        p1 = a1 ^ c0;
        p2 = b0 ^ c1;
        p3 = b1;
        p3 = (p3 << 1) | (p2 >> 63);
        p2 = (p2 << 1) | (p1 >> 63);
        p1 = (p1 << 1) | (p0 >> 63);
        p0 <<= 1;
        /* reduction: L = p1:p0 folded into U = p3:p2 */
        o = (p0 << 63) ^ (p0 << 62) ^ (p0 << 57);
        o ^= (o >> 1) ^ (o >> 2) ^ (o >> 7);
        yh = p3 ^ p1 ^ (p1 >> 1) ^ (p1 >> 2) ^ (p1 >> 7) ^ o;
        yl = p2 ^ p0 ^ ((p0 >> 1) | (p1 << 63)) ^ ((p0 >> 2) | (p1 << 62)) ^
             ((p0 >> 7) | (p1 << 57));
    }
    rijn_store64_be(y, yh);
    rijn_store64_be(y + 8, yl);
}

RIJN_GHASH_KEY_FITS(6 * 8, "ctmul64's H");
const rijn_ghash_engine rijn_ghash_ctmul64 = {
    .base = {.name = "ctmul64", .needs = 0, .constant_time = 1, .rank = 10},
    .key_bytes = 6 * 8,
    .init = ctmul64_init,
    .blocks = ctmul64_blocks,
};

/*
 * ctmul32: GHASH in portable C with 32-bit integer multiplications only,
 * constant time, for 32-bit hosts where a 64-bit product is emulated
 * (32-bit PowerPC without AltiVec, armhf, i386). One block at a time.
 *
 * The ctmul technique (BearSSL's ghash_ctmul32 / ctmul64, see ctmul64.c)
 * on 16-bit pieces: a carry-less 16x16 product from ordinary products of
 * parts of the operands that keep every third bit (masks 0x9249, 0x2492,
 * 0x4924). The integer product of two such parts has its terms at one
 * residue class of bit positions mod 3, at most 6 per position, and a
 * count below 8 carries only into the two positions above it, which
 * belong to the other classes: masking off the other classes leaves the
 * parity of the terms, the carry-less product. 9 multiplications give the
 * whole 31-bit product in the low word, so unlike a 32x32 split no
 * bit-reversed second pass is needed for the high half. Karatsuba on
 * three levels (128 -> 64 -> 32 -> 16 bits) makes the 128x128 product
 * from 27 such products (243 multiplications); the 256-bit result is
 * reduced as in ctmul64.c.
 *
 * Constant time. No branch or address depends on data. Multipliers that
 * finish early for small operands are neutralised: every operand of
 * every multiplication has bit 31 set and bits 16..30 clear (the 16-bit
 * part ORed with 0x80000000), so it is at least 2^31 unsigned and at
 * least 2^30 in magnitude signed: a full-width operand for any early-out
 * rule that looks at the operand's significant bits, signed or unsigned,
 * on either operand. The forced bits cost nothing: (a + 2^31)(b + 2^31)
 * = ab + 2^31 (a + b) mod 2^32 differs from ab in bit 31 only, and the
 * 16x16 product needs bits 0..30.
 *
 * Which CPUs this matters on (32-bit MUL / MULLW / IMUL):
 *   - early out, covered by the forced bits: PowerPC 750 (G3: "the
 *     multiplier supports early exit for operations that do not require
 *     full 32 x 32-bit multiplication", MPC750 Technical Summary);
 *     MPC7450/7447/7455 (G4): 32x8 and 32x16 in 3 cycles, 32x32 in 4, and
 *     MPC7400/7410 (first G4s): 2, 3 and 5 (MPC7455 Hardware
 *     Specifications, Table 1 "Integer multiply (32 x 8, 32 x 16,
 *     32 x 32)": 3-1, 3-1, 4-2 and 2-1, 3-2, 5-4; see doc/powerpc.md);
 *     ARM7TDMI/ARM9 (early termination on the top
 *     bytes of the multiplier), Cortex-M3 (UMULL/SMULL early termination;
 *     MUL is single-cycle there).
 *   - no early out documented, the forced bits merely harmless: x86 since
 *     the Pentium Pro, Cortex-M4/M7 (single-cycle MUL and UMULL), the
 *     Cortex-A cores' MUL.
 * By construction, not measured on such hardware here. On the G4 the
 * registry picks the AltiVec engine, which multiplies nothing; this one
 * runs there only with AltiVec masked off (and on the G3).
 *
 * hk: 27 operands (the halfwords of H and their Karatsuba sums, in the
 * order of the tree below) x 3 parts, each a uint64_t holding the 32-bit
 * part, 648 bytes.
 */
#include "ghash/ghash.h"

/* gcc's pre-allocation scheduling spills about 150 registers a block on
 * 32-bit PowerPC (1133 instructions a block against 994 without) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-schedule-insns")
#endif

#define M16_0 0x9249u /* bits 0, 3, ..., 15 */
#define M16_1 0x2492u /* bits 1, 4, ..., 13 */
#define M16_2 0x4924u /* bits 2, 5, ..., 14 */
#define TOP 0x80000000u
/* the classes of a 31-bit product (bit 31 is the forced bits' garbage) */
#define M31_0 0x49249249u
#define M31_1 0x12492492u
#define M31_2 0x24924924u

#define NOPS 27

/* The three parts of 16-bit value v (in bits 0..15 of w; bits 16..30 of w
 * are ignored), bit 31 forced. */
static inline void split(uint32_t p[3], uint32_t w)
{
    w |= TOP;
#if defined(__GNUC__)
    /* one OR here, not (w & M) | TOP for each part */
    __asm__("" : "+r"(w));
#endif
    p[0] = w & (M16_0 | TOP);
    p[1] = w & (M16_1 | TOP);
    p[2] = w & (M16_2 | TOP);
}

/* The carry-less product of two 16-bit values given as parts (31 bits). */
static inline uint32_t mul16(const uint32_t x[3], const uint64_t *h)
{
    const uint32_t h0 = (uint32_t)h[0], h1 = (uint32_t)h[1],
                   h2 = (uint32_t)h[2];
    uint32_t z0 = (x[0] * h0) ^ (x[1] * h2) ^ (x[2] * h1);
    uint32_t z1 = (x[0] * h1) ^ (x[1] * h0) ^ (x[2] * h2);
    uint32_t z2 = (x[0] * h2) ^ (x[1] * h1) ^ (x[2] * h0);

    return (z0 & M31_0) | (z1 & M31_1) | (z2 & M31_2);
}

/* 32x32 carry-less: word x (its halves and their XOR split from it) times
 * the operands hk[0..8] (parts of the high half, low half, XOR). */
static inline void mul32(uint32_t r[2], uint32_t x, const uint64_t *hk)
{
    uint32_t ph[3], pl[3], pm[3], a, b, m;

    split(ph, x >> 16);
    split(pl, x);
    split(pm, (x >> 16) ^ x);
    a = mul16(ph, hk);
    b = mul16(pl, hk + 3);
    m = mul16(pm, hk + 6) ^ a ^ b;
    r[0] = a ^ (m >> 16); /* high word */
    r[1] = b ^ (m << 16); /* low word */
}

/* 64x64 carry-less: x = (xh, xl) 32-bit words, r[0..3] most significant
 * first; hk: 3 x 9 operands (high word, low word, XOR). */
static inline void mul64(uint32_t r[4], uint32_t xh, uint32_t xl,
                         const uint64_t *hk)
{
    uint32_t a[2], b[2], m[2];

    mul32(a, xh, hk);
    mul32(b, xl, hk + 9);
    mul32(m, xh ^ xl, hk + 18);
    m[0] ^= a[0] ^ b[0];
    m[1] ^= a[1] ^ b[1];
    r[0] = a[0];
    r[1] = a[1] ^ m[0];
    r[2] = b[0] ^ m[1];
    r[3] = b[1];
}

/* The operand tree of one 128-bit value w[0..3] (w[0] most significant),
 * as ctmul32_blocks walks it; for the key. */
static void h_parts(uint64_t *hk, const uint32_t w[4])
{
    const uint32_t l1[3][2] = {{w[0], w[1]},
                               {w[2], w[3]},
                               {w[0] ^ w[2], w[1] ^ w[3]}};
    size_t n = 0;

    for (int i = 0; i < 3; i++) {
        const uint32_t l2[3] = {l1[i][0], l1[i][1], l1[i][0] ^ l1[i][1]};
        for (int j = 0; j < 3; j++) {
            const uint32_t l3[3] = {l2[j] >> 16, l2[j] & 0xffffu,
                                    (l2[j] >> 16) ^ (l2[j] & 0xffffu)};
            for (int k = 0; k < 3; k++) {
                uint32_t p[3];
                split(p, l3[k]);
                hk[n++] = p[0];
                hk[n++] = p[1];
                hk[n++] = p[2];
            }
        }
    }
}

static void ctmul32_init(uint64_t *hk, const uint8_t h[16])
{
    uint32_t w[4];

    for (int i = 0; i < 4; i++)
        w[i] = rijn_load32_be(h + 4 * i);
    h_parts(hk, w);
    rijn_burn(w, sizeof w);
}

static void ctmul32_blocks(const uint64_t *hk, uint8_t y[16],
                           const uint8_t *in, size_t nblocks)
{
    uint64_t yh = rijn_load64_be(y), yl = rijn_load64_be(y + 8);

    for (; nblocks > 0; nblocks--, in += 16) {
        uint32_t w0, w1, w2, w3, a[4], b[4], m[4];
        uint64_t p0, p1, p2, p3, o;

        yh ^= rijn_load64_be(in);
        yl ^= rijn_load64_be(in + 8);
        w0 = (uint32_t)(yh >> 32);
        w1 = (uint32_t)yh;
        w2 = (uint32_t)(yl >> 32);
        w3 = (uint32_t)yl;
        /* Karatsuba: a = yh.hh, b = yl.hl, m = (yh ^ yl)(hh ^ hl) */
        mul64(a, w0, w1, hk);
        mul64(b, w2, w3, hk + 27);
        mul64(m, w0 ^ w2, w1 ^ w3, hk + 54);
        for (int i = 0; i < 4; i++)
            m[i] ^= a[i] ^ b[i];
        /* the 255-bit product p3:p2:p1:p0 (64-bit words) */
        p3 = ((uint64_t)a[0] << 32) | a[1];
        p2 = ((uint64_t)(a[2] ^ m[0]) << 32) | (a[3] ^ m[1]);
        p1 = ((uint64_t)(b[0] ^ m[2]) << 32) | (b[1] ^ m[3]);
        p0 = ((uint64_t)b[2] << 32) | b[3];
        /* shifted left once, then reduced as in ctmul64.c */
        p3 = (p3 << 1) | (p2 >> 63);
        p2 = (p2 << 1) | (p1 >> 63);
        p1 = (p1 << 1) | (p0 >> 63);
        p0 <<= 1;
        o = (p0 << 63) ^ (p0 << 62) ^ (p0 << 57);
        o ^= (o >> 1) ^ (o >> 2) ^ (o >> 7);
        yh = p3 ^ p1 ^ (p1 >> 1) ^ (p1 >> 2) ^ (p1 >> 7) ^ o;
        yl = p2 ^ p0 ^ ((p0 >> 1) | (p1 << 63)) ^ ((p0 >> 2) | (p1 << 62)) ^
             ((p0 >> 7) | (p1 << 57));
    }
    rijn_store64_be(y, yh);
    rijn_store64_be(y + 8, yl);
}

RIJN_GHASH_KEY_FITS(NOPS * 3 * 8, "ctmul32's H");
const rijn_ghash_engine rijn_ghash_ctmul32 = {
    .base = {.name = "ctmul32", .needs = 0, .constant_time = 1, .rank = 5},
    .key_bytes = NOPS * 3 * 8,
    .init = ctmul32_init,
    .blocks = ctmul32_blocks,
};

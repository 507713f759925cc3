/*
 * neon: Poly1305 with AArch64 NEON, radix 2^26, two lanes (the even and
 * the odd blocks), 8 blocks per loop step.
 *
 * A number mod 2^130-5 is five 26-bit limbs; UMLAL multiplies 32-bit limbs
 * into 64-bit sums, two lanes per instruction, and a product h r mod p is
 * the 25 products of poly32 (the limbs of r above the first
 * pre-multiplied by 5: 2^130 == 5). The multiplier is a scalar element
 * (UMLAL by element), so one power of r (five limbs and four times 5) is
 * three registers, shared by both lanes.
 *
 * One accumulator H of stride 2: lane j holds the blocks j mod 2. LD4
 * loads 4 blocks with their 32-bit words de-interleaved (word i of block
 * b in lane b of register i), and 12 shifts, inserts and masks make the
 * five limbs of the 4 blocks; UMLAL / UMLAL2 take blocks 0,1 / 2,3 as
 * the two lanes. A loop step takes pairs M0..M3 of blocks:
 *   H := H r^8 + M0 r^6 + M1 r^4 + M2 r^2 + M3,
 * 100 products summed per limb in 64 bits (M3 is added), then one carry
 * pass: about 150 instructions per 128 bytes. Steps of 4 and 2 blocks
 * (H r^4 + M0 r^2 + M1; H r^2 + M0) finish an even count of blocks. At
 * the end lane 0 is multiplied by r^2 and lane 1 by r, and the lanes are
 * summed.
 *
 * Carries: two interleaved chains 0-1-2-3-4 and 3-4-0-1, each step a
 * USRA (shift right and add) and an AND. Limb bounds: the powers' limbs
 * are < 2^26 + 2^11 (carried like H, below) and 5 times them < 2^28.33;
 * message limbs are < 2^26 (limb 4 < 2^25 with the 2^128 bit); H enters a
 * step with limbs < 2^27 (the first pair plus the incoming h, after that
 * < 2^26 + 2^11). A product is < 2^55.4, a limb's sum over H, three pairs
 * and a message limb < 2^59; the carries leave limbs 0, 2, 3 < 2^26 and
 * limbs 1, 4 < 2^26 + 2^11 (the carry into limb 0 is < 5 * 2^33). Every
 * UMLAL input stays below 2^32 and every sum below 2^64.
 *
 * The accumulator lives in the scalar radix-2^64 form of
 * poly1305_internal.h between calls; inputs of fewer than NEON_MIN_BLOCKS
 * blocks (below that the scalar code takes fewer instructions, counting
 * the powers, which one-shot messages pay each time), the padded last
 * block and an odd last block use that scalar code. r^2, r^4, r^6, r^8
 * and the final (r^2, r) are computed once per key, on the first long
 * input, by three rounds of lanewise products from r.
 *
 * Constant time: assumes UMLAL/UMULL (32x32->64) and the scalar MUL/UMULH
 * (64x64->128) have operand-independent latency, as they do on every
 * ARMv8 core (Cortex-A53, A55, A57, A72, A76, Neoverse N1/V1, Apple M1:
 * fixed-latency pipelined multipliers without early termination); no
 * secret-dependent branch or memory index (the step count and the table
 * offsets come from the length only).
 */
#include "mac/poly1305_internal.h"

#if defined(RIJN_HAVE_U128) && defined(__aarch64__) && \
    defined(__AARCH64EL__) && defined(__ARM_NEON)

#include <arm_neon.h>

#define NEON_MIN_BLOCKS 36
#define M26 0x3ffffffULL

/*
 * Powers in st, as 32-bit limbs (little-endian words), from word PW:
 *   bytes 48 q .. 48 q + 47   r^(2q + 2), q = 0..3: (r0 r1 r2 r3)
 *                             (r4 s1 s2 s3) (s4 0 0 0), s_i = 5 r_i
 *   bytes 192 .. 263          the final multipliers: limb i of (r^2, r)
 *                             as a pair, r0..r4 then s1..s4
 */
enum { PW = 8, PW_FIN_BYTES = 192, PW_END = PW + 33 };
_Static_assert(PW_END <= RIJN_POLY1305_ST_WORDS, "powers fit in st");

/* 2^64-radix triple (h2 small) to five 26-bit limbs. */
static void to26(uint32_t l[5], uint64_t h0, uint64_t h1, uint64_t h2)
{
    l[0] = (uint32_t)(h0 & M26);
    l[1] = (uint32_t)((h0 >> 26) & M26);
    l[2] = (uint32_t)(((h0 >> 52) | (h1 << 12)) & M26);
    l[3] = (uint32_t)((h1 >> 14) & M26);
    l[4] = (uint32_t)((h1 >> 40) | (h2 << 24));
}

/* The byte address of the powers */
static inline uint8_t *pw_bytes(uint64_t *st)
{
    return (uint8_t *)(st + PW);
}

/* Multipliers: the limbs of a power, index 0..4 = r0..r4, 5..8 = s1..s4,
 * in three registers (r0 r1 r2 r3) (r4 s1 s2 s3) (s4 - - -). */
typedef struct {
    uint32x4_t a, b, c;
} npow;

static inline npow pw_load(const uint8_t *p)
{
    npow r;

    r.a = vreinterpretq_u32_u8(vld1q_u8(p));
    r.b = vreinterpretq_u32_u8(vld1q_u8(p + 16));
    r.c = vreinterpretq_u32_u8(vld1q_u8(p + 32));
    return r;
}

/* Element n of a power (n constant) */
#define PR(P, n)                                                              \
    ((n) < 4 ? (P).a : (n) < 8 ? (P).b : (P).c)
#define PL(n) ((n) & 3)

/*
 * d[k] (+)= x p lanewise, unreduced: d[k] gets the 5 products of weight
 * 2^26k (those at 2^130 and above come back times 5 through s = 5 r).
 * x is a pair (uint32x2_t limbs) or the high half of 4 blocks; op0 is
 * the operation of the products of x[0] (UMULL: d starts with them, or
 * UMLAL), op that of the others.
 */
#define MUL_ROW(op0, op, d, x, P)                                             \
    do {                                                                      \
        d[0] = op0(d[0], x[0], PR(P, 0), PL(0));                              \
        d[1] = op0(d[1], x[0], PR(P, 1), PL(1));                              \
        d[2] = op0(d[2], x[0], PR(P, 2), PL(2));                              \
        d[3] = op0(d[3], x[0], PR(P, 3), PL(3));                              \
        d[4] = op0(d[4], x[0], PR(P, 4), PL(4));                              \
        d[0] = op(d[0], x[1], PR(P, 8), PL(8));                               \
        d[1] = op(d[1], x[1], PR(P, 0), PL(0));                               \
        d[2] = op(d[2], x[1], PR(P, 1), PL(1));                               \
        d[3] = op(d[3], x[1], PR(P, 2), PL(2));                               \
        d[4] = op(d[4], x[1], PR(P, 3), PL(3));                               \
        d[0] = op(d[0], x[2], PR(P, 7), PL(7));                               \
        d[1] = op(d[1], x[2], PR(P, 8), PL(8));                               \
        d[2] = op(d[2], x[2], PR(P, 0), PL(0));                               \
        d[3] = op(d[3], x[2], PR(P, 1), PL(1));                               \
        d[4] = op(d[4], x[2], PR(P, 2), PL(2));                               \
        d[0] = op(d[0], x[3], PR(P, 6), PL(6));                               \
        d[1] = op(d[1], x[3], PR(P, 7), PL(7));                               \
        d[2] = op(d[2], x[3], PR(P, 8), PL(8));                               \
        d[3] = op(d[3], x[3], PR(P, 0), PL(0));                               \
        d[4] = op(d[4], x[3], PR(P, 1), PL(1));                               \
        d[0] = op(d[0], x[4], PR(P, 5), PL(5));                               \
        d[1] = op(d[1], x[4], PR(P, 6), PL(6));                               \
        d[2] = op(d[2], x[4], PR(P, 7), PL(7));                               \
        d[3] = op(d[3], x[4], PR(P, 8), PL(8));                               \
        d[4] = op(d[4], x[4], PR(P, 0), PL(0));                               \
    } while (0)

/* UMULL (d is not read) and UMLAL by element, low or high half */
#define OP_MULL(d, x, r, l) vmull_laneq_u32((x), (r), (l))
#define OP_MLAL(d, x, r, l) vmlal_laneq_u32((d), (x), (r), (l))
#define OP_MLAL_HI(d, x, r, l) vmlal_high_laneq_u32((d), (x), (r), (l))

/* The five limbs of 4 blocks at m (lanes = blocks), 2^128 added. */
static inline void load4(uint32x4_t l[5], const uint8_t *m)
{
    const uint32x4_t mask = vdupq_n_u32((uint32_t)M26);
    uint32x4x4_t w = vld4q_u32((const uint32_t *)(const void *)m);

    l[0] = vandq_u32(w.val[0], mask);
    l[1] = vandq_u32(vsriq_n_u32(vshlq_n_u32(w.val[1], 6), w.val[0], 26),
                     mask);
    l[2] = vandq_u32(vsriq_n_u32(vshlq_n_u32(w.val[2], 12), w.val[1], 20),
                     mask);
    l[3] = vandq_u32(vsriq_n_u32(vshlq_n_u32(w.val[3], 18), w.val[2], 14),
                     mask);
    l[4] = vorrq_u32(vshrq_n_u32(w.val[3], 8), vdupq_n_u32(1u << 24));
}

/* The same for 2 blocks (a pair). */
static inline void load2(uint32x2_t l[5], const uint8_t *m)
{
    const uint32x2_t mask = vdup_n_u32((uint32_t)M26);
    uint32x2x4_t w = vld4_u32((const uint32_t *)(const void *)m);

    l[0] = vand_u32(w.val[0], mask);
    l[1] = vand_u32(vsri_n_u32(vshl_n_u32(w.val[1], 6), w.val[0], 26), mask);
    l[2] = vand_u32(vsri_n_u32(vshl_n_u32(w.val[2], 12), w.val[1], 20), mask);
    l[3] = vand_u32(vsri_n_u32(vshl_n_u32(w.val[3], 18), w.val[2], 14), mask);
    l[4] = vorr_u32(vshr_n_u32(w.val[3], 8), vdup_n_u32(1u << 24));
}

/* h := d carried, as pairs of 32-bit limbs (see the top for the bounds) */
static inline void carry(uint32x2_t h[5], uint64x2_t d[5])
{
    const uint64x2_t mask = vdupq_n_u64(M26);
    uint64x2_t c4;

    d[1] = vsraq_n_u64(d[1], d[0], 26);
    d[4] = vsraq_n_u64(d[4], d[3], 26);
    d[0] = vandq_u64(d[0], mask);
    d[3] = vandq_u64(d[3], mask);
    d[2] = vsraq_n_u64(d[2], d[1], 26);
    c4 = vshrq_n_u64(d[4], 26);
    d[1] = vandq_u64(d[1], mask);
    d[4] = vandq_u64(d[4], mask);
    d[0] = vaddq_u64(d[0], c4);
    d[3] = vsraq_n_u64(d[3], d[2], 26);
    d[0] = vaddq_u64(d[0], vshlq_n_u64(c4, 2));
    d[2] = vandq_u64(d[2], mask);
    d[1] = vsraq_n_u64(d[1], d[0], 26);
    d[4] = vsraq_n_u64(d[4], d[3], 26);
    d[0] = vandq_u64(d[0], mask);
    d[3] = vandq_u64(d[3], mask);
    h[0] = vmovn_u64(d[0]);
    h[1] = vmovn_u64(d[1]);
    h[2] = vmovn_u64(d[2]);
    h[3] = vmovn_u64(d[3]);
    h[4] = vmovn_u64(d[4]);
}

/* H := H r^8 + M0 r^6 + M1 r^4 + M2 r^2 + M3 over the 8 blocks at m */
static inline void step8(uint32x2_t h[5], const uint8_t *m, npow p2,
                         npow p4, npow p6, npow p8)
{
    uint64x2_t d[5];
    uint32x4_t a[5], b[5];
    uint32x2_t lo[5];
    int i;

    load4(a, m);
    for (i = 0; i < 5; i++)
        lo[i] = vget_low_u32(a[i]);
    MUL_ROW(OP_MULL, OP_MLAL, d, lo, p6);
    MUL_ROW(OP_MLAL_HI, OP_MLAL_HI, d, a, p4);
    load4(b, m + 64);
    for (i = 0; i < 5; i++)
        lo[i] = vget_low_u32(b[i]);
    MUL_ROW(OP_MLAL, OP_MLAL, d, lo, p2);
    for (i = 0; i < 5; i++)
        d[i] = vaddw_high_u32(d[i], b[i]);
    MUL_ROW(OP_MLAL, OP_MLAL, d, h, p8);
    carry(h, d);
}

/* H := H r^4 + M0 r^2 + M1 over the 4 blocks at m */
static inline void step4(uint32x2_t h[5], const uint8_t *m, npow p2,
                         npow p4)
{
    uint64x2_t d[5];
    uint32x4_t a[5];
    uint32x2_t lo[5];
    int i;

    load4(a, m);
    for (i = 0; i < 5; i++)
        lo[i] = vget_low_u32(a[i]);
    MUL_ROW(OP_MULL, OP_MLAL, d, lo, p2);
    for (i = 0; i < 5; i++)
        d[i] = vaddw_high_u32(d[i], a[i]);
    MUL_ROW(OP_MLAL, OP_MLAL, d, h, p4);
    carry(h, d);
}

/* H := H r^2 + M0 over the 2 blocks at m */
static inline void step2(uint32x2_t h[5], const uint8_t *m, npow p2)
{
    uint64x2_t d[5];
    uint32x2_t x[5];
    int i;

    load2(x, m);
    for (i = 0; i < 5; i++)
        d[i] = vmovl_u32(x[i]);
    MUL_ROW(OP_MLAL, OP_MLAL, d, h, p2);
    carry(h, d);
}

/* A multiplier for lanewise products: limbs y[0..4] and 5 y[1..4] */
typedef struct {
    uint32x2_t r[5], s[5];
} vmul;

static inline void vmul_set(vmul *m, const uint32x2_t y[5])
{
    int i;

    for (i = 0; i < 5; i++)
        m->r[i] = y[i];
    for (i = 1; i < 5; i++)
        m->s[i] = vadd_u32(y[i], vshl_n_u32(y[i], 2));
}

/* d = x y lanewise, unreduced (the 25 products of poly32) */
static inline void mul_lanes(uint64x2_t d[5], const uint32x2_t x[5],
                             const vmul *y)
{
#define M(k, a, b) d[k] = vmlal_u32(d[k], x[a], b)
    d[0] = vmull_u32(x[0], y->r[0]);
    d[1] = vmull_u32(x[0], y->r[1]);
    d[2] = vmull_u32(x[0], y->r[2]);
    d[3] = vmull_u32(x[0], y->r[3]);
    d[4] = vmull_u32(x[0], y->r[4]);
    M(0, 1, y->s[4]);
    M(1, 1, y->r[0]);
    M(2, 1, y->r[1]);
    M(3, 1, y->r[2]);
    M(4, 1, y->r[3]);
    M(0, 2, y->s[3]);
    M(1, 2, y->s[4]);
    M(2, 2, y->r[0]);
    M(3, 2, y->r[1]);
    M(4, 2, y->r[2]);
    M(0, 3, y->s[2]);
    M(1, 3, y->s[3]);
    M(2, 3, y->s[4]);
    M(3, 3, y->r[0]);
    M(4, 3, y->r[1]);
    M(0, 4, y->s[1]);
    M(1, 4, y->s[2]);
    M(2, 4, y->s[3]);
    M(3, 4, y->s[4]);
    M(4, 4, y->r[0]);
#undef M
}

/* Store the multipliers of the powers in lanes 0 and 1 of x[0..4]
 * (carried limbs) at p (lane 0) and p + 48 (lane 1), in the layout of
 * pw_load: rows (x0 x1 x2 x3) (x4 5x1 5x2 5x3) (5x4 0 0 0). */
static inline void store_pair(uint8_t *p, const uint32x2_t x[5])
{
    const uint32x2_t z = vdup_n_u32(0);
    uint32x2_t s[5];
    uint32x4_t u, v;
    int i;

    for (i = 1; i < 5; i++)
        s[i] = vadd_u32(x[i], vshl_n_u32(x[i], 2));
    u = vcombine_u32(x[0], x[1]);
    v = vcombine_u32(x[2], x[3]);
    vst1q_u8(p, vreinterpretq_u8_u32(vuzp1q_u32(u, v)));
    vst1q_u8(p + 48, vreinterpretq_u8_u32(vuzp2q_u32(u, v)));
    u = vcombine_u32(x[4], s[1]);
    v = vcombine_u32(s[2], s[3]);
    vst1q_u8(p + 16, vreinterpretq_u8_u32(vuzp1q_u32(u, v)));
    vst1q_u8(p + 64, vreinterpretq_u8_u32(vuzp2q_u32(u, v)));
    u = vcombine_u32(s[4], z);
    vst1q_u8(p + 32, vreinterpretq_u8_u32(vuzp1q_u32(u, u)));
    vst1q_u8(p + 80, vreinterpretq_u8_u32(vuzp2q_u32(u, u)));
}

/*
 * r^2, r^4, r^6, r^8 as multipliers into st, and the final multipliers
 * (r^2, r): three rounds of lanewise products from r (limbs < 2^26),
 *   (r, r) (r, r) = (r^2, r^2), (r^2, r^2) (r, r^2) = (r^3, r^4),
 *   (r^4, r^4) (r^2, r^4) = (r^6, r^8),
 * each carried as in a step (limbs < 2^26 + 2^11).
 */
static void neon_powers(uint64_t *st)
{
    uint8_t *pw = pw_bytes(st);
    uint32x2_t r[5], a[5], b[5], c[5], t[5];
    uint64x2_t d[5];
    uint32_t l[5];
    vmul y;
    int i;

    to26(l, st[P64_R0], st[P64_R1], 0);
    for (i = 0; i < 5; i++)
        r[i] = vdup_n_u32(l[i]);
    vmul_set(&y, r);
    mul_lanes(d, r, &y);
    carry(a, d); /* (r^2, r^2) */
    for (i = 0; i < 5; i++)
        t[i] = vzip1_u32(r[i], a[i]); /* (r, r^2) */
    vmul_set(&y, t);
    mul_lanes(d, a, &y);
    carry(b, d); /* (r^3, r^4) */
    for (i = 0; i < 5; i++) {
        t[i] = vzip2_u32(a[i], b[i]);   /* (r^2, r^4) */
        c[i] = vdup_lane_u32(b[i], 1); /* (r^4, r^4) */
    }
    vmul_set(&y, t);
    mul_lanes(d, c, &y);
    carry(c, d); /* (r^6, r^8) */
    store_pair(pw, t);
    store_pair(pw + 96, c);
    /* the final multipliers: limb i of (r^2, r), r0..r4 then s1..s4 */
    for (i = 0; i < 5; i++)
        t[i] = vzip1_u32(a[i], r[i]);
    vmul_set(&y, t);
    for (i = 0; i < 5; i++)
        vst1_u8(pw + PW_FIN_BYTES + 8 * i, vreinterpret_u8_u32(y.r[i]));
    for (i = 1; i < 5; i++)
        vst1_u8(pw + PW_FIN_BYTES + 32 + 8 * i, vreinterpret_u8_u32(y.s[i]));
    st[P64_FLAGS] = 1;
    rijn_burn(l, sizeof l);
}

/* Absorb 2 * (nblocks / 2) blocks (nblocks >= 4); returns that count. */
static size_t neon_vec(uint64_t *st, const uint8_t *m, size_t nblocks)
{
    const uint8_t *pw = pw_bytes(st);
    const npow p2 = pw_load(pw), p4 = pw_load(pw + 48),
               p6 = pw_load(pw + 96), p8 = pw_load(pw + 144);
    uint32x2_t h[5];
    uint32_t h26[5];
    size_t done = 2;
    int i;

    /* the running accumulator joins block 0 (lane 0) */
    to26(h26, st[P64_H0], st[P64_H1], st[P64_H2]);
    load2(h, m);
    for (i = 0; i < 5; i++)
        h[i] = vadd_u32(h[i], vset_lane_u32(h26[i], vdup_n_u32(0), 0));

    while (nblocks - done >= 8) {
        step8(h, m + 16 * done, p2, p4, p6, p8);
        done += 8;
    }
    if (nblocks - done >= 4) {
        step4(h, m + 16 * done, p2, p4);
        done += 4;
    }
    if (nblocks - done >= 2) {
        step2(h, m + 16 * done, p2);
        done += 2;
    }

    /* lane 0 times r^2, lane 1 times r, then the lanes summed */
    {
        uint32x2_t f[9];
        uint64x2_t d[5];
        uint64_t l[5], h0;
        rijn_u128 sum;

        for (i = 0; i < 9; i++)
            f[i] = vreinterpret_u32_u8(vld1_u8(pw + PW_FIN_BYTES + 8 * i));
#define FMUL(k, x, y) d[k] = vmlal_u32(d[k], h[x], f[y])
        d[0] = vmull_u32(h[0], f[0]);
        d[1] = vmull_u32(h[0], f[1]);
        d[2] = vmull_u32(h[0], f[2]);
        d[3] = vmull_u32(h[0], f[3]);
        d[4] = vmull_u32(h[0], f[4]);
        FMUL(0, 1, 8);
        FMUL(1, 1, 0);
        FMUL(2, 1, 1);
        FMUL(3, 1, 2);
        FMUL(4, 1, 3);
        FMUL(0, 2, 7);
        FMUL(1, 2, 8);
        FMUL(2, 2, 0);
        FMUL(3, 2, 1);
        FMUL(4, 2, 2);
        FMUL(0, 3, 6);
        FMUL(1, 3, 7);
        FMUL(2, 3, 8);
        FMUL(3, 3, 0);
        FMUL(4, 3, 1);
        FMUL(0, 4, 5);
        FMUL(1, 4, 6);
        FMUL(2, 4, 7);
        FMUL(3, 4, 8);
        FMUL(4, 4, 0);
#undef FMUL
        for (i = 0; i < 5; i++)
            l[i] = vaddvq_u64(d[i]);
        /* l[i] < 2^59: h = sum of l[i] 2^26i < 2^164 */
        sum = (rijn_u128)l[0] + ((rijn_u128)l[1] << 26) +
              ((rijn_u128)l[2] << 52);
        h0 = (uint64_t)sum;
        sum = (sum >> 64) + ((rijn_u128)l[3] << 14) + ((rijn_u128)l[4] << 40);
        {
            uint64_t a0 = h0, a1 = (uint64_t)sum, a2 = (uint64_t)(sum >> 64);
            p64_fold(&a0, &a1, &a2);
            st[P64_H0] = a0;
            st[P64_H1] = a1;
            st[P64_H2] = a2;
        }
    }
    return done;
}

static void neon_init(uint64_t *st, const uint8_t r16[16])
{
    p64_init(st, r16);
}

/* The vector path, then the scalar code for the last block (its own
 * function, so that short inputs do not pay for its register saves). */
__attribute__((noinline)) static void neon_long(uint64_t *st,
                                                const uint8_t *m,
                                                size_t nblocks)
{
    size_t done;

    if (!st[P64_FLAGS])
        neon_powers(st);
    done = neon_vec(st, m, nblocks);
    p64_blocks(st, m + 16 * done, nblocks - done, 1);
}

static void neon_blocks(uint64_t *st, const uint8_t *m, size_t nblocks,
                        unsigned hibit)
{
    /* which path runs depends on the length only, which is public */
    if (nblocks >= NEON_MIN_BLOCKS && hibit)
        neon_long(st, m, nblocks);
    else
        p64_blocks(st, m, nblocks, hibit);
}

__attribute__((noinline)) static void neon_wipe_powers(uint64_t *st)
{
    rijn_burn(st + PW, (PW_END - PW) * sizeof st[0]);
}

static void neon_finish(uint64_t *st, uint8_t tag[16], const uint8_t pad[16])
{
    const uint64_t powers = st[P64_FLAGS]; /* public: the input was long */

    p64_finish(st, tag, pad);
    if (powers)
        neon_wipe_powers(st);
}

const rijn_poly1305_engine rijn_poly1305_neon = {
    .base = {.name = "neon", .needs = RIJN_CPU_NEON, .constant_time = 1,
             .rank = 30},
    .init = neon_init,
    .blocks = neon_blocks,
    .finish = neon_finish,
};

#else
typedef int rijn_poly1305_neon_not_built; /* ISO C wants a non-empty file */
#endif

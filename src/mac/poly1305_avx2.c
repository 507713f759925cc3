/*
 * avx2: Poly1305 with AVX2, 4 blocks in parallel (one block per 64-bit
 * lane), radix 2^26, 16 blocks per loop step.
 *
 * Each lane holds five 26-bit limbs; VPMULUDQ multiplies the low 32 bits
 * of each 64-bit lane, so a lane product h r mod 2^130-5 is the 25 products
 * of poly32 (the limbs of r above the first pre-multiplied by 5), done for
 * four lanes at once.
 *
 * One accumulator H of stride 4 (lane j holds the blocks j mod 4). A loop
 * step takes four groups M0..M3 of 4 blocks:
 *   H := H r^16 + M0 r^12 + M1 r^8 + M2 r^4 + M3,
 * all 100 products summed per limb in 64 bits, then one carry pass per 16
 * blocks (the old engine carried every 4). The message products do not
 * depend on H and are summed first; H's 25 products come last, so the
 * loop-carried chain is one product, five adds and the carries, and the
 * rest overlaps. The powers r^4..r^16 and 5 times their limbs live in a
 * stack table of 256-bit broadcasts, read as VPMULUDQ memory operands:
 * the 16 ymm registers are left to H, the sums and the message. A last
 * step of k < 4 groups uses r^4k, ..., r^4 alike. At the end lane j is
 * multiplied by r^(4 - block index of lane j) and the four lanes are
 * summed, without a carry. Loading 4 blocks with two 256-bit loads and
 * VPUNPCK{L,H}QDQ puts blocks in lane order 0,2,1,3; the final powers
 * follow that order (free: they are one precomputed row).
 *
 * Carries: two interleaved chains 0-1-2-3-4 and 3-4-0-1 (the bits above
 * limb 4 come back into limb 0 times 5). Limb bounds, worst cases checked
 * by a script: the powers' limbs are < 2^26.33 (r^1..r^4 from the scalar
 * code: value < 5 * 2^128) and 5 times them < 2^28.65; message limbs are
 * < 2^26 (limb 4 < 2^25 with the 2^128 bit); H enters a step with limbs
 * < 2^27 (the first time a message group plus the incoming h, after that
 * < 2^26 + 2^10). So one group's five products per limb sum to < 2^57.5
 * for H and < 2^56.4 for a message group, and a limb's sum over H, three
 * groups and a message limb is < 2^59; the carries leave limbs 0, 2, 3
 * < 2^26 and limbs 1, 4 < 2^26 + 2^10 (the carry into limb 0 is
 * < 5 * 2^33, what limb 0 then passes on < 2^10), so every VPMULUDQ input
 * stays below 2^32. The final lane products sum to < 2^57.5 per lane and
 * limb, < 2^59.5 over the four lanes: all in 64 bits.
 *
 * The accumulator lives in the scalar radix-2^64 form of
 * poly1305_internal.h between calls; inputs of fewer than AVX2_MIN_BLOCKS
 * blocks (below that the scalar code is faster) and the last 0..3 blocks
 * use that scalar code. r^1..r^4 (scalar) and r^8, r^12, r^16 (two rounds
 * of lanewise vector products) are computed once per key, on the first
 * long input.
 *
 * Constant time: assumes VPMULUDQ (32x32->64) and the scalar 64x64->128
 * multiplication have operand-independent latency; no secret-dependent
 * branch or memory index (the step count, k and the table indices come
 * from the length only).
 */
#include "mac/poly1305_internal.h"

#if defined(RIJN_POLY1305_X86)

#include <immintrin.h>

#define AVX2_MIN_BLOCKS 20
#define GROUPS 4 /* groups of 4 blocks per loop step */
#define M26 0x3ffffffULL

/*
 * Powers of r in st, as 26-bit limbs, four to a 256-bit row:
 *   st[PW + 4i + j]       limb i of r^4, r^2, r^3, r^1 (j = 0..3: the
 *                         powers for lanes holding blocks 0, 2, 1, 3)
 *   st[PW + 20 + 4i + j]  limb i of r^8, r^12, r^16 (j = 0..2; j = 3 is 0)
 */
enum { PW = 8, PW_HI = PW + 20, PW_END = PW + 40 };

/* 2^64-radix triple (h2 small) to five 26-bit limbs. */
static void to26(uint64_t l[5], const uint64_t h[3])
{
    l[0] = h[0] & M26;
    l[1] = (h[0] >> 26) & M26;
    l[2] = ((h[0] >> 52) | (h[1] << 12)) & M26;
    l[3] = (h[1] >> 14) & M26;
    l[4] = (h[1] >> 40) | (h[2] << 24);
}

#define AVX2_FEATURES(F) F(AVX, "avx") F(AVX2, "avx2")
#define AVX2_TARGET __attribute__((target(RIJN_X86_TARGET(AVX2_FEATURES))))

/*
 * Numbers are arrays of five limb vectors, passed by pointer: gcc copies
 * vector structs passed by value, and loops that only copy vectors, in
 * 128-bit halves, which then stall when read back as 256 bits. A
 * multiplier is its limbs r[0..4] and s[i] = 5 r[i] (s[0] unused).
 */
typedef struct {
    __m256i r[5], s[5];
} vpow;

static inline AVX2_TARGET __m256i times5(__m256i x)
{
    return _mm256_add_epi64(x, _mm256_slli_epi64(x, 2));
}

/* x := 4 blocks at m as lanes 0,2,1,3, with 2^128 added to each. */
static inline AVX2_TARGET void avx2_load(__m256i x[5], const uint8_t *m)
{
    const __m256i mask = _mm256_set1_epi64x((long long)M26);
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)m);
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(m + 32));
    __m256i lo = _mm256_unpacklo_epi64(a, b), hi = _mm256_unpackhi_epi64(a, b);

    x[0] = _mm256_and_si256(lo, mask);
    x[1] = _mm256_and_si256(_mm256_srli_epi64(lo, 26), mask);
    x[2] = _mm256_and_si256(
        _mm256_or_si256(_mm256_srli_epi64(lo, 52), _mm256_slli_epi64(hi, 12)),
        mask);
    x[3] = _mm256_and_si256(_mm256_srli_epi64(hi, 14), mask);
    x[4] = _mm256_or_si256(_mm256_srli_epi64(hi, 40),
                           _mm256_set1_epi64x(1LL << 24));
}

/* d += x r lanewise, unreduced: d[k] gets the 5 products of weight 2^26k
 * (those at 2^130 and above come back times 5 through s = 5 r). The empty
 * asm keeps each sum in order (else gcc computes all products first and
 * spills them). */
static inline AVX2_TARGET void avx2_madd(__m256i d[5], const __m256i x[5],
                                         const __m256i r[5],
                                         const __m256i s[5])
{
#define MAC(k, a, b)                                                   \
    do {                                                               \
        d[k] = _mm256_add_epi64(d[k], _mm256_mul_epu32((a), (b)));     \
        __asm__("" : "+x"(d[k]));                                      \
    } while (0)
    /* one limb of x at a time, so that x dies limb by limb */
    MAC(0, x[0], r[0]);
    MAC(1, x[0], r[1]);
    MAC(2, x[0], r[2]);
    MAC(3, x[0], r[3]);
    MAC(4, x[0], r[4]);
    MAC(0, x[1], s[4]);
    MAC(1, x[1], r[0]);
    MAC(2, x[1], r[1]);
    MAC(3, x[1], r[2]);
    MAC(4, x[1], r[3]);
    MAC(0, x[2], s[3]);
    MAC(1, x[2], s[4]);
    MAC(2, x[2], r[0]);
    MAC(3, x[2], r[1]);
    MAC(4, x[2], r[2]);
    MAC(0, x[3], s[2]);
    MAC(1, x[3], s[3]);
    MAC(2, x[3], s[4]);
    MAC(3, x[3], r[0]);
    MAC(4, x[3], r[1]);
    MAC(0, x[4], s[1]);
    MAC(1, x[4], s[2]);
    MAC(2, x[4], s[3]);
    MAC(3, x[4], s[4]);
    MAC(4, x[4], r[0]);
#undef MAC
}

/* h := d carried (same value mod p): limbs < 2^59 in; out limbs 0, 2, 3
 * < 2^26, limbs 1, 4 < 2^26 + 2^10. Two interleaved chains 0-1-2-3-4
 * and 3-4-0-1. */
static inline AVX2_TARGET void avx2_carry(__m256i h[5], __m256i d[5])
{
    const __m256i mask = _mm256_set1_epi64x((long long)M26);
    __m256i c0, c1, c3, c4;

    c0 = _mm256_srli_epi64(d[0], 26);
    c3 = _mm256_srli_epi64(d[3], 26);
    h[0] = _mm256_and_si256(d[0], mask);
    h[3] = _mm256_and_si256(d[3], mask);
    d[1] = _mm256_add_epi64(d[1], c0);
    d[4] = _mm256_add_epi64(d[4], c3);
    c1 = _mm256_srli_epi64(d[1], 26);
    c4 = _mm256_srli_epi64(d[4], 26);
    h[1] = _mm256_and_si256(d[1], mask);
    h[4] = _mm256_and_si256(d[4], mask);
    d[2] = _mm256_add_epi64(d[2], c1);
    h[0] = _mm256_add_epi64(h[0], times5(c4));
    c1 = _mm256_srli_epi64(d[2], 26);
    c0 = _mm256_srli_epi64(h[0], 26);
    h[2] = _mm256_and_si256(d[2], mask);
    h[0] = _mm256_and_si256(h[0], mask);
    h[3] = _mm256_add_epi64(h[3], c1);
    h[1] = _mm256_add_epi64(h[1], c0);
    c3 = _mm256_srli_epi64(h[3], 26);
    h[3] = _mm256_and_si256(h[3], mask);
    h[4] = _mm256_add_epi64(h[4], c3);
}

/* h := x y lanewise, carried. */
static inline AVX2_TARGET void avx2_mul(__m256i h[5], const __m256i x[5],
                                        const __m256i y[5])
{
    __m256i d[5], s[5];
    for (int i = 0; i < 5; i++) {
        d[i] = _mm256_setzero_si256();
        s[i] = times5(y[i]);
    }
    avx2_madd(d, x, y, s);
    avx2_carry(h, d);
}

/* One step over k groups of 4 blocks at m (1 <= k <= GROUPS), t[q] =
 * r^(4q + 4):  h := h r^(4k) + M_0 r^(4(k-1)) + ... + M_(k-2) r^4 + M_(k-1).
 * h's products come last in each sum, so the sums of the message products
 * (which do not depend on h) are not held up behind the previous step's
 * carries. */
static inline AVX2_TARGET void avx2_step(__m256i h[5], const uint8_t *m,
                                         const vpow t[GROUPS], int k)
{
    __m256i d[5], x[5];

    avx2_load(d, m + 64 * (k - 1));
    for (int g = 0; g < k - 1; g++) {
        avx2_load(x, m + 64 * g);
        avx2_madd(d, x, t[k - 2 - g].r, t[k - 2 - g].s);
    }
    avx2_madd(d, h, t[k - 1].r, t[k - 1].s);
    avx2_carry(h, d);
}

/* Zero n 256-bit words at p with vector stores, kept (rijn_burn's memset
 * of a few hundred bytes is `rep stos` here, slow to start, and gcc turns
 * a plain loop of zero stores back into memset: the asm hides the 0). */
static inline AVX2_TARGET void avx2_wipe(void *p, size_t n)
{
    __m256i z = _mm256_setzero_si256();

    __asm__("" : "+x"(z));
    for (size_t i = 0; i < n; i++)
        _mm256_storeu_si256((__m256i *)p + i, z);
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

/* h = h0 + h1 2^64 + h2 2^128 (h2 small) as limbs into lane j of the
 * rows at st + PW */
static void to26_lane(uint64_t *st, int j, uint64_t h0, uint64_t h1,
                      uint64_t h2)
{
    const uint64_t h[3] = {h0, h1, h2};
    uint64_t l[5];

    to26(l, h);
    for (int i = 0; i < 5; i++)
        st[PW + 4 * i + j] = l[i];
}

/* r^1..r^4 by the scalar code; then r^8 = r^4 r^4 in every lane, and
 * r^8 (1, r^4, r^8, 0) = (r^8, r^12, r^16, 0): two vector products. The
 * vector code starts from r^4 in registers, not from the row just stored
 * (a 256-bit load of four 64-bit stores cannot be forwarded: it waits). */
static AVX2_TARGET void avx2_powers(uint64_t *st)
{
    const uint64_t r0 = st[P64_R0], r1 = st[P64_R1], s1 = st[P64_S1];
    uint64_t h0 = r0, h1 = r1, h2 = 0, l[5], h[3];
    __m256i r4[5], r8[5], y[5];
    int i;

    to26_lane(st, 3, h0, h1, h2);
    p64_mul(&h0, &h1, &h2, r0, r1, s1);
    to26_lane(st, 1, h0, h1, h2);
    p64_mul(&h0, &h1, &h2, r0, r1, s1);
    to26_lane(st, 2, h0, h1, h2);
    p64_mul(&h0, &h1, &h2, r0, r1, s1);
    to26_lane(st, 0, h0, h1, h2);
    h[0] = h0;
    h[1] = h1;
    h[2] = h2;
    to26(l, h);
    for (i = 0; i < 5; i++)
        r4[i] = _mm256_set1_epi64x((long long)l[i]);

    avx2_mul(r8, r4, r4);
    for (i = 0; i < 5; i++) {
        y[i] = _mm256_set_epi64x(0, 0, 0, i == 0);
        y[i] = _mm256_blend_epi32(y[i], r4[i], 0x0c); /* lane 1 */
        y[i] = _mm256_blend_epi32(y[i], r8[i], 0x30); /* lane 2 */
    }
    avx2_mul((__m256i *)(void *)(st + PW_HI), r8, y);
    st[P64_FLAGS] = 1;
}

/* Absorb 4 * (nblocks / 4) blocks (nblocks >= 4); returns that count. */
static AVX2_TARGET size_t avx2_vec(uint64_t *st, const uint8_t *m,
                                   size_t nblocks)
{
    vpow t[GROUPS]; /* t[q]: r^(4q + 4) in every lane */
    __m256i h[5];
    uint64_t h26[5], hv[3];
    size_t done = 4;
    int i, k;

    for (k = 0; k < GROUPS; k++)
        for (i = 0; i < 5; i++) {
            t[k].r[i] = _mm256_set1_epi64x((long long)(
                k == 0 ? st[PW + 4 * i] : st[PW_HI + 4 * i + k - 1]));
            if (i > 0) /* s[0] is not used */
                t[k].s[i] = times5(t[k].r[i]);
        }

    hv[0] = st[P64_H0];
    hv[1] = st[P64_H1];
    hv[2] = st[P64_H2];
    to26(h26, hv);
    avx2_load(h, m);
    for (i = 0; i < 5; i++) /* the running accumulator joins block 0 */
        h[i] = _mm256_add_epi64(h[i],
                                _mm256_set_epi64x(0, 0, 0, (long long)h26[i]));

    while (nblocks - done >= 4 * GROUPS) {
        avx2_step(h, m + 16 * done, t, GROUPS);
        done += 4 * GROUPS;
    }
    k = (int)((nblocks - done) / 4);
    if (k > 0) {
        avx2_step(h, m + 16 * done, t, k);
        done += 4 * (size_t)k;
    }

    /* lanes hold blocks 0,2,1,3: multiply by r^4, r^2, r^3, r^1 (the
     * first row of st), then sum the lanes */
    {
        const __m256i *r = (const __m256i *)(const void *)(st + PW);
        __m256i d[5], s[5];
        uint64_t l[5], h0;
        rijn_u128 sum;

        for (i = 0; i < 5; i++) {
            s[i] = times5(r[i]);
            d[i] = _mm256_setzero_si256();
        }
        avx2_madd(d, h, r, s);
        for (i = 0; i < 5; i++) {
            __m128i x = _mm_add_epi64(_mm256_castsi256_si128(d[i]),
                                      _mm256_extracti128_si256(d[i], 1));
            x = _mm_add_epi64(x, _mm_unpackhi_epi64(x, x));
            l[i] = (uint64_t)_mm_cvtsi128_si64(x);
        }
        /* l[i] < 2^59.5: h = sum of l[i] 2^26i < 2^164 */
        sum = (rijn_u128)l[0] + ((rijn_u128)l[1] << 26) +
              ((rijn_u128)l[2] << 52);
        h0 = (uint64_t)sum;
        sum = (sum >> 64) + ((rijn_u128)l[3] << 14) + ((rijn_u128)l[4] << 40);
        p64_store_folded(st, h0, (uint64_t)sum, (uint64_t)(sum >> 64));
    }

    avx2_wipe(t, sizeof t / (sizeof(__m256i)));
    return done;
}

static void avx2_init(uint64_t *st, const uint8_t r16[16])
{
    p64_init(st, r16);
}

static void avx2_blocks(uint64_t *st, const uint8_t *m, size_t nblocks,
                        unsigned hibit)
{
    p64_vec_blocks(st, m, nblocks, hibit, AVX2_MIN_BLOCKS, avx2_powers,
                   avx2_vec);
}

/* (its own function: compiling all of finish for AVX2 made short
 * messages, which never set the flag, a few cycles slower) */
static AVX2_TARGET void avx2_wipe_powers(uint64_t *st)
{
    avx2_wipe(st + PW, (PW_END - PW) / 4);
}

static void avx2_finish(uint64_t *st, uint8_t tag[16], const uint8_t pad[16])
{
    if (st[P64_FLAGS]) /* public: the input was long */
        avx2_wipe_powers(st);
    p64_finish(st, tag, pad);
}

const rijn_poly1305_engine rijn_poly1305_avx2 = {
    .base = {.name = "avx2", .needs = RIJN_X86_NEEDS(AVX2_FEATURES),
             .constant_time = 1, .rank = 30},
    .init = avx2_init,
    .blocks = avx2_blocks,
    .finish = avx2_finish,
};

#endif

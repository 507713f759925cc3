/*
 * avx2: Poly1305 with AVX2, 4 blocks in parallel (one block per 64-bit
 * lane), radix 2^26.
 *
 * Each lane holds five 26-bit limbs; VPMULUDQ multiplies the low 32 bits
 * of each 64-bit lane, so a lane product h r mod 2^130-5 is the 25 products
 * of poly32 (the limbs of r above the first pre-multiplied by 5), done for
 * four lanes at once. Two accumulators A and B take alternate groups of 4
 * blocks, each stepping with r^8 (Horner in stride 8, two independent
 * dependency chains); then A r^4 + B is one stride-4 accumulator, lane j
 * is multiplied by r^(4 - block index of lane j) and the lanes are summed.
 * Loading 4 blocks with two 256-bit loads and VPUNPCK{L,H}QDQ puts blocks
 * in lane order 0,2,1,3; the final powers follow that order. Carries: two
 * interleaved chains (0-1-2-3-4 and 3-4-0-1) leave every limb below 2^26
 * plus a few bits.
 *
 * Limb bounds: between steps limbs < 2^26 + 2^10; with a message block
 * < 2^27.1; r^k limbs < 2^27 (powers partially reduced, < 2^131), 5 r^k
 * < 2^29.4, so every product < 2^56.5 and a sum of five < 2^59.
 *
 * The accumulator lives in the scalar radix-2^64 form of
 * poly1305_internal.h between calls; inputs of fewer than AVX2_MIN_BLOCKS
 * blocks and the last 0..3 blocks use that scalar code. r^1..r^4 and r^8
 * are computed once per key, on the first long input.
 *
 * Constant time: assumes VPMULUDQ (32x32->64) and the scalar 64x64->128
 * multiplication have operand-independent latency; no secret-dependent
 * branch or memory index.
 */
#include "mac/poly1305_internal.h"

#if defined(RIJN_POLY1305_X86)

#include <immintrin.h>

#define AVX2_MIN_BLOCKS 16
#define M26 0x3ffffffULL

/* st[8 + 5*(k-1) + i]: limb i of r^k, k = 1..4; st[28 + i]: r^8. */
enum { PW = 8, PW8 = 28 };

/* 2^64-radix triple (h2 small) to five 26-bit limbs. */
static void to26(uint64_t l[5], const uint64_t h[3])
{
    l[0] = h[0] & M26;
    l[1] = (h[0] >> 26) & M26;
    l[2] = ((h[0] >> 52) | (h[1] << 12)) & M26;
    l[3] = (h[1] >> 14) & M26;
    l[4] = (h[1] >> 40) | (h[2] << 24);
}

static void avx2_powers(uint64_t *st)
{
    uint64_t pw[8][3];
    p64_powers(st, pw, 8);
    for (int k = 0; k < 4; k++)
        to26(st + PW + 5 * k, pw[k]);
    to26(st + PW8, pw[7]);
    rijn_burn(pw, sizeof pw);
    st[P64_FLAGS] = 1;
}

#define AVX2_TARGET __attribute__((target("avx2")))

typedef struct {
    __m256i l[5];
} v5;

static inline AVX2_TARGET v5 avx2_load(const uint8_t *m)
{
    const __m256i mask = _mm256_set1_epi64x((long long)M26);
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)m);
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(m + 32));
    __m256i lo = _mm256_unpacklo_epi64(a, b), hi = _mm256_unpackhi_epi64(a, b);
    v5 r;
    r.l[0] = _mm256_and_si256(lo, mask);
    r.l[1] = _mm256_and_si256(_mm256_srli_epi64(lo, 26), mask);
    r.l[2] = _mm256_and_si256(
        _mm256_or_si256(_mm256_srli_epi64(lo, 52), _mm256_slli_epi64(hi, 12)),
        mask);
    r.l[3] = _mm256_and_si256(_mm256_srli_epi64(hi, 14), mask);
    r.l[4] = _mm256_or_si256(_mm256_srli_epi64(hi, 40),
                             _mm256_set1_epi64x(1LL << 24));
    return r;
}

static inline AVX2_TARGET __m256i times5(__m256i x)
{
    return _mm256_add_epi64(x, _mm256_slli_epi64(x, 2));
}

/* h * r lanewise; r = limbs r[0..4], s[i] = 5 r[i] (s[0] unused). */
static inline AVX2_TARGET v5 avx2_mul(v5 h, const __m256i r[5],
                                      const __m256i s[5])
{
    const __m256i mask = _mm256_set1_epi64x((long long)M26);
    __m256i d0, d1, d2, d3, d4, c0, c1, c2, c3, c4;
    v5 o;

#define MUL(a, b) _mm256_mul_epu32((a), (b))
#define ADD(a, b) _mm256_add_epi64((a), (b))
    d0 = ADD(ADD(MUL(h.l[0], r[0]), MUL(h.l[1], s[4])),
             ADD(ADD(MUL(h.l[2], s[3]), MUL(h.l[3], s[2])),
                 MUL(h.l[4], s[1])));
    d1 = ADD(ADD(MUL(h.l[0], r[1]), MUL(h.l[1], r[0])),
             ADD(ADD(MUL(h.l[2], s[4]), MUL(h.l[3], s[3])),
                 MUL(h.l[4], s[2])));
    d2 = ADD(ADD(MUL(h.l[0], r[2]), MUL(h.l[1], r[1])),
             ADD(ADD(MUL(h.l[2], r[0]), MUL(h.l[3], s[4])),
                 MUL(h.l[4], s[3])));
    d3 = ADD(ADD(MUL(h.l[0], r[3]), MUL(h.l[1], r[2])),
             ADD(ADD(MUL(h.l[2], r[1]), MUL(h.l[3], r[0])),
                 MUL(h.l[4], s[4])));
    d4 = ADD(ADD(MUL(h.l[0], r[4]), MUL(h.l[1], r[3])),
             ADD(ADD(MUL(h.l[2], r[2]), MUL(h.l[3], r[1])),
                 MUL(h.l[4], r[0])));

    /* carries along 0-1-2-3-4 and 3-4-0-1, interleaved */
    c0 = _mm256_srli_epi64(d0, 26);
    d0 = _mm256_and_si256(d0, mask);
    c3 = _mm256_srli_epi64(d3, 26);
    d3 = _mm256_and_si256(d3, mask);
    d1 = ADD(d1, c0);
    d4 = ADD(d4, c3);
    c1 = _mm256_srli_epi64(d1, 26);
    d1 = _mm256_and_si256(d1, mask);
    c4 = _mm256_srli_epi64(d4, 26);
    d4 = _mm256_and_si256(d4, mask);
    d2 = ADD(d2, c1);
    d0 = ADD(d0, times5(c4));
    c2 = _mm256_srli_epi64(d2, 26);
    d2 = _mm256_and_si256(d2, mask);
    c0 = _mm256_srli_epi64(d0, 26);
    d0 = _mm256_and_si256(d0, mask);
    d3 = ADD(d3, c2);
    d1 = ADD(d1, c0);
    c3 = _mm256_srli_epi64(d3, 26);
    d3 = _mm256_and_si256(d3, mask);
    d4 = ADD(d4, c3);
#undef MUL
#undef ADD
    o.l[0] = d0;
    o.l[1] = d1;
    o.l[2] = d2;
    o.l[3] = d3;
    o.l[4] = d4;
    return o;
}

static inline AVX2_TARGET v5 v5_add(v5 a, v5 b)
{
    for (int i = 0; i < 5; i++)
        a.l[i] = _mm256_add_epi64(a.l[i], b.l[i]);
    return a;
}

/* Absorb 4 * (nblocks / 4) blocks (nblocks >= 8); returns that count. */
static AVX2_TARGET size_t avx2_vec(uint64_t *st, const uint8_t *m,
                                   size_t nblocks)
{
    const uint64_t *pw = st + PW;
    __m256i r[5], s[5];
    uint64_t h26[5], hv[3];
    v5 a, b;
    size_t done;
    int i;

    hv[0] = st[P64_H0];
    hv[1] = st[P64_H1];
    hv[2] = st[P64_H2];
    to26(h26, hv);

    a = avx2_load(m);
    for (i = 0; i < 5; i++) /* the running accumulator joins block 0 */
        a.l[i] = _mm256_add_epi64(
            a.l[i], _mm256_set_epi64x(0, 0, 0, (long long)h26[i]));
    b = avx2_load(m + 64);
    done = 8;
    m += 128;

    for (i = 0; i < 5; i++) {
        r[i] = _mm256_set1_epi64x((long long)st[PW8 + i]);
        s[i] = times5(r[i]);
    }
    while (nblocks - done >= 8) {
        a = v5_add(avx2_mul(a, r, s), avx2_load(m));
        b = v5_add(avx2_mul(b, r, s), avx2_load(m + 64));
        done += 8;
        m += 128;
    }

    /* A r^4 + B: one accumulator of stride 4 */
    for (i = 0; i < 5; i++) {
        r[i] = _mm256_set1_epi64x((long long)pw[5 * 3 + i]);
        s[i] = times5(r[i]);
    }
    a = v5_add(avx2_mul(a, r, s), b);
    if (nblocks - done >= 4) {
        a = v5_add(avx2_mul(a, r, s), avx2_load(m));
        done += 4;
    }

    /* lanes hold blocks 0,2,1,3: multiply by r^4, r^2, r^3, r^1 */
    for (i = 0; i < 5; i++) {
        r[i] = _mm256_set_epi64x((long long)pw[5 * 0 + i],
                                 (long long)pw[5 * 2 + i],
                                 (long long)pw[5 * 1 + i],
                                 (long long)pw[5 * 3 + i]);
        s[i] = times5(r[i]);
    }
    a = avx2_mul(a, r, s);

    {
        uint64_t l[5], h0;
        rijn_u128 t;
        for (i = 0; i < 5; i++) {
            __m128i x = _mm_add_epi64(_mm256_castsi256_si128(a.l[i]),
                                      _mm256_extracti128_si256(a.l[i], 1));
            x = _mm_add_epi64(x, _mm_unpackhi_epi64(x, x));
            l[i] = (uint64_t)_mm_cvtsi128_si64(x);
        }
        t = (rijn_u128)l[0] + ((rijn_u128)l[1] << 26) +
            ((rijn_u128)l[2] << 52);
        h0 = (uint64_t)t;
        t = (t >> 64) + ((rijn_u128)l[3] << 14) + ((rijn_u128)l[4] << 40);
        p64_store_folded(st, h0, (uint64_t)t, (uint64_t)(t >> 64));
    }
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

static void avx2_finish(uint64_t *st, uint8_t tag[16], const uint8_t pad[16])
{
    if (st[P64_FLAGS]) /* public: the input was long */
        rijn_burn(st + PW, (PW8 + 5 - PW) * sizeof st[0]);
    p64_finish(st, tag, pad);
}

const rijn_poly1305_engine rijn_poly1305_avx2 = {
    "avx2", RIJN_CPU_AVX2, 30, avx2_init, avx2_blocks, avx2_finish,
};

#endif

/*
 * avx512ifma: Poly1305 with AVX-512 IFMA (VPMADD52LUQ/VPMADD52HUQ), 8
 * blocks per 512-bit vector, two vectors (16 blocks) per loop iteration.
 *
 * Radix 2^44: a number mod p = 2^130-5 is three limbs at bit 0, 44 and 88
 * (44, 44 and 42 bits when reduced), so a limb product fits the 52x52->104
 * multiplier and 2^132 == 4*5 = 20 folds the high product terms back:
 *   d0 = a0 r0 + a1 (20 r2) + a2 (20 r1)
 *   d1 = a0 r1 + a1 r0      + a2 (20 r2)
 *   d2 = a0 r2 + a1 r1      + a2 r0
 * Each d_k is kept as its low-52 and high-52 halves (one VPMADD52LUQ and
 * one VPMADD52HUQ per product) and recombined with one round of parallel
 * carries, which leaves the limbs a little above 44/44/42 bits: fine as
 * multiplier inputs (< 52 bits) for the next block.
 *
 * Limb bounds: after a step limbs < 2^44 + 2^15, 2^44 + 2^13, 2^42 + 2^13;
 * with a message block < 2^45.1; powers of r (partially reduced, < 2^131)
 * have limbs < 2^44.1 and 20 r_k < 2^48.5, so a product is < 2^93.6 (high
 * half < 2^41.6), the three low halves of a d_k sum to < 2^54 and
 * lo0 + 5120 hi2 < 2^57: no 64-bit lane overflows.
 *
 * Lanes: accumulator A takes the even groups of 8 blocks and B the odd
 * ones, each stepping with r^16 (Horner in stride 16); at the end
 * A r^8 + B is one stride-8 accumulator, and lane j is multiplied by
 * r^(8 - block index of lane j) before the lanes are summed. Loading 8
 * blocks with two 512-bit loads and VPUNPCK{L,H}QDQ puts blocks in lane
 * order 0,4,1,5,2,6,3,7; the final powers follow that order.
 *
 * The accumulator lives in the scalar radix-2^64 form of
 * poly1305_internal.h between calls, and inputs of fewer than
 * IFMA_MIN_BLOCKS blocks (and the last 0..7 blocks) use the scalar code:
 * a 64-byte message never touches a vector register. The powers r^1..r^8
 * and r^16 are computed once per key, on the first long input, with four
 * rounds of lanewise vector products.
 *
 * Constant time: assumes VPMADD52LUQ/HUQ (52x52->104) have
 * operand-independent latency (no vendor documents otherwise) and likewise
 * the scalar 64x64->128 multiplies of poly64; no secret-dependent branch or
 * memory index. Valgrind cannot run this file; it is constant-time by
 * construction (straight-line vector code, loop bounds from the length).
 */
#include "mac/poly1305_internal.h"

#if defined(RIJN_POLY1305_X86)

#include <immintrin.h>

#define IFMA_MIN_BLOCKS 16
#define M44 0xfffffffffffULL
#define M42 0x3ffffffffffULL

/* st[8 + 8*i + (k-1)]: limb i of r^k, k = 1..8 (three vectors of 8 lanes
 * in natural order); st[32 + i]: limb i of r^16. */
enum { PW = 8, PW16 = 32 };

/* 2^64-radix triple (value < 2^131) to three 2^44 limbs. */
static void to44(uint64_t out[3], const uint64_t h[3])
{
    out[0] = h[0] & M44;
    out[1] = ((h[0] >> 44) | (h[1] << 20)) & M44;
    out[2] = (h[1] >> 24) | (h[2] << 40);
}

#define IFMA_FEATURES(F) \
    F(AVX, "avx") F(AVX2, "avx2") F(AVX512F, "avx512f") F(AVX512IFMA, "avx512ifma")
#define IFMA_TARGET __attribute__((target(RIJN_X86_TARGET(IFMA_FEATURES))))

typedef struct {
    __m512i l0, l1, l2;
} v3;

static inline IFMA_TARGET v3 ifma_load(const uint8_t *m)
{
    const __m512i mask44 = _mm512_set1_epi64((long long)M44);
    __m512i a = _mm512_loadu_si512((const void *)m);
    __m512i b = _mm512_loadu_si512((const void *)(m + 64));
    __m512i lo = _mm512_unpacklo_epi64(a, b), hi = _mm512_unpackhi_epi64(a, b);
    v3 r;
    r.l0 = _mm512_and_si512(lo, mask44);
    r.l1 = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(lo, 44), _mm512_slli_epi64(hi, 20)),
        mask44);
    r.l2 = _mm512_or_si512(_mm512_srli_epi64(hi, 24),
                           _mm512_set1_epi64(1LL << 40));
    return r;
}

/* a * r (lanewise), r limbs r0..r2 and s1 = 20 r1, s2 = 20 r2; result
 * limbs partially carried. */
static inline IFMA_TARGET v3 ifma_mul(v3 a, __m512i r0, __m512i r1,
                                      __m512i r2, __m512i s1, __m512i s2)
{
    const __m512i z = _mm512_setzero_si512();
    const __m512i mask44 = _mm512_set1_epi64((long long)M44);
    const __m512i mask42 = _mm512_set1_epi64((long long)M42);
    __m512i lo0, lo1, lo2, hi0, hi1, hi2, c0, c1, c2;
    v3 t;

    lo0 = _mm512_madd52lo_epu64(z, a.l0, r0);
    hi0 = _mm512_madd52hi_epu64(z, a.l0, r0);
    lo1 = _mm512_madd52lo_epu64(z, a.l0, r1);
    hi1 = _mm512_madd52hi_epu64(z, a.l0, r1);
    lo2 = _mm512_madd52lo_epu64(z, a.l0, r2);
    hi2 = _mm512_madd52hi_epu64(z, a.l0, r2);

    lo0 = _mm512_madd52lo_epu64(lo0, a.l1, s2);
    hi0 = _mm512_madd52hi_epu64(hi0, a.l1, s2);
    lo1 = _mm512_madd52lo_epu64(lo1, a.l1, r0);
    hi1 = _mm512_madd52hi_epu64(hi1, a.l1, r0);
    lo2 = _mm512_madd52lo_epu64(lo2, a.l1, r1);
    hi2 = _mm512_madd52hi_epu64(hi2, a.l1, r1);

    lo0 = _mm512_madd52lo_epu64(lo0, a.l2, s1);
    hi0 = _mm512_madd52hi_epu64(hi0, a.l2, s1);
    lo1 = _mm512_madd52lo_epu64(lo1, a.l2, s2);
    hi1 = _mm512_madd52hi_epu64(hi1, a.l2, s2);
    lo2 = _mm512_madd52lo_epu64(lo2, a.l2, r0);
    hi2 = _mm512_madd52hi_epu64(hi2, a.l2, r0);

    /* value = sum_k (lo_k + hi_k 2^52) 2^(44k); hi_k 2^52 = (hi_k << 8)
     * 2^44 moves one limb up, and hi2 2^(88+52) = hi2 2^10 2^130 ==
     * 5120 hi2 at limb 0. */
    lo0 = _mm512_add_epi64(lo0, _mm512_add_epi64(_mm512_slli_epi64(hi2, 12),
                                                 _mm512_slli_epi64(hi2, 10)));
    lo1 = _mm512_add_epi64(lo1, _mm512_slli_epi64(hi0, 8));
    lo2 = _mm512_add_epi64(lo2, _mm512_slli_epi64(hi1, 8));
    /* one round of parallel carries (2^130 == 5 for the top one) */
    c0 = _mm512_srli_epi64(lo0, 44);
    c1 = _mm512_srli_epi64(lo1, 44);
    c2 = _mm512_srli_epi64(lo2, 42);
    t.l0 = _mm512_add_epi64(_mm512_and_si512(lo0, mask44),
                            _mm512_add_epi64(c2, _mm512_slli_epi64(c2, 2)));
    t.l1 = _mm512_add_epi64(_mm512_and_si512(lo1, mask44), c0);
    t.l2 = _mm512_add_epi64(_mm512_and_si512(lo2, mask42), c1);
    return t;
}

static inline IFMA_TARGET v3 v3_add(v3 a, v3 b)
{
    a.l0 = _mm512_add_epi64(a.l0, b.l0);
    a.l1 = _mm512_add_epi64(a.l1, b.l1);
    a.l2 = _mm512_add_epi64(a.l2, b.l2);
    return a;
}

static inline IFMA_TARGET __m512i times20(__m512i x)
{
    return _mm512_add_epi64(_mm512_slli_epi64(x, 4), _mm512_slli_epi64(x, 2));
}

static inline IFMA_TARGET v3 v3_bcast(v3 a, int lane)
{
    const __m512i idx = _mm512_set1_epi64(lane);
    a.l0 = _mm512_permutexvar_epi64(idx, a.l0);
    a.l1 = _mm512_permutexvar_epi64(idx, a.l1);
    a.l2 = _mm512_permutexvar_epi64(idx, a.l2);
    return a;
}

static inline IFMA_TARGET v3 v3_blend(__mmask8 k, v3 a, v3 b)
{
    a.l0 = _mm512_mask_blend_epi64(k, a.l0, b.l0);
    a.l1 = _mm512_mask_blend_epi64(k, a.l1, b.l1);
    a.l2 = _mm512_mask_blend_epi64(k, a.l2, b.l2);
    return a;
}

static inline IFMA_TARGET v3 v3_mul(v3 a, v3 b)
{
    return ifma_mul(a, b.l0, b.l1, b.l2, times20(b.l1), times20(b.l2));
}

/* r^1..r^8 in lanes 0..7, and r^16, with three rounds of lanewise
 * products (a lane times 1 = limbs 1,0,0 passes through). */
static IFMA_TARGET void ifma_powers(uint64_t *st)
{
    uint64_t r44[3], rv[3];
    v3 one, v1, v2, v4, v8, v16;

    rv[0] = st[P64_R0];
    rv[1] = st[P64_R1];
    rv[2] = 0;
    to44(r44, rv);
    one.l0 = _mm512_set1_epi64(1);
    one.l1 = one.l2 = _mm512_setzero_si512();
    v1.l0 = _mm512_set1_epi64((long long)r44[0]);
    v1.l1 = _mm512_set1_epi64((long long)r44[1]);
    v1.l2 = _mm512_set1_epi64((long long)r44[2]);
    v2 = v3_mul(v1, v1);                                /* r^2 everywhere */
    /* [r, r^2, r, r^2, ...] * [1, 1, r^2, r^2, ...] = r^1..r^4, twice */
    v4 = v3_mul(v3_blend(0xaa, v1, v2), v3_blend(0xcc, one, v2));
    /* times [1, 1, 1, 1, r^4, r^4, r^4, r^4] = r^1..r^8 */
    v8 = v3_mul(v4, v3_blend(0xf0, one, v3_bcast(v4, 3)));
    v16 = v3_bcast(v8, 7);
    v16 = v3_mul(v16, v16);
    _mm512_store_si512((void *)(st + PW), v8.l0);
    _mm512_store_si512((void *)(st + PW + 8), v8.l1);
    _mm512_store_si512((void *)(st + PW + 16), v8.l2);
    st[PW16 + 0] = (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(v16.l0));
    st[PW16 + 1] = (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(v16.l1));
    st[PW16 + 2] = (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(v16.l2));
    st[P64_FLAGS] = 1;
}

/* Absorb 16 * (nblocks / 16) or more blocks (at least 16), a multiple of
 * 8; returns the number of blocks done. */
static IFMA_TARGET size_t ifma_vec(uint64_t *st, const uint8_t *m,
                                   size_t nblocks)
{
    const uint64_t *pw = st + PW;
    __m512i r0, r1, r2, s1, s2;
    v3 a, b;
    uint64_t h44[3], hv[3];
    size_t done;

    hv[0] = st[P64_H0];
    hv[1] = st[P64_H1];
    hv[2] = st[P64_H2];
    to44(h44, hv);

    a = ifma_load(m);
    b = ifma_load(m + 128);
    /* the running accumulator joins block 0 (lane 0) */
    a.l0 = _mm512_add_epi64(a.l0, _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0,
                                                   (long long)h44[0]));
    a.l1 = _mm512_add_epi64(a.l1, _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0,
                                                   (long long)h44[1]));
    a.l2 = _mm512_add_epi64(a.l2, _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0,
                                                   (long long)h44[2]));
    done = 16;
    m += 256;

    r0 = _mm512_set1_epi64((long long)st[PW16 + 0]);
    r1 = _mm512_set1_epi64((long long)st[PW16 + 1]);
    r2 = _mm512_set1_epi64((long long)st[PW16 + 2]);
    s1 = times20(r1);
    s2 = times20(r2);
    while (nblocks - done >= 16) {
        a = v3_add(ifma_mul(a, r0, r1, r2, s1, s2), ifma_load(m));
        b = v3_add(ifma_mul(b, r0, r1, r2, s1, s2), ifma_load(m + 128));
        done += 16;
        m += 256;
    }

    /* A r^8 + B: one accumulator of stride 8 */
    r0 = _mm512_set1_epi64((long long)pw[7]);
    r1 = _mm512_set1_epi64((long long)pw[8 + 7]);
    r2 = _mm512_set1_epi64((long long)pw[16 + 7]);
    s1 = times20(r1);
    s2 = times20(r2);
    a = v3_add(ifma_mul(a, r0, r1, r2, s1, s2), b);
    if (nblocks - done >= 8) {
        a = v3_add(ifma_mul(a, r0, r1, r2, s1, s2), ifma_load(m));
        done += 8;
    }

    /* lane j holds block 0,4,1,5,2,6,3,7: multiply by r^8,r^4,r^7,...,r^1 */
    {
        const __m512i idx = _mm512_set_epi64(0, 4, 1, 5, 2, 6, 3, 7);
        r0 = _mm512_permutexvar_epi64(idx, _mm512_load_si512((const void *)pw));
        r1 = _mm512_permutexvar_epi64(
            idx, _mm512_load_si512((const void *)(pw + 8)));
        r2 = _mm512_permutexvar_epi64(
            idx, _mm512_load_si512((const void *)(pw + 16)));
    }
    s1 = times20(r1);
    s2 = times20(r2);
    a = ifma_mul(a, r0, r1, r2, s1, s2);

    {
        uint64_t l0 = (uint64_t)_mm512_reduce_add_epi64(a.l0);
        uint64_t l1 = (uint64_t)_mm512_reduce_add_epi64(a.l1);
        uint64_t l2 = (uint64_t)_mm512_reduce_add_epi64(a.l2);
        rijn_u128 t = (rijn_u128)l0 + ((rijn_u128)l1 << 44);
        uint64_t h0 = (uint64_t)t;
        t = (t >> 64) + ((rijn_u128)l2 << 24);
        p64_store_folded(st, h0, (uint64_t)t, (uint64_t)(t >> 64));
    }
    return done;
}

static void ifma_init(uint64_t *st, const uint8_t r16[16])
{
    p64_init(st, r16);
}

static void ifma_blocks(uint64_t *st, const uint8_t *m, size_t nblocks,
                        unsigned hibit)
{
    p64_vec_blocks(st, m, nblocks, hibit, IFMA_MIN_BLOCKS, ifma_powers,
                   ifma_vec);
}

static void ifma_finish(uint64_t *st, uint8_t tag[16], const uint8_t pad[16])
{
    if (st[P64_FLAGS]) /* public: the input was long */
        rijn_burn(st + PW, (PW16 + 3 - PW) * sizeof st[0]);
    p64_finish(st, tag, pad);
}

const rijn_poly1305_engine rijn_poly1305_avx512ifma = {
    .base = {.name = "avx512ifma", .needs = RIJN_X86_NEEDS(IFMA_FEATURES),
             .constant_time = 1, .rank = 40},
    .init = ifma_init,
    .blocks = ifma_blocks,
    .finish = ifma_finish,
};

#endif

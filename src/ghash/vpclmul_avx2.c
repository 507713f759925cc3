/*
 * vpclmul-avx2: GHASH with VPCLMULQDQ on 256-bit registers, two blocks
 * per YMM register (Intel Ice Lake / Alder Lake and later, AMD Zen 3 and
 * later), and AES-GCM kernels fused with the vaes-avx2 backend.
 *
 * Representation: pclmul.c's (byte-reflected blocks, powers of H stored
 * times y, the Montgomery-style reduction by two carry-less products),
 * here on both 128-bit lanes at once; the lanes are added at the end.
 *
 * Batch width: 16 blocks (8 YMM) per step with H^16..H^1 precomputed and
 * one deferred reduction per step (aggregated reduction, Gopal et al.,
 * "Optimized Galois-Counter-Mode Implementation on Intel Architecture
 * Processors"; the key layout and Karatsuba choice of E. Biggers' AVX2
 * AES-GCM in Linux, arch/x86/crypto/aes-gcm-vaes-avx2.S). Products are
 * Karatsuba's: per register one VPCLMULQDQ for the low halves, one for
 * the high halves and one for the halves' XORs against the precomputed
 * XORs of H^i's halves (four powers' XORs per register). Measured on
 * Zen 4 (VPCLMULQDQ issues once per two cycles there and takes issue
 * slots from VAESENC), Karatsuba's loop ran 5% faster than schoolbook's
 * (AES-128: 0.305 against 0.322 c/B); 10 or 12 AES registers per step
 * instead of 8 spill (16 YMM in all) and lose 15-20%. Tails (under 16 blocks) take H^n..H^1 loaded
 * at any offset, schoolbook, one reduction.
 *
 * Fused AES-GCM (vaes-avx2's key layout: 32 bytes per round key, the key
 * twice; its round key, round and counter helpers from vaes_avx2.h): one
 * stitched loop over the data, 16 blocks per iteration: the 8 YMM of
 * AES-CTR state run their rounds while the GHASH of the previous
 * batch's ciphertext (encryption) or of this batch's input (decryption)
 * is computed between them, one register's products per round, the one
 * that takes y last (so the previous reduction has seven rounds to
 * finish), the reduction in the last round. Round keys are loaded once
 * per round, powers of H are memory operands. Counters: the loop's
 * batches start at a counter whose low 32 bits are a multiple of 8 (the
 * blocks before it take the short path), so block i of a group of 8 is
 * the group's base with i in byte 15: per batch two VPADDD/VPSHUFB for
 * the bases and one VPXOR per register with rk[0] ^ (2j, 2j+1), instead
 * of a VPADDD, VPSHUFB and VPXOR per register (shuffles compete with
 * VAESENC for issue slots). Bases step mod 2^32 (inc32). The blocks
 * before the alignment, the tail, and messages too short for one aligned
 * batch take the short path: one batch of 1, 2, 4 or 8 YMM (the
 * message's end batch, vp_end_n: any count 1..8) with
 * per-register counters (one AES latency chain per 16 blocks), then the
 * GHASH of its output (encryption) or input (decryption).
 *
 * Constant time: VPCLMULQDQ, VAESENC, VPSHUFB, VPSHUFD, VPXOR, VPADDD,
 * shifts and lane moves only; no branch or memory index depends on the
 * key, H or the data (only on block counts, the counter's low bits, which
 * are public, and the key length).
 *
 * hk (384 bytes, 16-byte units): [0..15] y * H^16 .. y * H^1, so that the
 * 32 bytes at unit 16 - n hold [H^n, H^(n-1)] (lane 0, lane 1);
 * [16..23] for the loop's register j (blocks 2j, 2j+1, with H^(16-2j) and
 * H^(15-2j)) the XORs of those powers' halves, registers 2m and 2m+1
 * sharing the 32 bytes at unit 16 + 2m (qword 0 of each lane for 2m,
 * qword 1 for 2m+1).
 */
#include "ghash/ghash.h"
#include "ghash/ghash_x86.h"
#include "aes/x86/vaes_avx2.h"

#if defined(RIJN_X86_VAES_AVX2)

/* vaes-avx2's target (its helpers inline here) and the carry-less
 * products; a superset of GX_FEATURES (ghash_x86.h's helpers inline too) */
#define VP_FEATURES(F) \
    V2_FEATURES(F) F(PCLMUL, "pclmul") F(VPCLMUL, "vpclmulqdq")
#define VP_FN __attribute__((target(RIJN_X86_TARGET(VP_FEATURES))))
#define VP_INLINE static inline __attribute__((always_inline, \
    target(RIJN_X86_TARGET(VP_FEATURES))))

#define NPOW 16          /* powers of H: blocks per step (vp_init builds 16) */
#define HX_UNIT NPOW     /* 16-byte unit of the first halves' XORs */
#define KEY_BYTES (16 * NPOW + 8 * NPOW)

/* Keep x's computation in place (the compiler would otherwise regroup
 * the XOR chains and keep every product live); emits nothing. */
#define VP_KEEP(x) __asm__("" : "+x"(x))
/* The n (1..8) registers r[0..n) all made at this point, so that
 * nothing computed from them starts earlier; emits nothing. */
#define VP_R4(r) "+x"((r)[0]), "+x"((r)[1]), "+x"((r)[2]), "+x"((r)[3])
#define VP_FENCE_REGS(r, n)                                                \
    do {                                                                   \
        if ((n) == 8)                                                      \
            __asm__("" : VP_R4(r), VP_R4((r) + 4));                        \
        else if ((n) == 7)                                                 \
            __asm__("" : VP_R4(r), "+x"((r)[4]), "+x"((r)[5]),             \
                    "+x"((r)[6]));                                         \
        else if ((n) == 6)                                                 \
            __asm__("" : VP_R4(r), "+x"((r)[4]), "+x"((r)[5]));            \
        else if ((n) == 5)                                                 \
            __asm__("" : VP_R4(r), "+x"((r)[4]));                          \
        else if ((n) == 4)                                                 \
            __asm__("" : VP_R4(r));                                        \
        else if ((n) == 3)                                                 \
            __asm__("" : "+x"((r)[0]), "+x"((r)[1]), "+x"((r)[2]));        \
        else if ((n) == 2)                                                 \
            __asm__("" : "+x"((r)[0]), "+x"((r)[1]));                      \
        else                                                               \
            __asm__("" : "+x"((r)[0]));                                    \
    } while (0)
/* Hide what was stored through p, so it is reloaded. */
#define VP_OPAQUE(p) __asm__("" : "+r"(p))

/* The last round key of the end batch (vp_end_n), loaded through an
 * opaque pointer, so that the load is not merged with an earlier one of
 * the same key and held from there (stackwipe looks for every round
 * key). The short and one-shot batches keep it in a register (no spill
 * seen there). */
VP_INLINE __m256i vp_kl(const rijn_aes_key *k, unsigned nr)
{
    VP_OPAQUE(k);
    return v2_rk(k, nr);
}

#define BSWAP256 _mm256_broadcastsi128_si256(GX_BSWAP128)
#define GFPOLY256 _mm256_broadcastsi128_si256(GX_GFPOLY)

typedef struct {
    __m256i lo, mi, hi;
} vp_acc;

/* The 128-bit helpers (key setup, single blocks) are ghash_x86.h's. */

/* ---- 256-bit GHASH ------------------------------------------------------ */

/* Reduce both lanes (mi already complete), each on its own. */
VP_INLINE __m256i vp_reduce2(__m256i lo, __m256i mi, __m256i hi)
{
    const __m256i p = GFPOLY256;

    mi = _mm256_xor_si256(mi, _mm256_xor_si256(_mm256_shuffle_epi32(lo, 0x4e),
                                               _mm256_clmulepi64_epi128(p, lo, 0x01)));
    return _mm256_xor_si256(hi, _mm256_xor_si256(_mm256_shuffle_epi32(mi, 0x4e),
                                                 _mm256_clmulepi64_epi128(p, mi, 0x01)));
}

/* Reduce both lanes (mi already complete), then add the lanes. */
VP_INLINE __m128i vp_fold(__m256i lo, __m256i mi, __m256i hi)
{
    const __m256i r = vp_reduce2(lo, mi, hi);

    return _mm_xor_si128(_mm256_castsi256_si128(r),
                         _mm256_extracti128_si256(r, 1));
}

/* Reduce a vp_madd_k sum (mi holds the middle products only). */
VP_INLINE __m128i vp_reduce_k(vp_acc a)
{
    return vp_fold(a.lo, _mm256_xor_si256(a.mi, _mm256_xor_si256(a.lo, a.hi)),
                   a.hi);
}

VP_INLINE const uint8_t *vp_bytes(const uint64_t *hk)
{
    return (const uint8_t *)(const void *)hk;
}

/* Two blocks, byte-reflected per lane. */
VP_INLINE __m256i vp_load2(const uint8_t *p)
{
    return _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(const void *)p),
                               BSWAP256);
}

/*
 * The loop's products of register j (0..7, constant): x holds blocks 2j
 * and 2j+1 (reflected; block 0 already XORed with y), times H^(16-2j) and
 * H^(15-2j), Karatsuba, added to a.
 */
VP_INLINE void vp_madd_k(vp_acc *a, const uint8_t *hk, __m256i x, size_t j)
{
    const __m256i h = _mm256_load_si256((const __m256i *)(const void *)(hk + 32 * j));
    const __m256i hx = _mm256_load_si256(
        (const __m256i *)(const void *)(hk + 16 * HX_UNIT + 32 * (j / 2)));
    const __m256i xm = _mm256_xor_si256(x, _mm256_shuffle_epi32(x, 0x4e));

    a->lo = _mm256_xor_si256(a->lo, _mm256_clmulepi64_epi128(x, h, 0x00));
    a->hi = _mm256_xor_si256(a->hi, _mm256_clmulepi64_epi128(x, h, 0x11));
    a->mi = _mm256_xor_si256(a->mi, j % 2 ? _mm256_clmulepi64_epi128(xm, hx, 0x10)
                                          : _mm256_clmulepi64_epi128(xm, hx, 0x00));
}

/* y absorbs 16 blocks at in (one step). */
VP_INLINE __m128i vp_absorb_step(const uint8_t *hk, __m128i y, const uint8_t *in)
{
    vp_acc a;
    size_t j;

    a.lo = a.mi = a.hi = _mm256_setzero_si256();
    RIJN_UNROLL(8)
    for (j = 0; j < 8; j++) {
        __m256i x = vp_load2(in + 32 * j);
        if (j == 0)
            x = _mm256_xor_si256(x, _mm256_zextsi128_si256(y));
        vp_madd_k(&a, hk, x, j);
        VP_KEEP(a.lo);
        VP_KEEP(a.mi);
        VP_KEEP(a.hi);
    }
    return vp_reduce_k(a);
}

/* acc += x times the two powers h, schoolbook (first: set). */
VP_INLINE void vp_madd_s(vp_acc *a, __m256i x, __m256i h, int first)
{
    const __m256i lo = _mm256_clmulepi64_epi128(x, h, 0x00);
    const __m256i mi = _mm256_xor_si256(_mm256_clmulepi64_epi128(x, h, 0x01),
                                        _mm256_clmulepi64_epi128(x, h, 0x10));
    const __m256i hi = _mm256_clmulepi64_epi128(x, h, 0x11);

    if (first) {
        a->lo = lo;
        a->mi = mi;
        a->hi = hi;
    } else {
        a->lo = _mm256_xor_si256(a->lo, lo);
        a->mi = _mm256_xor_si256(a->mi, mi);
        a->hi = _mm256_xor_si256(a->hi, hi);
    }
}

/* Powers [H^m, H^(m-1)] (2 <= m <= 16), any m. */
VP_INLINE __m256i vp_pow2(const uint8_t *hk, size_t m)
{
    return _mm256_loadu_si256((const __m256i *)(const void *)(hk + 16 * (NPOW - m)));
}

/* H^1 in lane 0, zero in lane 1. */
VP_INLINE __m256i vp_pow1(const uint8_t *hk)
{
    return _mm256_zextsi128_si256(
        _mm_load_si128((const __m128i *)(const void *)(hk + 16 * (NPOW - 1))));
}

/*
 * y absorbs x[0..(n+1)/2) holding n blocks (1 <= n <= NPOW; reflected; for
 * odd n the last register's lane 1 is zero): x[0] lane 0 gets y and
 * H^n, ..., the last block H^1. One reduction.
 */
VP_INLINE __m128i vp_absorb_regs(const uint8_t *hk, __m128i y,
                                 const __m256i *x, size_t n)
{
    vp_acc a;
    size_t j;

    if (n == 1)
        return gx_mul(_mm_xor_si128(y, _mm256_castsi256_si128(x[0])),
                         _mm256_castsi256_si128(vp_pow1(hk)));
    vp_madd_s(&a, _mm256_xor_si256(x[0], _mm256_zextsi128_si256(y)),
              vp_pow2(hk, n), 1);
    for (j = 1; 2 * j + 1 < n; j++)
        vp_madd_s(&a, x[j], vp_pow2(hk, n - 2 * j), 0);
    if (n % 2)
        vp_madd_s(&a, x[j], vp_pow1(hk), 0);
    return vp_fold(a.lo, a.mi, a.hi);
}

/* y absorbs n < NPOW blocks of in (n may be 0). */
VP_INLINE __m128i vp_absorb_tail(const uint8_t *hk, __m128i y,
                                 const uint8_t *in, size_t n)
{
    __m256i x[8];
    size_t j;

    if (n == 0)
        return y;
    x[0] = _mm256_setzero_si256(); /* set below; the compiler cannot see it */
    for (j = 0; 2 * j + 1 < n; j++)
        x[j] = vp_load2(in + 32 * j);
    if (n % 2)
        x[j] = _mm256_zextsi128_si256(gx_load(in + 32 * j));
    return vp_absorb_regs(hk, y, x, n);
}

/* Both lanes' products a * b (each lane reduced, the lanes not added):
 * two powers of H per multiplication in vp_init. */
VP_INLINE __m256i vp_mul2(__m256i a, __m256i b)
{
    return vp_reduce2(_mm256_clmulepi64_epi128(a, b, 0x00),
                      _mm256_xor_si256(_mm256_clmulepi64_epi128(a, b, 0x01),
                                       _mm256_clmulepi64_epi128(a, b, 0x10)),
                      _mm256_clmulepi64_epi128(a, b, 0x11));
}

/* Lane 0 of x in both lanes. */
VP_INLINE __m256i vp_lane0(__m256i x)
{
    return _mm256_permute2x128_si256(x, x, 0x00);
}

VP_FN static void vp_init(uint64_t *hk, const uint8_t h[16])
{
    uint8_t *k = (uint8_t *)(void *)hk;
    const __m128i x = gx_key_h(h); /* y * H (see pclmul.c) */
    const __m128i x2 = gx_mul(x, x);
    size_t i;

    /* H^1..H^16 as a tree of products, four multiplications deep, two
     * powers per YMM product (vp_mul2): H^2; [H^4, H^3] = H^2 * [H^2,
     * H^1]; H^4 * those two pairs; H^8 * those four. The pair [H^n,
     * H^(n-1)] is the 32 bytes at unit 16 - n (see the top), so each
     * product is stored as made, in the key, nothing elsewhere. Seven
     * YMM products and one XMM product instead of fifteen XMM ones: the
     * multiplier's throughput bounds this, and a YMM product costs what an
     * XMM one does. The whole AES-GCM key setup took 0.72-0.76 of the
     * time it took with fifteen on Zen 3 (AES-128 and -256, 2026-12-07). */
#define VP_PAIR(n) (*(__m256i *)(void *)(k + 16 * (NPOW - (n))))
    VP_PAIR(2) = _mm256_set_m128i(x, x2);
    VP_PAIR(4) = vp_mul2(_mm256_broadcastsi128_si256(x2), VP_PAIR(2));
    for (i = 1; i <= 2; i++)
        VP_PAIR(4 + 2 * i) = vp_mul2(vp_lane0(VP_PAIR(4)), VP_PAIR(2 * i));
    for (i = 1; i <= 4; i++)
        VP_PAIR(8 + 2 * i) = vp_mul2(vp_lane0(VP_PAIR(8)), VP_PAIR(2 * i));
#undef VP_PAIR
    /* halves' XORs: registers 2m and 2m+1 in qwords 0 and 1 of each lane */
    for (i = 0; i < 4; i++) {
        const __m256i a = _mm256_load_si256((const __m256i *)(const void *)(k + 64 * i));
        const __m256i b = _mm256_load_si256((const __m256i *)(const void *)(k + 64 * i + 32));
        _mm256_store_si256((__m256i *)(void *)(k + 16 * HX_UNIT + 32 * i),
                           _mm256_xor_si256(_mm256_unpacklo_epi64(a, b),
                                            _mm256_unpackhi_epi64(a, b)));
    }
}

VP_FN static void vp_blocks(const uint64_t *hk, uint8_t y[16],
                            const uint8_t *in, size_t nblocks)
{
    const uint8_t *k = vp_bytes(hk);
    __m128i acc;

    if (nblocks == 0) /* empty AAD: no round trip of y */
        return;
    acc = gx_load(y);
    for (; nblocks >= NPOW; nblocks -= NPOW, in += 16 * NPOW)
        acc = vp_absorb_step(k, acc, in);
    acc = vp_absorb_tail(k, acc, in, nblocks);
    gx_store(y, acc);
}

/* ------------------------------------------------------------------------
 * Fused AES-CTR + GHASH with the vaes-avx2 key layout
 * --------------------------------------------------------------------- */

/* Round keys (v2_rk), counters (V2_SWAP32, v2_lanes, v2_counters) and the
 * rolled rounds of the short path (v2_rounds): vaes_avx2.h. */

/*
 * The first batch of an encryption, which has nothing to hash yet: 16
 * blocks of CTR from the counter c (its low word native in both lanes, a
 * multiple of 8). Group q of 8 blocks starts at base bswap(c + 8q);
 * register j is that base XOR ks[j % 4] = rk[0] ^ (2j, 2j+1 mod 8 in
 * byte 15), the counter trick of the loop (vp_loop_asm).
 */
VP_INLINE void vp_first(const rijn_aes_key *k, uint8_t *out,
                        const uint8_t *in, __m256i c, const __m256i *ks,
                        const unsigned nr, __m256i *cb)
{
    __m256i s[8], kl;
    unsigned r;
    size_t j, q;

    VP_OPAQUE(ks); /* loaded from ks (wiped) each time, not kept (spilled) */
    for (q = 0; q < 2; q++) {
        const __m256i b = _mm256_shuffle_epi8(
            q == 0 ? c : _mm256_add_epi32(c, v2_lanes(8)), V2_SWAP32);
        for (j = 0; j < 4; j++)
            s[4 * q + j] = _mm256_xor_si256(b, _mm256_load_si256(ks + j));
    }
    RIJN_NO_UNROLL
    for (r = 1; r < nr; r++) {
        const __m256i kr = v2_rk(k, r);
        RIJN_UNROLL(8)
        for (j = 0; j < 8; j++)
            s[j] = _mm256_aesenc_epi128(s[j], kr);
    }
    /* loaded here: loaded at the start, it was spilled across the rounds
     * (stackwipe) */
    kl = v2_rk(k, nr);
    RIJN_UNROLL(8)
    for (j = 0; j < 8; j++) {
        cb[j] = _mm256_aesenclast_epi128(s[j], _mm256_xor_si256(
            kl, _mm256_loadu_si256((const __m256i *)(const void *)(in + 32 * j))));
        _mm256_storeu_si256((__m256i *)(void *)(out + 32 * j), cb[j]);
    }
}

/* ---- The loop body by hand ---------------------------------------------
 *
 * The same loop in C with intrinsics, compiled by gcc 12, ran a batch in
 * about 101-103 cycles on Zen 3 (AES-256): gcc bunched the GHASH
 * operations between runs of eight VAESENC. The same instructions in a
 * hand-made order, one GHASH
 * operation after each VAESENC, ran in 94-95 in a loop of their own. The
 * loop below is that order, for the batches that hash (all of them when
 * decrypting, all but the first when encrypting). Registers: ymm0-7 the
 * AES states, ymm8 the block being hashed (then its halves' XOR), ymm9 a
 * product or scratch, ymm10-12 the sums of the low, middle and high
 * products, ymm13 the round key, ymm14 the counter (low words native),
 * ymm15 y (lane 0; lane 1 zero). Slots: register j's products in one round
 * (registers 1..7 then 0, which takes y, so the previous reduction has
 * rounds to finish), the reduction in round nr-1; the first slot writes
 * the sums instead of adding to them. Constant time: no branch or address
 * depends on data.
 */
#define VPA_K(r) "vmovdqu " #r "*32(%[rk]), %%ymm13\n\t"
#define VPA_E(i) "vaesenc %%ymm13, %%ymm" #i ", %%ymm" #i "\n\t"
#define VPA_R(r) VPA_K(r) VPA_E(0) VPA_E(1) VPA_E(2) VPA_E(3) VPA_E(4) \
    VPA_E(5) VPA_E(6) VPA_E(7)
/* the hashed register: loaded (encrypting, from d, the last batch's
 * ciphertext; decrypting, from in, and kept in d for the last round,
 * which adds the last round key to it), reflected, y added to j 0 */
#define VPA_G1_0(j) "vmovdqu " #j "*32(%[d]), %%ymm8\n\t"
#define VPA_G1_1(j) "vmovdqu " #j "*32(%[in]), %%ymm8\n\t"
#define VPA_GD_0(j)
#define VPA_GD_1(j) "vmovdqu %%ymm8, " #j "*32(%[d])\n\t"
#define VPA_G2 "vpshufb %[bswap], %%ymm8, %%ymm8\n\t"
#define VPA_GY_0
#define VPA_GY_1 "vpxor %%ymm15, %%ymm8, %%ymm8\n\t"
/* lo, hi: written by the first slot, added afterwards */
#define VPA_G3_1(j) "vpclmulqdq $0x00, " #j "*32(%[hk]), %%ymm8, %%ymm10\n\t"
#define VPA_G4_1
#define VPA_G3_0(j) "vpclmulqdq $0x00, " #j "*32(%[hk]), %%ymm8, %%ymm9\n\t"
#define VPA_G4_0 "vpxor %%ymm9, %%ymm10, %%ymm10\n\t"
#define VPA_G5_1(j) "vpclmulqdq $0x11, " #j "*32(%[hk]), %%ymm8, %%ymm12\n\t"
#define VPA_G6_1
#define VPA_G5_0(j) "vpclmulqdq $0x11, " #j "*32(%[hk]), %%ymm8, %%ymm9\n\t"
#define VPA_G6_0 "vpxor %%ymm9, %%ymm12, %%ymm12\n\t"
#define VPA_G7 "vpshufd $0x4e, %%ymm8, %%ymm9\n\t"
#define VPA_G8 "vpxor %%ymm9, %%ymm8, %%ymm8\n\t"
/* the middle product against the halves' XORs of the two powers (qword 0
 * of each lane for even j, qword 1 for odd j) */
#define VPA_G9(j, sel) "vpclmulqdq $" #sel ", 256+(" #j "/2)*32(%[hk]), " \
    "%%ymm8, %%ymm8\n\t"
#define VPA_G10_1 "vmovdqa %%ymm8, %%ymm11\n\t"
#define VPA_G10_0 "vpxor %%ymm8, %%ymm11, %%ymm11\n\t"
/* round r with register j's products (F: first slot, Y: j is 0, D:
 * decrypting, sel: 0x00 for even j, 0x10 for odd j) */
#define VPA_RH(r, j, sel, F, Y, D) VPA_K(r) \
    VPA_E(0) VPA_G1_##D(j) VPA_GD_##D(j) \
    VPA_E(1) VPA_G2 VPA_GY_##Y \
    VPA_E(2) VPA_G3_##F(j) \
    VPA_E(3) VPA_G4_##F \
    VPA_E(4) VPA_G5_##F(j) \
    VPA_E(5) VPA_G6_##F \
    VPA_E(6) VPA_G7 \
    VPA_E(7) VPA_G8 VPA_G9(j, sel) VPA_G10_##F
/* the reduction of the sums into y (vp_reduce_k, vp_fold) */
#define VPA_RED \
    "vpxor %%ymm10, %%ymm11, %%ymm11\n\t" \
    "vpxor %%ymm12, %%ymm11, %%ymm11\n\t" \
    "vpclmulqdq $0x10, %[poly], %%ymm10, %%ymm9\n\t" \
    "vpshufd $0x4e, %%ymm10, %%ymm10\n\t" \
    "vpxor %%ymm10, %%ymm11, %%ymm11\n\t" \
    "vpxor %%ymm9, %%ymm11, %%ymm11\n\t" \
    "vpclmulqdq $0x10, %[poly], %%ymm11, %%ymm9\n\t" \
    "vpshufd $0x4e, %%ymm11, %%ymm11\n\t" \
    "vpxor %%ymm11, %%ymm12, %%ymm12\n\t" \
    "vpxor %%ymm9, %%ymm12, %%ymm12\n\t" \
    "vextracti128 $1, %%ymm12, %%xmm9\n\t" \
    "vpxor %%xmm9, %%xmm12, %%xmm15\n\t"
/* the counter blocks XOR rk[0] (vp_first's ks), the counter stepped */
#define VPA_CTR \
    "vpshufb %[swap], %%ymm14, %%ymm9\n\t" \
    "vpxor 0(%[ks]), %%ymm9, %%ymm0\n\t" \
    "vpxor 32(%[ks]), %%ymm9, %%ymm1\n\t" \
    "vpxor 64(%[ks]), %%ymm9, %%ymm2\n\t" \
    "vpxor 96(%[ks]), %%ymm9, %%ymm3\n\t" \
    "vpaddd %[l8], %%ymm14, %%ymm9\n\t" \
    "vpshufb %[swap], %%ymm9, %%ymm9\n\t" \
    "vpxor 0(%[ks]), %%ymm9, %%ymm4\n\t" \
    "vpxor 32(%[ks]), %%ymm9, %%ymm5\n\t" \
    "vpxor 64(%[ks]), %%ymm9, %%ymm6\n\t" \
    "vpxor 96(%[ks]), %%ymm9, %%ymm7\n\t" \
    "vpaddd %[l16], %%ymm14, %%ymm14\n\t"
/* the last round and the stores (encrypting, to out and to d, where the
 * next batch hashes the ciphertext from) */
#define VPA_L_0(j) "vpxor " #j "*32(%[in]), %%ymm13, %%ymm9\n\t" \
    "vaesenclast %%ymm9, %%ymm" #j ", %%ymm" #j "\n\t" \
    "vmovdqu %%ymm" #j ", " #j "*32(%[out])\n\t" \
    "vmovdqa %%ymm" #j ", " #j "*32(%[d])\n\t"
#define VPA_L_1(j) "vpxor " #j "*32(%[d]), %%ymm13, %%ymm9\n\t" \
    "vaesenclast %%ymm9, %%ymm" #j ", %%ymm" #j "\n\t" \
    "vmovdqu %%ymm" #j ", " #j "*32(%[out])\n\t"
#define VPA_LAST(nr, D) VPA_K(nr) VPA_L_##D(0) VPA_L_##D(1) VPA_L_##D(2) \
    VPA_L_##D(3) VPA_L_##D(4) VPA_L_##D(5) VPA_L_##D(6) VPA_L_##D(7)
#define VPA_BODY10(D) VPA_CTR \
    VPA_RH(1, 1, 0x10, 1, 0, D) VPA_RH(2, 2, 0x00, 0, 0, D) \
    VPA_RH(3, 3, 0x10, 0, 0, D) VPA_RH(4, 4, 0x00, 0, 0, D) \
    VPA_RH(5, 5, 0x10, 0, 0, D) VPA_RH(6, 6, 0x00, 0, 0, D) \
    VPA_RH(7, 7, 0x10, 0, 0, D) VPA_RH(8, 0, 0x00, 0, 1, D) \
    VPA_R(9) VPA_RED VPA_LAST(10, D)
#define VPA_BODY12(D) VPA_CTR VPA_R(1) \
    VPA_RH(2, 1, 0x10, 1, 0, D) VPA_RH(3, 2, 0x00, 0, 0, D) \
    VPA_RH(4, 3, 0x10, 0, 0, D) VPA_RH(5, 4, 0x00, 0, 0, D) VPA_R(6) \
    VPA_RH(7, 5, 0x10, 0, 0, D) VPA_RH(8, 6, 0x00, 0, 0, D) \
    VPA_RH(9, 7, 0x10, 0, 0, D) VPA_RH(10, 0, 0x00, 0, 1, D) \
    VPA_R(11) VPA_RED VPA_LAST(12, D)
#define VPA_BODY14(D) VPA_CTR VPA_R(1) \
    VPA_RH(2, 1, 0x10, 1, 0, D) VPA_RH(3, 2, 0x00, 0, 0, D) VPA_R(4) \
    VPA_RH(5, 3, 0x10, 0, 0, D) VPA_RH(6, 4, 0x00, 0, 0, D) VPA_R(7) \
    VPA_RH(8, 5, 0x10, 0, 0, D) VPA_RH(9, 6, 0x00, 0, 0, D) VPA_R(10) \
    VPA_RH(11, 7, 0x10, 0, 0, D) VPA_RH(12, 0, 0x00, 0, 1, D) \
    VPA_R(13) VPA_RED VPA_LAST(14, D)
#define VPA_LOOP(BODY) \
    __asm__ __volatile__( \
        "vmovdqu %[c], %%ymm14\n\t" \
        "vmovdqu %[y], %%ymm15\n\t" \
        "1:\n\t" BODY \
        "add $256, %[in]\n\t" \
        "add $256, %[out]\n\t" \
        "dec %[n]\n\t" \
        "jnz 1b\n\t" \
        "vmovdqu %%ymm14, %[c]\n\t" \
        "vmovdqu %%ymm15, %[y]\n\t" \
        : [n] "+r"(nb), [in] "+r"(in), [out] "+r"(out), \
          [c] "+m"(*c), [y] "+m"(*y) \
        : [rk] "r"(k->rk), [hk] "r"(hk), \
          [ks] "r"(ks), [d] "r"(d), [bswap] "m"(cst[0]), \
          [swap] "m"(cst[1]), [poly] "m"(cst[2]), [l8] "m"(cst[3]), \
          [l16] "m"(cst[4]) \
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", \
          "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", \
          "xmm15", "cc", "memory")

/*
 * nb >= 1 batches of 16 blocks, each hashing 16 blocks: c (counter, low
 * words native, both lanes; stepped by 16 blocks per batch) and y (lane
 * 0) are read and written back. d (256 bytes, 32-aligned, the caller's):
 * decrypting, the batch's input registers as loaded (each once), hashed
 * and kept there for the last round; encrypting, the previous batch's
 * ciphertext as made (vp_first puts the first batch's there), which each
 * batch hashes and then overwrites with its own: never read back from
 * out, where another writer would choose what the tag covers. d holds
 * nothing secret.
 */
VP_INLINE void vp_loop_asm(const rijn_aes_key *k, const uint8_t *hk,
                           uint8_t *out, const uint8_t *in,
                           size_t nb, __m256i *c, __m256i *y,
                           const __m256i *ks, const unsigned nr,
                           const int decrypt, __m256i *d)
{
    RIJN_ALIGN(32) __m256i cst[5];

    cst[0] = BSWAP256;
    cst[1] = V2_SWAP32;
    cst[2] = GFPOLY256;
    cst[3] = v2_lanes(8);
    cst[4] = v2_lanes(NPOW);
/* the loop of the round count nr (D: decrypting) */
#define VPA_LOOP_NR(D) \
    do { \
        if (nr == 10) \
            VPA_LOOP(VPA_BODY10(D)); \
        else if (nr == 12) \
            VPA_LOOP(VPA_BODY12(D)); \
        else \
            VPA_LOOP(VPA_BODY14(D)); \
    } while (0)
    if (decrypt)
        VPA_LOOP_NR(1); /* d: the input, nothing secret */
    else
        VPA_LOOP_NR(0);
#undef VPA_LOOP_NR
}

/* The aligned loop over nb batches for one round count; c as in vp_first. */
VP_INLINE __m128i vp_loop(const rijn_aes_key *k, const uint8_t *hk,
                          uint8_t *out, const uint8_t *in, size_t nb,
                          __m256i c, const __m256i *ks, __m128i y,
                          const unsigned nr, const int decrypt)
{
    RIJN_ALIGN(32) __m256i d[8]; /* vp_loop_asm's */
    __m256i yv;

    if (decrypt) {
        yv = _mm256_zextsi128_si256(y);
        vp_loop_asm(k, hk, out, in, nb, &c, &yv, ks, nr, 1, d);
        return _mm256_castsi256_si128(yv);
    }
    vp_first(k, out, in, c, ks, nr, d);
    if (nb > 1) {
        c = _mm256_add_epi32(c, v2_lanes(NPOW));
        yv = _mm256_zextsi128_si256(y);
        vp_loop_asm(k, hk, out + 16 * NPOW, in + 16 * NPOW, nb - 1, &c, &yv,
                    ks, nr, 0, d);
        y = _mm256_castsi256_si128(yv);
    }
    return vp_absorb_step(hk, y, (const uint8_t *)(const void *)d);
}

/*
 * 1..16 blocks (m) as one batch of n YMM (n constant, 2n >= m): CTR from
 * c (lane i holds counter + i, low word native) and GHASH of the
 * ciphertext. An odd last block is read and written with 16-byte
 * accesses. Each input register is loaded once (RIJN_READ_ONCE_VEC: not
 * folded into the XOR and the shuffle as two memory operands), so when
 * decrypting the blocks hashed are the blocks decrypted.
 */
VP_INLINE __m128i vp_short_n(const rijn_aes_key *k, const uint8_t *hk,
                             uint8_t *out, const uint8_t *in, size_t m,
                             __m256i c, __m128i y, const size_t n,
                             const int decrypt)
{
    const unsigned nr = k->rounds;
    __m256i s[8], x[8], kl;
    size_t j;

    v2_counters(c, s, n);
    v2_rounds(k, s, n, nr);
    kl = v2_rk(k, nr);
    RIJN_UNROLL(8)
    for (j = 0; j < n; j++) {
        if (2 * j + 2 <= m) {
            __m256i d = _mm256_loadu_si256((const __m256i *)(const void *)(in + 32 * j));
            RIJN_READ_ONCE_VEC(d);
            const __m256i o = _mm256_aesenclast_epi128(s[j], _mm256_xor_si256(kl, d));
            _mm256_storeu_si256((__m256i *)(void *)(out + 32 * j), o);
            x[j] = _mm256_shuffle_epi8(decrypt ? d : o, BSWAP256);
        } else if (2 * j + 1 == m) {
            __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(in + 32 * j));
            RIJN_READ_ONCE_VEC(d);
            const __m128i o = _mm_aesenclast_si128(
                _mm256_castsi256_si128(s[j]), _mm_xor_si128(_mm256_castsi256_si128(kl), d));
            _mm_storeu_si128((__m128i *)(void *)(out + 32 * j), o);
            x[j] = _mm256_zextsi128_si256(_mm_shuffle_epi8(decrypt ? d : o, GX_BSWAP128));
        } else {
            x[j] = _mm256_setzero_si256(); /* unused */
        }
    }
    return vp_absorb_regs(hk, y, x, m);
}

/* 1..16 blocks: the batch of 1, 2, 4 or 8 YMM that holds them. */
VP_INLINE __m128i vp_short(const rijn_aes_key *k, const uint8_t *hk,
                           uint8_t *out, const uint8_t *in, size_t m,
                           __m256i c, __m128i y, const int decrypt)
{
    if (m > 8)
        return vp_short_n(k, hk, out, in, m, c, y, 8, decrypt);
    if (m > 4)
        return vp_short_n(k, hk, out, in, m, c, y, 4, decrypt);
    if (m > 2)
        return vp_short_n(k, hk, out, in, m, c, y, 2, decrypt);
    return vp_short_n(k, hk, out, in, m, c, y, 1, decrypt);
}

VP_INLINE void vp_crypt(const rijn_aes_key *key, const uint64_t *hk,
                        uint8_t y[16], const uint8_t ctr[16], uint8_t *out,
                        const uint8_t *in, size_t nblocks, const int decrypt)
{
    const uint8_t *k = vp_bytes(hk);
    const unsigned nr = key->rounds;
    /* the counter with its low word native, in both lanes */
    __m256i c = _mm256_broadcastsi128_si256(
        _mm_shuffle_epi8(rijn_x86_load_ctr(ctr), _mm256_castsi256_si128(V2_SWAP32)));
    const __m256i lane1 = _mm256_set_epi32(1, 0, 0, 0, 0, 0, 0, 0);
    __m128i acc = gx_load(y);
    /* blocks before the first counter that is a multiple of 8 */
    size_t head = (8 - (rijn_load32_be(ctr + 12) & 7)) & 7, nb;

    if (nblocks < head + 32) {
        /* at most one whole aligned batch: short batches, whose GHASH
         * overlaps the next batch's AES. One aligned batch alone in the
         * loop, its GHASH interleaved with its AES, took 8% longer than
         * this for 36 blocks decrypting; encrypting, where the loop's
         * first batch only encrypts and its GHASH follows it, 13-28%
         * longer at 24-36 blocks (Zen 4) */
        while (nblocks > 16) {
            acc = vp_short(key, k, out, in, 16, _mm256_add_epi32(c, lane1), acc,
                           decrypt);
            c = _mm256_add_epi32(c, v2_lanes(16));
            in += 256;
            out += 256;
            nblocks -= 16;
        }
        if (nblocks > 0)
            acc = vp_short(key, k, out, in, nblocks, _mm256_add_epi32(c, lane1),
                           acc, decrypt);
        gx_store(y, acc);
        return;
    }
    if (head > 0) {
        acc = vp_short(key, k, out, in, head, _mm256_add_epi32(c, lane1), acc,
                       decrypt);
        c = _mm256_add_epi32(c, v2_lanes((int)head));
        in += 16 * head;
        out += 16 * head;
        nblocks -= head;
    }
    nb = nblocks / 16;
    {
        RIJN_ALIGN(32) __m256i ks[4];
        const __m256i k0 = v2_rk(key, 0);
        size_t j;

        for (j = 0; j < 4; j++)
            ks[j] = _mm256_xor_si256(k0, _mm256_set_epi64x(
                (long long)(2 * j + 1) << 56, 0, (long long)(2 * j) << 56, 0));
        if (nr == 10)
            acc = vp_loop(key, k, out, in, nb, c, ks, acc, 10, decrypt);
        else if (nr == 12)
            acc = vp_loop(key, k, out, in, nb, c, ks, acc, 12, decrypt);
        else
            acc = vp_loop(key, k, out, in, nb, c, ks, acc, 14, decrypt);
        /* rk[0] with one byte changed: the key's first 15 bytes */
        rijn_burn_small(ks, sizeof ks);
        c = _mm256_add_epi32(c, v2_lanes((int)(16 * nb)));
        in += 256 * nb;
        out += 256 * nb;
        nblocks -= 16 * nb;
    }
    if (nblocks > 0)
        acc = vp_short(key, k, out, in, nblocks, _mm256_add_epi32(c, lane1), acc,
                       decrypt);
    gx_store(y, acc);
}

/* Blocks 2j, 2j+1 of the n bytes at p (zero past n), each byte read
 * once. */
VP_INLINE __m256i vp_pair(const uint8_t *p, size_t n, size_t j)
{
    const size_t full = n / 16, rest = n % 16;
    __m128i lo, hi;

    if (2 * j + 2 <= full) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * j));
        RIJN_READ_ONCE_VEC(v);
        return v;
    }
    if (2 * j + 1 <= full) {
        lo = _mm_loadu_si128((const __m128i *)(const void *)(p + 32 * j));
        RIJN_READ_ONCE_VEC(lo);
        hi = rest > 0 ? gx_load_partial(p + 32 * j + 16, rest) : _mm_setzero_si128();
    } else {
        lo = 2 * j == full && rest > 0 ? gx_load_partial(p + 32 * j, rest)
                                       : _mm_setzero_si128();
        hi = _mm_setzero_si128();
    }
    return _mm256_set_m128i(hi, lo);
}

/*
 * Register j of a message's output o (blocks 2j, 2j+1 of len bytes):
 * whole blocks stored, a partial one in pieces (gx_store_partial, nothing
 * past len written); returns the ciphertext as hashed: the lanes past the
 * data cleared (one may hold E(J0)), a partial block's keystream bytes
 * too.
 */
VP_INLINE __m256i vp_out_pair(uint8_t *out, __m256i o, size_t len, size_t j)
{
    const size_t full = len / 16, rest = len % 16, m = (len + 15) / 16;
    const __m128i keep = rest > 0 ? gx_keep(rest) : _mm_set1_epi8(-1);
    __m128i lo = _mm256_castsi256_si128(o), hi = _mm256_extracti128_si256(o, 1);

    if (2 * j + 2 <= full) {
        _mm256_storeu_si256((__m256i *)(void *)(out + 32 * j), o);
        return o;
    }
    if (2 * j + 1 <= full)
        _mm_storeu_si128((__m128i *)(void *)(out + 32 * j), lo);
    if (rest > 0 && 2 * j + 1 >= full)
        gx_store_partial(out + 16 * full, 2 * j == full ? lo : hi, rest);
    if (2 * j + 1 >= m)
        hi = _mm_setzero_si128();
    if (2 * j == full)
        lo = _mm_and_si128(lo, keep);
    else if (2 * j + 1 == full)
        hi = _mm_and_si128(hi, keep);
    return _mm256_set_m128i(hi, lo);
}

/*
 * ghash.h, oneshot, with 1 + nd <= 2n (n = 1, 2 or 4 YMM, constant): the
 * data blocks and E(J0) as one AES batch, data block i in lane i and J0
 * in lane nd (the first free one), so that every register of data is a
 * plain 32-byte load; then one GHASH, schoolbook, one reduction, over the
 * AAD (na <= 4 blocks), the ciphertext and the lengths block, each pair
 * of blocks b, b+1 of that sequence of nt times [H^(nt-b), H^(nt-b-1)].
 * Each input byte is loaded once (decryption hashes the registers it
 * decrypted); a partial block is read and written in pieces through
 * general-purpose registers (gx_load_partial), nothing on the stack.
 * A message of one block or less (n = 1) hashes the lengths block in J0's
 * lane of its one register, whose ciphertext lane there is zero, instead
 * of in a product of its own: 4 VPCLMULQDQ fewer, 5-9% less time (Zen 4).
 * Doing the same wherever J0 is a register's second lane (nd odd) cost
 * 17-61-byte messages 1-4% (n = 2); Karatsuba products for the
 * ciphertext, 1-2% at even nd.
 */
VP_INLINE void vp_oneshot_n(const rijn_aes_key *key, const uint8_t *hk,
                            const uint8_t j0[16], uint8_t *out,
                            const uint8_t *in, size_t len,
                            const uint8_t *aad, size_t aad_len, int decrypt,
                            uint8_t tag[16], const size_t n)
{
    const size_t nd = (len + 15) / 16;
    const size_t na = (aad_len + 15) / 16, nt = na + nd + 1;
    const __m256i bswap = BSWAP256;
    /* J0 with its low word native (V2_SWAP32), in both lanes */
    const __m256i cj = _mm256_broadcastsi128_si256(_mm_shuffle_epi8(
        rijn_x86_load_ctr(j0), _mm256_castsi256_si128(V2_SWAP32)));
    const __m256i jb = _mm256_shuffle_epi8(cj, V2_SWAP32); /* J0 as a block */
    const __m256i ndv = _mm256_set1_epi64x((long long)nd);
    /* the lengths block (reflected: the bit lengths as two words) */
    const __m128i lens = _mm_set_epi64x((long long)((uint64_t)aad_len * 8),
                                        (long long)((uint64_t)len * 8));
    /* it goes in J0's lane (see above) */
    const int lens_in_j0 = n == 1 && nd == 1;
    __m256i s[4], kl;
    __m128i ek0 = _mm_setzero_si128();
    vp_acc a;
    size_t j;

    /* lane i: J0 + 1 + i; lane nd: J0 */
    v2_counters(_mm256_add_epi32(cj, _mm256_set_epi32(2, 0, 0, 0, 1, 0, 0, 0)),
                s, n);
    RIJN_UNROLL(4)
    for (j = 0; j < n; j++)
        s[j] = _mm256_blendv_epi8(
            s[j], jb,
            _mm256_cmpeq_epi64(_mm256_set_epi64x((long long)(2 * j + 1),
                                                 (long long)(2 * j + 1),
                                                 (long long)(2 * j),
                                                 (long long)(2 * j)),
                               ndv));
    v2_rounds(key, s, n, key->rounds);
    kl = v2_rk(key, key->rounds);

    /* the AAD's products first: they do not wait for the AES */
    a.lo = a.mi = a.hi = _mm256_setzero_si256();
    for (j = 0; 2 * j < na; j++)
        vp_madd_s(&a, _mm256_shuffle_epi8(vp_pair(aad, aad_len, j), bswap),
                  vp_pow2(hk, nt - 2 * j), 0);

    RIJN_UNROLL(4)
    for (j = 0; j < n; j++) {
        const __m256i d = vp_pair(in, len, j);
        const __m256i o = _mm256_aesenclast_epi128(s[j], _mm256_xor_si256(kl, d));
        __m256i c = d;

        if (2 * j == nd)
            ek0 = _mm256_castsi256_si128(o);
        else if (2 * j + 1 == nd)
            ek0 = _mm256_extracti128_si256(o, 1);
        if (2 * j >= nd)
            continue;
        {
            const __m256i ct = vp_out_pair(out, o, len, j);
            if (!decrypt)
                c = ct;
        }
        c = _mm256_shuffle_epi8(c, bswap);
        if (lens_in_j0) /* J0's lane meets H^1 */
            c = _mm256_inserti128_si256(c, lens, 1);
        vp_madd_s(&a, c, vp_pow2(hk, nt - na - 2 * j), 0);
    }
    /* otherwise the lengths block times H on its own */
    if (!lens_in_j0)
        vp_madd_s(&a, _mm256_zextsi128_si256(lens), vp_pow1(hk), 0);
    _mm_storeu_si128((__m128i *)(void *)tag,
                     _mm_xor_si128(_mm_shuffle_epi8(vp_fold(a.lo, a.mi, a.hi),
                                                    GX_BSWAP128),
                                   ek0));
}

VP_FN static void vp_oneshot(const rijn_aes_key *key, const uint64_t *hk,
                             const uint8_t j0[16], uint8_t *out,
                             const uint8_t *in, size_t len, const uint8_t *aad,
                             size_t aad_len, int decrypt, uint8_t tag[16])
{
    const size_t nd = (len + 15) / 16;

    if (nd + 1 <= 2)
        vp_oneshot_n(key, vp_bytes(hk), j0, out, in, len, aad, aad_len,
                     decrypt, tag, 1);
    else if (nd + 1 <= 4)
        vp_oneshot_n(key, vp_bytes(hk), j0, out, in, len, aad, aad_len,
                     decrypt, tag, 2);
    else
        vp_oneshot_n(key, vp_bytes(hk), j0, out, in, len, aad, aad_len,
                     decrypt, tag, 4);
}

/*
 * The end of a one-shot message (ghash.h, last): its last len bytes (m =
 * ceil(len / 16) <= 16 blocks, a partial last one included) as one batch
 * of n YMM (2n >= m) from the counter c (lane i: counter + i, low word
 * native), and J0 in one more register; y absorbs the ciphertext and the lengths block, in the lane
 * after the data, under one reduction (with 16 blocks of data, H^17 is
 * not in the key: one single-block product after it); each register's
 * products are taken as soon as it is stored, so that no ciphertext
 * register stays live. The tag is y XOR what the tag's place holds
 * (E(J0)). Stores and the partial block as in vp_oneshot_n (vp_out_pair);
 * each input byte is loaded once.
 */
VP_INLINE void vp_end_n(const rijn_aes_key *key, const uint8_t *hk,
                         uint8_t *out, const uint8_t *in, size_t len,
                         __m256i c, __m128i y, __m128i j0, __m128i lens,
                         uint8_t tag[16], const size_t n, const int decrypt)
{
    const size_t m = (len + 15) / 16;
    /* blocks under the one reduction: the data and the lengths block */
    const size_t nt = m < NPOW ? m + 1 : m;
    __m256i s[9], h[8];
    vp_acc a;
    size_t j;

    /* the batch and J0 (register n) */
    v2_counters(c, s, n);
    s[n] = _mm256_broadcastsi128_si256(j0);
    v2_rounds(key, s, n + 1, key->rounds);
    {
        /* the last round of every register first, with the last round key
         * loaded once, and dead before the hashing (kept across it, clang
         * spilled it); what the hashing keeps (the ciphertext or the
         * input) is public. E(J0) into the tag's place, which the tag
         * overwrites (kept in a register across the hashing, gcc spilled
         * it to the stack). */
        const __m256i kl = vp_kl(key, key->rounds);
        _mm_storeu_si128((__m128i *)(void *)tag,
                         _mm256_castsi256_si128(
                             _mm256_aesenclast_epi128(s[n], kl)));
        __asm__("" : : "r"(tag) : "memory");
        RIJN_UNROLL(8)
        for (j = 0; j < n; j++) {
            if (2 * j >= m) {
                h[j] = _mm256_setzero_si256(); /* unused */
                continue;
            }
            const __m256i d = vp_pair(in, len, j);
            const __m256i o = _mm256_aesenclast_epi128(
                s[j], _mm256_xor_si256(kl, d));
            const __m256i ct = vp_out_pair(out, o, len, j);
            h[j] = decrypt ? d : ct;
        }
        VP_FENCE_REGS(h, n);
    }
    a.lo = a.mi = a.hi = _mm256_setzero_si256();
    RIJN_UNROLL(8)
    for (j = 0; j < n; j++) {
        if (2 * j >= m)
            continue;
        __m256i x = _mm256_shuffle_epi8(h[j], BSWAP256);
        if (j == 0)
            x = _mm256_xor_si256(x, _mm256_zextsi128_si256(y));
        if (m < NPOW && 2 * j + 1 == m) /* the lengths in lane 1 */
            x = _mm256_xor_si256(x, _mm256_set_m128i(lens, _mm_setzero_si128()));
        vp_madd_s(&a, x, vp_pow2(hk, nt - 2 * j), 0);
        VP_KEEP(a.lo);
        VP_KEEP(a.mi);
        VP_KEEP(a.hi);
    }
    if (m < NPOW && m % 2 == 0) /* the lengths alone in lane 0, times H */
        vp_madd_s(&a,
                  _mm256_zextsi128_si256(m == 0 ? _mm_xor_si128(lens, y) : lens),
                  vp_pow1(hk), 0);
    y = vp_fold(a.lo, a.mi, a.hi);
    if (m == NPOW) /* H^17 is not in the key */
        y = gx_mul(_mm_xor_si128(y, lens), _mm256_castsi256_si128(vp_pow1(hk)));
    gx_tag_xor_vex(tag, _mm_shuffle_epi8(y, GX_BSWAP128));
}

/*
 * ghash.h, last: the whole blocks up to the end batch through vp_crypt
 * (its head, aligned loop and no tail of its own), then vp_end_n over the
 * rest: the blocks after the last aligned batch and the partial one.
 */
VP_FN static void vp_last(const rijn_aes_key *key, const uint64_t *hk,
                          uint8_t y[16], const uint8_t ctr[16],
                          const uint8_t j0[16], uint8_t *out,
                          const uint8_t *in, size_t len, const uint8_t *aad,
                          uint64_t aad_len, int decrypt, uint8_t tag[16])
{
    const uint8_t *k = vp_bytes(hk);
    const size_t nb = (len + 15) / 16;
    const size_t head = (8 - (rijn_load32_be(ctr + 12) & 7)) & 7;
    /* the end batch: the last of vp_crypt's batches, 1..16 blocks (its
     * short path: batches of 16, the last one shorter; otherwise the
     * blocks after the last aligned batch, or that batch) */
    const size_t m = nb == 0 ? 0
                     : nb < head + 32 ? nb - NPOW * ((nb - 1) / NPOW)
                     : (nb - head) % NPOW == 0 ? NPOW
                     : (nb - head) % NPOW;
    const size_t pre = nb - m;
    const __m128i lens = _mm_set_epi64x((long long)(aad_len * 8),
                                        (long long)((uint64_t)len * 8));
    __m256i c = _mm256_add_epi32(
        _mm256_broadcastsi128_si256(_mm_shuffle_epi8(
            rijn_x86_load_ctr(ctr), _mm256_castsi256_si128(V2_SWAP32))),
        _mm256_set_epi32(1, 0, 0, 0, 0, 0, 0, 0));
    const __m128i jb = rijn_x86_load_ctr(j0);
    __m128i acc;

    if (aad != NULL)
        gx_last_aad(vp_blocks, hk, y, aad, aad_len);
    if (pre > 0)
        vp_crypt(key, hk, y, ctr, out, in, pre, decrypt);
    acc = gx_load(y);
    c = _mm256_add_epi32(c, v2_lanes((int)pre));
    in += 16 * pre;
    out += 16 * pre;
    len -= 16 * pre;
    /* the fewest YMM that hold the m blocks (a constant in each copy) */
#define VP_END(n) \
    vp_end_n(key, k, out, in, len, c, acc, jb, lens, tag, n, decrypt)
    if (m > 14)
        VP_END(8);
    else if (m > 12)
        VP_END(7);
    else if (m > 10)
        VP_END(6);
    else if (m > 8)
        VP_END(5);
    else if (m > 6)
        VP_END(4);
    else if (m > 4)
        VP_END(3);
    else if (m > 2)
        VP_END(2);
    else
        VP_END(1);
#undef VP_END
}

VP_FN static void vp_enc(const rijn_aes_key *key, const uint64_t *hk,
                         uint8_t y[16], const uint8_t ctr[16], uint8_t *out,
                         const uint8_t *in, size_t nblocks)
{
    vp_crypt(key, hk, y, ctr, out, in, nblocks, 0);
}

VP_FN static void vp_dec(const rijn_aes_key *key, const uint64_t *hk,
                         uint8_t y[16], const uint8_t ctr[16], uint8_t *out,
                         const uint8_t *in, size_t nblocks)
{
    vp_crypt(key, hk, y, ctr, out, in, nblocks, 1);
}

RIJN_GHASH_KEY_FITS(KEY_BYTES, "vpclmul-avx2's powers of H");
const rijn_ghash_engine rijn_ghash_vpclmul_avx2 = {
    .base = {.name = "vpclmul-avx2", .needs = RIJN_X86_NEEDS(VP_FEATURES),
             .constant_time = 1, .rank = 30},
    .key_bytes = KEY_BYTES,
    .init = vp_init,
    .blocks = vp_blocks,
    .fused_aes = "vaes-avx2",
    .enc = vp_enc,
    .dec = vp_dec,
    .oneshot = vp_oneshot,
    .last = vp_last,
};

#else
typedef int rijn_ghash_vpclmul_avx2_not_built; /* ISO C wants a non-empty file */
#endif

/*
 * vaes-avx2: AES with VAES on 256-bit registers, two blocks per YMM
 * register (Intel Ice Lake / Alder Lake and later, AMD Zen 3 and later;
 * also the fallback on AVX-512 machines when RIJN_CPU_MASK=avx512f).
 *
 * Batch width: 16 blocks in flight in the CTR and ECB loops (8 YMM of 2
 * blocks). VAESENC on YMM issues twice per cycle on Zen 3/4/5 with a
 * latency of about 4 cycles, so 8 independent registers keep both AES units
 * busy. Without AVX-512 there are only 16 YMM registers, so each round key
 * is broadcast from k->rk when it is used (VBROADCASTI128 is a load). Tails
 * of 1..15 blocks are one batch of 1, 2, 4 or 8 YMM; an odd
 * last block is read and written with 16-byte accesses, so no byte outside
 * in/out is touched and a 1..2 block message costs one AES latency chain.
 *
 * CTR, main loop (16 blocks per iteration): the batches start at a counter
 * whose low 32 bits m are a multiple of 16, so block i of a batch has
 * counter m | i and its first-round input is (ctr(m) ^ rk[0]) ^ (i in
 * byte 15): one base per batch (VPSHUFB + VPXOR of the byte-swapped
 * counter word, VPADDD to step it) and one VPXOR per register, instead of
 * an add, a shuffle and an XOR per register. The vector ALU ports that
 * run VAESENC also run those instructions, so every one saved is an AES
 * slot won back (0.18 -> 0.16x c/B on AES-128, see README). A counter not
 * aligned to 16 first takes 1..15 blocks through the tail path. m steps
 * mod 2^32, never carrying into byte 11.
 * Tails and short messages: the counter block is broadcast to both 128-bit
 * lanes with its low 32-bit word byte-swapped; per-block counters are
 * VPADDD of per-lane constants on that dword (exact mod 2^32), and VPSHUFB
 * restores the byte order. The input is folded into the last round key
 * (VAESENCLAST with rk[nr] ^ in).
 *
 * Key schedule: the aesni backend's (rijn_aesni_setkey_wide: AESENCLAST
 * computes SubWord(RotWord(w)); AES-192 keys are loaded as 16 + 8 bytes,
 * never past the key), with every round key stored twice, 32 bytes each:
 * VAESENC takes it straight from memory, with no VBROADCASTI128 per round
 * and use (up to 480 bytes of k->rk).
 *
 * Constant time: VAESENC/VAESENCLAST/VPSHUFB/VPADDD/VPXOR have
 * data-independent timing; no branch and no address depends on the key or
 * the data (only on nblocks and the key length).
 *
 * Built with a per-function target attribute: the library targets baseline
 * x86-64 and this code runs only when the dispatcher selects it. The
 * target, the round key load, the rolled rounds and the counter helpers
 * are in vaes_avx2.h, shared with vpclmul-avx2's fused AES-GCM kernels.
 */
#include "aes/x86/vaes_avx2.h"

#if defined(RIJN_X86_VAES_AVX2)

/*
 * Block and word indices are size_t on purpose: with int, every 16 * j is a
 * signed multiply that clang's -fsanitize=undefined (no recover) checks
 * before the loops unroll, and clang 14 then needs minutes per file.
 */

/* ------------------------------------------------------------------------
 * Block encryption on YMM (two blocks per register)
 * --------------------------------------------------------------------- */
/*
 * Last round and output for a batch of n YMM holding blocks 0..2n-1 of
 * which the first m are wanted (n constant; when m is odd the last block is
 * written from the low lane with 16-byte accesses). xin selects CTR (XOR
 * the input into the last round key) or ECB (plain last round).
 */
V2_INLINE void v2_finish(const rijn_aes_key *k, uint8_t *out,
                         const uint8_t *in, __m256i *s, const size_t n,
                         size_t m, const int xin, const unsigned nr)
{
    const __m256i kl = v2_rk(k, nr);
    size_t j;

    RIJN_UNROLL(16)
    for (j = 0; j < n; j++) {
        if ((size_t)(2 * j + 2) <= m) {
            const __m256i key = xin ? _mm256_xor_si256(kl, _mm256_loadu_si256(
                                          (const __m256i *)(const void *)(in + 32 * j)))
                                    : kl;
            _mm256_storeu_si256((__m256i *)(void *)(out + 32 * j),
                                _mm256_aesenclast_epi128(s[j], key));
        } else if ((size_t)(2 * j + 1) == m) {
            const __m128i key = xin ? _mm_xor_si128(_mm256_castsi256_si128(kl), _mm_loadu_si128(
                                          (const __m128i *)(const void *)(in + 32 * j)))
                                    : _mm256_castsi256_si128(kl);
            _mm_storeu_si128((__m128i *)(void *)(out + 32 * j),
                             _mm_aesenclast_si128(_mm256_castsi256_si128(s[j]), key));
        }
    }
}

/* The empty asm keeps the compiler from regrouping rounds block by block
 * (see V512_KEEP_ORDER, vaes_avx512.h); it emits no instruction. */
#define V2_KEEP_ORDER8(s)                                                \
    __asm__("" : "+x"((s)[0]), "+x"((s)[1]), "+x"((s)[2]), "+x"((s)[3]), \
                 "+x"((s)[4]), "+x"((s)[5]), "+x"((s)[6]), "+x"((s)[7]))
#define V2_KEEP_ORDER12(s)                                               \
    __asm__("" : "+x"((s)[0]), "+x"((s)[1]), "+x"((s)[2]), "+x"((s)[3]), \
                 "+x"((s)[4]), "+x"((s)[5]), "+x"((s)[6]), "+x"((s)[7]), \
                 "+x"((s)[8]), "+x"((s)[9]), "+x"((s)[10]), "+x"((s)[11]))

/*
 * Main loop: nbatches of 24 blocks (12 YMM) in 3 groups of 8. Block i of
 * group g has counter a + 8g + o + i, where a = counter - o is a multiple
 * of 8 and o (0..7) is a constant of the loop's copy. That is (a + 8g) |
 * (o + i) while o + i < 8 and (a + 8g + 8) | (o + i - 8) after, so every
 * register starts from b[g] = bswap(a + 8g) or b[g + 1] (or, for the one
 * register whose two blocks straddle when o is odd, the lane mix of the
 * two), XORed with ks[j] = rk[0] with o + 2j and o + 2j + 1 (mod 8) in
 * byte 15 of its lanes. Per batch: 3 VPADDD, 3 VPSHUFB, up to 3 VPBLENDD
 * and 12 VPXOR. c holds a, byte-swapped, in the low dword of both lanes;
 * the round count is not unrolled (one copy per o). Returns c stepped past
 * the last batch.
 */
V2_INLINE __m256i v2_ctr_loop(const rijn_aes_key *k, uint8_t *out,
                              const uint8_t *in, size_t nbatches, __m256i c,
                              const __m256i ks[4], const size_t o)
{
    const unsigned nr = k->rounds;
    __m256i s[12], b = _mm256_shuffle_epi8(c, V2_SWAP32);
    unsigned r;
    size_t j, g;

    for (; nbatches > 0; nbatches--, in += 384, out += 384) {
        RIJN_UNROLL(16)
        for (g = 0; g < 3; g++) {
            const __m256i next = _mm256_shuffle_epi8(
                c = _mm256_add_epi32(c, v2_lanes(8)), V2_SWAP32);
            const __m256i mix = _mm256_blend_epi32(b, next, 0xf0);
            RIJN_UNROLL(16)
            for (j = 0; j < 4; j++) {
                const size_t lo = o + 2 * j;
                s[4 * g + j] = _mm256_xor_si256(
                    lo + 1 < 8 ? b : lo < 8 ? mix : next, ks[j]);
            }
            b = next;
        }
        RIJN_NO_UNROLL
        for (r = 1; r < nr; r++) {
            RIJN_UNROLL(16)
            for (j = 0; j < 12; j++)
                s[j] = _mm256_aesenc_epi128(s[j], v2_rk(k, r));
            V2_KEEP_ORDER12(s);
        }
        RIJN_UNROLL(16)
        for (j = 0; j < 12; j++)
            _mm256_storeu_si256((__m256i *)(void *)(out + 32 * j),
                                _mm256_aesenclast_epi128(s[j], _mm256_xor_si256(
                                    v2_rk(k, nr), _mm256_loadu_si256(
                                        (const __m256i *)(const void *)(in + 32 * j)))));
    }
    return c;
}

/* From this many blocks on, the 24-block loop (below, the 16-block one
 * costs less set-up). */
#ifndef V2_LOOP24_MIN
#define V2_LOOP24_MIN 128
#endif

/*
 * The loop for short messages: 16 blocks (8 YMM) per batch, with
 * per-register counters (c as in v2_ctr32: lane i holds counter + i).
 */
V2_INLINE __m256i v2_ctr_loop16(const rijn_aes_key *k, uint8_t *out,
                                const uint8_t *in, size_t nbatches,
                                __m256i c, const unsigned nr)
{
    __m256i s[8];
    unsigned r;
    size_t j;

    for (; nbatches > 0; nbatches--, in += 256, out += 256) {
        c = v2_counters(c, s, 8);
        RIJN_UNROLL(16)
        for (j = 0; j < 8; j++)
            s[j] = _mm256_xor_si256(s[j], v2_rk(k, 0));
        RIJN_UNROLL(16)
        for (r = 1; r < nr; r++) {
            const __m256i kr = v2_rk(k, r);
            RIJN_UNROLL(16)
            for (j = 0; j < 8; j++)
                s[j] = _mm256_aesenc_epi128(s[j], kr);
            V2_KEEP_ORDER8(s);
        }
        RIJN_UNROLL(16)
        for (j = 0; j < 8; j++)
            _mm256_storeu_si256((__m256i *)(void *)(out + 32 * j),
                                _mm256_aesenclast_epi128(s[j], _mm256_xor_si256(
                                    v2_rk(k, nr), _mm256_loadu_si256(
                                        (const __m256i *)(const void *)(in + 32 * j)))));
    }
    return c;
}

/* CTR on 0..16 blocks as one batch of 8, 4, 2 or 1 YMM; c as in
 * v2_ctr32 (lane i holds counter + i). */
V2_INLINE void v2_ctr_short(const rijn_aes_key *k, uint8_t *out,
                            const uint8_t *in, size_t nblocks, __m256i c)
{
    const unsigned nr = k->rounds;
    __m256i s[8];

    if (nblocks > 8) {
        v2_counters(c, s, 8);
        v2_rounds(k, s, 8, nr);
        v2_finish(k, out, in, s, 8, nblocks, 1, nr);
    } else if (nblocks > 4) {
        v2_counters(c, s, 4);
        v2_rounds(k, s, 4, nr);
        v2_finish(k, out, in, s, 4, nblocks, 1, nr);
    } else if (nblocks > 2) {
        v2_counters(c, s, 2);
        v2_rounds(k, s, 2, nr);
        v2_finish(k, out, in, s, 2, nblocks, 1, nr);
    } else if (nblocks > 0) {
        v2_counters(c, s, 1);
        v2_rounds(k, s, 1, nr);
        v2_finish(k, out, in, s, 1, nblocks, 1, nr);
    }
}

V2_FN static void v2_ctr32(const rijn_aes_key *k, uint8_t *out,
                           const uint8_t *in, size_t nblocks,
                           const uint8_t ctr[16])
{
    const unsigned nr = k->rounds;
    const __m128i c1 = _mm_shuffle_epi8(rijn_x86_load_ctr(ctr), _mm_set_epi8(
        12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
    const __m256i lane1 = _mm256_set_epi32(1, 0, 0, 0, 0, 0, 0, 0);
    __m256i c = _mm256_broadcastsi128_si256(c1);
    size_t nb;

    if (nblocks < V2_LOOP24_MIN) {
        /* 16 blocks per batch, then 0..15 */
        nb = nblocks / 16;
        c = _mm256_add_epi32(c, lane1);
        if (nr == 10)
            c = v2_ctr_loop16(k, out, in, nb, c, 10);
        else if (nr == 12)
            c = v2_ctr_loop16(k, out, in, nb, c, 12);
        else
            c = v2_ctr_loop16(k, out, in, nb, c, 14);
        v2_ctr_short(k, out + 256 * nb, in + 256 * nb, nblocks - 16 * nb, c);
        return;
    }
    /* One block first if that aligns the output to 32 bytes: the loop's
     * loads and stores then split no cache line (worth 5% on Zen 4). */
    nb = ((uintptr_t)out >> 4) & 1;
    v2_ctr_short(k, out, in, nb, _mm256_add_epi32(c, lane1));
    c = _mm256_add_epi32(c, v2_lanes((int)nb));
    nblocks -= nb;
    in += 16 * nb;
    out += 16 * nb;
    {
        const size_t o = (rijn_load32_be(ctr + 12) + nb) & 7;
        const __m256i k0 = v2_rk(k, 0);
        __m256i ks[4];
        size_t j;

        for (j = 0; j < 4; j++) {
            const size_t lo = o + 2 * j;
            ks[j] = _mm256_xor_si256(k0, _mm256_set_epi64x(
                (long long)((lo + 1) & 7) << 56, 0, (long long)(lo & 7) << 56, 0));
        }
        c = _mm256_sub_epi32(c, v2_lanes((int)o));
        nb = nblocks / 24;
        /* one copy of the loop per o */
        switch (o) {
        case 0: c = v2_ctr_loop(k, out, in, nb, c, ks, 0); break;
        case 1: c = v2_ctr_loop(k, out, in, nb, c, ks, 1); break;
        case 2: c = v2_ctr_loop(k, out, in, nb, c, ks, 2); break;
        case 3: c = v2_ctr_loop(k, out, in, nb, c, ks, 3); break;
        case 4: c = v2_ctr_loop(k, out, in, nb, c, ks, 4); break;
        case 5: c = v2_ctr_loop(k, out, in, nb, c, ks, 5); break;
        case 6: c = v2_ctr_loop(k, out, in, nb, c, ks, 6); break;
        default: c = v2_ctr_loop(k, out, in, nb, c, ks, 7); break;
        }
        c = _mm256_add_epi32(c, v2_lanes((int)o));
    }
    nblocks -= 24 * nb;
    in += 384 * nb;
    out += 384 * nb;
    /* the tail: 0..23 blocks */
    c = _mm256_add_epi32(c, lane1);
    if (nblocks > 16) {
        v2_ctr_short(k, out, in, 16, c);
        c = _mm256_add_epi32(c, v2_lanes(16));
        nblocks -= 16;
        in += 256;
        out += 256;
    }
    v2_ctr_short(k, out, in, nblocks, c);
}

/* ECB of m <= 2n blocks as one batch of n YMM (n constant) */
V2_INLINE void v2_ecb_batch(const rijn_aes_key *k, uint8_t *out,
                            const uint8_t *in, const size_t n, size_t m,
                            const unsigned nr)
{
    __m256i s[8];
    size_t j;

    RIJN_UNROLL(16)
    for (j = 0; j < n; j++) {
        if ((size_t)(2 * j + 2) <= m)
            s[j] = _mm256_loadu_si256((const __m256i *)(const void *)(in + 32 * j));
        else if ((size_t)(2 * j + 1) == m)
            s[j] = _mm256_castsi128_si256(
                _mm_loadu_si128((const __m128i *)(const void *)(in + 32 * j)));
        else
            s[j] = _mm256_setzero_si256();
    }
    v2_rounds(k, s, n, nr);
    v2_finish(k, out, in, s, n, m, 0, nr);
}

V2_FN static void v2_ecb(const rijn_aes_key *k, uint8_t *out,
                         const uint8_t *in, size_t nblocks)
{
    const unsigned nr = k->rounds;

    for (; nblocks >= 16; nblocks -= 16, in += 256, out += 256)
        v2_ecb_batch(k, out, in, 8, 16, nr);
    if (nblocks > 8)
        v2_ecb_batch(k, out, in, 8, nblocks, nr);
    else if (nblocks > 4)
        v2_ecb_batch(k, out, in, 4, nblocks, nr);
    else if (nblocks > 2)
        v2_ecb_batch(k, out, in, 2, nblocks, nr);
    else if (nblocks > 0)
        v2_ecb_batch(k, out, in, 1, nblocks, nr);
}

RIJN_AES_KEY_FITS(15 * 32, "vaes-avx2's AES-256 schedule");
const rijn_aes_impl rijn_aes_vaes_avx2 = {
    .base = {.name = "vaes-avx2", .needs = RIJN_X86_NEEDS(V2_FEATURES),
             .constant_time = 1, .rank = 30},
    .key_bytes = RIJN_AES_KEY_BYTES(32),
    .setkey = rijn_aesni_setkey_wide,
    .ecb = v2_ecb,
    .ctr32 = v2_ctr32,
};

#else
typedef int rijn_vaes_avx2_not_built; /* ISO C wants a non-empty file */
#endif

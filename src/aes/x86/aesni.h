/*
 * Inline helpers of the aesni AES backend (src/aes/x86/aesni.c), shared
 * with the kernels that read its key layout (the pclmul GHASH engine's
 * fused AES-GCM kernels, src/ghash/pclmul.c).
 *
 * Key layout: the FIPS-197 round keys in standard byte order, 16 bytes
 * each, k->rk[0 .. 16 * (nr + 1)) (rijn_aesni_setkey).
 *
 * Counters: the counter block is held with its low 32-bit word
 * byte-swapped (AESNI_SWAP32), so that PADDD steps it exactly mod 2^32;
 * AESNI_SWAP32 again restores the byte order.
 *
 * The helpers carry the backend's target (AESNI_FEATURES). A kernel whose
 * target is a superset (the fused engine's adds PCLMUL) can call them: GCC
 * and clang inline a callee whose target is a subset of the caller's.
 */
#ifndef RIJN_AES_X86_AESNI_H
#define RIJN_AES_X86_AESNI_H

#include "internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RIJN_X86_AESNI 1

#include <immintrin.h>

#define AESNI_FEATURES(F) F(SSSE3, "ssse3") F(AESNI, "aes")
#define AESNI_FN __attribute__((target(RIJN_X86_TARGET(AESNI_FEATURES))))
#define AESNI_INLINE static inline __attribute__((always_inline, target(RIJN_X86_TARGET(AESNI_FEATURES))))

/* ------------------------------------------------------------------------
 * Block encryption: s[0..n-1] through rounds 0..nr-1 (all but the last).
 * n is a compile-time constant at every call site. The round loop is kept
 * rolled on purpose: unrolled, the compiler hoists all round keys into the
 * 16 XMM registers and spills the states instead (measured 2x slower for
 * short messages); rolled, each key is one load used n times.
 * --------------------------------------------------------------------- */
AESNI_INLINE void aesni_rounds(const __m128i *rk, unsigned nr, __m128i *s,
                               const size_t n)
{
    const __m128i k0 = _mm_load_si128(rk);
    size_t j;
    unsigned r;

    RIJN_UNROLL(16)
    for (j = 0; j < n; j++)
        s[j] = _mm_xor_si128(s[j], k0);
    if (n <= 2) {
        /* one or two blocks, a latency chain: written out, each key a
         * memory operand (as v2_rounds, vaes_avx2.h) */
        RIJN_UNROLL(13)
        for (r = 1; r < 14; r++) {
            if (r >= nr)
                break;
            const __m128i kr = _mm_load_si128(rk + r);
            RIJN_UNROLL(2)
            for (j = 0; j < n; j++)
                s[j] = _mm_aesenc_si128(s[j], kr);
        }
        return;
    }
    RIJN_NO_UNROLL
    for (r = 1; r < nr; r++) {
        const __m128i kr = _mm_load_si128(rk + r);
        RIJN_UNROLL(16)
        for (j = 0; j < n; j++)
            s[j] = _mm_aesenc_si128(s[j], kr);
    }
}

/* Byte-swap the low 32-bit counter word (bytes 12..15); self-inverse. */
#define AESNI_SWAP32 \
    _mm_set_epi8(12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)

/* n counter blocks from c (low word native), returns c + n */
AESNI_INLINE __m128i aesni_counters(__m128i c, __m128i *s, const size_t n)
{
    const __m128i swap = AESNI_SWAP32;
    const __m128i one = _mm_set_epi32(1, 0, 0, 0);
    size_t j;

    RIJN_UNROLL(16)
    for (j = 0; j < n; j++) {
        s[j] = _mm_shuffle_epi8(c, swap);
        c = _mm_add_epi32(c, one);
    }
    return c;
}

/* Last round and XOR for blocks j < m of a batch of n (j is a constant). */
AESNI_INLINE void aesni_ctr_tail(const __m128i *kl, uint8_t *out,
                                 const uint8_t *in, const __m128i *s,
                                 const size_t n, size_t m)
{
    size_t j;

    RIJN_UNROLL(16)
    for (j = 0; j < n; j++) {
        if ((size_t)j < m) {
            const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(in + 16 * j));
            _mm_storeu_si128((__m128i *)(void *)(out + 16 * j),
                             _mm_aesenclast_si128(s[j], _mm_xor_si128(_mm_load_si128(kl), x)));
        }
    }
}

/* CTR on m <= n blocks as one batch of n (n constant): counters from c
 * (low word native), the rolled rounds, the last round with the input. */
AESNI_INLINE void aesni_ctr_batch(const __m128i *rk, unsigned nr,
                                  uint8_t *out, const uint8_t *in, __m128i c,
                                  const size_t n, size_t m)
{
    __m128i s[12];

    aesni_counters(c, s, n);
    aesni_rounds(rk, nr, s, n);
    aesni_ctr_tail(rk + nr, out, in, s, n, m);
}

#endif
#endif /* RIJN_AES_X86_AESNI_H */

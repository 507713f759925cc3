/*
 * Inline helpers of the vaes-avx2 AES backend (src/aes/x86/vaes_avx2.c),
 * shared with the kernels that read its key layout (the vpclmul-avx2
 * GHASH engine's fused AES-GCM kernels, src/ghash/vpclmul_avx2.c).
 *
 * Key layout: the FIPS-197 round keys of rijn_aesni_setkey_wide, each
 * stored twice, 32 bytes per round key (k->rk[0 .. 32 * (nr + 1))): a
 * YMM load of round key r gives it in both 128-bit lanes, and VAESENC can
 * take it straight from memory.
 *
 * Counters: a YMM holds two counter blocks, one per lane, with the low
 * 32-bit word byte-swapped (V2_SWAP32), so that VPADDD of per-lane
 * constants (v2_lanes) steps them exactly mod 2^32; V2_SWAP32 again
 * restores the byte order.
 *
 * The helpers carry the backend's target (V2_FEATURES). A kernel whose
 * target is a superset (the fused engine's adds PCLMUL and VPCLMULQDQ)
 * can call them: GCC and clang inline a callee whose target is a subset
 * of the caller's.
 */
#ifndef RIJN_AES_X86_VAES_AVX2_H
#define RIJN_AES_X86_VAES_AVX2_H

#include "internal.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RIJN_X86_VAES_AVX2 1

#include <immintrin.h>

/* SSSE3 and AES-NI: the key schedule (rijn_aesni_setkey_wide) */
#define V2_FEATURES(F) \
    F(SSSE3, "ssse3") F(AESNI, "aes") F(AVX, "avx") F(AVX2, "avx2") F(VAES, "vaes")
#define V2_TARGET RIJN_X86_TARGET(V2_FEATURES)
#define V2_FN __attribute__((target(V2_TARGET)))
#define V2_INLINE static inline __attribute__((always_inline, target(V2_TARGET)))

/* Round key r in both lanes. */
V2_INLINE __m256i v2_rk(const rijn_aes_key *k, unsigned r)
{
    return _mm256_load_si256((const __m256i *)(const void *)k->rk + r);
}

/*
 * Rounds 0..nr-1 on s[0..n-1] (n constant); the caller does the last. The
 * round loop stays rolled (tails and ECB): unrolled, the compiler hoists all
 * round keys into the 16 YMM registers and spills the states instead.
 * For up to five registers (a message of up to 9 blocks, with J0; the
 * end batches of 113..144-byte messages) the rounds are written out, each
 * key a memory operand: a rolled loop of one to five VAESENC is a short
 * latency chain whose speed depended on where the linker put it (Zen 3,
 * against the same code placed elsewhere: 16-byte CTR and GCM 1.04-1.19x,
 * 128-byte CTR 1.13-1.22x, 64-112-byte GCM 1.02-1.07x).
 */
V2_INLINE void v2_rounds(const rijn_aes_key *k, __m256i *s, const size_t n,
                         const unsigned nr)
{
    const __m256i k0 = v2_rk(k, 0);
    unsigned r;
    size_t j;

    RIJN_UNROLL(16)
    for (j = 0; j < n; j++)
        s[j] = _mm256_xor_si256(s[j], k0);
    if (n <= 5) {
        RIJN_UNROLL(13)
        for (r = 1; r < 14; r++) {
            if (r >= nr)
                break;
            const __m256i kr = v2_rk(k, r);
            RIJN_UNROLL(5)
            for (j = 0; j < n; j++)
                s[j] = _mm256_aesenc_epi128(s[j], kr);
        }
        return;
    }
    RIJN_NO_UNROLL
    for (r = 1; r < nr; r++) {
        const __m256i kr = v2_rk(k, r);
        RIJN_UNROLL(16)
        for (j = 0; j < n; j++)
            s[j] = _mm256_aesenc_epi128(s[j], kr);
    }
}

/* Byte-swap the low 32-bit counter word of each lane; self-inverse. */
#define V2_SWAP32 _mm256_broadcastsi128_si256(_mm_set_epi8( \
    12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0))

/* x in the low-word dword (3) of both lanes */
V2_INLINE __m256i v2_lanes(int x)
{
    return _mm256_set_epi32(x, 0, 0, 0, x, 0, 0, 0);
}

/* n YMM of counter blocks from c, c + 2, ... (lane i of c = counter + i,
 * low word native); returns c + 2n. */
V2_INLINE __m256i v2_counters(__m256i c, __m256i *s, const size_t n)
{
    const __m256i swap = V2_SWAP32;
    const __m256i two = v2_lanes(2);
    size_t j;

    RIJN_UNROLL(16)
    for (j = 0; j < n; j++) {
        s[j] = _mm256_shuffle_epi8(c, swap);
        c = _mm256_add_epi32(c, two);
    }
    return c;
}

#endif
#endif /* RIJN_AES_X86_VAES_AVX2_H */

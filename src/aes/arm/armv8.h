/*
 * Inline helpers of the armv8 AES backend (src/aes/arm/armv8.c), shared
 * with the kernels that read its key layout (the pmull GHASH engine's
 * fused AES-GCM kernels, src/ghash/pmull.c). Only for files compiled with
 * the crypto extension enabled (-march=armv8-a+crypto).
 *
 * Key layout: the FIPS-197 round keys, 16 bytes each in block byte order,
 * k->rk[0 .. 16 * (nr + 1)); a register loaded from them with LD1 holds
 * byte i of the round key in lane i, which is the order AESE works in.
 *
 * Counter blocks: the kernels keep the whole 16-byte counter block in a
 * register (block byte order) and the low 32 bits also in a general
 * register w, the native value of bytes 12..15. While byte 15 does not
 * wrap within a batch, block j of the batch is one byte-lane ADD of the
 * constant j (in lane 15) to the base block: one instruction per block,
 * non-destructive, so it also makes the copy AESE needs (AESE overwrites
 * its state operand). A batch whose low byte would wrap (one in 32 for
 * batches of 8) builds its blocks from w instead: inc32 exactly, mod 2^32.
 */
#ifndef RIJN_AES_ARMV8_H
#define RIJN_AES_ARMV8_H

#include "internal.h"

#if defined(__aarch64__) && defined(__ARM_FEATURE_AES) && \
    (defined(__ARM_NEON) || defined(__ARM_NEON__))
#define RIJN_ARMV8_AES 1

#include <arm_neon.h>

typedef uint8x16_t a8_v;

#define A8_INLINE static inline __attribute__((always_inline))

/* One full round: AESE (AddRoundKey, SubBytes, ShiftRows) then AESMC,
 * written as one expression so that the pair stays adjacent (cores with
 * AES fusion issue it as one operation; gcc schedules it as a pair). */
A8_INLINE a8_v a8_round(a8_v s, a8_v k)
{
    return vaesmcq_u8(vaeseq_u8(s, k));
}

/* s[0..n) through rounds 1..nr-1 and the last AESE (round key nr-1): what
 * is left is the XOR with round key nr, which callers fold with their
 * data. Each round key is loaded where it is used: with all of them
 * preloaded, gcc spills round keys and states to the stack (where the
 * wipe policy of rijn.h does not allow them) once n is large. */
A8_INLINE void a8_rounds(const rijn_aes_key *k, const unsigned nr, a8_v *s,
                         const size_t n)
{
    const uint8_t *rk = (const uint8_t *)k->rk;
    unsigned r;
    size_t j;

    RIJN_UNROLL(16)
    for (r = 0; r + 1 < nr; r++) {
        const a8_v kr = vld1q_u8(rk + 16 * r);
        RIJN_UNROLL(16)
        for (j = 0; j < n; j++)
            s[j] = a8_round(s[j], kr);
    }
    {
        const a8_v kr = vld1q_u8(rk + 16 * (nr - 1));
        RIJN_UNROLL(16)
        for (j = 0; j < n; j++)
            s[j] = vaeseq_u8(s[j], kr);
    }
}

/* Round key nr, the one XORed with the data. */
A8_INLINE a8_v a8_last_key(const rijn_aes_key *k, const unsigned nr)
{
    return vld1q_u8((const uint8_t *)k->rk + 16 * nr);
}

/* Byte-lane constant: j in lane 15, zero elsewhere. */
A8_INLINE a8_v a8_lane15(uint8_t j)
{
    return vsetq_lane_u8(j, vdupq_n_u8(0), 15);
}

/* The counter block c (block byte order) with bytes 12..15 = w. */
A8_INLINE a8_v a8_with_low(a8_v c, uint32_t w)
{
    return vreinterpretq_u8_u32(
        vsetq_lane_u32(RIJN_BSWAP32(w), vreinterpretq_u32_u8(c), 3));
}

/* s[j] = counter block w + j (mod 2^32 in bytes 12..15) for j < n, from
 * the base block c (whose bytes 12..15 are w): byte-lane adds while the
 * low byte does not wrap, built from w otherwise. */
A8_INLINE void a8_counters(a8_v c, uint32_t w, a8_v *s, const size_t n)
{
    size_t j;

    if ((w & 0xff) <= 0xff - (n - 1)) {
        RIJN_UNROLL(16)
        for (j = 0; j < n; j++)
            s[j] = j == 0 ? c : vaddq_u8(c, a8_lane15((uint8_t)j));
    } else {
        RIJN_UNROLL(16)
        for (j = 0; j < n; j++)
            s[j] = a8_with_low(c, w + (uint32_t)j);
    }
}

#endif
#endif /* RIJN_AES_ARMV8_H */

/*
 * armv8: AES with the ARMv8 crypto extension (AESE/AESMC), for AArch64
 * cores that have it (Cortex-A53/A57/A72 with the extension, A7x, Neoverse,
 * Apple, Graviton). Compiled with -march=armv8-a+crypto for this file
 * only; it runs only when AT_HWCAP reports AES (src/core/cpu/aarch64.c).
 *
 * AESE(s, k) is AddRoundKey, SubBytes and ShiftRows; AESMC is MixColumns.
 * A round is the pair AESE+AESMC, always written as one expression so the
 * two stay adjacent: most cores fuse the pair into one operation. Round
 * key 0 enters through the first AESE, the last round key is XORed with
 * the data (in ^ rk[nr] ^ state), so the round keys are the FIPS-197 ones
 * in block byte order (see armv8.h).
 *
 * CTR: 8 blocks in flight (AESE+AESMC has a latency of 2 to 4 cycles and
 * cores issue one or two per cycle: 8 chains cover that on all of them),
 * the round keys in registers, the counter block in a register with its
 * low 32 bits mirrored in a general register; block j of a batch is one
 * byte-lane ADD to the base block (armv8.h), so a block costs its rounds,
 * one ADD, two EORs and a quarter of a 4-register load and store. A tail
 * of 1..7 blocks is one batch of exactly that many blocks, so a short
 * message is one AES latency chain with no wasted lanes. The loops are
 * specialised for 10, 12 and 14 rounds.
 *
 * Key schedule (FIPS-197 5.2) in vector registers: SubWord(RotWord(w3))
 * is one TBL that puts RotWord(w3) into all four columns and one AESE with
 * a zero round key (with four equal columns ShiftRows changes nothing), so
 * the S-box is only ever evaluated by the AES unit; the running XOR of
 * the words is two EXT+EOR steps.
 *
 * Constant time: AESE, AESMC, TBL (with a constant index), EXT, EOR and
 * ADD take the same time whatever the data; there is no table lookup and
 * no branch or address that depends on the key or the data (branches are
 * on nblocks, the key length and the public counter's low byte only).
 */
#include "aes/arm/armv8.h"

#if defined(RIJN_ARMV8_AES)

/* ------------------------------------------------------------------------
 * Key schedule
 * --------------------------------------------------------------------- */

/* [w0, w0^w1, w0^w1^w2, w0^w1^w2^w3] (32-bit words, w0 in bytes 0..3) */
A8_INLINE a8_v ks_prefix(a8_v x)
{
    const a8_v z = vdupq_n_u8(0);
    x = veorq_u8(x, vextq_u8(z, x, 12));
    return veorq_u8(x, vextq_u8(z, x, 8));
}

/* SubWord of word `lane` rotated (RotWord) or not, in all four columns,
 * XOR rcon (in byte 0 of each word). */
A8_INLINE a8_v ks_sub(a8_v x, const uint8x16_t idx, uint32_t rcon)
{
    const a8_v t = vaeseq_u8(vqtbl1q_u8(x, idx), vdupq_n_u8(0));
    return veorq_u8(t, vreinterpretq_u8_u32(vdupq_n_u32(rcon)));
}

#define KS_IDX(a, b, c, d) {a, b, c, d, a, b, c, d, a, b, c, d, a, b, c, d}

static const uint8_t ks_rcon[10] = {
    0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36
};

/*
 * AES-128, in inline assembly: the same steps as the 256- and 192-bit
 * schedules below, but the round keys stay in v0-v10 and are stored four
 * at a time, and the rcon vectors are loaded four at a time (gcc 12 makes
 * one store and one MOVI per round key of the intrinsics): 8 vector
 * instructions per round key. ks128_tab: the RotWord(w3) index, then
 * rcon_i in byte 0 of every word, i = 0..9.
 */
static const uint32_t ks128_tab[11][4] __attribute__((aligned(16))) = {
    {0x0c0f0e0du, 0x0c0f0e0du, 0x0c0f0e0du, 0x0c0f0e0du},
    {0x01, 0x01, 0x01, 0x01}, {0x02, 0x02, 0x02, 0x02},
    {0x04, 0x04, 0x04, 0x04}, {0x08, 0x08, 0x08, 0x08},
    {0x10, 0x10, 0x10, 0x10}, {0x20, 0x20, 0x20, 0x20},
    {0x40, 0x40, 0x40, 0x40}, {0x80, 0x80, 0x80, 0x80},
    {0x1b, 0x1b, 0x1b, 0x1b}, {0x36, 0x36, 0x36, 0x36},
};

/* round key i + 1 (v<n>) from round key i (v<p>) with rcon v<r> */
#define KS128(p, n, r) \
    "tbl v16.16b, {v" #p ".16b}, v20.16b\n\t" \
    "aese v16.16b, v31.16b\n\t" \
    "ext v17.16b, v31.16b, v" #p ".16b, #12\n\t" \
    "eor v16.16b, v16.16b, v" #r ".16b\n\t" \
    "eor v17.16b, v17.16b, v" #p ".16b\n\t" \
    "ext v18.16b, v31.16b, v17.16b, #8\n\t" \
    "eor v17.16b, v17.16b, v18.16b\n\t" \
    "eor v" #n ".16b, v17.16b, v16.16b\n\t"

static void a8_setkey128(uint8_t *rk, const uint8_t *key)
{
    const uint32_t *tab = &ks128_tab[0][0];

    __asm__ volatile(
        "ld1 {v0.16b}, [%[key]]\n\t"
        "ld1 {v20.16b-v23.16b}, [%[tab]], #64\n\t"
        "ld1 {v24.16b-v27.16b}, [%[tab]], #64\n\t"
        "ld1 {v28.16b-v30.16b}, [%[tab]]\n\t"
        "movi v31.2d, #0\n\t"
        KS128(0, 1, 21) KS128(1, 2, 22) KS128(2, 3, 23) KS128(3, 4, 24)
        KS128(4, 5, 25) KS128(5, 6, 26) KS128(6, 7, 27) KS128(7, 8, 28)
        KS128(8, 9, 29) KS128(9, 10, 30)
        "st1 {v0.16b-v3.16b}, [%[rk]], #64\n\t"
        "st1 {v4.16b-v7.16b}, [%[rk]], #64\n\t"
        "st1 {v8.16b-v10.16b}, [%[rk]]\n\t"
        : [rk] "+r"(rk), [tab] "+r"(tab)
        : [key] "r"(key)
        : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10",
          "v16", "v17", "v18", "v20", "v21", "v22", "v23", "v24", "v25",
          "v26", "v27", "v28", "v29", "v30", "v31", "memory");
}

static void a8_setkey(rijn_aes_key *k, const uint8_t *key, size_t key_len)
{
    uint8_t *rk = (uint8_t *)k->rk;
    const uint8x16_t rot3 = KS_IDX(13, 14, 15, 12);
    size_t i;

    if (key_len == 16) {
        a8_setkey128(rk, key);
    } else if (key_len == 32) {
        const uint8x16_t bc3 = KS_IDX(12, 13, 14, 15);
        a8_v a = vld1q_u8(key), b = vld1q_u8(key + 16);
        vst1q_u8(rk, a);
        vst1q_u8(rk + 16, b);
        RIJN_UNROLL(7)
        for (i = 0; i < 7; i++) {
            a = veorq_u8(ks_prefix(a), ks_sub(b, rot3, ks_rcon[i]));
            vst1q_u8(rk + 32 * (i + 1), a);
            if (i == 6)
                break;
            b = veorq_u8(ks_prefix(b), ks_sub(a, bc3, 0));
            vst1q_u8(rk + 32 * (i + 1) + 16, b);
        }
    } else {
        /* Six words per step: a = w[6i .. 6i+3], b = w[6i+4 .. 6i+5] in
         * its low half; the words are stored as one stream (52 words). */
        const uint8x16_t rot1 = KS_IDX(5, 6, 7, 4);
        const a8_v z = vdupq_n_u8(0);
        a8_v a = vld1q_u8(key);
        a8_v b = vcombine_u8(vld1_u8(key + 16), vdup_n_u8(0));
        vst1q_u8(rk, a);
        vst1_u8(rk + 16, vget_low_u8(b));
        RIJN_UNROLL(8)
        for (i = 0; i < 8; i++) {
            a = veorq_u8(ks_prefix(a), ks_sub(b, rot1, ks_rcon[i]));
            vst1q_u8(rk + 24 * (i + 1), a);
            if (i == 7)
                break;
            /* [w4 ^ w9, w4 ^ w5 ^ w9]: the two-word prefix of b, then the
             * new w9 (word 3 of a) into both words */
            b = veorq_u8(veorq_u8(b, vextq_u8(z, b, 12)),
                         vreinterpretq_u8_u32(
                             vdupq_laneq_u32(vreinterpretq_u32_u8(a), 3)));
            vst1_u8(rk + 24 * (i + 1) + 16, vget_low_u8(b));
        }
    }
}

/* ------------------------------------------------------------------------
 * CTR
 * --------------------------------------------------------------------- */
#define A8_BATCH 8

/* out[j] = in[j] ^ rk[nr] ^ s[j] for j < n (n constant) */
A8_INLINE void a8_xor_out(uint8_t *out, const uint8_t *in, const a8_v *s,
                          a8_v klast, const size_t n)
{
    size_t j;

    RIJN_UNROLL(16)
    for (j = 0; j < n; j++)
        vst1q_u8(out + 16 * j,
                 veorq_u8(s[j], veorq_u8(vld1q_u8(in + 16 * j), klast)));
}

/* n (constant, 1..7) blocks from the base block c / w. */
A8_INLINE void a8_ctr_batch(const rijn_aes_key *k, const unsigned nr,
                            uint8_t *out, const uint8_t *in, a8_v c,
                            uint32_t w, const size_t n)
{
    a8_v s[A8_BATCH];

    a8_counters(c, w, s, n);
    a8_rounds(k, nr, s, n);
    a8_xor_out(out, in, s, a8_last_key(k, nr), n);
}

/*
 * The main CTR loop, nbatches (> 0) batches of 8 blocks, in inline
 * assembly: gcc 12 reloads constants and bounces 4-register stores
 * through the stack when this is written with intrinsics, which costs a
 * fifth more instructions. Registers: v0-v7 the states, v8.. the round
 * keys (k_i in v(8 + i)), v24 the constant 1 in byte 15, v25-v28 the
 * data; c (the base counter block) is an operand, w (its low 32 bits,
 * native) that of the first batch. fast counts the batches before byte 15
 * of the base wraps in one (its low byte at 0xf8 or above); that batch is
 * built from w + 8 * (batches done) (label 3) and the next 31 are fast
 * again; the others are a chain of byte-lane ADDs. Then the rounds,
 * round-major (each key used for all 8 states in a row, AESE/AESMC pairs
 * adjacent), and out = in ^ k_nr ^ state, 4 blocks per load and store.
 */
#define A8_S1(j, k) "aese v" #j ".16b, v" #k ".16b\n\t" \
                    "aesmc v" #j ".16b, v" #j ".16b\n\t"
#define A8_R8(k) A8_S1(0, k) A8_S1(1, k) A8_S1(2, k) A8_S1(3, k) \
                 A8_S1(4, k) A8_S1(5, k) A8_S1(6, k) A8_S1(7, k)
#define A8_L1(j, k) "aese v" #j ".16b, v" #k ".16b\n\t"
#define A8_L8(k) A8_L1(0, k) A8_L1(1, k) A8_L1(2, k) A8_L1(3, k) \
                 A8_L1(4, k) A8_L1(5, k) A8_L1(6, k) A8_L1(7, k)
#define A8_ROUNDS10 A8_R8(8) A8_R8(9) A8_R8(10) A8_R8(11) A8_R8(12) \
                    A8_R8(13) A8_R8(14) A8_R8(15) A8_R8(16) A8_L8(17)
#define A8_ROUNDS12 A8_R8(8) A8_R8(9) A8_R8(10) A8_R8(11) A8_R8(12) \
                    A8_R8(13) A8_R8(14) A8_R8(15) A8_R8(16) A8_R8(17) \
                    A8_R8(18) A8_L8(19)
#define A8_ROUNDS14 A8_R8(8) A8_R8(9) A8_R8(10) A8_R8(11) A8_R8(12) \
                    A8_R8(13) A8_R8(14) A8_R8(15) A8_R8(16) A8_R8(17) \
                    A8_R8(18) A8_R8(19) A8_R8(20) A8_L8(21)
/* round keys 0..nr into v8..v(8 + nr) */
#define A8_KEYS10 "ld1 {v8.16b-v11.16b}, [%[rk]], #64\n\t" \
                  "ld1 {v12.16b-v15.16b}, [%[rk]], #64\n\t" \
                  "ld1 {v16.16b-v18.16b}, [%[rk]]\n\t"
#define A8_KEYS12 "ld1 {v8.16b-v11.16b}, [%[rk]], #64\n\t" \
                  "ld1 {v12.16b-v15.16b}, [%[rk]], #64\n\t" \
                  "ld1 {v16.16b-v19.16b}, [%[rk]], #64\n\t" \
                  "ld1 {v20.16b}, [%[rk]]\n\t"
#define A8_KEYS14 "ld1 {v8.16b-v11.16b}, [%[rk]], #64\n\t" \
                  "ld1 {v12.16b-v15.16b}, [%[rk]], #64\n\t" \
                  "ld1 {v16.16b-v19.16b}, [%[rk]], #64\n\t" \
                  "ld1 {v20.16b-v22.16b}, [%[rk]]\n\t"
/* slow path: block j = c with bytes 12..15 = w - 8 + j */
#define A8_SLOW1(j) "add w10, w11, #" #j "\n\t" \
                    "rev w10, w10\n\t" \
                    "mov v" #j ".16b, %[c].16b\n\t" \
                    "mov v" #j ".s[3], w10\n\t"
#define A8_XOR4(a, b, c_, d, klast) \
    "ld1 {v25.16b-v28.16b}, [%[in]], #64\n\t" \
    "eor v25.16b, v25.16b, v" #klast ".16b\n\t" \
    "eor v26.16b, v26.16b, v" #klast ".16b\n\t" \
    "eor v27.16b, v27.16b, v" #klast ".16b\n\t" \
    "eor v28.16b, v28.16b, v" #klast ".16b\n\t" \
    "eor v" #a ".16b, v" #a ".16b, v25.16b\n\t" \
    "eor v" #b ".16b, v" #b ".16b, v26.16b\n\t" \
    "eor v" #c_ ".16b, v" #c_ ".16b, v27.16b\n\t" \
    "eor v" #d ".16b, v" #d ".16b, v28.16b\n\t" \
    "st1 {v" #a ".16b-v" #d ".16b}, [%[out]], #64\n\t"

#define A8_CTR_LOOP(KEYS, ROUNDS, klast) \
    __asm__ volatile( \
        KEYS \
        "movi v24.2d, #0\n\t" \
        "mov w10, #1\n\t" \
        "mov v24.b[15], w10\n\t" \
        "1:\n\t" \
        "subs %[fast], %[fast], #1\n\t" \
        "b.lo 3f\n\t" \
        "mov v0.16b, %[c].16b\n\t" \
        "add v1.16b, %[c].16b, v24.16b\n\t" \
        "add v2.16b, v1.16b, v24.16b\n\t" \
        "add v3.16b, v2.16b, v24.16b\n\t" \
        "add v4.16b, v3.16b, v24.16b\n\t" \
        "add v5.16b, v4.16b, v24.16b\n\t" \
        "add v6.16b, v5.16b, v24.16b\n\t" \
        "add v7.16b, v6.16b, v24.16b\n\t" \
        "add %[c].16b, v7.16b, v24.16b\n\t" \
        "2:\n\t" \
        ROUNDS \
        A8_XOR4(0, 1, 2, 3, klast) \
        A8_XOR4(4, 5, 6, 7, klast) \
        "subs %[n], %[n], #1\n\t" \
        "b.ne 1b\n\t" \
        "b 4f\n\t" \
        "3:\n\t" \
        "mov %[fast], #31\n\t" \
        "sub x11, %[nall], %[n]\n\t" \
        "add w11, %w[w], w11, lsl #3\n\t" \
        A8_SLOW1(0) A8_SLOW1(1) A8_SLOW1(2) A8_SLOW1(3) \
        A8_SLOW1(4) A8_SLOW1(5) A8_SLOW1(6) A8_SLOW1(7) \
        "add w10, w11, #8\n\t" \
        "rev w10, w10\n\t" \
        "mov %[c].s[3], w10\n\t" \
        "b 2b\n\t" \
        "4:\n\t" \
        : [c] "+w"(c), [in] "+&r"(in), [out] "+&r"(out), \
          [n] "+&r"(n), [rk] "+&r"(rkp), [fast] "+&r"(fast) \
        : [w] "r"(w), [nall] "r"(nbatches) \
        : "x10", "x11", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", \
          "v9", "v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17", \
          "v18", "v19", "v20", "v21", "v22", "v24", "v25", "v26", "v27", \
          "v28", "cc", "memory")

A8_INLINE void a8_ctr_nr(const rijn_aes_key *k, uint8_t *out,
                         const uint8_t *in, size_t nblocks,
                         const uint8_t ctr[16], const unsigned nr)
{
    a8_v c = vld1q_u8(ctr);
    uint32_t w = rijn_load32_be(ctr + 12);
    size_t nbatches = nblocks / A8_BATCH;

    if (nbatches > 0) {
        const uint8_t *rkp = (const uint8_t *)k->rk;
        size_t n = nbatches;
        /* batches before byte 15 of the base wraps in one */
        size_t fast = (w & 0xff) < 0xf8 ? (0xf7 - (w & 0xff)) / 8 + 1 : 0;
        if (nr == 10)
            A8_CTR_LOOP(A8_KEYS10, A8_ROUNDS10, 18);
        else if (nr == 12)
            A8_CTR_LOOP(A8_KEYS12, A8_ROUNDS12, 20);
        else
            A8_CTR_LOOP(A8_KEYS14, A8_ROUNDS14, 22);
        w += 8 * (uint32_t)nbatches;
    }
    if (nblocks % A8_BATCH == 0)
        return;
    /* 1..7 blocks: one batch of exactly that many */
    switch (nblocks % A8_BATCH) {
    case 7: a8_ctr_batch(k, nr, out, in, c, w, 7); break;
    case 6: a8_ctr_batch(k, nr, out, in, c, w, 6); break;
    case 5: a8_ctr_batch(k, nr, out, in, c, w, 5); break;
    case 4: a8_ctr_batch(k, nr, out, in, c, w, 4); break;
    case 3: a8_ctr_batch(k, nr, out, in, c, w, 3); break;
    case 2: a8_ctr_batch(k, nr, out, in, c, w, 2); break;
    default: a8_ctr_batch(k, nr, out, in, c, w, 1); break;
    }
}

static void a8_ctr32(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                     size_t nblocks, const uint8_t ctr[16])
{
    if (k->rounds == 10)
        a8_ctr_nr(k, out, in, nblocks, ctr, 10);
    else if (k->rounds == 12)
        a8_ctr_nr(k, out, in, nblocks, ctr, 12);
    else
        a8_ctr_nr(k, out, in, nblocks, ctr, 14);
}

/* ------------------------------------------------------------------------
 * ECB
 * --------------------------------------------------------------------- */
A8_INLINE void a8_ecb_batch(const rijn_aes_key *k, const unsigned nr,
                            uint8_t *out, const uint8_t *in, const size_t n)
{
    a8_v s[A8_BATCH];
    size_t j;

    RIJN_UNROLL(16)
    for (j = 0; j < n; j++)
        s[j] = vld1q_u8(in + 16 * j);
    a8_rounds(k, nr, s, n);
    RIJN_UNROLL(16)
    for (j = 0; j < n; j++)
        vst1q_u8(out + 16 * j, veorq_u8(s[j], a8_last_key(k, nr)));
}

A8_INLINE void a8_ecb_nr(const rijn_aes_key *k, uint8_t *out,
                         const uint8_t *in, size_t nblocks, const unsigned nr)
{
    for (; nblocks >= A8_BATCH; nblocks -= A8_BATCH) {
        a8_ecb_batch(k, nr, out, in, A8_BATCH);
        in += 16 * A8_BATCH;
        out += 16 * A8_BATCH;
    }
    if (nblocks >= 4) {
        a8_ecb_batch(k, nr, out, in, 4);
        in += 64;
        out += 64;
        nblocks -= 4;
    }
    if (nblocks >= 2) {
        a8_ecb_batch(k, nr, out, in, 2);
        in += 32;
        out += 32;
        nblocks -= 2;
    }
    if (nblocks)
        a8_ecb_batch(k, nr, out, in, 1);
}

static void a8_ecb(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                   size_t nblocks)
{
    if (k->rounds == 10)
        a8_ecb_nr(k, out, in, nblocks, 10);
    else if (k->rounds == 12)
        a8_ecb_nr(k, out, in, nblocks, 12);
    else
        a8_ecb_nr(k, out, in, nblocks, 14);
}

RIJN_AES_KEY_FITS(15 * 16, "armv8's AES-256 schedule");
const rijn_aes_impl rijn_aes_armv8 = {
    .base = {.name = "armv8", .needs = RIJN_CPU_ARM_AES | RIJN_CPU_NEON,
             .constant_time = 1, .rank = 50},
    .key_bytes = RIJN_AES_KEY_BYTES(16),
    .setkey = a8_setkey,
    .ecb = a8_ecb,
    .ctr32 = a8_ctr32,
};

#else
typedef int rijn_armv8_not_built; /* ISO C wants a non-empty file */
#endif

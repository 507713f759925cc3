/*
 * altivec-vperm-otf: the altivec-vperm cipher (register-held S-box, see
 * altivec_vperm.h) without a precomputed key schedule in memory. setkey
 * stores only the raw key in k->rk (zero-padded to 32 bytes); every ecb or
 * ctr32 call expands the round keys in vector registers as the rounds go,
 * one round key per round shared by a batch of AVP_OTF_BATCH blocks, and
 * nothing of the schedule is ever written to memory (the property
 * Kraszewski's AltiVec AES notes argue for: a memory disclosure or a cold
 * boot image shows the key, as it must, but no expanded schedule).
 *
 * The key expansion costs about 27 instructions per round key (one SubBytes
 * of RotWord plus the prefix XOR), paid once per batch, so this variant is
 * slower than altivec-vperm; it has rank 0: never picked automatically,
 * selected by name (RIJN_IMPL=altivec-vperm-otf or rijn_aes_setkey_impl)
 * by those who want the property. (Rank 11 would not change any pick
 * either: it needs exactly the CPU features of altivec-vperm, rank 12.)
 *
 * Constant time: as altivec-vperm (branches only on nblocks, the key
 * length and pointer alignment).
 */
#include "altivec_vperm.h"

#if defined(__ALTIVEC__)

#ifndef AVP_OTF_BATCH
#define AVP_OTF_BATCH 4
#endif

static void avp_otf_setkey(rijn_aes_key *k, const uint8_t *key, size_t key_len)
{
    uint8_t *rk = (uint8_t *)k->rk;

    memset(rk, 0, 32);
    memcpy(rk, key, key_len);
}

/* all rounds of s[0..n-1] with round key rk applied to each block */
#define AVP_ROUND_ALL(rk)                                   \
    do {                                                    \
        RIJN_UNROLL(8)                                          \
        for (j = 0; j < n; j++)                             \
            s[j] = avp_round(S, s[j], (rk));                \
    } while (0)

/* s[0..n-1] through all rounds, round keys expanded on the fly */
AVP_INLINE void avp_encrypt_otf(const avp_sbox_regs *S, const uint8_t *raw,
                                unsigned key_len, avp_v8 *s, const int n)
{
    avp_v8 a = vec_ld(0, raw), b = vec_ld(16, raw);
    avp_v8 rc = AVP_RCON1;
    int i, j;

    RIJN_UNROLL(8)
    for (j = 0; j < n; j++)
        s[j] = vec_xor(s[j], a);
    if (key_len == 16) {
        for (i = 1; i < 10; i++) {
            a = avp_ks_step(S, a, a, rc);
            rc = avp_xtime(rc);
            AVP_ROUND_ALL(a);
        }
        a = avp_ks_step(S, a, a, rc);
    } else if (key_len == 32) {
        AVP_ROUND_ALL(b);
        for (i = 0; i < 6; i++) {
            a = avp_ks_step(S, a, b, rc);
            rc = avp_xtime(rc);
            AVP_ROUND_ALL(a);
            b = avp_ks_step256b(S, b, a);
            AVP_ROUND_ALL(b);
        }
        a = avp_ks_step(S, a, b, rc);
    } else {
        /* 6-word steps, 4-word round keys: two steps give three round keys */
        for (i = 0; i < 3; i++) {
            const avp_v8 b0 = b;
            avp_ks_step192(S, &a, &b, rc);
            rc = avp_xtime(rc);
            AVP_ROUND_ALL(vec_perm(b0, a, AVP_K192_1));
            AVP_ROUND_ALL(vec_perm(a, b, AVP_K192_2));
            avp_ks_step192(S, &a, &b, rc);
            rc = avp_xtime(rc);
            AVP_ROUND_ALL(a);
        }
        {
            const avp_v8 b0 = b;
            avp_ks_step192(S, &a, &b, rc);
            rc = avp_xtime(rc);
            AVP_ROUND_ALL(vec_perm(b0, a, AVP_K192_1));
            AVP_ROUND_ALL(vec_perm(a, b, AVP_K192_2));
            avp_ks_step192(S, &a, &b, rc);
        }
    }
    RIJN_UNROLL(8)
    for (j = 0; j < n; j++)
        s[j] = avp_last_round(S, s[j], a);
}

AVP_INLINE void avp_otf_ctr_body(const rijn_aes_key *k, uint8_t *out,
                                 const uint8_t *in, size_t nblocks,
                                 const uint8_t ctr[16], const int aligned)
{
    const uint8_t *raw = (const uint8_t *)k->rk;
    const unsigned key_len = k->key_len;
    avp_sbox_regs S;
    avp_v8 c = avp_ctr_load(ctr);
    avp_v8 s[AVP_OTF_BATCH < 2 ? 2 : AVP_OTF_BATCH];
    int j;

    avp_load_sbox(&S, avp_sbox);
    for (; nblocks >= AVP_OTF_BATCH; nblocks -= AVP_OTF_BATCH) {
        RIJN_UNROLL(8)
        for (j = 0; j < AVP_OTF_BATCH; j++) {
            s[j] = avp_ctr_block(c);
            c = avp_ctr_next(c);
        }
        avp_encrypt_otf(&S, raw, key_len, s, AVP_OTF_BATCH);
        RIJN_UNROLL(8)
        for (j = 0; j < AVP_OTF_BATCH; j++)
            avp_store(out + 16 * j, vec_xor(s[j], avp_load(in + 16 * j, aligned)),
                      aligned);
        in += 16 * AVP_OTF_BATCH;
        out += 16 * AVP_OTF_BATCH;
    }
    /* a tail of 1..3 blocks: one pass of 2 and/or one of 1 */
    if (nblocks >= 2) {
        RIJN_UNROLL(8)
        for (j = 0; j < 2; j++) {
            s[j] = avp_ctr_block(c);
            c = avp_ctr_next(c);
        }
        avp_encrypt_otf(&S, raw, key_len, s, 2);
        RIJN_UNROLL(8)
        for (j = 0; j < 2; j++)
            avp_store(out + 16 * j, vec_xor(s[j], avp_load(in + 16 * j, aligned)),
                      aligned);
        in += 32;
        out += 32;
        nblocks -= 2;
    }
    if (nblocks > 0) {
        s[0] = avp_ctr_block(c);
        avp_encrypt_otf(&S, raw, key_len, s, 1);
        avp_store(out, vec_xor(s[0], avp_load(in, aligned)), aligned);
    }
}

/*
 * The kernels run in frames of their own, cleared after them
 * (rijn_stack_burn): the round keys made on the fly live in vector
 * registers, and gcc spills some of them (AES-192 and AES-256 keep two
 * keys' worth of words) to those frames; tests/stackwipe.c looks for
 * every round key after each call. The clearing covers the largest frame
 * seen (1200 bytes, ppc64 on POWER8) and some.
 */
#define AVP_OTF_FRAME_BURN 1280
__attribute__((noinline)) static void avp_otf_ctr32_run(
    const rijn_aes_key *k, uint8_t *out, const uint8_t *in, size_t nblocks,
    const uint8_t ctr[16])
{
    if (AVP_IS_ALIGNED(in) && AVP_IS_ALIGNED(out))
        avp_otf_ctr_body(k, out, in, nblocks, ctr, 1);
    else
        avp_otf_ctr_body(k, out, in, nblocks, ctr, 0);
}

static void avp_otf_ctr32(const rijn_aes_key *k, uint8_t *out,
                          const uint8_t *in, size_t nblocks,
                          const uint8_t ctr[16])
{
    if (nblocks == 0)
        return;
    avp_otf_ctr32_run(k, out, in, nblocks, ctr);
    rijn_stack_burn_n(AVP_OTF_FRAME_BURN);
}

__attribute__((noinline)) static void avp_otf_ecb_run(const rijn_aes_key *k,
                                                      uint8_t *out,
                                                      const uint8_t *in,
                                                      size_t nblocks)
{
    const uint8_t *raw = (const uint8_t *)k->rk;
    const unsigned key_len = k->key_len;
    avp_sbox_regs S;
    avp_v8 s[AVP_OTF_BATCH];
    int j;

    if (nblocks == 0)
        return;
    avp_load_sbox(&S, avp_sbox);
    for (; nblocks >= AVP_OTF_BATCH; nblocks -= AVP_OTF_BATCH) {
        RIJN_UNROLL(8)
        for (j = 0; j < AVP_OTF_BATCH; j++)
            s[j] = avp_load(in + 16 * j, 0);
        avp_encrypt_otf(&S, raw, key_len, s, AVP_OTF_BATCH);
        RIJN_UNROLL(8)
        for (j = 0; j < AVP_OTF_BATCH; j++)
            avp_store(out + 16 * j, s[j], 0);
        in += 16 * AVP_OTF_BATCH;
        out += 16 * AVP_OTF_BATCH;
    }
    for (; nblocks > 0; nblocks--) {
        s[0] = avp_load(in, 0);
        avp_encrypt_otf(&S, raw, key_len, s, 1);
        avp_store(out, s[0], 0);
        in += 16;
        out += 16;
    }
}

static void avp_otf_ecb(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                        size_t nblocks)
{
    if (nblocks == 0)
        return;
    avp_otf_ecb_run(k, out, in, nblocks);
    rijn_stack_burn_n(AVP_OTF_FRAME_BURN);
}

RIJN_AES_KEY_FITS(32, "altivec-vperm-otf's raw key");
const rijn_aes_impl rijn_aes_altivec_vperm_otf = {
    .base = {.name = "altivec-vperm-otf", .needs = RIJN_CPU_ALTIVEC,
             .constant_time = 1, .rank = 0},
    .key_bytes = {32, 32, 32}, /* the raw key, zero-padded */
    .setkey = avp_otf_setkey,
    .ecb = avp_otf_ecb,
    .ctr32 = avp_otf_ctr32,
};

#endif /* __ALTIVEC__ */

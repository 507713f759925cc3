/*
 * altivec-vperm: AES on AltiVec (PowerPC G4/G5 and later) with the S-box
 * held in 16 vector registers and looked up with vperm + vsel, for 32- and
 * 64-bit, big- and little-endian PowerPC. The technique and the round are
 * described in altivec_vperm.h (shared with altivec-vperm-otf).
 *
 * This variant stores the expanded key schedule in k->rk (standard FIPS-197
 * round keys, 16 bytes each, in block byte order) and loads one round key
 * per round (one lvx, used by every block of the batch). Blocks are
 * processed AVP_BATCH at a time, 1 by default: the S-box takes 16 of the 32
 * vector registers, and with two interleaved states the compiler spilled
 * constants and S-box registers (measured 25.0 against 22.5 guest
 * instructions/byte); within one block the 8 table vperms are independent
 * anyway, which covers vperm latency. So a 40-byte packet costs three
 * single-block passes and no wasted lanes. The round loop is fully
 * unrolled and the kernel specialised per round count and alignment.
 *
 * CTR: the counter is a vector whose last word is stepped with vadduwm
 * (mod 2^32 exactly, as the kernel contract in internal.h requires; on
 * little-endian the words are kept byte-swapped and swapped back per
 * block). Unaligned in/out go through an aligned stack copy per block.
 *
 * Constant time: no branch or address depends on the key or the data; the
 * only branches are on nblocks, the key length and pointer alignment.
 */
#include "altivec_vperm.h"

#if defined(__ALTIVEC__)

#ifndef AVP_BATCH
#define AVP_BATCH 1
#endif

static void avp_setkey(rijn_aes_key *k, const uint8_t *key, size_t key_len)
{
    uint8_t *rk = (uint8_t *)k->rk;
    /* the key in an aligned buffer (zero-padded), burned at the end */
    uint8_t kb[32] __attribute__((aligned(16)));
    avp_sbox_regs S;
    avp_v8 rc = AVP_RCON1, a, b;
    int i;

    memset(kb, 0, sizeof kb);
    if (key_len == 16) /* fixed sizes: inline copies, no libc calls */
        memcpy(kb, key, 16);
    else if (key_len == 24)
        memcpy(kb, key, 24);
    else
        memcpy(kb, key, 32);
    a = vec_ld(0, kb);
    b = vec_ld(16, kb);
    avp_load_sbox(&S, avp_sbox);
    vec_st(a, 0, rk);
    if (key_len == 16) {
        for (i = 1; i <= 10; i++) {
            a = avp_ks_step(&S, a, a, rc);
            vec_st(a, 16 * i, rk);
            rc = avp_xtime(rc);
        }
    } else if (key_len == 32) {
        vec_st(b, 16, rk);
        for (i = 1; i <= 7; i++) {
            a = avp_ks_step(&S, a, b, rc);
            vec_st(a, 32 * i, rk);
            if (i == 7)
                break;
            b = avp_ks_step256b(&S, b, a);
            vec_st(b, 32 * i + 16, rk);
            rc = avp_xtime(rc);
        }
    } else {
        /* 6-word steps: a at word 6i, the two words of b at 6i + 4 */
        memcpy(rk + 16, kb + 16, 8);
        for (i = 1; i <= 8; i++) {
            avp_ks_step192(&S, &a, &b, rc);
            vec_st(a, 0, kb);
            vec_st(b, 16, kb);
            /* 52 words: the last step needs only four */
            memcpy(rk + 24 * i, kb, i < 8 ? 24 : 16);
            rc = avp_xtime(rc);
        }
    }
    rijn_burn(kb, sizeof kb);
}

/*
 * Round key loads. With VSX on little-endian (POWER8 and later), a VSX
 * load (vec_xl: lxvd2x and a swap, the same bytes as vec_ld here, the
 * schedule being 16-byte aligned): gcc moved every key loaded with lvx
 * (vec_ld) to the VSX register that uses it through a stack slot
 * (stxvd2x, lxvd2x), where tests/stackwipe.c found all of them after the
 * call.
 */
#if defined(__VSX__) && AVP_LE
#define AVP_KEY(off, rk) ((avp_v8)vec_xl((off), (const unsigned char *)(rk)))
#else
#define AVP_KEY(off, rk) vec_ld((off), (rk))
#endif

/* s[0..n-1] through all rounds; n is a compile-time constant */
AVP_INLINE void avp_encrypt(const avp_sbox_regs *S, const uint8_t *rk,
                            unsigned nr, avp_v8 *s, const int n)
{
    avp_v8 key = AVP_KEY(0, rk);
    unsigned r;
    int j;

    RIJN_UNROLL(8)
    for (j = 0; j < n; j++)
        s[j] = vec_xor(s[j], key);
    RIJN_UNROLL(14)
    for (r = 1; r < nr; r++) {
        key = AVP_KEY((int)(16 * r), rk);
        RIJN_UNROLL(8)
        for (j = 0; j < n; j++)
            s[j] = avp_round(S, s[j], key);
    }
    key = AVP_KEY((int)(16 * nr), rk);
    RIJN_UNROLL(8)
    for (j = 0; j < n; j++)
        s[j] = avp_last_round(S, s[j], key);
}

AVP_INLINE void avp_ctr_body(const rijn_aes_key *k, uint8_t *out,
                             const uint8_t *in, size_t nblocks,
                             const uint8_t ctr[16], const int aligned,
                             const unsigned nr)
{
    const uint8_t *rk = (const uint8_t *)k->rk;
    avp_sbox_regs S;
    avp_v8 c = avp_ctr_load(ctr);
    avp_v8 s[AVP_BATCH];
    int j;

    avp_load_sbox(&S, avp_sbox);
    for (; nblocks >= AVP_BATCH; nblocks -= AVP_BATCH) {
        RIJN_UNROLL(8)
        for (j = 0; j < AVP_BATCH; j++) {
            s[j] = avp_ctr_block(c);
            c = avp_ctr_next(c);
        }
        avp_encrypt(&S, rk, nr, s, AVP_BATCH);
        RIJN_UNROLL(8)
        for (j = 0; j < AVP_BATCH; j++)
            avp_store(out + 16 * j, vec_xor(s[j], avp_load(in + 16 * j, aligned)),
                      aligned);
        in += 16 * AVP_BATCH;
        out += 16 * AVP_BATCH;
    }
    for (; nblocks > 0; nblocks--) {
        s[0] = avp_ctr_block(c);
        c = avp_ctr_next(c);
        avp_encrypt(&S, rk, nr, s, 1);
        avp_store(out, vec_xor(s[0], avp_load(in, aligned)), aligned);
        in += 16;
        out += 16;
    }
}

static void avp_ctr32(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                      size_t nblocks, const uint8_t ctr[16])
{
    const int aligned = AVP_IS_ALIGNED(in) && AVP_IS_ALIGNED(out);

    if (nblocks == 0)
        return;
    /* specialised per round count and alignment (constants inside) */
    if (k->rounds == 10) {
        if (aligned)
            avp_ctr_body(k, out, in, nblocks, ctr, 1, 10);
        else
            avp_ctr_body(k, out, in, nblocks, ctr, 0, 10);
    } else if (k->rounds == 12) {
        if (aligned)
            avp_ctr_body(k, out, in, nblocks, ctr, 1, 12);
        else
            avp_ctr_body(k, out, in, nblocks, ctr, 0, 12);
    } else {
        if (aligned)
            avp_ctr_body(k, out, in, nblocks, ctr, 1, 14);
        else
            avp_ctr_body(k, out, in, nblocks, ctr, 0, 14);
    }
}

/* ECB proper, in a frame of its own: see avp_ecb() */
__attribute__((noinline)) static void avp_ecb_blocks(const rijn_aes_key *k,
                                                     uint8_t *out,
                                                     const uint8_t *in,
                                                     size_t nblocks)
{
    const uint8_t *rk = (const uint8_t *)k->rk;
    const unsigned nr = k->rounds;
    avp_sbox_regs S;
    avp_v8 s[AVP_BATCH];
    int j;

    if (nblocks == 0)
        return;
    avp_load_sbox(&S, avp_sbox);
    for (; nblocks >= AVP_BATCH; nblocks -= AVP_BATCH) {
        RIJN_UNROLL(8)
        for (j = 0; j < AVP_BATCH; j++)
            s[j] = avp_load(in + 16 * j, 0);
        avp_encrypt(&S, rk, nr, s, AVP_BATCH);
        RIJN_UNROLL(8)
        for (j = 0; j < AVP_BATCH; j++)
            avp_store(out + 16 * j, s[j], 0);
        in += 16 * AVP_BATCH;
        out += 16 * AVP_BATCH;
    }
    for (; nblocks > 0; nblocks--) {
        s[0] = avp_load(in, 0);
        avp_encrypt(&S, rk, nr, s, 1);
        avp_store(out, s[0], 0);
        in += 16;
        out += 16;
    }
}

static void avp_ecb(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                    size_t nblocks)
{
    avp_ecb_blocks(k, out, in, nblocks);
#if !AVP_LE && defined(__powerpc64__)
    /* gcc for big-endian ppc64 (the G5, and POWER8) spills round keys to
     * avp_ecb_blocks' frame (tests/stackwipe.c looks for every one after
     * each call): cleared here. Little-endian with AVP_KEY's loads, the
     * 32-bit G4 build, and CTR everywhere leave none. */
    rijn_stack_burn();
#endif
}

RIJN_AES_KEY_FITS(15 * 16, "altivec-vperm's AES-256 schedule");
const rijn_aes_impl rijn_aes_altivec_vperm = {
    .base = {.name = "altivec-vperm", .needs = RIJN_CPU_ALTIVEC,
             .constant_time = 1, .rank = 12},
    .key_bytes = RIJN_AES_KEY_BYTES(16),
    .setkey = avp_setkey,
    .ecb = avp_ecb,
    .ctr32 = avp_ctr32,
};

#endif /* __ALTIVEC__ */

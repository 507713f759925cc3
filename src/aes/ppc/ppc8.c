/*
 * ppc8: AES with the POWER8 (ISA 2.07) vector crypto instructions vcipher /
 * vcipherlast, for 64-bit PowerPC, little-endian (ppc64le) and big-endian
 * (ppc64 on POWER8 or later). Compiled with -mcpu=power8 -mcrypto -mvsx for
 * this file only; it runs only when AT_HWCAP2 reports vector crypto.
 *
 * vcipher is not x86 AESENC byte for byte: it works on the register in
 * big-endian byte order (register byte 0, the most significant, is block
 * byte 0) whatever the mode the CPU runs in. So everything that enters
 * vcipher is kept in that "register order": on big-endian that is what
 * lvx / lxvw4x give; on little-endian the loaded vectors are reversed with
 * one vperm (the round keys are stored reversed by setkey instead, so they
 * load straight into register order). vcipher(s, k) is ShiftRows,
 * SubBytes, MixColumns, then XOR k; vcipherlast omits MixColumns; round
 * key 0 is a plain XOR, so the round keys are the FIPS-197 ones.
 *
 * CTR: 8 blocks in flight (vcipher has a latency of 6 to 7 cycles on
 * POWER8 and POWER9 and two crypto pipes issue it; 8 independent chains
 * cover that), all round keys in registers (at most 15 of the 32 VRs,
 * leaving 8 for the states and the counter). The counter is the block
 * itself in register order, stepped with vadduwm on its last word: exactly
 * mod 2^32 as internal.h requires. A tail of 1..7 blocks goes one block
 * at a time (each a latency chain; short messages were not the target
 * here). The round loops are specialised for 10, 12 and 14 rounds.
 *
 * Key schedule: FIPS-197 5.2 on 32-bit words; SubWord is vsbox (the
 * S-box applied to every byte of a register), so there is no table.
 *
 * Constant time: vcipher, vsbox, vperm, vxor and vadduwm take the same
 * time whatever the data; no branch or address depends on the key or the
 * data (branches are on nblocks and the key length only).
 */
#include "internal.h"

#if defined(__powerpc64__) && defined(__CRYPTO__) && defined(__VSX__)

#include <altivec.h>

#undef vector
#undef pixel
#undef bool

typedef __vector unsigned char p8_v8;
typedef __vector unsigned int p8_v32;
typedef __vector unsigned long long p8_v64;

#define P8_INLINE static inline __attribute__((always_inline))

#if defined(__LITTLE_ENDIAN__) || \
    (defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define P8_LE 1
/* element order <-> register order (element i = register byte 15 - i) */
#define P8_REV ((p8_v8){15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0})
/* register word 3 (block bytes 12..15) is element 0 here */
#define P8_ONE ((p8_v32){1, 0, 0, 0})
#else
#define P8_LE 0
#define P8_ONE ((p8_v32){0, 0, 0, 1})
#endif

/* memory (block byte order) <-> register order */
P8_INLINE p8_v8 p8_load(const uint8_t *p)
{
    const p8_v8 v = vec_xl(0, p);
#if P8_LE
    return vec_perm(v, v, P8_REV);
#else
    return v;
#endif
}

P8_INLINE p8_v8 p8_to_mem_order(p8_v8 v)
{
#if P8_LE
    return vec_perm(v, v, P8_REV);
#else
    return v;
#endif
}

/* out[off..off+15] = in[off..off+15] ^ keystream block s (register order).
 * (On little-endian vec_xl/vec_xst cost an xxswapd each; raw lxvd2x /
 * stxvd2x with the swap folded into the vperm were tried and cost as many
 * address additions, so the plain form stays.) */
P8_INLINE void p8_xor_block(uint8_t *out, const uint8_t *in, long off, p8_v8 s)
{
    vec_xst(vec_xor(p8_to_mem_order(s), vec_xl(off, in)), off, out);
}

P8_INLINE p8_v8 p8_enc(p8_v8 s, p8_v8 k)
{
    return (p8_v8)__builtin_crypto_vcipher((p8_v64)s, (p8_v64)k);
}

P8_INLINE p8_v8 p8_enclast(p8_v8 s, p8_v8 k)
{
    return (p8_v8)__builtin_crypto_vcipherlast((p8_v64)s, (p8_v64)k);
}

/* ------------------------------------------------------------------------
 * Key schedule
 * --------------------------------------------------------------------- */
static uint32_t p8_subword(uint32_t x)
{
    /* vsbox substitutes every byte in place, so any lane order works */
    const p8_v32 v = vec_splats(x);
    const p8_v32 s = (p8_v32)__builtin_crypto_vsbox((p8_v64)v);
    return vec_extract(s, 0);
}

static const uint8_t p8_rcon[10] = {
    0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36
};

/* round key i (words w[4i..4i+3]) in the layout p8_load_keys expects:
 * block byte order, each 16 bytes reversed on little-endian so that lvx
 * puts the round key in register order */
static void p8_store_words(uint8_t *rk, const uint32_t *w, unsigned nwords)
{
    unsigned i;

    for (i = 0; i < nwords; i++) {
#if P8_LE
        rijn_store32_le(rk + 16 * (i / 4) + 12 - 4 * (i % 4), w[i]);
#else
        rijn_store32_be(rk + 4 * i, w[i]);
#endif
    }
}

#define P8_ROT(t) (((t) << 8) | ((t) >> 24))

/* store round key number i from its four words, through t (the caller's
 * scratch, which it wipes: gcc merges the four word stores into one
 * 16-byte vector store built in t on the stack, as seen on big-endian) */
P8_INLINE void p8_store_rk(uint8_t *rk, unsigned i, uint32_t t[4],
                           uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3)
{
    t[0] = w0;
    t[1] = w1;
    t[2] = w2;
    t[3] = w3;
    p8_store_words(rk + 16 * i, t, 4);
}

static void p8_setkey(rijn_aes_key *k, const uint8_t *key, size_t key_len)
{
    uint8_t *rk = (uint8_t *)k->rk;
    uint32_t a0 = rijn_load32_be(key), a1 = rijn_load32_be(key + 4);
    uint32_t a2 = rijn_load32_be(key + 8), a3 = rijn_load32_be(key + 12);
    uint32_t t[4];
    unsigned i;

    p8_store_rk(rk, 0, t, a0, a1, a2, a3);
    if (key_len == 16) {
        for (i = 0; i < 10; i++) {
            a0 ^= p8_subword(P8_ROT(a3)) ^ ((uint32_t)p8_rcon[i] << 24);
            a1 ^= a0;
            a2 ^= a1;
            a3 ^= a2;
            p8_store_rk(rk, i + 1, t, a0, a1, a2, a3);
        }
    } else if (key_len == 32) {
        uint32_t b0 = rijn_load32_be(key + 16), b1 = rijn_load32_be(key + 20);
        uint32_t b2 = rijn_load32_be(key + 24), b3 = rijn_load32_be(key + 28);
        p8_store_rk(rk, 1, t, b0, b1, b2, b3);
        for (i = 0; i < 7; i++) {
            a0 ^= p8_subword(P8_ROT(b3)) ^ ((uint32_t)p8_rcon[i] << 24);
            a1 ^= a0;
            a2 ^= a1;
            a3 ^= a2;
            p8_store_rk(rk, 2 * i + 2, t, a0, a1, a2, a3);
            if (i == 6)
                break;
            b0 ^= p8_subword(a3);
            b1 ^= b0;
            b2 ^= b1;
            b3 ^= b2;
            p8_store_rk(rk, 2 * i + 3, t, b0, b1, b2, b3);
        }
    } else {
        uint32_t w[52];
        w[0] = a0;
        w[1] = a1;
        w[2] = a2;
        w[3] = a3;
        w[4] = rijn_load32_be(key + 16);
        w[5] = rijn_load32_be(key + 20);
        for (i = 6; i < 52; i += 6) {
            w[i] = w[i - 6] ^ p8_subword(P8_ROT(w[i - 1])) ^
                   ((uint32_t)p8_rcon[i / 6 - 1] << 24);
            w[i + 1] = w[i - 5] ^ w[i];
            w[i + 2] = w[i - 4] ^ w[i + 1];
            w[i + 3] = w[i - 3] ^ w[i + 2];
            if (i + 4 < 52) {
                w[i + 4] = w[i - 2] ^ w[i + 3];
                w[i + 5] = w[i - 1] ^ w[i + 4];
            }
        }
        p8_store_words(rk, w, 52);
        rijn_burn(w, sizeof w);
    }
    rijn_burn(t, sizeof t); /* round key 0 is the key */
}

/* ------------------------------------------------------------------------
 * Kernels, specialised per round count (nr is a constant at each call)
 * --------------------------------------------------------------------- */
/*
 * The round keys into registers. On big-endian, at the start of each
 * batch (P8_KEYS_PER_BATCH): loaded once before the loop and held through
 * it, gcc spilled one or two of them to the stack there (round key 7 of
 * AES-128, 12 of AES-192; 1, 2, 11, 12 of AES-256 in ECB), where
 * tests/stackwipe.c found them after the call. The empty asm makes the
 * pointer opaque, so that the loads are not hoisted out of the loop.
 * Guest instructions on POWER8 big-endian: long streams 1.12 -> 1.18 per
 * byte, 40-byte packets 8.89 -> 8.75 (clearing the frames instead: 1.14
 * and 12.13). Little-endian builds spill none and load once (per batch
 * there: long streams 1.23 -> 1.38).
 */
#define P8_KEYS_PER_BATCH (!P8_LE)

P8_INLINE void p8_load_keys(const rijn_aes_key *k, p8_v8 *rk, const unsigned nr)
{
    const uint8_t *p = (const uint8_t *)k->rk;
    unsigned r;

#if P8_KEYS_PER_BATCH
    __asm__("" : "+r"(p));
#endif
    RIJN_UNROLL(16)
    for (r = 0; r <= nr; r++)
        rk[r] = vec_ld((int)(16 * r), p);
}

/* s[0..n-1] (register order) through all rounds */
P8_INLINE void p8_encrypt(const p8_v8 *rk, const unsigned nr, p8_v8 *s,
                          const int n)
{
    unsigned r;
    int j;

    RIJN_UNROLL(16)
    for (j = 0; j < n; j++)
        s[j] = vec_xor(s[j], rk[0]);
    RIJN_UNROLL(16)
    for (r = 1; r < nr; r++) {
        RIJN_UNROLL(16)
        for (j = 0; j < n; j++)
            s[j] = p8_enc(s[j], rk[r]);
    }
    RIJN_UNROLL(16)
    for (j = 0; j < n; j++)
        s[j] = p8_enclast(s[j], rk[nr]);
}

#define P8_BATCH 8

P8_INLINE void p8_ctr_nr(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                         size_t nblocks, const uint8_t ctr[16], const unsigned nr)
{
    p8_v8 rk[15];
    p8_v8 s[P8_BATCH];
    p8_v8 c = p8_load(ctr);
    int j;

    if (!P8_KEYS_PER_BATCH)
        p8_load_keys(k, rk, nr);
    for (; nblocks >= P8_BATCH; nblocks -= P8_BATCH) {
        if (P8_KEYS_PER_BATCH)
            p8_load_keys(k, rk, nr);
        RIJN_UNROLL(16)
        for (j = 0; j < P8_BATCH; j++) {
            s[j] = c;
            c = (p8_v8)vec_add((p8_v32)c, P8_ONE);
        }
        p8_encrypt(rk, nr, s, P8_BATCH);
        RIJN_UNROLL(16)
        for (j = 0; j < P8_BATCH; j++)
            p8_xor_block(out, in, 16 * j, s[j]);
        in += 16 * P8_BATCH;
        out += 16 * P8_BATCH;
    }
    if (P8_KEYS_PER_BATCH && nblocks > 0)
        p8_load_keys(k, rk, nr);
    for (; nblocks > 0; nblocks--) {
        s[0] = c;
        c = (p8_v8)vec_add((p8_v32)c, P8_ONE);
        p8_encrypt(rk, nr, s, 1);
        p8_xor_block(out, in, 0, s[0]);
        in += 16;
        out += 16;
    }
}

static void p8_ctr32(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                     size_t nblocks, const uint8_t ctr[16])
{
    if (nblocks == 0)
        return;
    if (k->rounds == 10)
        p8_ctr_nr(k, out, in, nblocks, ctr, 10);
    else if (k->rounds == 12)
        p8_ctr_nr(k, out, in, nblocks, ctr, 12);
    else
        p8_ctr_nr(k, out, in, nblocks, ctr, 14);
}

P8_INLINE void p8_ecb_nr(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                         size_t nblocks, const unsigned nr)
{
    p8_v8 rk[15];
    p8_v8 s[P8_BATCH];
    int j;

    if (!P8_KEYS_PER_BATCH)
        p8_load_keys(k, rk, nr);
    for (; nblocks >= P8_BATCH; nblocks -= P8_BATCH) {
        if (P8_KEYS_PER_BATCH)
            p8_load_keys(k, rk, nr);
        RIJN_UNROLL(16)
        for (j = 0; j < P8_BATCH; j++)
            s[j] = p8_load(in + 16 * j);
        p8_encrypt(rk, nr, s, P8_BATCH);
        RIJN_UNROLL(16)
        for (j = 0; j < P8_BATCH; j++)
            vec_xst(p8_to_mem_order(s[j]), 16 * j, out);
        in += 16 * P8_BATCH;
        out += 16 * P8_BATCH;
    }
    if (P8_KEYS_PER_BATCH && nblocks > 0)
        p8_load_keys(k, rk, nr);
    for (; nblocks > 0; nblocks--) {
        s[0] = p8_load(in);
        p8_encrypt(rk, nr, s, 1);
        vec_xst(p8_to_mem_order(s[0]), 0, out);
        in += 16;
        out += 16;
    }
}

static void p8_ecb(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                   size_t nblocks)
{
    if (nblocks == 0)
        return;
    if (k->rounds == 10)
        p8_ecb_nr(k, out, in, nblocks, 10);
    else if (k->rounds == 12)
        p8_ecb_nr(k, out, in, nblocks, 12);
    else
        p8_ecb_nr(k, out, in, nblocks, 14);
}

RIJN_AES_KEY_FITS(15 * 16, "ppc8's AES-256 schedule");
const rijn_aes_impl rijn_aes_ppc8 = {
    .base = {.name = "ppc8", .needs = RIJN_CPU_PPC_CRYPTO | RIJN_CPU_VSX,
             .constant_time = 1, .rank = 50},
    .key_bytes = RIJN_AES_KEY_BYTES(16),
    .setkey = p8_setkey,
    .ecb = p8_ecb,
    .ctr32 = p8_ctr32,
};

#endif /* __powerpc64__ && __CRYPTO__ && __VSX__ */

/*
 * aesni: AES with the x86-64 AES-NI instructions on 128-bit registers, for
 * every x86-64 CPU with AES-NI (Intel Westmere, AMD Bulldozer and later).
 *
 * Batch width: 12 blocks in flight in the CTR loop, 8 in ECB. AESENC has a
 * latency of 3 to 7 cycles and issues once or twice per cycle; on Zen 5
 * (latency 4, two per cycle) 8 blocks are exactly enough and 12 leave slack
 * for loads, stores and the counter work (measured 0.33 vs 0.35
 * cycles/byte), and 12 states still fit the 16 XMM registers. Round keys are
 * memory operands of AESENC (a load, no vector ALU slot). A tail of 1..11
 * blocks is one parallel batch of 2, 4, 8 or 12 (the unused lanes cost issue
 * slots, not latency), so a short message takes one AES latency chain. The
 * main loop is unrolled once per round count (10/12/14); tails and ECB keep
 * the round loop rolled (smaller code, keys stay in memory).
 *
 * CTR: the counter block is held with its low 32-bit word byte-swapped
 * (PSHUFB), so the per-block counters are PADDD of small constants on that
 * dword: exactly mod 2^32, never a carry into byte 11, as the kernel
 * contract in internal.h requires. Another PSHUFB restores the byte order.
 * The input block is folded into the last round key (AESENCLAST with
 * rk[nr] ^ in), which saves the XOR after the final round.
 *
 * Key schedule: FIPS-197 with the round keys in standard byte order in
 * k->rk (16 bytes per round key), computed with AESENCLAST (see the comment
 * above ks_expand128); AES-192 loads its key as 16 + 8 bytes and never reads
 * past the 24 key bytes.
 *
 * Constant time: AESENC/AESENCLAST/PSHUFB/PADDD/PXOR have data-independent
 * latency; there is no table, no branch and no memory index that depends on
 * the key or the data (the only branches are on nblocks and the key length).
 *
 * The code uses compiler intrinsics with a per-function target attribute,
 * so the library is built for baseline x86-64 and this code runs only when
 * the dispatcher has seen AES-NI and SSSE3 in CPUID. The target, the rolled
 * rounds and the counter and tail helpers are in aesni.h, shared with
 * pclmul's fused AES-GCM kernels.
 */
#include "aes/x86/aesni.h"

#if defined(RIJN_X86_AESNI)

/*
 * Block and word indices are size_t on purpose: with int, every 16 * j is a
 * signed multiply that clang's -fsanitize=undefined (no recover) checks
 * before the loops unroll, and clang 14 then needs minutes per file.
 */

/* ------------------------------------------------------------------------
 * Key schedule (FIPS-197 5.2), latency-bound: every round key depends on
 * the one before. Words are 32-bit lanes, w0 in lane 0. Each step is
 * written as new = AESENCLAST(PSHUFB(old), K): with RotWord(w3) in all four
 * columns, ShiftRows is a no-op and the result is SubWord(RotWord(w3)) XOR K
 * in every word, so K = prefix(old) ^ rcon gives the next round key with
 * the AES unit as the only step on the critical path (plus one PSHUFB).
 * --------------------------------------------------------------------- */

/* [w0, w0^w1, w0^w1^w2, w0^w1^w2^w3], as a tree (three shifts at once) */
AESNI_INLINE __m128i ks_prefix(__m128i x)
{
    return _mm_xor_si128(_mm_xor_si128(x, _mm_slli_si128(x, 4)),
                         _mm_xor_si128(_mm_slli_si128(x, 8), _mm_slli_si128(x, 12)));
}

/* PSHUFB patterns: RotWord(w3) / w3 / RotWord(w1) in all four columns */
#define KS_ROT3 _mm_set_epi8(12, 15, 14, 13, 12, 15, 14, 13, \
                             12, 15, 14, 13, 12, 15, 14, 13)
#define KS_BC3  _mm_set_epi8(15, 14, 13, 12, 15, 14, 13, 12, \
                             15, 14, 13, 12, 15, 14, 13, 12)
#define KS_ROT1 _mm_set_epi8(4, 7, 6, 5, 4, 7, 6, 5, 4, 7, 6, 5, 4, 7, 6, 5)
/*
 * RotWord(w3) placed so that after ShiftRows it lands in columns 0 and 2,
 * zero bytes (SubBytes(0) = 0x63) everywhere else; see ks_expand128.
 */
#define KS_ROT3_02 _mm_set_epi8(12, -128, 14, -128, -128, 15, -128, 13, \
                                12, -128, 14, -128, -128, 15, -128, 13)

static const uint8_t ks_rcon[10] = {
    0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36
};

/* [r0 ^ r1, 0x63636363 ^ r1, r0 ^ r1, 0x63636363 ^ r1] for consecutive rcon */
#define KS_C(r0, r1) { (r0) ^ (r1), 0x63636363u ^ (r1), (r0) ^ (r1), 0x63636363u ^ (r1) }
static const uint32_t ks_c128[9][4] = {
    KS_C(0x01, 0x02), KS_C(0x02, 0x04), KS_C(0x04, 0x08),
    KS_C(0x08, 0x10), KS_C(0x10, 0x20), KS_C(0x20, 0x40),
    KS_C(0x40, 0x80), KS_C(0x80, 0x1b), KS_C(0x1b, 0x36)
};

/* Round key r at rk, stored `copies` times (1: the standard layout, 16
 * bytes per round key; 2: each twice, 32 bytes, for vaes-avx2; 4: 64
 * bytes, for vaes-avx512). Every copy goes to memory in a store of its
 * own, never assembled from narrower values in registers. */
AESNI_INLINE void ks_put(uint8_t *rk, size_t r, __m128i x, const unsigned copies)
{
    RIJN_UNROLL(4)
    for (unsigned c = 0; c < copies; c++)
        _mm_store_si128((__m128i *)(void *)(rk + 16 * (copies * r + c)), x);
}

/*
 * AES-128. w[i+1] = AESENCLAST(PSHUFB(w[i], ROT3), K[i]) with
 * K[i] = prefix(w[i]) ^ rc[i]. Computing K[i] from w[i] would put the
 * prefix (three XOR levels) on the critical path, so K[i+1] is computed
 * from w[i] instead, in parallel with w[i+1]: since prefix(prefix(x)) =
 * x ^ (x << 64) and prefix([g, g, g, g]) = [g, 0, g, 0],
 *   K[i+1] = w[i] ^ (w[i] << 64) ^ [g, 0, g, 0] ^ rc[i+1],
 * g = SubWord(RotWord(w[i].3)) ^ rc[i]; a second AESENCLAST with the input
 * in columns 0 and 2 only (zero bytes give 0x63 elsewhere) produces it.
 * One AESENCLAST + one PSHUFB per round key on the critical path.
 */
AESNI_INLINE void ks_expand128(uint8_t *rk, const uint8_t *key,
                               const unsigned copies)
{
    __m128i w = _mm_loadu_si128((const __m128i *)(const void *)key);
    __m128i kk = _mm_xor_si128(ks_prefix(w), _mm_set1_epi32(ks_rcon[0]));
    size_t i;

    ks_put(rk, 0, w, copies);
    for (i = 0; i < 10; i++) {
        const __m128i wn = _mm_aesenclast_si128(_mm_shuffle_epi8(w, KS_ROT3), kk);
        if (i < 9) {
            const __m128i c = _mm_loadu_si128((const __m128i *)(const void *)ks_c128[i]);
            kk = _mm_aesenclast_si128(
                _mm_shuffle_epi8(w, KS_ROT3_02),
                _mm_xor_si128(_mm_xor_si128(w, _mm_slli_si128(w, 8)), c));
        }
        w = wn;
        ks_put(rk, i + 1, w, copies);
    }
}

/*
 * AES-192: w[0..3] in a, w[4..5] in the low half of b (16 + 8 bytes read);
 * each step makes six words, the next a and b. Round keys are four words,
 * so they are assembled in registers: over two steps, rk[3j] = a,
 * rk[3j + 1] = b (low half) : a' (low half), rk[3j + 2] = a' (high half) :
 * b' (low half).
 */
AESNI_INLINE void ks_expand192(uint8_t *rk, const uint8_t *key,
                               const unsigned copies)
{
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)key);
    __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)(key + 16));
    size_t i;

    ks_put(rk, 0, a, copies);
    for (i = 0; i < 8; i++) {
        const __m128i bp = b;
        a = _mm_aesenclast_si128(_mm_shuffle_epi8(b, KS_ROT1),
                                 _mm_xor_si128(ks_prefix(a), _mm_set1_epi32(ks_rcon[i])));
        /* only words 0 and 1 of b are used: a two-word prefix */
        b = _mm_xor_si128(_mm_xor_si128(b, _mm_slli_si128(b, 4)),
                          _mm_shuffle_epi32(a, 0xff));
        if (i % 2 == 0) {
            ks_put(rk, 3 * (i / 2) + 1, _mm_unpacklo_epi64(bp, a), copies);
            ks_put(rk, 3 * (i / 2) + 2, _mm_alignr_epi8(b, a, 8), copies);
        } else {
            ks_put(rk, 3 * (i / 2) + 3, a, copies);
        }
    }
}

/*
 * AES-256: a' = AESENCLAST(PSHUFB(b, ROT3), prefix(a) ^ rc) and
 * b' = AESENCLAST(PSHUFB(a', BC3), prefix(b)); the prefixes come from keys
 * computed one step earlier, so they are off the critical path.
 */
AESNI_INLINE void ks_expand256(uint8_t *rk, const uint8_t *key,
                               const unsigned copies)
{
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)key);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(key + 16));
    size_t i;

    ks_put(rk, 0, a, copies);
    ks_put(rk, 1, b, copies);
    for (i = 0; i < 7; i++) {
        a = _mm_aesenclast_si128(_mm_shuffle_epi8(b, KS_ROT3),
                                 _mm_xor_si128(ks_prefix(a), _mm_set1_epi32(ks_rcon[i])));
        ks_put(rk, 2 * (i + 1), a, copies);
        if (i == 6)
            break;
        b = _mm_aesenclast_si128(_mm_shuffle_epi8(a, KS_BC3), ks_prefix(b));
        ks_put(rk, 2 * (i + 1) + 1, b, copies);
    }
}

AESNI_INLINE void ks_expand(rijn_aes_key *k, const uint8_t *key,
                            size_t key_len, const unsigned copies)
{
    uint8_t *rk = (uint8_t *)k->rk;

    if (key_len == 16)
        ks_expand128(rk, key, copies);
    else if (key_len == 24)
        ks_expand192(rk, key, copies);
    else
        ks_expand256(rk, key, copies);
}

AESNI_FN void rijn_aesni_setkey(rijn_aes_key *k, const uint8_t *key,
                                size_t key_len)
{
    ks_expand(k, key, key_len, 1);
}

/* vaes-avx2's: every round key twice (see internal.h). */
AESNI_FN void rijn_aesni_setkey_wide(rijn_aes_key *k, const uint8_t *key,
                                     size_t key_len)
{
    ks_expand(k, key, key_len, 2);
}

/* vaes-avx512's: every round key four times (see internal.h). */
AESNI_FN void rijn_aesni_setkey_x4(rijn_aes_key *k, const uint8_t *key,
                                   size_t key_len)
{
    ks_expand(k, key, key_len, 4);
}

/* ------------------------------------------------------------------------
 * CTR (the rolled rounds, counters and tail batches: aesni.h)
 * --------------------------------------------------------------------- */
#define AESNI_W 12 /* blocks per batch in the main CTR loop */

/*
 * The main loop on batches of AESNI_W blocks, with nr a constant so the
 * rounds unroll (round keys are memory operands of AESENC: a load per
 * instruction costs no vector ALU slot). Returns the next counter.
 */
AESNI_INLINE __m128i aesni_ctr_loop(const __m128i *rk, uint8_t *out,
                                    const uint8_t *in, size_t nbatches,
                                    __m128i c, const unsigned nr)
{
    const __m128i swap = AESNI_SWAP32;
    const __m128i one = _mm_set_epi32(1, 0, 0, 0);
    unsigned r;
    size_t j;

    for (; nbatches > 0; nbatches--, in += 16 * AESNI_W, out += 16 * AESNI_W) {
        __m128i s[AESNI_W];

        RIJN_UNROLL(16)
        for (j = 0; j < AESNI_W; j++) {
            s[j] = _mm_xor_si128(_mm_shuffle_epi8(c, swap), _mm_load_si128(rk));
            c = _mm_add_epi32(c, one);
        }
        RIJN_UNROLL(16)
        for (r = 1; r < nr; r++) {
            RIJN_UNROLL(16)
            for (j = 0; j < AESNI_W; j++)
                s[j] = _mm_aesenc_si128(s[j], _mm_load_si128(rk + r));
        }
        RIJN_UNROLL(16)
        for (j = 0; j < AESNI_W; j++)
            _mm_storeu_si128((__m128i *)(void *)(out + 16 * j), _mm_aesenclast_si128(
                s[j], _mm_xor_si128(_mm_load_si128(rk + nr),
                                    _mm_loadu_si128((const __m128i *)(const void *)(in + 16 * j)))));
    }
    return c;
}

AESNI_FN static void aesni_ctr32(const rijn_aes_key *k, uint8_t *out,
                                 const uint8_t *in, size_t nblocks,
                                 const uint8_t ctr[16])
{
    const __m128i *rk = (const __m128i *)(const void *)k->rk;
    const unsigned nr = k->rounds;
    __m128i c = _mm_shuffle_epi8(
        rijn_x86_load_ctr(ctr), AESNI_SWAP32);

    if (nblocks >= AESNI_W) {
        /* one copy of the main loop per round count */
        const size_t nb = nblocks / AESNI_W;
        if (nr == 10)
            c = aesni_ctr_loop(rk, out, in, nb, c, 10);
        else if (nr == 12)
            c = aesni_ctr_loop(rk, out, in, nb, c, 12);
        else
            c = aesni_ctr_loop(rk, out, in, nb, c, 14);
        nblocks -= AESNI_W * nb;
        in += 16 * AESNI_W * nb;
        out += 16 * AESNI_W * nb;
    }
    /* 0..11 blocks left: one batch of 12, 8, 4 or 2 */
    if (nblocks > 8)
        aesni_ctr_batch(rk, nr, out, in, c, 12, nblocks);
    else if (nblocks > 4)
        aesni_ctr_batch(rk, nr, out, in, c, 8, nblocks);
    else if (nblocks > 2)
        aesni_ctr_batch(rk, nr, out, in, c, 4, nblocks);
    else if (nblocks > 0)
        aesni_ctr_batch(rk, nr, out, in, c, 2, nblocks);
}

/* ECB of m <= n blocks as one batch of n (n constant) */
AESNI_INLINE void aesni_ecb_tail(const __m128i *rk, unsigned nr, uint8_t *out,
                                 const uint8_t *in, const size_t n, size_t m)
{
    __m128i s[8];
    size_t j;

    RIJN_UNROLL(16)
    for (j = 0; j < n; j++)
        s[j] = (size_t)j < m
                   ? _mm_loadu_si128((const __m128i *)(const void *)(in + 16 * j))
                   : _mm_setzero_si128();
    aesni_rounds(rk, nr, s, n);
    RIJN_UNROLL(16)
    for (j = 0; j < n; j++)
        if ((size_t)j < m)
            _mm_storeu_si128((__m128i *)(void *)(out + 16 * j),
                             _mm_aesenclast_si128(s[j], _mm_load_si128(rk + nr)));
}

AESNI_FN static void aesni_ecb(const rijn_aes_key *k, uint8_t *out,
                               const uint8_t *in, size_t nblocks)
{
    const __m128i *rk = (const __m128i *)(const void *)k->rk;
    const unsigned nr = k->rounds;

    for (; nblocks >= 8; nblocks -= 8, in += 128, out += 128)
        aesni_ecb_tail(rk, nr, out, in, 8, 8);
    if (nblocks > 4)
        aesni_ecb_tail(rk, nr, out, in, 8, nblocks);
    else if (nblocks > 2)
        aesni_ecb_tail(rk, nr, out, in, 4, nblocks);
    else if (nblocks > 0)
        aesni_ecb_tail(rk, nr, out, in, 2, nblocks);
}

RIJN_AES_KEY_FITS(15 * 16, "aesni's AES-256 schedule");
const rijn_aes_impl rijn_aes_aesni = {
    .base = {.name = "aesni", .needs = RIJN_X86_NEEDS(AESNI_FEATURES),
             .constant_time = 1, .rank = 20},
    .key_bytes = RIJN_AES_KEY_BYTES(16),
    .setkey = rijn_aesni_setkey,
    .ecb = aesni_ecb,
    .ctr32 = aesni_ctr32,
};

#else
typedef int rijn_aesni_not_built; /* ISO C wants a non-empty file */
#endif

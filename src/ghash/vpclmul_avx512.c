/*
 * vpclmul-avx512: GHASH with VPCLMULQDQ on 512-bit registers (four blocks
 * per ZMM), and AES-GCM fused with the vaes-avx512 backend: one stitched
 * loop of VAES counter-mode encryption and VPCLMULQDQ hashing.
 *
 * Batch width. Fused loop: 32 blocks per step, 8 ZMM of counter blocks in
 * flight; between their AES rounds it hashes 32 blocks (the previous
 * step's ciphertext when encrypting, this step's input when decrypting)
 * against H^32..H^1 with one reduction. Two forms of the products, two
 * engines from this one source (the second compiled from
 * vpclmul_avx512_kara.c, VP_KARA 1): vpclmul-avx512, schoolbook (4
 * VPCLMULQDQ per ZMM, as Linux's AVX-512 code), and vpclmul-avx512-kara,
 * Karatsuba (3 per ZMM, the middle one from the table below, for 2 more
 * operations a ZMM: a swap and an XOR). Karatsuba was within +-2% of
 * schoolbook on Zen 4 (the extra operations compete with VAESENC there)
 * and is expected to lose up to 3% for AES-128 on Sapphire Rapids (see
 * below); on Zen 5, where the multiplies are the bound, it took 15-17%
 * less time on 16 KiB messages (below), and with its last batch's own
 * blocks in Karatsuba's form too (vp_ksum, the powers' half-sums made on
 * the fly: 3 multiplies for 4) 3-4% less on 1420-byte AES-128 messages
 * and 4-8% less on 256-byte ones. The -kara engine is picked only there
 * (RIJN_CPU_VPCLMUL_SLOW, internal.h); either runs anywhere when named.
 * vp_ghash_step keeps the two forms in separate branches, the schoolbook
 * one as it was: written as one, gcc scheduled the schoolbook loop
 * differently (two more register moves, AES-256 2% slower on Zen 5). The
 * last 1..32 blocks take one batch of as many ZMM as they need, 1 to 8,
 * with masked loads and stores (no byte outside in/out is read or
 * written). A ladder of 1, 2, 4, 6 and 8 ZMM, one ZMM of AES to spare
 * at most, cost 144-400-byte messages 10-23% and 1420 bytes 4% more
 * (Zen 4), for 60 KB less code; when encrypting,
 * the previous step's hashing runs between that batch's AES rounds (a
 * batch of 4 ZMM at least for that, as there was, cost 576 to 640-byte
 * messages 12-18%: the hashing has enough rounds of one ZMM to hide in).
 * GHASH alone (blocks: AAD, unfused pairings): 32 blocks per reduction
 * with Karatsuba products from a table of H's half-sums (26 VPCLMULQDQ per
 * 32 blocks instead of 34; 5% faster than schoolbook here, where GHASH
 * alone is bound by VPCLMULQDQ), tails masked, one block on XMM.
 *
 * Representation (Gueron and Kounavis' reflected method, in the form of
 * Linux's aes-gcm-vaes-avx512.S): blocks are byte-reversed, not
 * bit-reversed, so a block is read as a 128-bit integer whose bit 127 - i
 * is the coefficient of x^i. VPCLMULQDQ of two such values gives the
 * product with its bits reversed over 255 positions, i.e. one factor of x
 * too many; the key powers are stored times x^-1 to cancel it. Read the
 * other way round (bit i = coefficient of x^i), the integers multiply to
 * a . b . x^-128 modulo G = x^128 + x^127 + x^126 + x^121 + 1, and the
 * 256-bit product lo + x^64 mi + x^128 hi reduces in two folds of 64 bits:
 * a 64-bit word w at the bottom is cancelled by adding w . G, which moves
 * it up 128 bits and adds w . (x^63 + x^62 + x^57) (one VPCLMULQDQ) 64
 * bits up: mi ^= swap(lo) ^ lo_low . P, then hi ^= swap(mi) ^ mi_low . P.
 * Products of different blocks are summed before that reduction, one per
 * 32 blocks, and the four lanes are XORed together at the end.
 *
 * Counters: in their big-endian form while no counter's low byte wraps
 * inside a step (VPADDD to byte 15 then needs no byte swap, as in
 * OpenSSL's and AWS-LC's stitched AES-NI GCM), otherwise byte-reversed
 * with the 32-bit counter in a dword, where VPADDD wraps it mod 2^32
 * exactly (inc32). Round keys: vaes-avx512's layout (each in all four
 * lanes, 64 bytes, rijn_aesni_setkey_x4), loaded where used, never held
 * through a call (see vp_key). The round key access (v512_rk, v512_rkp),
 * the tail masks (v512_mask) and V512_KEEP_ORDER are vaes-avx512's, from
 * vaes_avx512.h.
 *
 * Key layout (hk, 768 bytes): H^32, H^31, ..., H^1 times x^-1, byte-
 * reversed, 16 bytes each (512 bytes; a ZMM load at offset 16 (32 - m)
 * gives the powers for m blocks), then the Karatsuba table (256 bytes):
 * ZMM i holds lo ^ hi of each power of the ZMM at offset 64 i in its low
 * words and of the one at 64 (i + 4) in its high words.
 *
 * Zen 4 (measured): VAESENC and VPCLMULQDQ on ZMM issue as two 256-bit
 * halves, VAESENC one per cycle, VPCLMULQDQ one per two cycles (XMM and
 * YMM alike), on the same pipes; so a 32-block step costs at least
 * (2 * 8 * rounds + 2 * 34) / 2 cycles, 0.22 c/B for AES-128 and 0.29 for
 * AES-256, and the loop runs within 10-17% of that.
 *
 * Zen 5 (measured, family 1Ah model 2): VAESENC two per cycle at every
 * width, latency 4; VPCLMULQDQ one per two cycles at every width (8
 * independent ones took 16 cycles on XMM, YMM and ZMM alike), latency 5,
 * on a pipe of its own (32 VAESENC with 8 VPCLMULQDQ: 16 cycles). So
 * GHASH on ZMM costs at least 2 cycles per multiply: a schoolbook step
 * (34) at least 68 cycles, more than its AES-128 (40) and AES-256 (56);
 * a Karatsuba step (26) 52. The XORs, ternary logic, VPADDD and VPSHUFD
 * run on two more pipes (16 VAESENC with 16 of them: 8 cycles); VPSHUFB
 * and the lane shuffles share pipes with VAESENC (16 with 16: 12.6).
 * With 8 ZMM of AES in flight, 8 chains of latency 4 just keep the two
 * AES pipes busy, with no slack. The multiplies hold one of the two other
 * pipes, so a step's XOR, ternary logic, VPADDD and VPSHUFD have about
 * one: each taken out is worth about 0.45% of an AES-256 step, and the
 * step's mix of operations alone bounds it at 0.86 of the AES limit
 * (scripts/x86-pipes.py; README, "AES-GCM, AMD Zen 5").
 *
 * Sapphire Rapids (measured, family 6 model 167): VAESENC on ZMM issues on
 * port 0 only, VPCLMULQDQ and shuffles on port 5, the other 512-bit
 * operations (XOR, ternary logic, VPADDD) on either; with k of those per
 * 10 independent VAESENC, a loop ran at the VAESENC rate up to k = 10 and
 * lost half a cycle per operation beyond (ZMM register copies cost
 * nothing). So a step costs at least max(8 nr, (8 nr + others) / 2)
 * cycles, and the others are what to count: per 32-block step 34
 * VPCLMULQDQ, 14 shuffles and extracts, 45 XOR, ternary logic and add
 * (93; 99 before the low and high products were paired, vp_ghash_step):
 * at most 0.93 of the AES limit for AES-128, none lost for AES-256.
 *
 * Constant time: VAESENC/VAESENCLAST, VPCLMULQDQ, shuffles, XOR/ternary
 * logic, VPADDD and masked moves have data-independent timing; no branch
 * and no address depends on the key, H, the data or y. Branches and masks
 * depend on lengths and on the counter (public: the IV and the block
 * index) only. Valgrind cannot decode AVX-512, so this is argued by
 * construction and checked by dudect.ghash-vpclmul-avx512.
 *
 * Loads of the counter block, y and single blocks are split like the
 * mode code's stores to them (see vp_load_ctr), so that they are
 * forwarded from those stores.
 */
#include "ghash/ghash.h"
#include "ghash/ghash_x86.h"
#include "aes/x86/vaes_avx512.h"

#if defined(RIJN_X86_VAES_AVX512)

/* vaes-avx512's target (its helpers inline here); PCLMUL: the XMM path */
#define VP_FEATURES(F) \
    V512_FEATURES(F) F(PCLMUL, "pclmul") F(VPCLMUL, "vpclmulqdq")
#define VP_TARGET RIJN_X86_TARGET(VP_FEATURES)
#define VP_FN __attribute__((target(VP_TARGET)))
#define VP_INLINE                                                          \
    static inline __attribute__((always_inline, target(VP_TARGET)))

#define VP_POWERS 32              /* H^32..H^1 */
#define VP_MIDS (16 * VP_POWERS)  /* offset of the Karatsuba table */
#define VP_KEY_BYTES (VP_MIDS + 8 * VP_POWERS)
#define VP_W 8                    /* ZMM per step of the fused loop */

/* The Karatsuba engine is this file compiled again with VP_KARA 1
 * (vpclmul_avx512_kara.c): its own translation unit, so that the two
 * compile in parallel (one file of both took gcc 3 minutes with ASan and
 * UBSan). What the engines share (key setup, GHASH alone, one-shot
 * messages) is compiled once, in the VP_KARA 0 copy, under these names. */
#ifndef VP_KARA
#define VP_KARA 0
#endif
VP_FN void rijn_vp512_init(uint64_t *hk, const uint8_t h[16]);
VP_FN void rijn_vp512_blocks(const uint64_t *hk, uint8_t y[16],
                             const uint8_t *in, size_t n);
VP_FN void rijn_vp512_oneshot(const rijn_aes_key *k, const uint64_t *hk,
                              const uint8_t j0[16], uint8_t *out,
                              const uint8_t *in, size_t len,
                              const uint8_t *aad, size_t aad_len, int decrypt,
                              uint8_t tag[16]);

/* ------------------------------------------------------------------------
 * Field arithmetic
 * --------------------------------------------------------------------- */

/* Reverses the bytes of each 128-bit lane (ghash_x86.h's constant). */
VP_INLINE __m128i vp_bswap128(void)
{
    return GX_BSWAP128;
}

VP_INLINE __m512i vp_bswap(void)
{
    return _mm512_broadcast_i32x4(vp_bswap128());
}

/* P = x^63 + x^62 + x^57 in the high word of each lane */
VP_INLINE __m128i vp_poly128(void)
{
    return _mm_set_epi32((int)0xc2000000, 0, 0, 0);
}

VP_INLINE __m512i vp_poly(void)
{
    return _mm512_broadcast_i32x4(vp_poly128());
}

/* The two 64-bit halves of each lane swapped. */
VP_INLINE __m512i vp_swap64(__m512i x)
{
    return _mm512_shuffle_epi32(x, _MM_PERM_BADC);
}

VP_INLINE __m512i vp_xor3(__m512i a, __m512i b, __m512i c)
{
    return _mm512_ternarylogic_epi64(a, b, c, 0x96);
}

/*
 * Round keys in the fused kernels: loaded where each is used (once per
 * batch, or as VAESENC's memory operand where the compiler folds it),
 * from vaes-avx512's layout (64 bytes each, vaes_avx512.h), never held
 * across a call. Held in registers all through (as they were: 15
 * broadcasts at the start), gcc 12 and clang 14 spilled some to the stack
 * (8 states, 8 inputs, 3 sums, y, the constants and 15 round keys are more
 * than 32 ZMM), where stackwipe, which looks for every round key, found
 * them after the call (any AES-128 round key gives the key). Loaded where
 * used, neither compiler spills one; stackwipe runs under both. Forcing
 * every use to a memory operand (asm) made the loop 13-25% slower on
 * Zen 4, whose load pipes do not take a ZMM load per VAESENC besides the
 * data and the powers; loading each key in an asm of its own cost 50
 * cycles a call (the compiler could no longer place the loads).
 */
VP_INLINE __m512i vp_key(const __m512i *k)
{
    return _mm512_load_si512(k);
}

/* One block (E(J0)): rounds 0..nr with the keys' first lanes. */
VP_INLINE __m128i vp_encrypt1(__m128i x, const __m512i *rk, const unsigned nr)
{
    unsigned r;

    x = _mm_xor_si128(x, _mm_load_si128((const __m128i *)(const void *)rk));
    RIJN_UNROLL(13)
    for (r = 1; r < nr; r++)
        x = _mm_aesenc_si128(
            x, _mm_load_si128((const __m128i *)(const void *)(rk + r)));
    return _mm_aesenclast_si128(
        x, _mm_load_si128((const __m128i *)(const void *)(rk + nr)));
}

/* Unreduced sum of 256-bit products, per lane: lo + x^64 mi + x^128 hi;
 * pl, pu, pm: vp_ghash_step's products waiting for a pair. */
typedef struct {
    __m512i lo, mi, hi, pl, pu, pm;
} vp_sum;

VP_INLINE void vp_sum_first(vp_sum *s, __m512i x, __m512i h)
{
    s->lo = _mm512_clmulepi64_epi128(x, h, 0x00);
    s->mi = _mm512_xor_si512(_mm512_clmulepi64_epi128(x, h, 0x01),
                             _mm512_clmulepi64_epi128(x, h, 0x10));
    s->hi = _mm512_clmulepi64_epi128(x, h, 0x11);
}

VP_INLINE void vp_sum_add(vp_sum *s, __m512i x, __m512i h)
{
    s->lo = _mm512_xor_si512(s->lo, _mm512_clmulepi64_epi128(x, h, 0x00));
    s->mi = vp_xor3(s->mi, _mm512_clmulepi64_epi128(x, h, 0x01),
                    _mm512_clmulepi64_epi128(x, h, 0x10));
    s->hi = _mm512_xor_si512(s->hi, _mm512_clmulepi64_epi128(x, h, 0x11));
}

#if VP_KARA /* (clang: an unused static function of the file is an error) */
/* vp_sum_first and vp_sum_add in Karatsuba's form, the powers' half-sums
 * made here (h at any offset, where the table cannot serve): 3 VPCLMULQDQ
 * for 4, for 4 more operations off the multiplier; mi holds only the
 * middle products until lo ^ hi joins it before the reduction. */
VP_INLINE void vp_ksum(vp_sum *s, __m512i x, __m512i h, const int first)
{
    const __m512i l = _mm512_clmulepi64_epi128(x, h, 0x00);
    const __m512i u = _mm512_clmulepi64_epi128(x, h, 0x11);
    const __m512i m = _mm512_clmulepi64_epi128(
        _mm512_xor_si512(x, vp_swap64(x)), _mm512_xor_si512(h, vp_swap64(h)),
        0x00);

    if (first) {
        s->lo = l;
        s->hi = u;
        s->mi = m;
    } else {
        s->lo = _mm512_xor_si512(s->lo, l);
        s->hi = _mm512_xor_si512(s->hi, u);
        s->mi = _mm512_xor_si512(s->mi, m);
    }
}
#endif

/* Karatsuba's middle product of x (ZMM j of a 32-block batch, 0..7)
 * and its powers: (x's halves XORed) times the half-sums of the powers
 * at pw + 64 j, from the table at pw + VP_MIDS (see the top). Its lo ^ hi
 * is added to the sum's mi before the first fold. */
VP_INLINE __m512i vp_kara_mid(__m512i x, const uint8_t *pw, const unsigned j)
{
    const __m512i t = _mm512_loadu_si512(pw + VP_MIDS + 64 * (j % 4));
    const __m512i xm = _mm512_xor_si512(x, vp_swap64(x));

    return j < 4 ? _mm512_clmulepi64_epi128(xm, t, 0x00)
                 : _mm512_clmulepi64_epi128(xm, t, 0x10);
}

/* First fold: lo into mi. */
VP_INLINE void vp_fold_lo(vp_sum *s, __m512i poly)
{
    s->mi = vp_xor3(s->mi, vp_swap64(s->lo),
                    _mm512_clmulepi64_epi128(s->lo, poly, 0x10));
}

/* Second fold: mi into hi, which is then the reduced product. */
VP_INLINE void vp_fold_mi(vp_sum *s, __m512i poly)
{
    s->hi = vp_xor3(s->hi, vp_swap64(s->mi),
                    _mm512_clmulepi64_epi128(s->mi, poly, 0x10));
}

VP_INLINE __m512i vp_reduce(vp_sum *s, __m512i poly)
{
    vp_fold_lo(s, poly);
    vp_fold_mi(s, poly);
    return s->hi;
}

/* The XOR of the four lanes, in lane 0 (the others zero). */
VP_INLINE __m512i vp_fold_lanes(__m512i x)
{
    __m128i r = _mm_ternarylogic_epi64(_mm512_castsi512_si128(x),
                                       _mm512_extracti32x4_epi32(x, 1),
                                       _mm512_extracti32x4_epi32(x, 2), 0x96);
    r = _mm_xor_si128(r, _mm512_extracti32x4_epi32(x, 3));
    return _mm512_zextsi128_si512(r);
}

/* a . b per lane (the key powers) */
VP_INLINE __m512i vp_mul(__m512i a, __m512i b, __m512i poly)
{
    vp_sum s;
    vp_sum_first(&s, a, b);
    return vp_reduce(&s, poly);
}

/* a . b on XMM (one block) */
VP_INLINE __m128i vp_mul128(__m128i a, __m128i b, __m128i poly)
{
    __m128i lo = _mm_clmulepi64_si128(a, b, 0x00);
    __m128i hi = _mm_clmulepi64_si128(a, b, 0x11);
    __m128i mi = _mm_xor_si128(_mm_clmulepi64_si128(a, b, 0x01),
                               _mm_clmulepi64_si128(a, b, 0x10));
    mi = _mm_ternarylogic_epi64(mi, _mm_shuffle_epi32(lo, 0x4e),
                                _mm_clmulepi64_si128(lo, poly, 0x10), 0x96);
    return _mm_ternarylogic_epi64(hi, _mm_shuffle_epi32(mi, 0x4e),
                                  _mm_clmulepi64_si128(mi, poly, 0x10), 0x96);
}

/*
 * The counter block, y and single blocks are often written by the mode
 * code just before the call, in pieces: a 12-byte IV copied as 8 + 4
 * bytes and the 32-bit counter stored on its own; a lengths block as two
 * 8-byte words; a zero-padded last block by memcpy (overlapping 8- or
 * 4-byte stores). A 16-byte load over several smaller stores cannot be
 * forwarded from them and waits until they reach the cache: measured on
 * Zen 4, 20 cycles on a 30-cycle one-block GHASH and 60 on a 60-cycle
 * one-block encryption. So those are loaded in pieces that each lie
 * inside one such store (and are forwarded from it), at the cost of a
 * few inserts.
 */
/* The empty asm makes the first piece opaque, so that the compiler
 * cannot merge the loads back into one (clang does). */
VP_INLINE __m128i vp_load_ctr(const uint8_t ctr[16])
{
    __m128i x = _mm_loadl_epi64((const __m128i *)(const void *)ctr);
    uint32_t w2, w3;

    __asm__("" : "+x"(x));
    memcpy(&w2, ctr + 8, 4);
    __asm__("" : "+r"(w2));
    memcpy(&w3, ctr + 12, 4);
    x = _mm_insert_epi32(x, (int)w2, 2);
    return _mm_insert_epi32(x, (int)w3, 3);
}

VP_INLINE __m128i vp_load_8x2(const uint8_t *p)
{
    __m128i x = _mm_loadl_epi64((const __m128i *)(const void *)p);

    __asm__("" : "+x"(x));
    return _mm_unpacklo_epi64(
        x, _mm_loadl_epi64((const __m128i *)(const void *)(p + 8)));
}

/* A single block in 4-byte pieces (see above) */
VP_INLINE __m128i vp_load_4x4(const uint8_t *p)
{
    uint32_t w0, w1, w2, w3;
    __m128i x;

    memcpy(&w0, p, 4);
    x = _mm_cvtsi32_si128((int)w0);
    __asm__("" : "+x"(x));
    memcpy(&w1, p + 4, 4);
    __asm__("" : "+r"(w1));
    memcpy(&w2, p + 8, 4);
    __asm__("" : "+r"(w2));
    memcpy(&w3, p + 12, 4);
    x = _mm_insert_epi32(x, (int)w1, 1);
    x = _mm_insert_epi32(x, (int)w2, 2);
    return _mm_insert_epi32(x, (int)w3, 3);
}

/* ------------------------------------------------------------------------
 * Key setup
 * --------------------------------------------------------------------- */

#if !VP_KARA
VP_FN void rijn_vp512_init(uint64_t *hk, const uint8_t h[16])
{
    uint8_t *pw = (uint8_t *)(void *)hk;
    uint64_t hh = rijn_load64_be(h), hl = rijn_load64_be(h + 8);
    const uint64_t carry = 0 - (hh >> 63);
    const __m512i poly = vp_poly();
    __m512i h1, h2, h3, h4, h8, h16, p[8];
    size_t j;

    /* H . x^-1 in GCM's order: shift the byte-reversed H left by one and
     * add x^127 + x^126 + x^121 + 1 when a bit falls out (masked, no
     * branch) */
    hh = (hh << 1) | (hl >> 63);
    hl <<= 1;
    hh ^= carry & 0xc200000000000000ULL;
    hl ^= carry & 1;
    h1 = _mm512_broadcast_i32x4(_mm_set_epi64x((long long)hh, (long long)hl));
    /* 9 products (VPCLMULQDQ-bound: 6 each): H^2; H^3, H^4 in one; then
     * p[j] = H^(4j+4), ..., H^(4j+1) in lanes 0..3, by H^4, H^8 and H^16
     * taken from lane 0 of p[1] and p[3] */
    h2 = vp_mul(h1, h1, poly);
    /* lanes H^3, H^4, H^3, H^4 */
    h3 = vp_mul(_mm512_mask_blend_epi64(0xcc, h1, h2), h2, poly);
    h4 = _mm512_shuffle_i64x2(h3, h3, _MM_SHUFFLE(1, 1, 1, 1));
    p[0] = _mm512_mask_blend_epi64(
        0xc0, _mm512_shuffle_i64x2(h3, h2, _MM_SHUFFLE(0, 0, 0, 1)), h1);
    p[1] = vp_mul(p[0], h4, poly);
    h8 = _mm512_shuffle_i64x2(p[1], p[1], 0x00);
    p[2] = vp_mul(p[0], h8, poly);
    p[3] = vp_mul(p[1], h8, poly);
    h16 = _mm512_shuffle_i64x2(p[3], p[3], 0x00);
    RIJN_UNROLL(4)
    for (j = 0; j < 4; j++)
        p[4 + j] = vp_mul(p[j], h16, poly);
    RIJN_UNROLL(8)
    for (j = 0; j < 8; j++)
        _mm512_storeu_si512(pw + 64 * (7 - j), p[j]);
    /* the Karatsuba table: p[7 - i] is at offset 64 i */
    RIJN_UNROLL(8)
    for (j = 0; j < 8; j++)
        p[j] = _mm512_xor_si512(p[j], vp_swap64(p[j]));
    RIJN_UNROLL(4)
    for (j = 0; j < 4; j++)
        _mm512_storeu_si512(pw + VP_MIDS + 64 * j,
                            _mm512_mask_blend_epi64(0xaa, p[7 - j], p[3 - j]));
}
#endif /* !VP_KARA */

/* ------------------------------------------------------------------------
 * GHASH alone
 * --------------------------------------------------------------------- */

/*
 * GHASH step i over n ZMM of data (4n blocks; *acc joins block 0) with the
 * powers at hp (H^32.., with the Karatsuba table after them in the -kara
 * copy):
 * steps 0..n-1 byte-reverse and multiply one ZMM each, n
 * and n+1 reduce, n+2 puts the lane sum in *acc; later steps do nothing.
 * Spread over the AES rounds of the fused loop, with one ZMM of data live
 * at a time. The data: with cv (encryption), cv[i], the ciphertext the
 * last step made, as made, never read back from out, where another
 * writer could choose what the tag covers (src and d unused); otherwise
 * (decryption: src is the input) ZMM i at src, loaded once, hashed, and
 * kept in d[i] for the caller's last round: the blocks hashed are the
 * blocks decrypted (ghash.h, dec). d holds the input alone, the last
 * round key added at the last round: stored with the key added, as it
 * was, it had to be wiped after the call (with the ciphertext it gives
 * the key). VP_KARA (the -kara copy): Karatsuba products (3 VPCLMULQDQ a
 * ZMM, the middle one from the table of H's half-sums, lo ^ hi joined at
 * the first fold) instead of schoolbook's 4 (see the top: which CPUs each
 * suits).
 */
VP_INLINE void vp_ghash_step(const unsigned i, const size_t n, vp_sum *s,
                             const uint8_t *src, const uint8_t *hp,
                             __m512i *acc, __m512i poly, __m512i bswap,
                             __m512i *d, const __m512i *cv)
{
    if (i < n) {
        __m512i x;
        if (cv != NULL) {
            x = _mm512_shuffle_epi8(cv[i], bswap);
        } else {
            __m512i v = _mm512_loadu_si512(src + 64 * i);
            RIJN_READ_ONCE_VEC(v); /* d[i] is this load, never another */
            d[i] = v;
            x = _mm512_shuffle_epi8(v, bswap);
        }
        const __m512i h = _mm512_loadu_si512(hp + 64 * i);
        if (VP_KARA) {
            /* as below, with the middle products paired too */
            if (i == 0)
                x = _mm512_xor_si512(x, *acc);
            const __m512i l = _mm512_clmulepi64_epi128(x, h, 0x00);
            const __m512i u = _mm512_clmulepi64_epi128(x, h, 0x11);
            const __m512i m = vp_kara_mid(x, hp, i);
            if (i == 0) {
                s->lo = l;
                s->hi = u;
                s->mi = m;
            } else if (i % 2 == 0 && i + 1 < n) {
                s->pl = l;
                s->pu = u;
                s->pm = m;
            } else if (i % 2 == 1 && i >= 3) {
                s->lo = vp_xor3(s->lo, s->pl, l);
                s->hi = vp_xor3(s->hi, s->pu, u);
                s->mi = vp_xor3(s->mi, s->pm, m);
            } else {
                s->lo = _mm512_xor_si512(s->lo, l);
                s->hi = _mm512_xor_si512(s->hi, u);
                s->mi = _mm512_xor_si512(s->mi, m);
            }
        } else if (i == 0) {
            vp_sum_first(s, _mm512_xor_si512(x, *acc), h);
        } else {
            /* vp_sum_add, with the low and high products of two ZMM in
             * one ternary XOR each (6 operations fewer a step) */
            const __m512i l = _mm512_clmulepi64_epi128(x, h, 0x00);
            const __m512i u = _mm512_clmulepi64_epi128(x, h, 0x11);
            s->mi = vp_xor3(s->mi, _mm512_clmulepi64_epi128(x, h, 0x01),
                            _mm512_clmulepi64_epi128(x, h, 0x10));
            if (i % 2 == 0 && i + 1 < n) {
                s->pl = l;      /* added with the next ZMM's, one op */
                s->pu = u;
            } else if (i % 2 == 1 && i >= 3) {
                s->lo = vp_xor3(s->lo, s->pl, l);
                s->hi = vp_xor3(s->hi, s->pu, u);
            } else {
                s->lo = _mm512_xor_si512(s->lo, l);
                s->hi = _mm512_xor_si512(s->hi, u);
            }
        }
        __asm__("" : "+v"(s->lo), "+v"(s->mi), "+v"(s->hi));
    } else if (i == n) {
        if (VP_KARA)
            s->mi = vp_xor3(s->mi, s->lo, s->hi);
        vp_fold_lo(s, poly);
    } else if (i == n + 1) {
        vp_fold_mi(s, poly);
    } else if (i == n + 2) {
        *acc = vp_fold_lanes(s->hi);
    }
}

/* 32 blocks at in, Karatsuba with the table (see the top). */
VP_INLINE __m512i vp_hash32(const uint8_t *pw, __m512i acc, const uint8_t *in,
                            __m512i bswap, __m512i poly)
{
    __m512i x[8], lo, hi, mi;
    vp_sum s;
    size_t j;

    RIJN_UNROLL(8)
    for (j = 0; j < 8; j++)
        x[j] = _mm512_shuffle_epi8(_mm512_loadu_si512(in + 64 * j), bswap);
    x[0] = _mm512_xor_si512(x[0], acc);
    RIJN_UNROLL(8)
    for (j = 0; j < 8; j++) {
        const __m512i h = _mm512_loadu_si512(pw + 64 * j);
        const __m512i l = _mm512_clmulepi64_epi128(x[j], h, 0x00);
        const __m512i u = _mm512_clmulepi64_epi128(x[j], h, 0x11);
        const __m512i c = vp_kara_mid(x[j], pw, (unsigned)j);
        lo = j == 0 ? l : _mm512_xor_si512(lo, l);
        hi = j == 0 ? u : _mm512_xor_si512(hi, u);
        mi = j == 0 ? c : _mm512_xor_si512(mi, c);
    }
    s.lo = lo;
    s.hi = hi;
    s.mi = vp_xor3(mi, lo, hi);
    return vp_fold_lanes(vp_reduce(&s, poly));
}

#if !VP_KARA
VP_FN void rijn_vp512_blocks(const uint64_t *hk, uint8_t y[16],
                             const uint8_t *in, size_t n)
{
    const uint8_t *pw = (const uint8_t *)(const void *)hk;
    const __m512i bswap = vp_bswap(), poly = vp_poly();
    __m128i a;
    __m512i acc;

    if (n == 0)
        return;
    a = _mm_shuffle_epi8(vp_load_8x2(y), vp_bswap128());
    if (n == 1) {
        const __m128i h1 = _mm_loadu_si128(
            (const __m128i *)(const void *)(pw + 16 * (VP_POWERS - 1)));
        a = _mm_xor_si128(a, _mm_shuffle_epi8(vp_load_4x4(in),
                                              vp_bswap128()));
        a = vp_mul128(a, h1, vp_poly128());
        gx_store(y, a);
        return;
    }
    acc = _mm512_zextsi128_si512(a);
    for (; n >= 32; n -= 32, in += 512)
        acc = vp_hash32(pw, acc, in, bswap, poly);
    if (n > 0) {
        /* 1..31 blocks against H^n..H^1, one masked ZMM at a time */
        const uint8_t *hp = pw + 16 * (VP_POWERS - n);
        vp_sum s;
        for (size_t j = 0; 4 * j < n; j++) {
            const __mmask16 mk = v512_mask(n, 4 * j);
            __m512i x = _mm512_shuffle_epi8(
                _mm512_maskz_loadu_epi32(mk, in + 64 * j), bswap);
            const __m512i h = _mm512_maskz_loadu_epi32(mk, hp + 64 * j);
            if (j == 0)
                vp_sum_first(&s, _mm512_xor_si512(x, acc), h);
            else
                vp_sum_add(&s, x, h);
        }
        acc = vp_fold_lanes(vp_reduce(&s, poly));
    }
    gx_store(y, _mm512_castsi512_si128(acc));
}
#endif /* !VP_KARA */

/* ------------------------------------------------------------------------
 * AES-GCM fused with vaes-avx512
 * --------------------------------------------------------------------- */

/*
 * The next four counter blocks, byte-reversed (the 32-bit counter in
 * dword 0 of each lane), and the counter of lane 0 (public).
 */
typedef struct {
    __m512i le;
    uint32_t low;
} vp_ctr;

/* 4j in the top byte of each lane's dword 3 (the big-endian counter's
 * low byte), ZMM j = 0..7: each counter ZMM of a step is one add from the
 * first, none waits for the one before (a chain of 7 adds made the step's
 * last states start late: 2-3% of a 32-block step, Zen 5) */
static const uint32_t vp_be_steps[8 * 16] __attribute__((aligned(64))) = {
#define VP_BE(j) 0, 0, 0, (4u * (j)) << 24
#define VP_BE4(j) VP_BE(j), VP_BE(j), VP_BE(j), VP_BE(j)
    VP_BE4(0), VP_BE4(1), VP_BE4(2), VP_BE4(3),
    VP_BE4(4), VP_BE4(5), VP_BE4(6), VP_BE4(7),
#undef VP_BE4
#undef VP_BE
};

/*
 * n ZMM of counter blocks XORed with rk0; c steps past them. If no
 * counter's low byte wraps among the 4n, the big-endian blocks step by
 * VPADDD of 4 to byte 15 (the top byte of dword 3, which cannot carry
 * then), each from the first (vp_be_steps): one byte swap instead of n.
 * Otherwise each block is swapped from the byte-reversed form, whose
 * dword add carries (mod 2^32) exactly.
 */
VP_INLINE void vp_ctr_start(__m512i *st, const size_t n, vp_ctr *c,
                            __m512i bswap, const __m512i *rkp)
{
    const __m512i rk0 = vp_key(rkp);
    size_t j;

    if ((c->low & 0xff) <= 256 - 4 * n) {
        const __m512i v = _mm512_shuffle_epi8(c->le, bswap);
        RIJN_UNROLL(8)
        for (j = 0; j < n; j++)
            st[j] = _mm512_xor_si512(
                j == 0 ? v
                       : _mm512_add_epi32(
                             v, _mm512_load_si512(vp_be_steps + 16 * j)),
                rk0);
    } else {
        const __m512i inc4 = _mm512_maskz_set1_epi32((__mmask16)0x1111, 4);
        __m512i v = c->le;
        RIJN_UNROLL(8)
        for (j = 0; j < n; j++) {
            st[j] = _mm512_xor_si512(_mm512_shuffle_epi8(v, bswap), rk0);
            v = _mm512_add_epi32(v, inc4);
        }
    }
    c->le = _mm512_add_epi32(
        c->le, _mm512_maskz_set1_epi32((__mmask16)0x1111, (int)(4 * n)));
    c->low += (uint32_t)(4 * n);
}

/*
 * One AES round on n ZMM. The empty asm (no instruction) keeps the
 * compiler from regrouping the rounds state by state under register
 * pressure, which would leave one dependency chain at a time (see
 * V512_KEEP_ORDER, vaes_avx512.h).
 */
VP_INLINE void vp_round(__m512i *st, const size_t n, const __m512i *k)
{
    const __m512i kr = vp_key(k);

    RIJN_UNROLL(8)
    for (size_t j = 0; j < n; j++)
        st[j] = _mm512_aesenc_epi128(st[j], kr);
    if (n == 8)
        V512_KEEP_ORDER(st);
    else if (n == 4)
        __asm__("" : "+v"(st[0]), "+v"(st[1]), "+v"(st[2]), "+v"(st[3]));
}

/* Bytes first..first+63 of a length-len buffer as a byte mask (lengths
 * only). */
VP_INLINE __mmask64 vp_bytes_mask(size_t len, size_t first)
{
    const size_t m = len > first ? len - first : 0;

    return m >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << m) - 1;
}

/* The bytes of p under mask k, zero elsewhere; no load at all for an
 * empty mask (a masked load whose masked-out bytes lie on an unmapped
 * page, such as a NULL AAD pointer, does not fault but costs a microcode
 * assist: a 16-byte message took 2.5x longer with aad = NULL on Zen 4). */
VP_INLINE __m512i vp_load_masked(const uint8_t *p, __mmask64 k)
{
    return k != 0 ? _mm512_maskz_loadu_epi8(k, p) : _mm512_setzero_si512();
}

/* s = the AAD's products: aad_len <= 64 bytes in one masked load (no
 * byte past it read), zero-padded, times the powers h, lane by lane
 * (lanes past the AAD are zero, whatever power they meet). */
VP_INLINE void vp_aad_first(vp_sum *s, const uint8_t *aad, uint64_t aad_len,
                            __m512i h, __m512i bswap)
{
    vp_sum_first(s,
                 _mm512_shuffle_epi8(
                     vp_load_masked(aad, vp_bytes_mask((size_t)aad_len, 0)),
                     bswap),
                 h);
}

/*
 * The end of a message in one call (ghash.h, last): J0 for E(J0), the
 * lengths block, where the tag goes, and the AAD when the kernel hashes
 * it (else NULL: y has). NULL for enc/dec.
 */
typedef struct {
    const uint8_t *j0;
    uint64_t aad_len, len; /* bytes */
    uint8_t *tag;
    const uint8_t *aad;
} vp_fin;

/*
 * The last len bytes (0 <= len <= 64q) in q ZMM (q may be 0), loads and
 * stores under byte masks (a partial last block included; no byte
 * outside in and out touched), and their GHASH against H^m..H^1 (m
 * blocks; masked lanes are zero in the data and in the powers). With
 * pend (encryption after a full step), that step's ciphertext, cv[0..8)
 * (32 blocks, as made), is hashed first, between these AES rounds. Each
 * input ZMM is loaded once (d[j], RIJN_READ_ONCE_VEC) for the last round
 * and, decrypting, the GHASH. With fin, the lengths block is hashed
 * last, under the same reduction (the data then meets H^(m+1)..H^2).
 * Returns the accumulator.
 */
VP_INLINE __m512i vp_tail(const __m512i *rk, const unsigned nr, const int enc,
                          const size_t q, const int pend, const size_t len,
                          vp_ctr cb, const uint8_t *pw, uint8_t *out,
                          const uint8_t *in, __m512i acc, const vp_fin *fin,
                          const __m512i *cv)
{
    const __m512i bswap = vp_bswap(), poly = vp_poly();
    const size_t m = (len + 15) / 16;
    /* the lengths block under the same reduction needs H^(m+1): past
     * H^32 (len over 496), it takes one single-block product after it */
    const int with_len = fin != NULL && m < VP_POWERS;
    const uint8_t *hp = pw + 16 * (VP_POWERS - m - with_len);
    __m128i lens, h1;
    __m512i st[8], d[8], kl;
    __mmask64 mb[8];
    vp_sum s;
    unsigned r;
    size_t j;
    int first = 1;

    RIJN_UNROLL(8)
    for (j = 0; j < q; j++) {
        mb[j] = vp_bytes_mask(len, 64 * j);
        d[j] = vp_load_masked(in + 64 * j, mb[j]);
        RIJN_READ_ONCE_VEC(d[j]);
    }
    vp_ctr_start(st, q, &cb, bswap, rk);
    RIJN_UNROLL(14)
    for (r = 1; r < nr; r++) {
        vp_round(st, q, rk + r);
        if (pend)
            vp_ghash_step(r - 1, VP_W, &s, NULL, pw, &acc, poly, bswap, NULL,
                          cv);
    }
    if (pend) {
        RIJN_UNROLL(8)
        for (r = nr - 1; r < VP_W + 3; r++)
            vp_ghash_step(r, VP_W, &s, NULL, pw, &acc, poly, bswap, NULL,
                          cv);
    }
    kl = vp_key(rk + nr);
    RIJN_UNROLL(8)
    for (j = 0; j < q; j++) {
        const __m512i o = _mm512_aesenclast_epi128(
            st[j], _mm512_xor_si512(kl, d[j]));
        const __m512i h = _mm512_maskz_loadu_epi32(v512_mask(m, 4 * j),
                                                   hp + 64 * j);
        __m512i x;
        _mm512_mask_storeu_epi8(out + 64 * j, mb[j], o);
        x = _mm512_shuffle_epi8(enc ? _mm512_maskz_mov_epi8(mb[j], o) : d[j],
                                bswap);
#if VP_KARA /* (#if: any change here changed gcc's schoolbook code) */
        vp_ksum(&s, j == 0 ? _mm512_xor_si512(x, acc) : x, h, j == 0);
#else
        if (j == 0)
            vp_sum_first(&s, _mm512_xor_si512(x, acc), h);
        else
            vp_sum_add(&s, x, h);
#endif
        first = 0;
    }
    /* the lengths block (byte-reversed: the bit lengths as two words)
     * times H; made here, not kept live across the rounds */
    lens = _mm_set_epi64x((long long)(fin != NULL ? fin->aad_len * 8 : 0),
                          (long long)(fin != NULL ? fin->len * 8 : 0));
    h1 = _mm_loadu_si128(
        (const __m128i *)(const void *)(pw + 16 * (VP_POWERS - 1)));
    if (with_len) {
        const __m512i x = _mm512_zextsi128_si512(lens);
        const __m512i h = _mm512_zextsi128_si512(h1);
#if VP_KARA
        vp_ksum(&s, first ? _mm512_xor_si512(x, acc) : x, h, first);
#else
        if (first)
            vp_sum_first(&s, _mm512_xor_si512(x, acc), h);
        else
            vp_sum_add(&s, x, h);
#endif
        first = 0;
    }
    if (!first) {
#if VP_KARA
        s.mi = vp_xor3(s.mi, s.lo, s.hi); /* vp_ksum's sum joined */
#endif
        acc = vp_fold_lanes(vp_reduce(&s, poly));
    }
    if (fin != NULL && !with_len)
        acc = _mm512_zextsi128_si512(vp_mul128(
            _mm_xor_si128(_mm512_castsi512_si128(acc), lens), h1,
            vp_poly128()));
    return acc;
}

/*
 * len bytes from ctr (enc/dec: whole blocks only; last: any length, and
 * the tag from fin): 32-block steps, then one tail batch of 1 to 8 ZMM,
 * or none (see the top).
 */
VP_INLINE void vp_crypt(const rijn_aes_key *k, const uint64_t *hk,
                        uint8_t y[16], const uint8_t ctr[16], uint8_t *out,
                        const uint8_t *in, size_t len, const unsigned nr,
                        const int enc, const vp_fin *fin)
{
    const uint8_t *pw = (const uint8_t *)(const void *)hk;
    const __m512i bswap = vp_bswap(), poly = vp_poly();
    const __m512i *rk = v512_rkp(k, 0);
    /* cv: encrypting, the last step's ciphertext, as made (hashed from
     * here, never read back from out); dv: decrypting, its input */
    __m512i acc, kl, cv[VP_W], dv[VP_W];
    vp_ctr cb;
    vp_sum s;
    int pending = 0;
    unsigned r;
    size_t j, n;

    if (len == 0 && fin == NULL)
        return;
    cb.le = _mm512_add_epi32(
        _mm512_broadcast_i32x4(
            _mm_shuffle_epi8(vp_load_ctr(ctr), vp_bswap128())),
        _mm512_set_epi32(0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0));
    cb.low = rijn_load32_be(ctr + 12);
    if (fin != NULL && fin->aad != NULL) {
        /* the AAD, 0..4 blocks zero-padded (one masked load), against
         * H^na..H^1 (lanes past it zero in both), reduced, beside the
         * first batch's rounds. Through the mode's GHASH calls instead,
         * 128 B-1420 B messages took 1.0-1.15x as long with 16 to 64
         * bytes of AAD, and 1.05-1.45x with TLS 1.2's 13 (a padded copy
         * that a 16-byte load waited for; Zen 5, interleaved A/B) */
        const size_t na = (size_t)(fin->aad_len + 15) / 16;
        vp_sum sa;
        vp_aad_first(&sa, fin->aad, fin->aad_len,
                     _mm512_maskz_loadu_epi32(v512_mask(na, 0),
                                              pw + 16 * (VP_POWERS - na)),
                     bswap);
        acc = vp_fold_lanes(vp_reduce(&sa, poly));
    } else {
        acc = _mm512_zextsi128_si512(
            _mm_shuffle_epi8(vp_load_8x2(y), vp_bswap128()));
    }
    if (fin != NULL) {
        /* E(J0) first, beside the first batch, and into the tag's place,
         * which the tag overwrites: kept in a register to the end, or
         * made beside the last batch, it was spilled to the stack */
        _mm_storeu_si128((__m128i *)(void *)fin->tag,
                         vp_encrypt1(rijn_x86_load_ctr(fin->j0), rk, nr));
        __asm__("" : : "r"(fin->tag) : "memory");
    }

    /* (cv is read only after this first step has set it; said so to gcc,
     * whose -Wmaybe-uninitialized does not follow `pending`) */
    RIJN_UNROLL(8)
    for (j = 0; j < VP_W; j++)
        cv[j] = _mm512_setzero_si512();
    /* encryption hashes each step's ciphertext during the next step */
    if (enc && len >= 64 * VP_W) {
        __m512i st[VP_W];
        vp_ctr_start(st, VP_W, &cb, bswap, rk);
        RIJN_UNROLL(14)
        for (r = 1; r < nr; r++)
            vp_round(st, VP_W, rk + r);
        kl = vp_key(rk + nr);
        RIJN_UNROLL(8)
        for (j = 0; j < VP_W; j++) {
            cv[j] = _mm512_aesenclast_epi128(
                st[j], _mm512_xor_si512(kl, _mm512_loadu_si512(in + 64 * j)));
            _mm512_storeu_si512(out + 64 * j, cv[j]);
        }
        in += 64 * VP_W;
        out += 64 * VP_W;
        len -= 64 * VP_W;
        pending = 1;
    }
    /* One step: AES of 32 blocks with the GHASH of hv between its rounds.
     * Encrypting, hv is the last step's ciphertext as made, 8 ZMM that
     * gcc keeps in registers, and ov gets this step's: the tag never
     * covers bytes read back from out, which another writer could have
     * chosen (rijn_gcm.h, Encryption; the loop before this hashed out -
     * 512, and gcm_race saw tags change). Two steps an iteration, cv to cw
     * and cw to cv: one step from cv to cv cost gcc 12 register copies
     * and AES-128 3% at 16 KiB (Sapphire Rapids); this way encryption ran
     * 1% (AES-128) and 6% (AES-256) faster at 16 KiB than hashing out.
     * Decrypting, each input ZMM is loaded once (vp_ghash_step) and kept
     * in dv for the last round, in registers: forced to the stack, as
     * vpclmul-avx2 must (16 YMM), AES-256 decryption ran 5-7% slower at
     * 4-16 KiB and 4% at 1 MiB (Sapphire Rapids); dv holds nothing
     * secret. */
#define VP_STEP(hv, ov)                                                   \
    do {                                                                  \
        __m512i st[VP_W], *d = enc ? NULL : dv;                           \
        vp_ctr_start(st, VP_W, &cb, bswap, rk);                           \
        RIJN_UNROLL(14)                                                   \
        for (r = 1; r < nr; r++) {                                        \
            vp_round(st, VP_W, rk + r);                                   \
            vp_ghash_step(r - 1, VP_W, &s, in, pw, &acc, poly, bswap, d,  \
                          hv);                                            \
        }                                                                 \
        RIJN_UNROLL(8)                                                    \
        for (r = nr - 1; r < VP_W + 3; r++)                               \
            vp_ghash_step(r, VP_W, &s, in, pw, &acc, poly, bswap, d, hv); \
        kl = vp_key(rk + nr);                                             \
        RIJN_UNROLL(8)                                                    \
        for (j = 0; j < VP_W; j++) {                                      \
            const __m512i o = _mm512_aesenclast_epi128(                   \
                st[j], _mm512_xor_si512(                                  \
                           kl, enc ? _mm512_loadu_si512(in + 64 * j)      \
                                   : dv[j]));                             \
            _mm512_storeu_si512(out + 64 * j, o);                         \
            if (enc)                                                      \
                (ov)[j] = o;                                              \
        }                                                                 \
        in += 64 * VP_W;                                                  \
        out += 64 * VP_W;                                                 \
        len -= 64 * VP_W;                                                 \
    } while (0)
    if (enc) {
        __m512i cw[VP_W];
        for (; len >= 2 * 64 * VP_W;) {
            VP_STEP(cv, cw);
            VP_STEP(cw, cv);
        }
        if (len >= 64 * VP_W) {
            VP_STEP(cv, cw);
            RIJN_UNROLL(8)
            for (j = 0; j < VP_W; j++)
                cv[j] = cw[j];
        }
    } else {
        while (len >= 64 * VP_W)
            VP_STEP((const __m512i *)NULL, dv);
    }
#undef VP_STEP
    /* 0..511 bytes left, and the last step's ciphertext if pending */
    n = (len + 15) / 16;
    /* the batch that holds the n blocks: the fewest ZMM, 0 to 8 (p: with
     * the pending step's hashing) */
#define VP_TAIL(q, p) \
    acc = vp_tail(rk, nr, enc, q, p, len, cb, pw, out, in, acc, fin, cv)
#define VP_TAILS(p)                      \
    do {                                 \
        if (n > 28)                      \
            VP_TAIL(8, p);               \
        else if (n > 24)                 \
            VP_TAIL(7, p);               \
        else if (n > 20)                 \
            VP_TAIL(6, p);               \
        else if (n > 16)                 \
            VP_TAIL(5, p);               \
        else if (n > 12)                 \
            VP_TAIL(4, p);               \
        else if (n > 8)                  \
            VP_TAIL(3, p);               \
        else if (n > 4)                  \
            VP_TAIL(2, p);               \
        else if (n > 0)                  \
            VP_TAIL(1, p);               \
        else                             \
            VP_TAIL(0, p);               \
    } while (0) /* (as a switch: 1-3% slower) */
    if (pending && n == 0 && fin == NULL) {
        RIJN_UNROLL(16)
        for (r = 0; r < VP_W + 3; r++)
            vp_ghash_step(r, VP_W, &s, NULL, pw, &acc, poly, bswap, NULL,
                          cv);
    } else if (pending) {
        VP_TAILS(1);
    } else {
        VP_TAILS(0);
    }
#undef VP_TAILS
#undef VP_TAIL
    if (fin != NULL)
        gx_tag_xor_vex(fin->tag, _mm_shuffle_epi8(_mm512_castsi512_si128(acc),
                                                  vp_bswap128()));
    else
        gx_store(y, _mm512_castsi512_si128(acc));
}

/* vp_crypt for the key's round count (a constant in each copy) */
VP_INLINE void vp_crypt_nr(const rijn_aes_key *k, const uint64_t *hk,
                           uint8_t y[16], const uint8_t ctr[16], uint8_t *out,
                           const uint8_t *in, size_t len, const int enc,
                           const vp_fin *fin)
{
    if (k->rounds == 10)
        vp_crypt(k, hk, y, ctr, out, in, len, 10, enc, fin);
    else if (k->rounds == 12)
        vp_crypt(k, hk, y, ctr, out, in, len, 12, enc, fin);
    else
        vp_crypt(k, hk, y, ctr, out, in, len, 14, enc, fin);
}

/* The entry points (this copy's products: VP_KARA) */
VP_FN static void vp_enc(const rijn_aes_key *k, const uint64_t *hk,
                         uint8_t y[16], const uint8_t ctr[16], uint8_t *out,
                         const uint8_t *in, size_t nblocks)
{
    vp_crypt_nr(k, hk, y, ctr, out, in, 16 * nblocks, 1, NULL);
}

VP_FN static void vp_dec(const rijn_aes_key *k, const uint64_t *hk,
                         uint8_t y[16], const uint8_t ctr[16], uint8_t *out,
                         const uint8_t *in, size_t nblocks)
{
    vp_crypt_nr(k, hk, y, ctr, out, in, 16 * nblocks, 0, NULL);
}

VP_FN static void vp_last(const rijn_aes_key *k, const uint64_t *hk,
                          uint8_t y[16], const uint8_t ctr[16],
                          const uint8_t j0[16], uint8_t *out,
                          const uint8_t *in, size_t len, const uint8_t *aad,
                          uint64_t aad_len, int decrypt, uint8_t tag[16])
{
    const vp_fin fin = {j0, aad_len, len, tag, aad};
    vp_crypt_nr(k, hk, y, ctr, out, in, len, !decrypt, &fin);
}

#if !VP_KARA
/* ------------------------------------------------------------------------
 * One-shot short messages
 * --------------------------------------------------------------------- */

/*
 * ghash.h, oneshot, with nd + 1 <= 8 (two ZMM; 96 and 112 bytes): data
 * block i in lane i and J0 in every lane from nd on, one AES batch; the
 * data loaded and stored under byte masks (each input byte loaded once,
 * nothing outside in and out touched, a partial block included); then one
 * GHASH, schoolbook, one reduction, over the AAD (one masked ZMM, whose
 * products do not wait for the AES), the ciphertext (the output under the
 * same byte mask: E(J0)'s lane and a partial block's keystream cleared)
 * and the lengths block. Block b of those nt is multiplied by H^(nt - b),
 * so a ZMM of blocks b..b+3 takes the powers at offset 16 (32 - nt + b);
 * lanes past the data are zero, whatever power they meet.
 */
VP_INLINE void vp_oneshot_z(const rijn_aes_key *k, const uint8_t *pw,
                            const uint8_t j0[16], uint8_t *out,
                            const uint8_t *in, size_t len,
                            const uint8_t *aad, size_t aad_len, int decrypt,
                            uint8_t tag[16], const unsigned nr)
{
    const size_t n = 2;
    const size_t nd = (len + 15) / 16, na = (aad_len + 15) / 16;
    const size_t nt = na + nd + 1;
    const __m512i bswap = vp_bswap(), poly = vp_poly();
    /* J0 byte-reversed: its 32-bit counter in dword 0 of each lane */
    const __m512i cj = _mm512_broadcast_i32x4(
        _mm_shuffle_epi8(rijn_x86_load_ctr(j0), vp_bswap128()));
    const __m512i kz = v512_rk(k, 0);
    __m512i st[2], d[2], o[2], ek;
    __mmask64 mb[2];
    vp_sum s;
    unsigned r;
    size_t j;

    /* lane i < nd: inc32 of J0 by i + 1; the others J0 */
    RIJN_UNROLL(2)
    for (j = 0; j < n; j++) {
        const int b = (int)(4 * j);
        const __m512i inc = _mm512_set_epi32(0, 0, 0, b + 4, 0, 0, 0, b + 3,
                                             0, 0, 0, b + 2, 0, 0, 0, b + 1);
        const __mmask16 live = (__mmask16)(v512_mask(nd, 4 * j) & 0x1111);
        st[j] = _mm512_xor_si512(
            _mm512_shuffle_epi8(_mm512_mask_add_epi32(cj, live, cj, inc),
                                bswap),
            kz);
        mb[j] = vp_bytes_mask(len, 64 * j);
        d[j] = vp_load_masked(in + 64 * j, mb[j]);
        RIJN_READ_ONCE_VEC(d[j]);
    }
    /* the AAD first: its products do not wait for the AES */
    vp_aad_first(&s, aad, aad_len,
                 _mm512_loadu_si512(pw + 16 * (VP_POWERS - nt)), bswap);
    RIJN_UNROLL(14)
    for (r = 1; r < nr; r++) {
        const __m512i kr = v512_rk(k, r);
        RIJN_UNROLL(2)
        for (j = 0; j < n; j++)
            st[j] = _mm512_aesenc_epi128(st[j], kr);
    }
    RIJN_UNROLL(2)
    for (j = 0; j < n; j++) {
        __m512i c;
        o[j] = _mm512_aesenclast_epi128(
            st[j], _mm512_xor_si512(v512_rk(k, nr), d[j]));
        _mm512_mask_storeu_epi8(out + 64 * j, mb[j], o[j]);
        c = decrypt ? d[j] : _mm512_maskz_mov_epi8(mb[j], o[j]);
        vp_sum_add(&s, _mm512_shuffle_epi8(c, bswap),
                   _mm512_loadu_si512(pw + 16 * (VP_POWERS - nt + na
                                                 + 4 * j)));
    }
    /* the lengths block (byte-reversed: the bit lengths as two words)
     * times H */
    vp_sum_add(&s,
               _mm512_zextsi128_si512(
                   _mm_set_epi64x((long long)((uint64_t)aad_len * 8),
                                  (long long)((uint64_t)len * 8))),
               _mm512_zextsi128_si512(_mm_loadu_si128(
                   (const __m128i *)(const void *)(pw + 16 * (VP_POWERS
                                                              - 1)))));
    /* E(J0): lane nd (its data was masked to zero) moved to lane 0; o
     * indexed by constants only, so that it stays in registers (an array
     * indexed by nd / 4 went to the stack, with keystream in it) */
    ek = nd >= 4 ? o[1] : o[0];
    ek = _mm512_permutexvar_epi64(
        _mm512_set_epi64(0, 0, 0, 0, 0, 0, (long long)(2 * (nd % 4) + 1),
                         (long long)(2 * (nd % 4))),
        ek);
    _mm_storeu_si128(
        (__m128i *)(void *)tag,
        _mm_xor_si128(
            _mm_shuffle_epi8(_mm512_castsi512_si128(
                                 vp_fold_lanes(vp_reduce(&s, poly))),
                             vp_bswap128()),
            _mm512_castsi512_si128(ek)));
}

/* vp_load_masked on YMM */
VP_INLINE __m256i vp_load_masked_y(const uint8_t *p, __mmask32 k)
{
    return k != 0 ? _mm256_maskz_loadu_epi8(k, p) : _mm256_setzero_si256();
}

/* a . b per lane, unreduced (schoolbook), added to the YMM sum lo/mi/hi */
VP_INLINE void vp_madd_y(__m256i s[3], __m256i a, __m256i b)
{
    s[0] = _mm256_xor_si256(s[0], _mm256_clmulepi64_epi128(a, b, 0x00));
    s[1] = _mm256_ternarylogic_epi64(s[1], _mm256_clmulepi64_epi128(a, b, 0x01),
                                     _mm256_clmulepi64_epi128(a, b, 0x10), 0x96);
    s[2] = _mm256_xor_si256(s[2], _mm256_clmulepi64_epi128(a, b, 0x11));
}

/*
 * vp_oneshot_z's scheme on YMM, for a message of nd <= 2 ny - 1 blocks
 * (ny = 1..3 YMM) and AAD of up to 64 bytes: data block i and J0 (at index
 * nd, or 1 in one YMM) in lane i % 2 of YMM i / 2; the AAD in one or two
 * YMM. The ciphertext with the lengths block in J0's lane is hashed
 * against H^(nd + 1)..H^1, the AAD before it against the powers above. On
 * Zen 4, where a ZMM operation issues as two halves, this is faster than
 * the ZMM form up to 80 bytes: a 16-byte message by 10-15 cycles, 32-80
 * bytes by 6-13% (where the ZMM form took them, before).
 */
VP_INLINE void vp_oneshot_y(const rijn_aes_key *k, const uint8_t *pw,
                            const uint8_t j0[16], uint8_t *out,
                            const uint8_t *in, size_t len,
                            const uint8_t *aad, size_t aad_len, int decrypt,
                            uint8_t tag[16], const size_t ny,
                            const unsigned nr)
{
    const size_t nd = (len + 15) / 16, na = (aad_len + 15) / 16;
    const size_t nt = na + nd + 1;
    /* J0's lane (then the lengths block's): after the data; in one YMM
     * always lane 1, a constant (the data's lane 0 empty if len is 0) */
    const size_t jl = ny == 1 ? 1 : nd;
    const __m256i bswap = _mm512_castsi512_si256(vp_bswap());
    /* J0 byte-reversed: its 32-bit counter in dword 0 of each lane */
    const __m256i cj = _mm256_broadcastsi128_si256(
        _mm_shuffle_epi8(rijn_x86_load_ctr(j0), vp_bswap128()));
    const __m256i kz = _mm512_castsi512_si256(v512_rk(k, 0));
    const __m128i lens = _mm_set_epi64x((long long)((uint64_t)aad_len * 8),
                                        (long long)((uint64_t)len * 8));
    __m256i st[3], d[3], o, c, s[3];
    __m128i r128, ek = _mm_setzero_si128();
    __mmask32 mb[3];
    unsigned r;
    size_t j;

    /* lane i < nd: inc32 of J0 by i + 1; the others J0 */
    RIJN_UNROLL(3)
    for (j = 0; j < ny; j++) {
        const int b = (int)(2 * j);
        const __m256i inc = _mm256_set_epi32(0, 0, 0, b + 2, 0, 0, 0, b + 1);
        const __mmask8 live = (__mmask8)(v512_mask(nd, 2 * j) & 0x11);
        st[j] = _mm256_xor_si256(
            _mm256_shuffle_epi8(_mm256_mask_add_epi32(cj, live, cj, inc),
                                bswap),
            kz);
        mb[j] = (__mmask32)vp_bytes_mask(len, 32 * j);
        d[j] = vp_load_masked_y(in + 32 * j, mb[j]);
        RIJN_READ_ONCE_VEC(d[j]);
    }
    /* the AAD first: its products do not wait for the AES */
    s[0] = s[1] = s[2] = _mm256_setzero_si256();
    vp_madd_y(s,
              _mm256_shuffle_epi8(
                  vp_load_masked_y(aad, (__mmask32)vp_bytes_mask(aad_len, 0)),
                  bswap),
              _mm256_loadu_si256(
                  (const __m256i *)(const void *)(pw + 16 * (VP_POWERS - nt))));
    if (aad_len > 32)
        vp_madd_y(s,
                  _mm256_shuffle_epi8(
                      vp_load_masked_y(aad + 32,
                                       (__mmask32)vp_bytes_mask(aad_len, 32)),
                      bswap),
                  _mm256_loadu_si256((const __m256i *)(const void *)(
                      pw + 16 * (VP_POWERS - nt + 2))));
    RIJN_UNROLL(14)
    for (r = 1; r < nr; r++) {
        const __m256i kr = _mm512_castsi512_si256(v512_rk(k, r));
        RIJN_UNROLL(3)
        for (j = 0; j < ny; j++)
            st[j] = _mm256_aesenc_epi128(st[j], kr);
    }
    RIJN_UNROLL(3)
    for (j = 0; j < ny; j++) {
        o = _mm256_aesenclast_epi128(
            st[j], _mm256_xor_si256(_mm512_castsi512_si256(v512_rk(k, nr)),
                                    d[j]));
        if (mb[j] != 0)
            _mm256_mask_storeu_epi8(out + 32 * j, mb[j], o);
        /* the ciphertext (E(J0)'s lane and a partial block's keystream
         * cleared), the lengths block in J0's lane; E(J0) kept */
        c = _mm256_shuffle_epi8(decrypt ? d[j] : _mm256_maskz_mov_epi8(mb[j], o),
                                bswap);
        if (j == jl / 2) {
            const int hi = (int)(jl % 2);
            c = _mm256_xor_si256(
                c, hi ? _mm256_inserti128_si256(_mm256_setzero_si256(), lens, 1)
                      : _mm256_zextsi128_si256(lens));
            ek = hi ? _mm256_extracti128_si256(o, 1) : _mm256_castsi256_si128(o);
        }
        vp_madd_y(s, c,
                  _mm256_loadu_si256((const __m256i *)(const void *)(
                      pw + 16 * (VP_POWERS - 1 - jl + 2 * j))));
    }
    {
        /* the two folds of vp_reduce, then the two lanes' sum */
        const __m256i p = _mm512_castsi512_si256(vp_poly());
        s[1] = _mm256_ternarylogic_epi64(
            s[1], _mm256_shuffle_epi32(s[0], _MM_PERM_BADC),
            _mm256_clmulepi64_epi128(s[0], p, 0x10), 0x96);
        s[2] = _mm256_ternarylogic_epi64(
            s[2], _mm256_shuffle_epi32(s[1], _MM_PERM_BADC),
            _mm256_clmulepi64_epi128(s[1], p, 0x10), 0x96);
        r128 = _mm_xor_si128(_mm256_castsi256_si128(s[2]),
                             _mm256_extracti128_si256(s[2], 1));
    }
    _mm_storeu_si128((__m128i *)(void *)tag,
                     _mm_xor_si128(_mm_shuffle_epi8(r128, vp_bswap128()), ek));
}

VP_FN void rijn_vp512_oneshot(const rijn_aes_key *k, const uint64_t *hk,
                              const uint8_t j0[16], uint8_t *out,
                              const uint8_t *in, size_t len,
                              const uint8_t *aad, size_t aad_len, int decrypt,
                              uint8_t tag[16])
{
    const uint8_t *pw = (const uint8_t *)(const void *)hk;
    /* YMM for the data blocks and J0 up to 80 bytes; 96 and 112 bytes on
     * ZMM (two, where four YMM were 0-3% slower) */
    const size_t ny = (len + 15) / 16 / 2 + 1;

#define VP_ONESHOT(nr)                                                     \
    (ny == 1 ? vp_oneshot_y(k, pw, j0, out, in, len, aad, aad_len,         \
                            decrypt, tag, 1, nr)                           \
     : ny == 2 ? vp_oneshot_y(k, pw, j0, out, in, len, aad, aad_len,       \
                              decrypt, tag, 2, nr)                         \
     : ny == 3 ? vp_oneshot_y(k, pw, j0, out, in, len, aad, aad_len,       \
                              decrypt, tag, 3, nr)                         \
               : vp_oneshot_z(k, pw, j0, out, in, len, aad, aad_len,       \
                              decrypt, tag, nr))
    if (k->rounds == 10)
        VP_ONESHOT(10);
    else if (k->rounds == 12)
        VP_ONESHOT(12);
    else
        VP_ONESHOT(14);
#undef VP_ONESHOT
}

RIJN_GHASH_KEY_FITS(VP_KEY_BYTES, "vpclmul-avx512's powers and table");
const rijn_ghash_engine rijn_ghash_vpclmul_avx512 = {
    .base = {.name = "vpclmul-avx512", .needs = RIJN_X86_NEEDS(VP_FEATURES),
             .constant_time = 1, .rank = 40},
    .key_bytes = VP_KEY_BYTES,
    .init = rijn_vp512_init,
    .blocks = rijn_vp512_blocks,
    .fused_aes = "vaes-avx512",
    .enc = vp_enc,
    .dec = vp_dec,
    .oneshot = rijn_vp512_oneshot,
    .last = vp_last,
};
#endif /* !VP_KARA */

#if VP_KARA
/* The same engine with Karatsuba products in the fused loop: picked where
 * VPCLMULQDQ is the bound (RIJN_CPU_VPCLMUL_SLOW, Zen 5; see the top),
 * runs anywhere vpclmul-avx512 does when named. */
const rijn_ghash_engine rijn_ghash_vpclmul_avx512_kara = {
    .base = {.name = "vpclmul-avx512-kara",
             .needs = RIJN_X86_NEEDS(VP_FEATURES),
             .constant_time = 1,
             .rank = 41,
             .tuned = RIJN_CPU_VPCLMUL_SLOW},
    .key_bytes = VP_KEY_BYTES,
    .init = rijn_vp512_init,
    .blocks = rijn_vp512_blocks,
    .fused_aes = "vaes-avx512",
    .enc = vp_enc,
    .dec = vp_dec,
    .oneshot = rijn_vp512_oneshot,
    .last = vp_last,
};
#endif

#else
typedef int rijn_vpclmul_avx512_not_built; /* ISO C wants a non-empty file */
#endif

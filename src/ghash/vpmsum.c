/*
 * vpmsum: GHASH with the POWER8 (ISA 2.07) carry-less multiply vpmsumd,
 * for 64-bit PowerPC of either byte order; fused with the ppc8 AES
 * backend (fused_aes = "ppc8"): its vcipher CTR batches and the GHASH of
 * the ciphertext in one loop. Compiled with -mcpu=power8 -mcrypto -mvsx
 * for this file only, like ppc8.c; runs when AT_HWCAP2 reports vector
 * crypto.
 *
 * Representation (the technique of OpenSSL's ghashp8-ppc.pl, derived
 * afresh here): a block is used as the 128-bit big-endian integer of its
 * bytes, in register order (register byte 0 = block byte 0, on
 * little-endian after a byte reversal). Read as a polynomial in y, that
 * integer is the GCM polynomial with its bits reversed, A(y) =
 * y^127 a(1/y), and the field polynomial becomes Q(y) = y^128 + y^127 +
 * y^126 + y^121 + 1. The true product c = a.b satisfies C = A.B.y^-127
 * mod Q: a Montgomery product. So the key holds H' = H.y mod Q (the
 * "twisted" H: one left shift and a conditional XOR of 0xc2..01), and
 * A.H' (255 bits from vpmsumd) is reduced by y^128 in two 64-bit steps:
 * adding t0.Q kills the low word t0, and Q = 1 mod y^64, so that multiple
 * is t0 itself times the upper part of Q, (y^57 + y^62 + y^63).y^64 =
 * 0xc2 << 56 in the second doubleword: one vpmsumd per step.
 *
 * vpmsumd XORs the two 64x64 products of the doubleword pairs, so one
 * block costs three of them against three forms of each power of H:
 * Hl = (0, h0), Hm = (h0, h1), Hh = (h1, 0) (h1 the high doubleword)
 * give x0.h0, x1.h0 + x0.h1 and x1.h1. The key holds H'^1..H'^8 in
 * those forms (powers of H' computed with the same Montgomery product,
 * which keeps the twist); eight blocks are multiplied by H^8..H^1 and
 * summed before one reduction (aggregated reduction): 24 vpmsumd, 2 for
 * the reduction and about 30 vector logic operations per 128 bytes. A
 * tail of n < 8 blocks uses H^n..H^1 the same way.
 *
 * Fused kernels (ppc8's key layout: round key i at k->rk + 16 i, stored
 * so that lvx gives it in register order, FIPS-197 round keys): 8
 * counter blocks per iteration through vcipher, all round keys in
 * registers; encryption hashes the previous iteration's 8 ciphertext
 * blocks in the same loop body, so the vcipher and vpmsumd chains of one
 * iteration are independent and interleave; decryption hashes the
 * current input, each block loaded once for its GHASH and its XOR (see
 * vp_xor8). The counter steps in its last word with vadduwm (inc32).
 *
 * Constant time: vpmsumd, vcipher and the vector logic take the same time
 * whatever the data; no branch or address depends on the key, the data or
 * H (branches on lengths and the round count only).
 *
 * hk: H'^i (i = 1..8) as Hl, Hm, Hh, 16 bytes each in register order
 * (stored with stvx, loaded with lvx: the same bytes on either byte
 * order), 384 bytes.
 */
#include "ghash/ghash.h"

#if defined(__powerpc64__) && defined(__CRYPTO__) && defined(__VSX__)

#include <altivec.h>

/* As in altivec_bs.c: gcc's pre-allocation scheduling moves loads early
 * and lengthens live ranges past the 32 vector registers (spills). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-schedule-insns")
#endif

#undef vector
#undef pixel
#undef bool

typedef __vector unsigned char vp8;
typedef __vector unsigned int vp32;
typedef __vector unsigned long long vp64;

#define VP_INLINE static inline __attribute__((always_inline))

#if defined(__LITTLE_ENDIAN__) || \
    (defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define VP_LE 1
#else
#define VP_LE 0
#endif

#define VP_POWERS 8
#define VP_KEY_BYTES (VP_POWERS * 3 * 16)

/* ---- register-order helpers --------------------------------------------
 * vsldoi and vperm as the hardware numbers bytes (register byte 0 most
 * significant), whatever the compiler's element order. */
VP_INLINE vp8 vp_sld8(vp8 a, vp8 b) /* register bytes 8..23 of a || b */
{
    vp8 r;
    __asm__("vsldoi %0,%1,%2,8" : "=v"(r) : "v"(a), "v"(b));
    return r;
}

VP_INLINE vp8 vp_xor(vp8 a, vp8 b)
{
    return vec_xor(a, b);
}

VP_INLINE vp8 vp_pmsum(vp8 a, vp8 b)
{
    return (vp8)__builtin_crypto_vpmsumd((vp64)a, (vp64)b);
}

VP_INLINE vp8 vp_zero(void)
{
    return vec_splat_u8(0);
}

/* (0, 0xc2 << 56): the second doubleword (register bytes 8..15) */
VP_INLINE vp8 vp_c2(void)
{
#if VP_LE
    return (vp8)(vp64){0xc200000000000000ULL, 0};
#else
    return (vp8)(vp64){0, 0xc200000000000000ULL};
#endif
}

/* Memory the asm loads and stores below touch, for the compiler: 16
 * bytes at p, or a batch of 128 (offsets below 128 from the base). */
typedef struct {
    uint8_t b[16];
} vp_mem16;
typedef struct {
    uint8_t b[128];
} vp_mem128;

/* lvx of base + off, raw: lvx and stvx (and gcc's vector stores) keep the
 * register order of what they store on either byte order (the key's
 * powers, ppc8's round keys); gcc's own vec_ld on little-endian POWER8
 * adds a pair of xxswapd that cancel. */
VP_INLINE vp8 vp_lvx(const uint8_t *base, long off, const void *mem)
{
    vp8 v;
    __asm__("lvx %0,%1,%2"
            : "=v"(v)
            : "b"(base), "r"(off), "m"(*(const vp_mem16 *)mem));
    return v;
}

/* The same from the key hk (for the compiler: reads all of it, whose
 * address it has at hand, not base + off, which it would compute). */
typedef struct {
    uint8_t b[VP_KEY_BYTES];
} vp_memkey;

VP_INLINE vp8 vp_lvx_key(const uint8_t *base, long off, const uint8_t *hk)
{
    vp8 v;
    __asm__("lvx %0,%1,%2"
            : "=v"(v)
            : "b"(base), "r"(off), "m"(*(const vp_memkey *)(const void *)hk));
    return v;
}

#if VP_LE
/* lxvd2x gives each doubleword byte-reversed: vperm by (7..0, 15..8)
 * (lvsl(0) ^ 7) puts the block in register order; the same permutation
 * undoes it before stxvd2x. */
VP_INLINE vp8 vp_swap_mask(void)
{
    vp8 m;
    __asm__("lvsl %0,0,%1" : "=v"(m) : "r"(0L));
    return vec_xor(m, vec_splat_u8(7));
}

#define VP_LXV(v, p, off, memop)                                      \
    do {                                                              \
        __asm__("lxvd2x %x0,%1,%2" : "=v"(v) : "b"(p), "r"(off), memop); \
        __asm__("vperm %0,%1,%1,%2" : "=v"(v) : "v"(v), "v"(m));        \
    } while (0)
#define VP_STXV(v, p, off, memop)                                     \
    do {                                                              \
        __asm__("vperm %0,%1,%1,%2" : "=v"(v) : "v"(v), "v"(m));        \
        __asm__("stxvd2x %x1,%2,%3" : memop : "v"(v), "b"(p), "r"(off)); \
    } while (0)
#else
VP_INLINE vp8 vp_swap_mask(void)
{
    return vec_splat_u8(0);
}

#define VP_LXV(v, p, off, memop) ((void)m, (v) = vec_xl((off), (p)))
#define VP_STXV(v, p, off, memop) ((void)m, vec_xst((v), (off), (p)))
#endif

/* Block p + off of a batch of 8 (off < 128), in register order. */
VP_INLINE vp8 vp_load(const uint8_t *p, long off, vp8 m)
{
    vp8 v;
    VP_LXV(v, p, off, "m"(*(const vp_mem128 *)(const void *)p));
    return v;
}

VP_INLINE void vp_store(uint8_t *p, long off, vp8 v, vp8 m)
{
    VP_STXV(v, p, off, "+m"(*(vp_mem128 *)(void *)p));
}

/* The 16 bytes at p (y, the counter, single blocks). */
VP_INLINE vp8 vp_load16(const uint8_t *p, vp8 m)
{
    vp8 v;
    VP_LXV(v, p, 0L, "m"(*(const vp_mem16 *)(const void *)p));
    return v;
}

VP_INLINE void vp_store16(uint8_t *p, vp8 v, vp8 m)
{
    VP_STXV(v, p, 0L, "+m"(*(vp_mem16 *)(void *)p));
}

/* ---- the field ----------------------------------------------------------- */

/* The three products of a block, accumulated. */
typedef struct {
    vp8 lo, mid, hi;
} vp_acc;

VP_INLINE void vp_mul_first(vp_acc *a, vp8 x, const vp8 *h)
{
    a->lo = vp_pmsum(x, h[0]);
    a->mid = vp_pmsum(x, h[1]);
    a->hi = vp_pmsum(x, h[2]);
}

VP_INLINE void vp_mul_add(vp_acc *a, vp8 x, const vp8 *h)
{
    a->lo = vp_xor(a->lo, vp_pmsum(x, h[0]));
    a->mid = vp_xor(a->mid, vp_pmsum(x, h[1]));
    a->hi = vp_xor(a->hi, vp_pmsum(x, h[2]));
}

/* (hi.y^128 + mid.y^64 + lo).y^-128 mod Q (see the top). lo = (t1, t0):
 * d = t0.c is computed from lo alone, before mid's low word joins t1. */
VP_INLINE vp8 vp_reduce(const vp_acc *a)
{
    const vp8 z = vp_zero(), c = vp_c2();
    const vp8 d = vp_pmsum(a->lo, c);
    vp8 l = vp_xor(a->lo, vp_sld8(a->mid, z));  /* (t1 ^ m0, t0) */
    const vp8 u = vp_xor(a->hi, vp_sld8(z, a->mid)); /* (t3, t2 ^ m1) */

    l = vp_xor(vp_sld8(l, l), d); /* (t0 ^ d1, t1'): t0 gone */
    return vp_xor(vp_xor(u, vp_pmsum(l, c)), vp_sld8(l, l));
}

/* The key forms of K (register order): Hl, Hm, Hh. */
VP_INLINE void vp_forms(vp8 *h, vp8 k)
{
    const vp8 s = vp_sld8(k, k), z = vp_zero();
    h[0] = vp_sld8(z, s);
    h[1] = s;
    h[2] = vp_sld8(s, z);
}

static void vp_init(uint64_t *hk, const uint8_t h[16])
{
    vp8 *t = (vp8 *)(void *)hk;
    uint64_t hh = rijn_load64_be(h), hl = rijn_load64_be(h + 8);
    const uint64_t carry = 0 - (hh >> 63);
    vp8 k, p;

    /* H' = H.y mod Q */
    hh = (hh << 1) | (hl >> 63);
    hl = (hl << 1) ^ (carry & 1);
    hh ^= carry & 0xc200000000000000ULL;
#if VP_LE
    k = (vp8)(vp64){hl, hh};
#else
    k = (vp8)(vp64){hh, hl};
#endif
    vp_forms(t, k);
    p = k;
    for (int i = 1; i < VP_POWERS; i++) {
        vp_acc a;
        vp_mul_first(&a, p, t); /* H'^(i+1) = H'^i . H' . y^-128 */
        p = vp_reduce(&a);
        vp_forms(t + 3 * i, p);
    }
}

/*
 * Offsets 0, 16, ..., 112 for the indexed loads and stores (lvx, lxvd2x,
 * stxvd2x take base + index registers): made opaque to the compiler, so
 * that it keeps them in eight registers instead of re-creating one with li
 * before every access.
 */
typedef struct {
    long o[8];
} vp_offs;

VP_INLINE void vp_offs_init(vp_offs *f)
{
    RIJN_UNROLL(8)
    for (int j = 0; j < 8; j++) {
        f->o[j] = 16 * j;
        __asm__("" : "+r"(f->o[j]));
    }
}

/* Form f of H'^p (p = 1..8) from the key t. */
VP_INLINE vp8 vp_h(const uint8_t *t, const vp_offs *f, const int p,
                   const int form)
{
    const int at = 48 * (p - 1) + 16 * form;
    return vp_lvx_key(t + 128 * (at / 128), f->o[(at % 128) / 16], t);
}

/* y absorbs n <= 8 blocks x[0..n), the first already XORed with y. */
VP_INLINE vp8 vp_hashn(const uint8_t *t, const vp_offs *f, const vp8 *x,
                       const int n)
{
    vp_acc a;

    a.lo = vp_pmsum(x[0], vp_h(t, f, n, 0));
    a.mid = vp_pmsum(x[0], vp_h(t, f, n, 1));
    a.hi = vp_pmsum(x[0], vp_h(t, f, n, 2));
    RIJN_UNROLL(8)
    for (int i = 1; i < n; i++) {
        a.lo = vp_xor(a.lo, vp_pmsum(x[i], vp_h(t, f, n - i, 0)));
        a.mid = vp_xor(a.mid, vp_pmsum(x[i], vp_h(t, f, n - i, 1)));
        a.hi = vp_xor(a.hi, vp_pmsum(x[i], vp_h(t, f, n - i, 2)));
    }
    return vp_reduce(&a);
}

#define vp_hash8(t, f, x) vp_hashn((t), (f), (x), 8)

/* y absorbs the n blocks at in (n a constant: unrolled, in registers) */
VP_INLINE vp8 vp_absorb(const uint8_t *t, const vp_offs *f, const uint8_t *in,
                        vp8 acc, vp8 m, const int n)
{
    vp8 x[8];

    RIJN_UNROLL(8)
    for (int i = 0; i < n; i++)
        x[i] = vp_load(in, f->o[i], m);
    x[0] = vp_xor(x[0], acc);
    return vp_hashn(t, f, x, n);
}

#define VP_NOINLINE static __attribute__((noinline))

/* GHASH alone (AAD, partial blocks, the lengths; and the data when the
 * AES backend is not ppc8). Everything stays in registers here (checked
 * in gcc's output for both byte orders: no stores to the stack but the
 * saves of v26-v31); the fused kernels below do spill, see vp_enc_blocks. */
static void vp_blocks(const uint64_t *hk, uint8_t y[16], const uint8_t *in,
                      size_t nblocks)
{
    const uint8_t *t8 = (const uint8_t *)hk;
    const vp8 m = vp_swap_mask();
    vp8 acc;
    vp_offs f;

    if (nblocks == 0) /* no AAD, for one */
        return;
    acc = vp_load16(y, m);
    vp_offs_init(&f);
    for (; nblocks >= VP_POWERS; nblocks -= VP_POWERS, in += 16 * VP_POWERS)
        acc = vp_absorb(t8, &f, in, acc, m, 8);
    switch (nblocks) { /* the last 0..7, with H^n..H^1 */
    case 1: acc = vp_absorb(t8, &f, in, acc, m, 1); break;
    case 2: acc = vp_absorb(t8, &f, in, acc, m, 2); break;
    case 3: acc = vp_absorb(t8, &f, in, acc, m, 3); break;
    case 4: acc = vp_absorb(t8, &f, in, acc, m, 4); break;
    case 5: acc = vp_absorb(t8, &f, in, acc, m, 5); break;
    case 6: acc = vp_absorb(t8, &f, in, acc, m, 6); break;
    case 7: acc = vp_absorb(t8, &f, in, acc, m, 7); break;
    default: break;
    }
    vp_store16(y, acc, m);
}

/* ---- fused with ppc8 -------------------------------------------------- */

/* the counter's last word, register order: element 0 on little-endian */
#if VP_LE
#define VP_ONE ((vp32){1, 0, 0, 0})
#else
#define VP_ONE ((vp32){0, 0, 0, 1})
#endif

VP_INLINE vp8 vp_enc(vp8 s, vp8 k)
{
    return (vp8)__builtin_crypto_vcipher((vp64)s, (vp64)k);
}

VP_INLINE vp8 vp_enclast(vp8 s, vp8 k)
{
    return (vp8)__builtin_crypto_vcipherlast((vp64)s, (vp64)k);
}

/* s[0..n) through all nr rounds of the ppc8 schedule rk */
VP_INLINE void vp_aes(const vp8 *rk, const unsigned nr, vp8 *s, const int n)
{
    RIJN_UNROLL(8)
    for (int j = 0; j < n; j++)
        s[j] = vp_xor(s[j], rk[0]);
    RIJN_UNROLL(14)
    for (unsigned r = 1; r < nr; r++) {
        RIJN_UNROLL(8)
        for (int j = 0; j < n; j++)
            s[j] = vp_enc(s[j], rk[r]);
    }
    RIJN_UNROLL(8)
    for (int j = 0; j < n; j++)
        s[j] = vp_enclast(s[j], rk[nr]);
}

/* 8 counter blocks from c (stepped past them) */
VP_INLINE void vp_counters(vp8 *s, vp8 *c, const int n)
{
    RIJN_UNROLL(8)
    for (int j = 0; j < n; j++) {
        s[j] = *c;
        *c = (vp8)vec_add((vp32)*c, VP_ONE);
    }
}

/* 8 blocks: s (keystream) ^ in -> out; x = the ciphertext (register
 * order): the output when encrypting, the input when decrypting. When
 * decrypting, each input block is loaded once (RIJN_READ_ONCE_VEC): the
 * block GHASH absorbs (x, kept in registers or spilled to the stack) is
 * the block the keystream is XORed with, whatever another thread writes
 * to in meanwhile (the decrypt rule of rijn_gcm.h). Encryption is
 * unchanged: the barrier would only move gcc's register allocation. */
VP_INLINE void vp_xor8(uint8_t *out, const uint8_t *in, const vp_offs *f,
                       const vp8 *s, vp8 *x, vp8 m, const int dec)
{
    RIJN_UNROLL(8)
    for (int j = 0; j < 8; j++) {
        vp8 v = vp_load(in, f->o[j], m);
        if (dec)
            RIJN_READ_ONCE_VEC(v);
        x[j] = dec ? v : vp_xor(s[j], v);
        vp_store(out, f->o[j], dec ? vp_xor(s[j], v) : x[j], m);
    }
}

/*
 * The fused loop. Encryption: iteration i hashes the ciphertext of batch
 * i - 1 (x) and encrypts batch i; the two are independent, so the vpmsumd
 * and vcipher chains overlap; x is consumed by the products before the
 * new states are made, which keeps everything in the 32 vector registers.
 * Decryption hashes the input of the batch it decrypts.
 */
VP_INLINE void vp_fused_nr(const rijn_aes_key *k, const uint64_t *hk,
                           uint8_t y[16], const uint8_t ctr[16], uint8_t *out,
                           const uint8_t *in, size_t nblocks, const int dec,
                           const unsigned nr)
{
    const uint8_t *t8 = (const uint8_t *)hk;
    const vp8 *t = (const vp8 *)(const void *)hk;
    const uint8_t *kp = (const uint8_t *)k->rk;
    const vp8 m = vp_swap_mask();
    vp8 rk[15], s[VP_POWERS], x[VP_POWERS], c, acc;
    vp_offs f;

    vp_offs_init(&f);
    RIJN_UNROLL(15)
    for (unsigned r = 0; r <= nr; r++)
        rk[r] = vp_lvx(kp + 128 * (r / 8), f.o[r % 8], kp + 16 * r);
    c = vp_load16(ctr, m);
    acc = vp_load16(y, m);
    if (nblocks >= VP_POWERS) {
        if (!dec) {
            vp_counters(s, &c, VP_POWERS);
            vp_aes(rk, nr, s, VP_POWERS);
            vp_xor8(out, in, &f, s, x, m, 0);
            in += 16 * VP_POWERS;
            out += 16 * VP_POWERS;
            nblocks -= VP_POWERS;
        }
        for (; nblocks >= VP_POWERS; nblocks -= VP_POWERS) {
            if (!dec) { /* the previous batch */
                x[0] = vp_xor(x[0], acc);
                acc = vp_hash8(t8, &f, x);
            }
            vp_counters(s, &c, VP_POWERS);
            vp_aes(rk, nr, s, VP_POWERS);
            vp_xor8(out, in, &f, s, x, m, dec);
            if (dec) {
                x[0] = vp_xor(x[0], acc);
                acc = vp_hash8(t8, &f, x);
            }
            in += 16 * VP_POWERS;
            out += 16 * VP_POWERS;
        }
        if (!dec) {
            x[0] = vp_xor(x[0], acc);
            acc = vp_hash8(t8, &f, x);
        }
    }
    if (nblocks > 0) { /* 1..7 blocks, one at a time */
        vp_acc a;
        for (size_t j = 0; j < nblocks; j++) {
            vp8 ks = c, xi;
            c = (vp8)vec_add((vp32)c, VP_ONE);
            vp_aes(rk, nr, &ks, 1);
            xi = vp_load16(in + 16 * j, m); /* once, as in vp_xor8 */
            if (dec)
                RIJN_READ_ONCE_VEC(xi);
            if (!dec)
                xi = vp_xor(ks, xi); /* the ciphertext */
            vp_store16(out + 16 * j, dec ? vp_xor(ks, xi) : xi, m);
            if (j == 0)
                vp_mul_first(&a, vp_xor(xi, acc), t + 3 * (nblocks - 1));
            else
                vp_mul_add(&a, xi, t + 3 * (nblocks - 1 - j));
        }
        acc = vp_reduce(&a);
    }
    vp_store16(y, acc, m);
}

VP_INLINE void vp_fused(const rijn_aes_key *k, const uint64_t *hk,
                        uint8_t y[16], const uint8_t ctr[16], uint8_t *out,
                        const uint8_t *in, size_t nblocks, const int dec)
{
    if (nblocks == 0)
        return;
    if (k->rounds == 10)
        vp_fused_nr(k, hk, y, ctr, out, in, nblocks, dec, 10);
    else if (k->rounds == 12)
        vp_fused_nr(k, hk, y, ctr, out, in, nblocks, dec, 12);
    else
        vp_fused_nr(k, hk, y, ctr, out, in, nblocks, dec, 14);
}

/* The fused kernels run in functions of their own and the stack below is
 * cleared after them: gcc spills vectors (round keys, states, products)
 * to the stack in these loops, and the wipe policy of rijn.h covers what
 * a backend's compiled code copies there (as in ref.c). */
VP_NOINLINE void vp_enc_run(const rijn_aes_key *k, const uint64_t *hk,
                            uint8_t y[16], const uint8_t ctr[16], uint8_t *out,
                            const uint8_t *in, size_t nblocks)
{
    vp_fused(k, hk, y, ctr, out, in, nblocks, 0);
}

VP_NOINLINE void vp_dec_run(const rijn_aes_key *k, const uint64_t *hk,
                            uint8_t y[16], const uint8_t ctr[16], uint8_t *out,
                            const uint8_t *in, size_t nblocks)
{
    vp_fused(k, hk, y, ctr, out, in, nblocks, 1);
}

static void vp_enc_blocks(const rijn_aes_key *k, const uint64_t *hk,
                          uint8_t y[16], const uint8_t ctr[16], uint8_t *out,
                          const uint8_t *in, size_t nblocks)
{
    if (nblocks == 0)
        return;
    vp_enc_run(k, hk, y, ctr, out, in, nblocks);
    rijn_stack_burn(); /* see vp_enc_run */
}

static void vp_dec_blocks(const rijn_aes_key *k, const uint64_t *hk,
                          uint8_t y[16], const uint8_t ctr[16], uint8_t *out,
                          const uint8_t *in, size_t nblocks)
{
    if (nblocks == 0)
        return;
    vp_dec_run(k, hk, y, ctr, out, in, nblocks);
    rijn_stack_burn(); /* see vp_enc_run */
}

RIJN_GHASH_KEY_FITS(VP_KEY_BYTES, "vpmsum's powers of H");
const rijn_ghash_engine rijn_ghash_vpmsum = {
    .base = {.name = "vpmsum", .needs = RIJN_CPU_PPC_CRYPTO | RIJN_CPU_VSX,
             .constant_time = 1, .rank = 50},
    .key_bytes = VP_KEY_BYTES,
    .init = vp_init,
    .blocks = vp_blocks,
    .fused_aes = "ppc8",
    .enc = vp_enc_blocks,
    .dec = vp_dec_blocks,
};

#endif /* __powerpc64__ && __CRYPTO__ && __VSX__ */

/*
 * pclmul: GHASH with PCLMULQDQ on 128-bit registers (Intel Westmere, AMD
 * Bulldozer and later), and AES-GCM kernels fused with the aesni backend.
 *
 * Representation (Gueron and Kounavis, "Intel Carry-Less Multiplication
 * Instruction and its Usage for Computing the GCM Mode", rev. 2.02): a
 * block is byte-reflected (PSHUFB), which puts the coefficient of x^i of
 * GCM's bit order at bit 127 - i of the register, so the register holds
 * the polynomial read backwards. Products of such values are the reversed
 * products; a 256-bit product is reduced modulo the reversed polynomial
 * y^128 + y^127 + y^126 + y^121 + 1 Montgomery-style, dividing by y^128:
 * twice, the low 64 bits L are cancelled by adding L times the polynomial,
 * i.e. one carry-less product L * (y^63 + y^62 + y^57) and a swap of the
 * halves. That division is compensated in the key: H and its powers are
 * stored multiplied by y (H shifted left once, reduced), so no data block
 * ever needs a bit shift.
 *
 * Batch width: 8 blocks per step, with H^1..H^8 precomputed (aggregated
 * reduction, Gopal et al., "Optimized Galois-Counter-Mode Implementation
 * on Intel Architecture Processors": Y' = (Y ^ X1) H^8 ^ X2 H^7 ^ ... ^
 * X8 H, the eight 256-bit products summed unreduced and reduced once).
 * Each product is Karatsuba's three PCLMULQDQ (low halves, high halves,
 * the halves' XORs against the XORs of H^i's halves, precomputed), not
 * schoolbook's four: PCLMULQDQ issues once per two cycles on Zen 3/4 and
 * takes issue slots from AESENC. A tail of n < 8 blocks takes H^n..H^1
 * and one reduction.
 *
 * Fused AES-GCM (with aesni, whose key layout is 16 bytes per round key):
 * the classic stitched loop, 8 blocks per iteration. Encryption runs the
 * AES-CTR rounds of batch i while hashing the ciphertext of batch i - 1
 * (one block's products after each of rounds 1..8, the reduction after
 * round 9); decryption hashes batch i's input while decrypting it. Eight
 * AES states, the three GHASH accumulators and the round key take 12 of
 * the 16 XMM registers; powers of H are memory operands. Counters are
 * kept with their low 32-bit word byte-swapped and stepped with PADDD:
 * exactly inc32, never a carry into byte 11. (Batches aligned to a
 * counter multiple of 8, one PXOR per counter block as in vpclmul-avx2,
 * measured 2% faster encryption but 15% slower decryption here.)
 * The last 1..7 blocks go through aesni's tail batch (aesni.h) and are
 * hashed on their own.
 *
 * One-shot short messages (ghash.h, oneshot: up to 112 bytes of data and
 * 64 of AAD): E(J0) and the keystream as one AES batch of 1 + nd blocks
 * (one copy of the kernel per nd, 0..7), each data block one load (a
 * partial one in 8/4/2/1-byte pieces, in and out), then one aggregated
 * GHASH over AAD, ciphertext and lengths; with 8 powers of H, a message
 * of more than 8 blocks in all reduces its first AAD blocks separately
 * (two reductions).
 *
 * Constant time: PCLMULQDQ, AESENC, PSHUFB, PXOR, PAND, PADDD and shifts
 * only; no branch or memory index depends on the key, H or the data (only
 * on block counts, byte lengths and the key length).
 *
 * hk (192 bytes, 16-byte units): [0..7] y * H^1 .. y * H^8 (reflected);
 * [8..11] the XOR of the two 64-bit halves of each power, two per unit
 * (unit 8 + (i - 1) / 2, qword (i - 1) % 2 for H^i).
 *
 * CPU features: GHASH needs PCLMULQDQ and SSSE3 (its `needs`); the fused
 * kernels also use AES-NI, which the aesni backend they run with has
 * required at key setup.
 */
#include "ghash/ghash.h"
#include "ghash/ghash_x86.h"
#include "inject.h"
#include "aes/x86/aesni.h"

#if defined(RIJN_X86_AESNI)

/* the field arithmetic's target (GX_FEATURES): all GHASH needs */
#define PCLMUL_FEATURES(F) GX_FEATURES(F)
/* also aesni's target (AESNI_FEATURES), whose helpers inline here */
#define PCLMUL_AES_FEATURES(F) PCLMUL_FEATURES(F) F(AESNI, "aes")
#define PM_FN __attribute__((target(RIJN_X86_TARGET(PCLMUL_FEATURES))))
#define PM_INLINE static inline __attribute__((always_inline, \
    target(RIJN_X86_TARGET(PCLMUL_FEATURES))))
#define PA_FN __attribute__((target(RIJN_X86_TARGET(PCLMUL_AES_FEATURES))))
#define PA_INLINE static inline __attribute__((always_inline, \
    target(RIJN_X86_TARGET(PCLMUL_AES_FEATURES))))

#define NPOW 8            /* powers of H in the key */
#define HX (NPOW)         /* first unit of the halves' XORs */
#define KEY_UNITS (NPOW + NPOW / 2)

/* Unreduced 256-bit sum of products: lo (bits 0..127), mi (64..191),
 * hi (128..255); with Karatsuba, mi holds the middle products only until
 * pm_reduce adds lo and hi to it. */
typedef struct {
    __m128i lo, mi, hi;
} pm_acc;

/* Reduce a Karatsuba sum (the Montgomery reduction, gx_fold). */
PM_INLINE __m128i pm_reduce(pm_acc a)
{
    return gx_fold(a.lo, _mm_xor_si128(a.mi, _mm_xor_si128(a.lo, a.hi)), a.hi);
}

/* An empty asm the compiler must assume changes x (emits nothing): it
 * keeps XOR chains in program order (gcc's reassociation otherwise
 * sums all products last, keeping every one live), and, on a pointer,
 * hides what was stored through it so ciphertext is reloaded, not kept
 * in registers from the previous iteration. */
#define PM_KEEP(x) __asm__("" : "+x"(x))
#define PM_OPAQUE(p) __asm__("" : "+r"(p))

PM_INLINE const __m128i *pm_units(const uint64_t *hk)
{
    return (const __m128i *)(const void *)hk;
}

/* acc += x times H^i (1 <= i <= NPOW), Karatsuba; the first product of a
 * batch sets acc (first is a constant at every call site). */
PM_INLINE void pm_madd(pm_acc *acc, const __m128i *k, __m128i x, size_t i,
                       const int first)
{
    const __m128i h = _mm_load_si128(k + i - 1);
    const __m128i hx = _mm_load_si128(k + HX + (i - 1) / 2);
    const __m128i xm = _mm_xor_si128(x, _mm_shuffle_epi32(x, 0x4e));
    const __m128i lo = _mm_clmulepi64_si128(x, h, 0x00);
    const __m128i hi = _mm_clmulepi64_si128(x, h, 0x11);
    /* the halves' XOR of H^i: qword (i - 1) % 2 of its unit */
    const __m128i mi = (i - 1) % 2 ? _mm_clmulepi64_si128(xm, hx, 0x10)
                                   : _mm_clmulepi64_si128(xm, hx, 0x00);

    if (first) {
        acc->lo = lo;
        acc->mi = mi;
        acc->hi = hi;
    } else {
        acc->lo = _mm_xor_si128(acc->lo, lo);
        acc->mi = _mm_xor_si128(acc->mi, mi);
        acc->hi = _mm_xor_si128(acc->hi, hi);
    }
    /* summed here, not regrouped at the end with every product live */
    PM_KEEP(acc->lo);
    PM_KEEP(acc->mi);
    PM_KEEP(acc->hi);
}

/* y (reflected) absorbs n blocks of in (1 <= n <= NPOW): one reduction. */
PM_INLINE __m128i pm_absorb(const __m128i *k, __m128i y, const uint8_t *in,
                            size_t n)
{
    pm_acc a;
    size_t j;

    pm_madd(&a, k, _mm_xor_si128(y, gx_load(in)), n, 1);
    for (j = 1; j < n; j++) /* bug 2 (src/inject.h): H^2 for the last */
        pm_madd(&a, k, gx_load(in + 16 * j),
                n - j + (RIJN_INJECTED(2) && j == n - 1), 0);
    return pm_reduce(a);
}

/* y absorbs NPOW blocks (the constant-count copy of pm_absorb). */
PM_INLINE __m128i pm_absorb8(const __m128i *k, __m128i y, const uint8_t *in)
{
    pm_acc a;
    size_t j;

    pm_madd(&a, k, _mm_xor_si128(y, gx_load(in)), NPOW, 1);
    RIJN_UNROLL(8)
    for (j = 1; j < NPOW; j++)
        pm_madd(&a, k, gx_load(in + 16 * j), NPOW - j, 0);
    return pm_reduce(a);
}

PM_FN static void pclmul_init(uint64_t *hk, const uint8_t h[16])
{
    __m128i *k = (__m128i *)(void *)hk;
    const __m128i x = gx_key_h(h); /* y * H */
    __m128i p;
    size_t i;

    /* y H^i times y H is y H^(i+1): the Montgomery factor y^-128 of the
     * product cancels one y (see the top) */
    p = x;
    _mm_store_si128(k, p);
    for (i = 1; i < NPOW; i++) {
        p = gx_mul(p, x);
        _mm_store_si128(k + i, p);
    }
    for (i = 0; i < NPOW; i += 2) {
        const __m128i a = _mm_load_si128(k + i), b = _mm_load_si128(k + i + 1);
        _mm_store_si128(k + HX + i / 2,
                        _mm_xor_si128(_mm_unpacklo_epi64(a, b),
                                      _mm_unpackhi_epi64(a, b)));
    }
}

PM_FN static void pclmul_blocks(const uint64_t *hk, uint8_t y[16],
                                const uint8_t *in, size_t nblocks)
{
    const __m128i *k = pm_units(hk);
    __m128i acc;

    if (nblocks == 0) /* empty AAD: no round trip of y */
        return;
    acc = gx_load(y);
    for (; nblocks >= NPOW; nblocks -= NPOW, in += 16 * NPOW)
        acc = pm_absorb8(k, acc, in);
    if (nblocks > 0)
        acc = pm_absorb(k, acc, in, nblocks);
    gx_store(y, acc);
}

/* ------------------------------------------------------------------------
 * Fused AES-CTR + GHASH with the aesni key layout
 * --------------------------------------------------------------------- */

/* Counters as in aesni.c: low word byte-swapped (AESNI_SWAP32, aesni.h). */
#define W NPOW /* blocks per iteration */

/* Keeps the compiler from regrouping the rounds (emits nothing). */
#define KEEP_ORDER8(s)                                                   \
    __asm__("" : "+x"((s)[0]), "+x"((s)[1]), "+x"((s)[2]), "+x"((s)[3]), \
                 "+x"((s)[4]), "+x"((s)[5]), "+x"((s)[6]), "+x"((s)[7]))

/* n counter blocks from c, XORed with round key 0; returns c + n. */
PA_INLINE __m128i pa_counters(__m128i c, __m128i *s, __m128i k0,
                              const size_t n)
{
    const __m128i one = _mm_set_epi32(1, 0, 0, 0);
    size_t j;

    RIJN_UNROLL(8)
    for (j = 0; j < n; j++) {
        s[j] = _mm_xor_si128(_mm_shuffle_epi8(c, AESNI_SWAP32), k0);
        c = _mm_add_epi32(c, one);
    }
    return c;
}

/*
 * Round r (constant) of an iteration (pa_step) on the states s, then the
 * GHASH work placed in that round: in rounds 1..8, the product of block
 * r - 1 of g with H^(9 - r) (y added to block 0), in round 9 the
 * reduction into *y. When decrypting (d not NULL, g the input), block
 * r - 1 is loaded once, hashed, and kept in d[r - 1] for the last round:
 * the block hashed is the block decrypted (ghash.h, dec).
 */
PA_INLINE void pa_round(const __m128i *rk, const __m128i *k, const uint8_t *g,
                        __m128i *s, pm_acc *a, __m128i *y, __m128i *d,
                        const unsigned r, const int hash)
{
    const __m128i kr = _mm_load_si128(rk + r);
    size_t j;

    for (j = 0; j < W; j++)
        s[j] = _mm_aesenc_si128(s[j], kr);
    if (hash && r <= W) {
        const size_t b = r - 1;
        __m128i x;
        if (d != NULL) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(g + 16 * b));
            RIJN_READ_ONCE_VEC(v);
            /* kept in memory, not in a register: the empty asm hides
             * d[b]'s value, so it is stored now and loaded at the end.
             * The input alone, the last round key added there (as when
             * encrypting): stored with the key added, as it was, it had
             * to be wiped after the loop (with the ciphertext it gives
             * the key), and AES-256 decryption ran 4% slower (Zen 4) */
            d[b] = v;
            __asm__("" : "+m"(d[b]));
            x = _mm_shuffle_epi8(v, GX_BSWAP128);
        } else {
            x = gx_load(g + 16 * b);
        }
        if (b == 0)
            x = _mm_xor_si128(x, *y);
        pm_madd(a, k, x, W - b, b == 0);
    }
    if (hash && r == W + 1)
        *y = pm_reduce(*a);
    KEEP_ORDER8(s);
}

/*
 * One iteration: 8 counter blocks through AES (out = in ^ keystream),
 * interleaved with the GHASH of the 8 blocks at g: the previous batch's
 * ciphertext (encrypting: g is cb, the caller's copy of it, read in the
 * rounds before the last round writes this batch's ciphertext to out and
 * to cb), or, decrypting (dec), this batch's input, each block loaded
 * once for both its product and the last round (pa_round stores it to
 * the stack at once and the last round reads it from there: 8 states, 3
 * sums and a round key leave too few of the 16 XMM to keep the eight,
 * and left to itself gcc 12 spilled the GHASH sums instead, 6-10% slower
 * than this). That buffer, dv, is the caller's; it holds the input
 * only. The rounds
 * are written out rather than left to the compiler's unrolling (clang 14
 * kept such a loop rolled). Returns the new GHASH state.
 */
PA_INLINE __m128i pa_step(const __m128i *rk, const __m128i *k, uint8_t *out,
                          const uint8_t *in, const uint8_t *g, __m128i *c,
                          __m128i y, const unsigned nr, const int hash,
                          __m128i *dv, __m128i *cb)
{
    __m128i s[W], *d = dv;
    pm_acc a;
    size_t j;

    PM_OPAQUE(g);
    *c = pa_counters(*c, s, _mm_load_si128(rk), W);
    pa_round(rk, k, g, s, &a, &y, d, 1, hash);
    pa_round(rk, k, g, s, &a, &y, d, 2, hash);
    pa_round(rk, k, g, s, &a, &y, d, 3, hash);
    pa_round(rk, k, g, s, &a, &y, d, 4, hash);
    pa_round(rk, k, g, s, &a, &y, d, 5, hash);
    pa_round(rk, k, g, s, &a, &y, d, 6, hash);
    pa_round(rk, k, g, s, &a, &y, d, 7, hash);
    pa_round(rk, k, g, s, &a, &y, d, 8, hash);
    pa_round(rk, k, g, s, &a, &y, d, 9, hash); /* the reduction */
    if (nr > 10) {
        pa_round(rk, k, g, s, &a, &y, d, 10, hash);
        pa_round(rk, k, g, s, &a, &y, d, 11, hash);
    }
    if (nr > 12) {
        pa_round(rk, k, g, s, &a, &y, d, 12, hash);
        pa_round(rk, k, g, s, &a, &y, d, 13, hash);
    }
    for (j = 0; j < W; j++) {
        const __m128i o = _mm_aesenclast_si128(s[j], _mm_xor_si128(
            _mm_load_si128(rk + nr), dv != NULL ? dv[j] :
            _mm_loadu_si128((const __m128i *)(const void *)(in + 16 * j))));
        _mm_storeu_si128((__m128i *)(void *)(out + 16 * j), o);
        if (cb != NULL)
            cb[j] = o;
    }
    return y;
}

/* CTR on m < W blocks as one batch of 2, 4 or 8 (no GHASH), aesni's
 * (aesni.h). */
PA_INLINE void pa_ctr_tail(const __m128i *rk, uint8_t *out, const uint8_t *in,
                           __m128i c, size_t m, const unsigned nr)
{
    if (m > 4)
        aesni_ctr_batch(rk, nr, out, in, c, 8, m);
    else if (m > 2)
        aesni_ctr_batch(rk, nr, out, in, c, 4, m);
    else if (m > 0)
        aesni_ctr_batch(rk, nr, out, in, c, 2, m);
}

/* The whole-batch loop for one round count (nr constant: rounds unroll). */
PA_INLINE __m128i pa_loop(const __m128i *rk, const __m128i *k, uint8_t *out,
                          const uint8_t *in, size_t nbatches, __m128i *c,
                          __m128i y, const unsigned nr, const int decrypt)
{
    /* encrypting, cb: the last batch's ciphertext, as made (8 states, 3
     * sums and a round key leave no 8 XMM to keep it in), hashed from
     * there and never read back from out, where another writer would
     * choose what the tag covers; it holds nothing secret */
    RIJN_ALIGN(16) __m128i cb[W];

    if (decrypt) {
        __m128i dv[W]; /* pa_step's: the input, nothing secret */
        for (; nbatches > 0; nbatches--, in += 16 * W, out += 16 * W)
            y = pa_step(rk, k, out, in, in, c, y, nr, 1, dv, NULL);
        return y;
    }
    /* encrypt: batch i is hashed during batch i + 1 (pa_step reads cb in
     * its rounds, then overwrites it); the last one after */
    y = pa_step(rk, k, out, in, NULL, c, y, nr, 0, NULL, cb);
    for (nbatches--; nbatches > 0; nbatches--, in += 16 * W, out += 16 * W)
        y = pa_step(rk, k, out + 16 * W, in + 16 * W,
                    (const uint8_t *)(const void *)cb, c, y, nr, 1, NULL, cb);
    return pm_absorb8(k, y, (const uint8_t *)(const void *)cb);
}

PA_INLINE void pa_crypt(const rijn_aes_key *key, const uint64_t *hk,
                        uint8_t y[16], const uint8_t ctr[16], uint8_t *out,
                        const uint8_t *in, size_t nblocks, const int decrypt)
{
    const __m128i *rk = (const __m128i *)(const void *)key->rk;
    const __m128i *k = pm_units(hk);
    const unsigned nr = key->rounds;
    __m128i c = _mm_shuffle_epi8(rijn_x86_load_ctr(ctr), AESNI_SWAP32);
    __m128i acc = gx_load(y);
    const size_t nb = nblocks / W, rest = nblocks % W;

    if (nb > 0) {
        if (nr == 10)
            acc = pa_loop(rk, k, out, in, nb, &c, acc, 10, decrypt);
        else if (nr == 12)
            acc = pa_loop(rk, k, out, in, nb, &c, acc, 12, decrypt);
        else
            acc = pa_loop(rk, k, out, in, nb, &c, acc, 14, decrypt);
        in += 16 * W * nb;
        out += 16 * W * nb;
    }
    if (rest > 0 && decrypt) {
        /* 1..7 blocks, a run-time count: copied once to the stack (where
         * registers indexed at run time would live anyway), then hashed
         * and decrypted from the copy */
        RIJN_ALIGN(16) uint8_t t[16 * (W - 1)];
        memcpy(t, in, 16 * rest);
        __asm__ __volatile__("" : : "r"(t) : "memory"); /* t, not in, below */
        acc = pm_absorb(k, acc, t, rest);
        pa_ctr_tail(rk, out, t, c, rest, nr);
    } else if (rest > 0) {
        /* made on the stack, hashed there, then copied: never read back
         * from out */
        RIJN_ALIGN(16) uint8_t t[16 * (W - 1)];
        pa_ctr_tail(rk, t, in, c, rest, nr);
        acc = pm_absorb(k, acc, t, rest);
        memcpy(out, t, 16 * rest);
    }
    gx_store(y, acc);
}

__attribute__((noinline)) PA_FN static void pclmul_enc(const rijn_aes_key *key, const uint64_t *hk,
                             uint8_t y[16], const uint8_t ctr[16],
                             uint8_t *out, const uint8_t *in, size_t nblocks)
{
    pa_crypt(key, hk, y, ctr, out, in, nblocks, 0);
}

__attribute__((noinline)) PA_FN static void pclmul_dec(const rijn_aes_key *key, const uint64_t *hk,
                             uint8_t y[16], const uint8_t ctr[16],
                             uint8_t *out, const uint8_t *in, size_t nblocks)
{
    pa_crypt(key, hk, y, ctr, out, in, nblocks, 1);
}

/* ------------------------------------------------------------------------
 * One-shot short messages (ghash.h, oneshot)
 * --------------------------------------------------------------------- */

/* acc += x times H^i, the power i (1 <= i <= NPOW) known only at run time
 * (it follows from the AAD length): the halves' XOR of H^i is the qword
 * i - 1 from unit HX, one 8-byte load. */
PM_INLINE void pm_madd_at(pm_acc *acc, const uint64_t *hk, __m128i x,
                          size_t i)
{
    const __m128i h = _mm_load_si128(pm_units(hk) + i - 1);
    const __m128i hx = _mm_loadl_epi64(
        (const __m128i *)(const void *)(hk + 2 * HX + (i - 1)));
    const __m128i xm = _mm_xor_si128(x, _mm_shuffle_epi32(x, 0x4e));

    acc->lo = _mm_xor_si128(acc->lo, _mm_clmulepi64_si128(x, h, 0x00));
    acc->mi = _mm_xor_si128(acc->mi, _mm_clmulepi64_si128(xm, hx, 0x00));
    acc->hi = _mm_xor_si128(acc->hi, _mm_clmulepi64_si128(x, h, 0x11));
    PM_KEEP(acc->lo);
    PM_KEEP(acc->mi);
    PM_KEEP(acc->hi);
}

/* Block b of the n bytes at p (16 b < n), zero past n, each byte loaded
 * once. Not byte-reflected. (Written as a ?: of two helpers, this made
 * gcc 12 spill XMM registers 67 times in pclmul_oneshot instead of 27:
 * decryption of 100-112 bytes 4-6% slower.) */
PM_INLINE __m128i pm_block(const uint8_t *p, size_t n, size_t b)
{
    __m128i v;

    if (16 * b + 16 > n)
        return gx_load_partial(p + 16 * b, n - 16 * b);
    v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * b));
    RIJN_READ_ONCE_VEC(v);
    return v;
}

/* 1 + nd states fit one batch of NPOW, the data blocks' powers are in the
 * key, and so are the first group's (at most 4 + 7 + 1 - NPOW blocks) */
_Static_assert(RIJN_GCM_SHORT_DATA <= 16 * (NPOW - 1) &&
               RIJN_GCM_SHORT_AAD <= 16 * NPOW,
               "pclmul's oneshot: short messages too long");

/*
 * ghash.h, oneshot, for nd data blocks (0 <= nd < NPOW, constant): J0 and
 * J0 + 1 .. J0 + nd as one AES batch of 1 + nd states (aesni's rolled
 * rounds); data block j is one 16-byte load (a partial last block in
 * pieces, pm_load_partial), XORed into the last round and, decrypting,
 * hashed as loaded. One GHASH over the nt = na + nd + 1 blocks (AAD,
 * ciphertext, lengths), block b times H^(nt - b), Karatsuba, one
 * reduction. The key holds H^1..H^8 only: past 8 blocks (AAD of 49 to 64
 * bytes with 49 or more of data, ..., AAD of 1 to 16 with 97 or more),
 * the first m = nt - 8, all AAD (nd < 8), are summed with H^m..H^1 and
 * reduced on their own into y1, which block m then absorbs (Horner's
 * step between two aggregated groups). The AAD does not wait for the
 * AES, so that reduction runs beside it; the lengths block and the AAD
 * are hashed first for the same reason.
 */
PA_INLINE void pa_oneshot_n(const rijn_aes_key *key, const uint64_t *hk,
                            const uint8_t j0[16], uint8_t *out,
                            const uint8_t *in, size_t len,
                            const uint8_t *aad, size_t aad_len, int decrypt,
                            uint8_t tag[16], const size_t nd)
{
    const __m128i *rk = (const __m128i *)(const void *)key->rk;
    const __m128i *k = pm_units(hk);
    const __m128i bswap = GX_BSWAP128;
    const size_t rest = len % 16, na = (aad_len + 15) / 16;
    const size_t nt = na + nd + 1, m = nt > NPOW ? nt - NPOW : 0;
    /* the first rest bytes of a block (when rest > 0) */
    const __m128i keep = gx_keep(rest);
    __m128i s[NPOW], kl, y1 = _mm_setzero_si128();
    pm_acc a;
    size_t b, j;

    /* s[0] = J0, s[1 + j] = inc32 of it j + 1 times */
    aesni_counters(_mm_shuffle_epi8(rijn_x86_load_ctr(j0), AESNI_SWAP32), s,
                   nd + 1);
    aesni_rounds(rk, key->rounds, s, nd + 1);
    kl = _mm_load_si128(rk + key->rounds);

    /* the lengths block (reflected: the bit lengths as two qwords) */
    pm_madd(&a, k, _mm_set_epi64x((long long)((uint64_t)aad_len * 8),
                                  (long long)((uint64_t)len * 8)), 1, 1);
    if (m > 0) {
        pm_acc a1;
        a1.lo = a1.mi = a1.hi = _mm_setzero_si128();
        for (b = 0; b < m; b++)
            pm_madd_at(&a1, hk,
                       _mm_shuffle_epi8(pm_block(aad, aad_len, b), bswap),
                       m - b);
        y1 = pm_reduce(a1);
    }
    for (b = m; b < na; b++) {
        __m128i x = _mm_shuffle_epi8(pm_block(aad, aad_len, b), bswap);
        if (b == m) /* y1 is zero when m = 0 */
            x = _mm_xor_si128(x, y1);
        pm_madd_at(&a, hk, x, nt - b);
    }

    RIJN_UNROLL(8)
    for (j = 0; j < nd; j++) {
        const int partial = j + 1 == nd && rest > 0;
        const __m128i d = pm_block(in, len, j);
        const __m128i o = _mm_aesenclast_si128(s[1 + j], _mm_xor_si128(kl, d));
        /* decrypting, what was decrypted; else the ciphertext, a partial
         * block's keystream bytes cleared */
        __m128i x = decrypt ? d : partial ? _mm_and_si128(o, keep) : o;

        if (partial) {
            gx_store_partial(out + 16 * j, o, rest);
        } else {
            _mm_storeu_si128((__m128i *)(void *)(out + 16 * j), o);
        }
        x = _mm_shuffle_epi8(x, bswap);
        if (j == 0 && nd + 1 == NPOW) /* m = na: y1 goes to data block 0 */
            x = _mm_xor_si128(x, y1);
        pm_madd(&a, k, x, nd + 1 - j, 0);
    }
    _mm_storeu_si128((__m128i *)(void *)tag,
                     _mm_xor_si128(_mm_shuffle_epi8(pm_reduce(a), bswap),
                                   _mm_aesenclast_si128(s[0], kl)));
}

PA_FN static void pclmul_oneshot(const rijn_aes_key *key, const uint64_t *hk,
                                 const uint8_t j0[16], uint8_t *out,
                                 const uint8_t *in, size_t len,
                                 const uint8_t *aad, size_t aad_len,
                                 int decrypt, uint8_t tag[16])
{
    /* nd = 0..7 blocks, each a constant for pa_oneshot_n */
#define PA_ONESHOT(nd) \
    pa_oneshot_n(key, hk, j0, out, in, len, aad, aad_len, decrypt, tag, nd)
    switch ((len + 15) / 16) {
    case 0: PA_ONESHOT(0); break;
    case 1: PA_ONESHOT(1); break;
    case 2: PA_ONESHOT(2); break;
    case 3: PA_ONESHOT(3); break;
    case 4: PA_ONESHOT(4); break;
    case 5: PA_ONESHOT(5); break;
    case 6: PA_ONESHOT(6); break;
    default: PA_ONESHOT(7); break; /* 7: RIJN_GCM_SHORT_DATA */
    }
#undef PA_ONESHOT
}

/* ------------------------------------------------------------------------
 * The end of a one-shot message (ghash.h, last)
 * --------------------------------------------------------------------- */

/*
 * The last len bytes (m = ceil(len / 16) <= NPOW blocks, a partial last
 * one included) as one batch of n states (n >= m, constant) from the
 * counter c (low word native). y absorbs the ciphertext, each block's
 * products taken as it is stored, and the lengths block, under one
 * reduction (with NPOW blocks of data H^9 is not in the key: one
 * single-block product after it); the tag is y XOR what the tag's place
 * holds (E(J0)). Each input byte is loaded once.
 */
PA_INLINE void pa_end_n(const __m128i *rk, const uint64_t *hk, uint8_t *out,
                        const uint8_t *in, size_t len, __m128i c, __m128i y,
                        __m128i lens, uint8_t tag[16], const unsigned nr,
                        const size_t n, const int decrypt)
{
    const size_t m = (len + 15) / 16, full = len / 16, rest = len % 16;
    const size_t nt = m < NPOW ? m + 1 : m; /* blocks under the reduction */
    __m128i s[8];
    pm_acc a;
    size_t j;

    aesni_counters(c, s, n);
    aesni_rounds(rk, nr, s, n);
    a.lo = a.mi = a.hi = _mm_setzero_si128();
    RIJN_UNROLL(8)
    for (j = 0; j < n; j++) {
        if (j >= m)
            continue;
        const __m128i d = pm_block(in, len, j);
        const __m128i o = _mm_aesenclast_si128(
            s[j], _mm_xor_si128(_mm_load_si128(rk + nr), d));
        __m128i h = decrypt ? d : o;

        if (j < full) {
            _mm_storeu_si128((__m128i *)(void *)(out + 16 * j), o);
        } else {
            gx_store_partial(out + 16 * j, o, rest);
            if (!decrypt) /* the keystream past the data cleared */
                h = _mm_and_si128(o, gx_keep(rest));
        }
        h = _mm_shuffle_epi8(h, GX_BSWAP128);
        if (j == 0)
            h = _mm_xor_si128(h, y);
        pm_madd_at(&a, hk, h, nt - j);
    }
    if (m < NPOW) /* the lengths block, times H */
        pm_madd_at(&a, hk, m == 0 ? _mm_xor_si128(lens, y) : lens, 1);
    y = pm_reduce(a);
    if (m == NPOW)
        y = gx_mul(_mm_xor_si128(y, lens), _mm_load_si128(pm_units(hk)));
    gx_tag_xor(tag, _mm_shuffle_epi8(y, GX_BSWAP128));
}

/* ghash.h, last: E(J0) first, into the tag's place (the tag overwrites
 * it; beside the end batch's rounds, kept in a register, gcc spilled it
 * to the stack), whole batches through pa_crypt, then the last 0..8
 * blocks (a partial one included) in pa_end_n. */
PA_FN static void pclmul_last(const rijn_aes_key *key, const uint64_t *hk,
                              uint8_t y[16], const uint8_t ctr[16],
                              const uint8_t j0[16], uint8_t *out,
                              const uint8_t *in, size_t len,
                              const uint8_t *aad, uint64_t aad_len,
                              int decrypt, uint8_t tag[16])
{
    const __m128i *rk = (const __m128i *)(const void *)key->rk;
    const unsigned nr = key->rounds;
    const size_t nb = (len + 15) / 16;
    /* the end batch: the blocks after the last whole batch, or that
     * batch if it holds the partial block (whole batches stay in the
     * loop, where decryption hashes them beside their AES) */
    const size_t m = nb % W == 0 && len % 16 != 0 ? W : nb % W, pre = nb - m;
    const __m128i lens = _mm_set_epi64x((long long)(aad_len * 8),
                                        (long long)((uint64_t)len * 8));
    const __m128i c = _mm_add_epi32(
        _mm_shuffle_epi8(rijn_x86_load_ctr(ctr), AESNI_SWAP32),
        _mm_set_epi32((int)pre, 0, 0, 0));
    __m128i acc, e[1] = {rijn_x86_load_ctr(j0)};

    if (aad != NULL)
        gx_last_aad(pclmul_blocks, hk, y, aad, aad_len);
    aesni_rounds(rk, nr, e, 1);
    _mm_storeu_si128((__m128i *)(void *)tag,
                     _mm_aesenclast_si128(e[0], _mm_load_si128(rk + nr)));
    __asm__("" : : "r"(tag) : "memory");
    /* whole batches: a call (inlined here, the loop spilled with this
     * function's values live around it: decryption 10-18% slower) */
    if (pre > 0)
        (decrypt ? pclmul_dec : pclmul_enc)(key, hk, y, ctr, out, in, pre);
    acc = gx_load(y);
    in += 16 * pre;
    out += 16 * pre;
    len -= 16 * pre;
    if (m > 4)
        pa_end_n(rk, hk, out, in, len, c, acc, lens, tag, nr, 8, decrypt);
    else if (m > 2)
        pa_end_n(rk, hk, out, in, len, c, acc, lens, tag, nr, 4, decrypt);
    else if (m > 1)
        pa_end_n(rk, hk, out, in, len, c, acc, lens, tag, nr, 2, decrypt);
    else
        pa_end_n(rk, hk, out, in, len, c, acc, lens, tag, nr, 1, decrypt);
}

RIJN_GHASH_KEY_FITS(KEY_UNITS * 16, "pclmul's powers of H");
const rijn_ghash_engine rijn_ghash_pclmul = {
    .base = {.name = "pclmul", .needs = RIJN_X86_NEEDS(PCLMUL_FEATURES),
             .constant_time = 1, .rank = 20},
    .key_bytes = KEY_UNITS * 16,
    .init = pclmul_init,
    .blocks = pclmul_blocks,
    .fused_aes = "aesni",
    .enc = pclmul_enc,
    .dec = pclmul_dec,
    .oneshot = pclmul_oneshot,
    .last = pclmul_last,
};

#else
typedef int rijn_ghash_pclmul_not_built; /* ISO C wants a non-empty file */
#endif

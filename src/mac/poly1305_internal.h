/*
 * Poly1305 engine contract, and the scalar radix-2^64 arithmetic that the
 * poly64, avx2 and avx512ifma engines share (the SIMD engines keep their
 * accumulator in this form between calls and for short inputs).
 */
#ifndef RIJN_POLY1305_INTERNAL_H
#define RIJN_POLY1305_INTERNAL_H

#include "internal.h"
#include "rijn_poly1305.h"

/*
 * An engine: one const struct in one file under src/mac/, one
 * rijn_impl(POLY1305 ...) line in CMakeLists.txt. `st` is
 * rijn_poly1305_ctx.st (48 words, 64-byte aligned), in the engine's own
 * layout.
 *
 *   init    st := accumulator 0, r = clamp(r16) (r16 may be unclamped).
 *   blocks  absorb nblocks 16-byte blocks; hibit is 1 for whole message
 *           blocks (2^128 added to each) and 0 for the final padded block.
 *   finish  tag = (h mod 2^130-5) + pad mod 2^128, then zero every word
 *           of st the engine used (so that callers need not wipe all 48).
 */
typedef struct rijn_poly1305_engine {
    rijn_impl base;
    void (*init)(uint64_t *st, const uint8_t r16[16]);
    void (*blocks)(uint64_t *st, const uint8_t *m, size_t nblocks,
                   unsigned hibit);
    void (*finish)(uint64_t *st, uint8_t tag[16], const uint8_t pad[16]);
} rijn_poly1305_engine;

#define RIJN_POLY1305_ST_WORDS 48
_Static_assert(sizeof(((rijn_poly1305_ctx *)0)->st) ==
                   RIJN_POLY1305_ST_WORDS * sizeof(uint64_t),
               "rijn_poly1305_ctx.st is the engines' 48 words");

#if defined(__SIZEOF_INT128__)
#define RIJN_HAVE_U128 1

typedef unsigned __int128 rijn_u128;

/*
 * Radix 2^64 state (st words):
 *   0..2  h = h0 + h1 2^64 + h2 2^128, h2 small (< 8) between blocks
 *   3..4  r = r0 + r1 2^64 (clamped: r0 < 2^60, r1 < 2^60, 4 | r1)
 *   5     s1 = r1 + r1/4 (= 5 r1 / 4, so that r1 2^128 == s1 mod p)
 *   6     engine flags (the SIMD engines: powers of r computed)
 *   8..   engine use (powers of r in the SIMD radix)
 *
 * Multiplier assumption: 64x64->128 multiplication (MUL/MULX on x86-64,
 * MULHDU on POWER, UMULH on AArch64) takes the same time for all operands.
 */
enum { P64_H0, P64_H1, P64_H2, P64_R0, P64_R1, P64_S1, P64_FLAGS };

static inline void p64_init(uint64_t *st, const uint8_t r16[16])
{
    st[P64_H0] = st[P64_H1] = st[P64_H2] = 0;
    st[P64_R0] = rijn_load64_le(r16) & 0x0ffffffc0fffffffULL;
    st[P64_R1] = rijn_load64_le(r16 + 8) & 0x0ffffffc0ffffffcULL;
    st[P64_S1] = st[P64_R1] + (st[P64_R1] >> 2);
    st[P64_FLAGS] = 0;
}

/* h = h * r mod p (partially reduced). Precondition h2 < 8; result
 * h2 <= 4. h2 s1 < 2^64 and h2 r0 < 2^64 because h2 < 8 and r0, s1 <
 * 2^60.4, so those two products stay in 64 bits. */
static inline void p64_mul(uint64_t *h0, uint64_t *h1, uint64_t *h2,
                           uint64_t r0, uint64_t r1, uint64_t s1)
{
    rijn_u128 d0, d1;
    uint64_t d2, c, lo, carry;

    d0 = (rijn_u128)*h0 * r0 + (rijn_u128)*h1 * s1;
    d1 = (rijn_u128)*h0 * r1 + (rijn_u128)*h1 * r0 +
         (uint64_t)(*h2 * s1 + (uint64_t)(d0 >> 64));
    d2 = *h2 * r0 + (uint64_t)(d1 >> 64);
    /* h = d0lo + d1lo 2^64 + d2 2^128; fold the bits above 2^130 (x5). */
    c = (d2 >> 2) + (d2 & ~(uint64_t)3);
    lo = (uint64_t)d0 + c;
    carry = lo < c;
    *h0 = lo;
    lo = (uint64_t)d1 + carry;
    carry = lo < carry;
    *h1 = lo;
    *h2 = (d2 & 3) + carry;
}

static inline void p64_blocks(uint64_t *st, const uint8_t *m, size_t nblocks,
                              unsigned hibit)
{
    uint64_t h0 = st[P64_H0], h1 = st[P64_H1], h2 = st[P64_H2];
    const uint64_t r0 = st[P64_R0], r1 = st[P64_R1], s1 = st[P64_S1];

    while (nblocks--) {
        uint64_t m0 = rijn_load64_le(m), m1 = rijn_load64_le(m + 8), c;
        h0 += m0;
        c = h0 < m0;
        h1 += c;
        c = h1 < c;
        h1 += m1;
        c += h1 < m1;
        h2 += c + hibit;
        p64_mul(&h0, &h1, &h2, r0, r1, s1);
        m += 16;
    }
    st[P64_H0] = h0;
    st[P64_H1] = h1;
    st[P64_H2] = h2;
}

/* Fold the bits of h from 2^130 up back in (2^130 = 5 mod p): then h2 is
 * at most 3 plus a carry, h < 2^130 + 2^64. */
static inline void p64_fold(uint64_t *h0, uint64_t *h1, uint64_t *h2)
{
    rijn_u128 t = (rijn_u128)*h0 + (*h2 >> 2) * 5;

    *h2 &= 3;
    *h0 = (uint64_t)t;
    t = (rijn_u128)*h1 + (uint64_t)(t >> 64);
    *h1 = (uint64_t)t;
    *h2 += (uint64_t)(t >> 64);
}

/* tag = (h mod p) + pad mod 2^128, by masks. h < 2p here (h2 <= 4). */
static inline void p64_finish(uint64_t *st, uint8_t tag[16],
                              const uint8_t pad[16])
{
    uint64_t h0 = st[P64_H0], h1 = st[P64_H1], h2 = st[P64_H2];
    uint64_t g0, g1, g2, mask;
    rijn_u128 t;

    p64_fold(&h0, &h1, &h2);
    /* g = h + 5 - 2^130; keep g if it is not negative (h >= p). */
    t = (rijn_u128)h0 + 5;
    g0 = (uint64_t)t;
    t = (rijn_u128)h1 + (uint64_t)(t >> 64);
    g1 = (uint64_t)t;
    g2 = h2 + (uint64_t)(t >> 64);
    mask = (uint64_t)0 - (g2 >> 2); /* all ones when h + 5 >= 2^130 */
    h0 = (h0 & ~mask) | (g0 & mask);
    h1 = (h1 & ~mask) | (g1 & mask);
    t = (rijn_u128)h0 + rijn_load64_le(pad);
    rijn_store64_le(tag, (uint64_t)t);
    rijn_store64_le(tag + 8,
                    h1 + rijn_load64_le(pad + 8) + (uint64_t)(t >> 64));
    /* zero h, r, s1 and the flags (the SIMD engines wipe their powers) */
    rijn_burn(st, 8 * sizeof st[0]);
}

/* r^k for k = 1..n into pw[k-1][0..2] as radix-2^64 triples (partially
 * reduced: value < 2^131). Public-data loop bounds only. */
static inline void p64_powers(const uint64_t *st, uint64_t pw[][3], int n)
{
    uint64_t h0 = st[P64_R0], h1 = st[P64_R1], h2 = 0;
    for (int k = 0; k < n; k++) {
        if (k > 0)
            p64_mul(&h0, &h1, &h2, st[P64_R0], st[P64_R1], st[P64_S1]);
        pw[k][0] = h0;
        pw[k][1] = h1;
        pw[k][2] = h2;
    }
}
#endif /* __SIZEOF_INT128__ */

/* The x86-64 SIMD engines (avx2, avx512ifma): gcc or clang on x86-64. */
#if defined(RIJN_HAVE_U128) && defined(__x86_64__) && \
    (defined(__GNUC__) || defined(__clang__))
#define RIJN_POLY1305_X86 1
#endif

#ifdef RIJN_POLY1305_X86
/*
 * blocks() of a vector engine: inputs of min_blocks full blocks or more go
 * through vec (after powers, once per key: the flags word says), which
 * returns how many blocks it took and leaves h in st; the rest, short
 * inputs and the padded last block (hibit 0) take the scalar code. Which
 * path runs depends on the length only, which is public.
 */
static inline void p64_vec_blocks(uint64_t *st, const uint8_t *m,
                                  size_t nblocks, unsigned hibit,
                                  size_t min_blocks,
                                  void (*powers)(uint64_t *st),
                                  size_t (*vec)(uint64_t *st,
                                                const uint8_t *m,
                                                size_t nblocks))
{
    if (nblocks >= min_blocks && hibit) {
        size_t done;
        if (!st[P64_FLAGS])
            powers(st);
        done = vec(st, m, nblocks);
        m += 16 * done;
        nblocks -= done;
    }
    p64_blocks(st, m, nblocks, hibit);
}

/* h = h0 + h1 2^64 + h2 2^128, a vector engine's lanes summed (h2 may be
 * large), back into st, folded. */
static inline void p64_store_folded(uint64_t *st, uint64_t h0, uint64_t h1,
                                    uint64_t h2)
{
    p64_fold(&h0, &h1, &h2);
    st[P64_H0] = h0;
    st[P64_H1] = h1;
    st[P64_H2] = h2;
}
#endif /* RIJN_POLY1305_X86 */

#endif /* RIJN_POLY1305_INTERNAL_H */

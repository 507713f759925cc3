/*
 * poly32: portable Poly1305 in radix 2^26 for every host, and the engine of
 * 32-bit CPUs such as the PowerPC G4. One block at a time: h and r are five
 * 26-bit limbs; h r mod 2^130-5 takes 25 products of 32x32->64 bits, with
 * the limbs of r above the first pre-multiplied by 5 (2^130 == 5).
 *
 * Limb bounds: between blocks h0..h4 < 2^26, except h1 < 2^26 + 2^10;
 * with a message block added each limb is < 2^27, every product is
 * < 2^27 * 5 * 2^26 < 2^56 and a sum of five < 2^59 fits in 64 bits.
 *
 * Constant time: assumes 32x32->64 multiplication with operand-independent
 * latency (true of the G4's mullw/mulhwu and of 64-bit CPUs); no branch or
 * memory index depends on the key or the message, and the final reduction
 * selects with masks.
 */
#include "inject.h"
#include "mac/poly1305_internal.h"

/* st words: 0..4 h, 5..9 r, 10..13 5*r1..5*r4. */
enum { H = 0, R = 5, S = 10 };
#define M26 0x3ffffffu

static void poly32_init(uint64_t *st, const uint8_t r16[16])
{
    uint32_t t0 = rijn_load32_le(r16), t1 = rijn_load32_le(r16 + 4);
    uint32_t t2 = rijn_load32_le(r16 + 8), t3 = rijn_load32_le(r16 + 12);
    int i;

    /* clamp: r &= 0x0ffffffc0ffffffc0ffffffc0fffffff, then split */
    st[R + 0] = t0 & 0x3ffffff;
    st[R + 1] = ((t0 >> 26) | (t1 << 6)) & 0x3ffff03;
    st[R + 2] = ((t1 >> 20) | (t2 << 12)) & 0x3ffc0ff;
    st[R + 3] = ((t2 >> 14) | (t3 << 18)) & 0x3f03fff;
    st[R + 4] = (t3 >> 8) & 0x00fffff;
    for (i = 1; i < 5; i++)
        st[S + i - 1] = st[R + i] * 5;
    for (i = 0; i < 5; i++)
        st[H + i] = 0;
}

static void poly32_blocks(uint64_t *st, const uint8_t *m, size_t nblocks,
                          unsigned hibit)
{
    const uint32_t r0 = (uint32_t)st[R + 0], r1 = (uint32_t)st[R + 1],
                   r2 = (uint32_t)st[R + 2], r3 = (uint32_t)st[R + 3],
                   r4 = (uint32_t)st[R + 4];
    const uint32_t s1 = (uint32_t)st[S + 0], s2 = (uint32_t)st[S + 1],
                   s3 = (uint32_t)st[S + 2], s4 = (uint32_t)st[S + 3];
    uint32_t h0 = (uint32_t)st[H + 0], h1 = (uint32_t)st[H + 1],
             h2 = (uint32_t)st[H + 2], h3 = (uint32_t)st[H + 3],
             h4 = (uint32_t)st[H + 4];
    const uint32_t hb = (uint32_t)hibit << 24;

    while (nblocks--) {
        uint32_t m0 = rijn_load32_le(m), m1 = rijn_load32_le(m + 4);
        uint32_t m2 = rijn_load32_le(m + 8), m3 = rijn_load32_le(m + 12);
        uint64_t d0, d1, d2, d3, d4;
        uint32_t c;

        h0 += m0 & M26;
        h1 += ((m0 >> 26) | (m1 << 6)) & M26;
        h2 += ((m1 >> 20) | (m2 << 12)) & M26;
        h3 += ((m2 >> 14) | (m3 << 18)) & M26;
        h4 += (m3 >> 8) | hb;

        d0 = (uint64_t)h0 * r0 + (uint64_t)h1 * s4 + (uint64_t)h2 * s3 +
             (uint64_t)h3 * s2 + (uint64_t)h4 * s1;
        d1 = (uint64_t)h0 * r1 + (uint64_t)h1 * r0 + (uint64_t)h2 * s4 +
             (uint64_t)h3 * s3 + (uint64_t)h4 * s2;
        d2 = (uint64_t)h0 * r2 + (uint64_t)h1 * r1 + (uint64_t)h2 * r0 +
             (uint64_t)h3 * s4 + (uint64_t)h4 * s3;
        d3 = (uint64_t)h0 * r3 + (uint64_t)h1 * r2 + (uint64_t)h2 * r1 +
             (uint64_t)h3 * r0 + (uint64_t)h4 * s4;
        d4 = (uint64_t)h0 * r4 + (uint64_t)h1 * r3 + (uint64_t)h2 * r2 +
             (uint64_t)h3 * r1 + (uint64_t)h4 * r0;

        h0 = (uint32_t)d0 & M26;
        d1 += d0 >> 26;
        h1 = (uint32_t)d1 & M26;
        d2 += d1 >> 26;
        h2 = (uint32_t)d2 & M26;
        d3 += d2 >> 26;
        h3 = (uint32_t)d3 & M26;
        d4 += d3 >> 26;
        h4 = (uint32_t)d4 & M26;
        d0 = (uint64_t)h0 + (d4 >> 26) * 5;
        h0 = (uint32_t)d0 & M26;
        c = (uint32_t)(d0 >> 26);
        h1 += c;
        m += 16;
    }
    st[H + 0] = h0;
    st[H + 1] = h1;
    st[H + 2] = h2;
    st[H + 3] = h3;
    st[H + 4] = h4;
}

static void poly32_finish(uint64_t *st, uint8_t tag[16],
                          const uint8_t pad[16])
{
    uint32_t h0 = (uint32_t)st[H + 0], h1 = (uint32_t)st[H + 1],
             h2 = (uint32_t)st[H + 2], h3 = (uint32_t)st[H + 3],
             h4 = (uint32_t)st[H + 4];
    uint32_t g0, g1, g2, g3, g4, c, mask;
    uint64_t f;

    /* full carry: every limb < 2^26, h < 2^130 */
    c = h1 >> 26; h1 &= M26;
    h2 += c; c = h2 >> 26; h2 &= M26;
    h3 += c; c = h3 >> 26; h3 &= M26;
    h4 += c; c = h4 >> 26; h4 &= M26;
    h0 += c * 5; c = h0 >> 26; h0 &= M26;
    h1 += c;

    /* g = h + 5 - 2^130; keep g when it did not borrow (h >= p) */
    g0 = h0 + 5; c = g0 >> 26; g0 &= M26;
    g1 = h1 + c; c = g1 >> 26; g1 &= M26;
    g2 = h2 + c; c = g2 >> 26; g2 &= M26;
    g3 = h3 + c; c = g3 >> 26; g3 &= M26;
    g4 = h4 + c - (1u << 26);
    mask = (g4 >> 31) - 1; /* all ones when g4 did not go negative */
    h0 = (h0 & ~mask) | (g0 & mask);
    h1 = (h1 & ~mask) | (g1 & mask);
    h2 = (h2 & ~mask) | (g2 & mask);
    h3 = (h3 & ~mask) | (g3 & mask);
    h4 = (h4 & ~mask) | (g4 & mask);

    /* h mod 2^128 as four 32-bit words (sums, so that a limb of 2^26 is
     * still right), plus pad */
    f = (uint64_t)h0 + ((uint64_t)h1 << 26);
    g0 = (uint32_t)f;
    f = (f >> 32) + ((uint64_t)h2 << 20);
    g1 = (uint32_t)f;
    f = (f >> 32) + ((uint64_t)h3 << 14);
    g2 = (uint32_t)f;
    f = (f >> 32) + ((uint64_t)h4 << 8);
    g3 = (uint32_t)f;
    f = (uint64_t)g0 + rijn_load32_le(pad);
    rijn_store32_le(tag, (uint32_t)f);
    f = (uint64_t)g1 + rijn_load32_le(pad + 4) + (f >> 32);
    rijn_store32_le(tag + 4, (uint32_t)f);
    f = (uint64_t)g2 + rijn_load32_le(pad + 8) + (f >> 32);
    rijn_store32_le(tag + 8, (uint32_t)f);
    /* (injected bug 6, src/inject.h: this final carry dropped) */
    f = (uint64_t)g3 + rijn_load32_le(pad + 12) +
        (RIJN_INJECTED(6) ? 0 : (f >> 32));
    rijn_store32_le(tag + 12, (uint32_t)f);
    rijn_burn(st, 14 * sizeof st[0]);
}

const rijn_poly1305_engine rijn_poly1305_poly32 = {
    .base = {.name = "poly32", .needs = 0, .constant_time = 1, .rank = 10},
    .init = poly32_init,
    .blocks = poly32_blocks,
    .finish = poly32_finish,
};

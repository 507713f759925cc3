/*
 * altivec: constant-time GHASH with AltiVec table lookups by vperm, for
 * the G4/G5 AES backends (altivec-bs, altivec-vperm), on processors
 * without a carry-less multiplier. Big-endian PowerPC (ppc, ppc64); one
 * block at a time (Horner: the key layout holds one power of H).
 *
 * The method: X.H is GF(2)-linear in X, and the product of H with a
 * 4-bit polynomial n has 16 possible values. The key holds, for each byte
 * position k of the product, the 16-entry table T_k[n] = byte k of n.H
 * (n = a high nibble, x^0..x^3) and T'_k[n] = byte k of n.x^4.H (a low
 * nibble, x^4..x^7), both reduced mod the GCM polynomial: 32 vectors, 512
 * bytes. vperm(T, T, c) looks up 16 bytes at once, lane m getting T[low 4
 * bits of c[m]] (the fifth index bit picks between two copies of T). With
 * E = X >> 4 (vsrb) for the high nibbles and X itself for the low ones,
 * lane m of
 *   P_k = vperm(T_k, T_k, E) ^ vperm(T'_k, T'_k, X)
 * is byte k of (byte m of X).x^(8m).H / x^(8m), which belongs at byte
 * m + k of the product. Horner over k (15 down to 0) with a 32-byte
 * accumulator shifted one byte each step (two vsldoi) puts every P_k in
 * place: 32 vperm, 30 vsldoi and 31 vxor for the 248-bit unreduced
 * product, then the fold of its high 16 bytes L: L.x^128 = L.(1 + x +
 * x^2 + x^7) is L ^ L>>1 ^ L>>2 ^ L>>7 (GCM's bit order: x^i is bit
 * 127 - i of the big-endian 128-bit value) whose 7 spilled bits are
 * folded once more: 14 instructions (vsr, vslb, vxor). About 110
 * instructions per block, plus the loads of the tables that do not stay
 * in registers (AV_RELOAD; 138 a block in all, 8.7 per byte, on the G4).
 *
 * Why not multiplies: the G4's scalar multiplier is not constant time.
 * Freescale's MPC7455 Hardware Specifications, Table 1, give integer
 * multiply latency-throughput "32 x 8, 32 x 16, 32 x 32: 3-1, 3-1, 4-2"
 * for the MPC7450 family (7447 included) and "2-1, 3-2, 5-4" for the
 * MPC7400/7410: mullw/mulhwu finish early when an operand is short.
 * ctmul-style code on mullw therefore needs forced operand bits (as in
 * ctmul32.c, 243 multiplications a block there). The AltiVec multiplies
 * (vmsumubm, vmuleub, vmulouh ...) run in the vector complex unit with a
 * fixed timing (4-1 in the same table), but 8x8 and 16x16 pieces need
 * more of them for a 128x128 product than the 32 vperm here; the permute
 * unit (2-1) does 16 lookups of a 4-bit index per instruction. See
 * doc/powerpc.md.
 *
 * Constant time: vperm indexes registers, never memory; the tables are
 * loaded from fixed addresses; every other instruction is vector logic or
 * a shift by a constant. Branches depend on nblocks and on the alignment
 * of the input only.
 *
 * Input of any alignment: aligned blocks load with lvx; otherwise each
 * block is put together from two aligned quadwords with vperm (lvsl), the
 * AltiVec idiom: it reads the aligned 16-byte granules holding the first
 * and the last byte, never a byte in a granule outside the buffer.
 *
 * Key setup: H.x^i for i = 0..7, the 32 products n.H and n.x^4.H as XORs
 * of those (n is a loop index, public), transposed into the tables, all
 * in vector registers.
 */
#include "ghash/ghash.h"

#if (defined(__powerpc__) || defined(__powerpc64__) || defined(__PPC__)) && \
    !(defined(__LITTLE_ENDIAN__) ||                                       \
      (defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__))

#if !defined(__ALTIVEC__)
#error "altivec.c must be compiled with -maltivec -mabi=altivec"
#endif

#include <altivec.h>

#undef vector
#undef pixel
#undef bool

typedef __vector unsigned char av8;

#define AV_INLINE static inline __attribute__((always_inline))

/* The key layout: vector 2k = T_k, 2k+1 = T'_k. */
#define AV_TABLES 32
#define AV_KEY_BYTES (AV_TABLES * 16)

/* x.v in GCM's bit order (x^i = bit 127 - i of the big-endian value): a
 * right shift, and the reduction (0xe1 into byte 0) when x^127 falls off;
 * the mask is bit 0 of byte 15 spread over every byte. */
AV_INLINE av8 av_mulx(av8 v)
{
    const av8 s1 = vec_splat_u8(1), s7 = vec_splat_u8(7);
    const av8 r = {0xe1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    av8 m = vec_splat(v, 15);

    m = (av8)vec_sra((__vector signed char)vec_sl(m, s7), s7);
    return vec_xor(vec_srl(v, s1), vec_and(m, r));
}

/* The tables: n.H (half 0) and n.x^4.H (half 1) for the 16 nibbles n
 * (bit 3 of n is the lowest power, x^0 or x^4), as XORs of H.x^j; then
 * each set of 16 products is transposed with four layers of byte merges,
 * so that vector k holds byte k of every product, indexed by n. Fully
 * unrolled, mostly in registers (H enters through the stack buffer u,
 * wiped; av_init clears what gcc spills). */
static __attribute__((noinline)) void av_init_run(uint64_t *hk,
                                                  const uint8_t h[16])
{
    av8 *tab = (av8 *)(void *)hk;
    union {
        av8 v;
        uint8_t b[16];
    } u;
    av8 v[8];

    memcpy(u.b, h, 16);
    v[0] = u.v;
    rijn_burn(&u, sizeof u);
    RIJN_UNROLL(8)
    for (int i = 1; i < 8; i++)
        v[i] = av_mulx(v[i - 1]);
    RIJN_UNROLL(2)
    for (int half = 0; half < 2; half++) {
        av8 t[16], w[16];
        t[0] = vec_splat_u8(0);
        RIJN_UNROLL(16)
        for (int n = 1; n < 16; n++) { /* n is public */
            const int low = n & -n, j = low == 8 ? 0 : low == 4 ? 1
                                                  : low == 2 ? 2 : 3;
            t[n] = vec_xor(t[n & (n - 1)], v[4 * half + j]);
        }
        RIJN_UNROLL(4)
        for (int layer = 0; layer < 4; layer++) {
            RIJN_UNROLL(8)
            for (int i = 0; i < 8; i++) {
                w[2 * i] = vec_mergeh(t[i], t[i + 8]);
                w[2 * i + 1] = vec_mergel(t[i], t[i + 8]);
            }
            RIJN_UNROLL(16)
            for (int i = 0; i < 16; i++)
                t[i] = w[i];
        }
        RIJN_UNROLL(16)
        for (int k = 0; k < 16; k++)
            tab[2 * k + half] = t[k];
    }
}

/* Both run in functions of their own and the stack below is cleared
 * after them: gcc spills some of the vectors (H, the products, tables) to
 * the stack, and the wipe policy of rijn.h covers what a backend's
 * compiled code copies there (as in ref.c). */
static void av_init(uint64_t *hk, const uint8_t h[16])
{
    av_init_run(hk, h);
    rijn_stack_burn();
}

/* Table pairs k < AV_RELOAD are loaded from the key for every block, the
 * others once per call: with all 32 in registers gcc spills some to the
 * stack and reloads them with two instructions each. */
#ifndef AV_RELOAD
#define AV_RELOAD 7
#endif

/* y = (y ^ x) . H for one block x; t: the tables k >= AV_RELOAD, tk: the
 * key (the tables k < AV_RELOAD are loaded from there). */
AV_INLINE av8 av_mul(const av8 *t, const uint64_t *tk, av8 y, av8 x)
{
    const av8 z = vec_splat_u8(0);
    const av8 s1 = vec_splat_u8(1), s2 = vec_splat_u8(2),
              s4 = vec_splat_u8(4), s6 = vec_splat_u8(6),
              s7 = vec_splat_u8(7);
    const unsigned char *kb = (const unsigned char *)tk;
    av8 r[2 * AV_RELOAD], e, hi, lo, f, res;

    /* an opaque copy of the key pointer: these loads stay in the loop */
    __asm__("" : "+r"(kb));
    RIJN_UNROLL(32)
    for (int i = 0; i < 2 * AV_RELOAD; i++)
        r[i] = vec_ld(16 * i, kb);
#define AV_T(i) ((i) < 2 * AV_RELOAD ? r[(i) % (2 * AV_RELOAD)] : t[i])
    x = vec_xor(x, y);
    e = vec_sr(x, s4);
    hi = vec_xor(vec_perm(AV_T(30), AV_T(30), e),
                 vec_perm(AV_T(31), AV_T(31), x));
    lo = z;
    RIJN_UNROLL(16)
    for (int k = 14; k >= 0; k--) {
        lo = vec_sld(hi, lo, 15);
        hi = vec_sld(z, hi, 15);
        hi = vec_xor(hi, vec_perm(AV_T(2 * k), AV_T(2 * k), e));
        hi = vec_xor(hi, vec_perm(AV_T(2 * k + 1), AV_T(2 * k + 1), x));
    }
#undef AV_T
    /* hi ^ fold(lo): lo.x^128 = lo.(1 + x + x^2 + x^7) */
    f = vec_sld(lo, z, 15); /* byte 0: the last byte of lo */
    f = vec_xor(vec_xor(vec_sl(f, s7), vec_sl(f, s6)), vec_sl(f, s1));
    lo = vec_xor(lo, f);
    res = vec_xor(hi, lo);
    res = vec_xor(res, vec_srl(lo, s1));
    res = vec_xor(res, vec_srl(lo, s2));
    return vec_xor(res, vec_srl(lo, s7));
}

static __attribute__((noinline)) void av_blocks_run(const uint64_t *hk,
                                                    uint8_t y[16],
                                                    const uint8_t *in,
                                                    size_t nblocks)
{
    const av8 *key = (const av8 *)(const void *)hk;
    av8 t[AV_TABLES];
    union {
        av8 v;
        uint8_t b[16];
    } u;
    av8 acc;

    memcpy(u.b, y, 16);
    acc = u.v;
    RIJN_UNROLL(32)
    for (int i = 2 * AV_RELOAD; i < AV_TABLES; i++)
        t[i] = key[i];
    if (((uintptr_t)in & 15) == 0) {
        for (; nblocks > 0; nblocks--, in += 16)
            acc = av_mul(t, hk, acc, vec_ld(0, in));
    } else {
        const av8 sel = vec_lvsl(0, in);
        av8 prev = vec_ld(0, in);
        for (; nblocks > 0; nblocks--, in += 16) {
            const av8 next = vec_ld(16, in); /* the granule of in[15] */
            acc = av_mul(t, hk, acc, vec_perm(prev, next, sel));
            prev = next;
        }
    }
    u.v = acc;
    memcpy(y, u.b, 16);
    rijn_burn(&u, sizeof u);
}

static void av_blocks(const uint64_t *hk, uint8_t y[16], const uint8_t *in,
                      size_t nblocks)
{
    if (nblocks == 0)
        return;
    av_blocks_run(hk, y, in, nblocks);
    rijn_stack_burn(); /* see av_init */
}

RIJN_GHASH_KEY_FITS(AV_KEY_BYTES, "altivec's tables");
const rijn_ghash_engine rijn_ghash_altivec = {
    .base = {.name = "altivec", .needs = RIJN_CPU_ALTIVEC, .constant_time = 1,
             .rank = 20},
    .key_bytes = AV_KEY_BYTES,
    .init = av_init,
    .blocks = av_blocks,
};

#endif /* big-endian PowerPC */

/*
 * neon: constant-time GHASH with AArch64 NEON alone (no crypto extension:
 * Cortex-A53/A72 as in the Raspberry Pi 3 and 4), from 8x8 -> 16-bit
 * carry-less products, PMULL on bytes (the .8B form, part of base
 * Advanced SIMD; only the 64-bit PMULL .1D of the crypto extension is
 * optional). The engine of neon-bs.
 *
 * Representation. RBIT reverses the bits of every byte, so that bit j of
 * byte i is the coefficient of x^(8i + j) (GCM numbers bits from the most
 * significant one): the field product is then the plain carry-less
 * product modulo x^128 + x^7 + x^2 + x + 1, nothing reflected. Y, H and
 * the data are bit-reversed on the way in (one RBIT per block) and Y on
 * the way out.
 *
 * 64 x 64 products (Camara, Goncalves, Lopez, Dahab, "Fast software
 * polynomial multiplication on ARM processors using the NEON engine",
 * CD-ARES 2013): with A_k, B_k the operands rotated by k bytes,
 *   D = A B, L = A B_1 + A_1 B, M = A B_2 + A_2 B, N = A B_3 + A_3 B,
 *   K = A B_4
 * (PMULL lane by lane) hold all 64 byte products, 8 PMULLs; lane i of D
 * is in place, the first 8-k lanes of L, M, N, K must move up by 8k bits
 * and the other k down by 64 - 8k (their byte pairs wrapped around).
 * That fix-up is linear, so it is done once per group of blocks on the
 * sums of each type (22 instructions), not per product.
 *
 * 128 x 128: Karatsuba over the 64-bit halves (lo, hi, mid = (lo ^ hi)
 * products: 24 PMULLs per block). The data block is one register; TBL
 * rotates both of its halves at once, PMULL takes the low halves and
 * PMULL2 the high ones, and H's operands B, B_1..B_4 are precomputed.
 *
 * Aggregated reduction: 6 blocks per step, Y' = (Y ^ X1) H^6 ^ X2 H^5 ^
 * ... ^ X6 H, the products summed per type, fixed up and combined once,
 * then reduced: the high 128 bits times x^7 + x^2 + x + 1 (0x87) by PMULL
 * on the even and the odd bytes, the 6 bits that overflow once more.
 * About 64 instructions per block and 95 per step: 5 per byte. The
 * products of a block are inline assembly (GCC's allocation of the 15
 * sums, the rotations and the operands spilled in every block).
 *
 * Constant time: PMULL (8-bit polynomial), TBL with register tables, EXT,
 * UZP, RBIT, EOR, AND: no instruction whose timing depends on its
 * operands on any ARMv8 core (PMULL .8B is a fixed-latency pipelined
 * operation on Cortex-A53, A55, A72, A76 and Neoverse), no table in
 * memory indexed by data, no branch on H or the data (loop counts come
 * from the length).
 *
 * hk (bytes): at 80 (e - 1), e = 1..6, B_0..B_4 of H^e (5 x 16 bytes:
 * the rotations of both 64-bit halves, lo in the low half); at 480 +
 * 80 i, i = 0..2, B_0..B_4 of the middle words H^e.lo ^ H^e.hi of
 * e = 2i + 1 (low half) and 2i + 2 (high half, taken by PMULL2): 720.
 */
#include "ghash/ghash.h"

#if defined(__aarch64__) && defined(__AARCH64EL__) && defined(__ARM_NEON)

#include <arm_neon.h>

typedef uint8x16_t gv;

#define NG_INLINE static inline __attribute__((always_inline))

#define NG_POWERS 6
#define NG_OPS_BYTES 80 /* B_0..B_4 */
#define NG_MID_OFFSET (NG_POWERS * NG_OPS_BYTES)
#define NG_KEY_BYTES (NG_MID_OFFSET + NG_POWERS / 2 * NG_OPS_BYTES)

/* TBL selectors: both 8-byte halves rotated down by k bytes */
static const uint8_t rot_sel[3][16] = {
    {1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8},
    {2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9},
    {3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10},
};
static const uint8_t rot4_sel[16] = {4, 5, 6, 7, 0, 1, 2, 3,
                                     12, 13, 14, 15, 8, 9, 10, 11};
/* The sums of the five product types of one 64 x 64 position. */
typedef struct {
    gv d, l, m, n, k;
} types;

NG_INLINE gv pm_lo(gv a, gv b)
{
    return vreinterpretq_u8_p16(vmull_p8(vget_low_p8(vreinterpretq_p8_u8(a)),
                                         vget_low_p8(vreinterpretq_p8_u8(b))));
}

/* The rotation selectors, in registers. */
typedef struct {
    gv s1, s2, s3, m1, m2, m3;
} sels;

/* (and the masks of fix_up: bytes 0..13, 0..11, 0..9) */
NG_INLINE sels load_sels(void)
{
    const gv ones = vdupq_n_u8(0xff), z = vdupq_n_u8(0);
    sels s;

    s.s1 = vld1q_u8(rot_sel[0]);
    s.s2 = vld1q_u8(rot_sel[1]);
    s.s3 = vld1q_u8(rot_sel[2]);
    s.m1 = vextq_u8(ones, z, 2);
    s.m2 = vextq_u8(ones, z, 4);
    s.m3 = vextq_u8(ones, z, 6);
    return s;
}

/* The 128-bit sum of the products of one position from its types. */
NG_INLINE gv fix_up(const types *t, const sels *s)
{
    const gv z = vdupq_n_u8(0);
    gv r = t->d, lp, kk;

    /* L: lanes 0..6 up 8 bits, lane 7 down 56 */
    lp = t->l & s->m1;
    r ^= vextq_u8(z, lp, 15) ^ vextq_u8(t->l ^ lp, z, 7);
    /* M: lanes 0..5 up 16, lanes 6, 7 down 48 */
    lp = t->m & s->m2;
    r ^= vextq_u8(z, lp, 14) ^ vextq_u8(t->m ^ lp, z, 6);
    /* N: lanes 0..4 up 24, lanes 5..7 down 40 */
    lp = t->n & s->m3;
    r ^= vextq_u8(z, lp, 13) ^ vextq_u8(t->n ^ lp, z, 5);
    /* K: lanes 0..3 up 32, lanes 4..7 down 32: both halves meet in the
     * middle, (k.lo ^ k.hi) << 32 */
    kk = vcombine_u8(veor_u8(vget_low_u8(t->k), vget_high_u8(t->k)),
                     vget_low_u8(z));
    return r ^ vextq_u8(z, kk, 12);
}

/*
 * The field element of lo + mid x^64 + hi x^128 (Karatsuba: mid is the
 * middle product, lo and hi not yet taken out): z = zl + zh x^128, then
 * zh (degree < 127) times x^128 = x^7 + x^2 + x + 1 (0x87): PMULL of the
 * even and of the odd bytes of zh by 0x87 (the odd ones one byte up), and
 * the bits that pass 2^128 (< 2^6) times 0x87 once more.
 */
NG_INLINE gv reduce(gv lo, gv mid, gv hi)
{
    const gv z = vdupq_n_u8(0), c = vdupq_n_u8(0x87);
    gv zl, zh, pe, po;

    mid ^= lo ^ hi;
    zl = lo ^ vextq_u8(z, mid, 8);
    zh = hi ^ vextq_u8(mid, z, 8);
    pe = pm_lo(vuzp1q_u8(zh, z), c);
    po = pm_lo(vuzp2q_u8(zh, z), c);
    zl ^= pe ^ vextq_u8(z, po, 15);
    return zl ^ pm_lo(vextq_u8(po, z, 15), c);
}

/*
 * lo, hi, mid types (+)= x times a power, in assembly (GCC's allocation of
 * the 15 sums, the rotations and the operands spilled in every block):
 * pl points to the power's operands B_0..B_4 (both halves), pm to the
 * operands of its middle word, in the low (PMULL) or the high (PMULL2)
 * half. v21..v23: rotations of x (then of x.lo ^ x.hi, in v31, the same
 * in both halves), v24..v28: B_0..B_4, v29: a product. first: the sums
 * start with these products (written, not added).
 */
#define NG_W(op, sz, acc, a, b)                                               \
    op " " acc ".8h, " a sz ", " b sz "\n\t"
#define NG_A(op, sz, acc, a, b)                                               \
    op " v29.8h, " a sz ", " b sz "\n\t"                                      \
    "eor " acc ".16b, " acc ".16b, v29.16b\n\t"
#define NG_SET(F, op, sz, x, d, l, m, n, k)                                   \
    F(op, sz, d, x, "v24") F(op, sz, l, x, "v25")                             \
    NG_A(op, sz, l, "v21", "v24") F(op, sz, m, x, "v26")                      \
    NG_A(op, sz, m, "v22", "v24") F(op, sz, n, x, "v27")                      \
    NG_A(op, sz, n, "v23", "v24") F(op, sz, k, x, "v28")
#define NG_LOAD(ptr)                                                          \
    "ldp q24, q25, [" ptr "]\n\t"                                             \
    "ldp q26, q27, [" ptr ", #32]\n\t"                                        \
    "ldr q28, [" ptr ", #64]\n\t"
#define NG_BODY_LH(F)                                                         \
    "tbl v21.16b, {%[x].16b}, %[s1].16b\n\t"                                  \
    "tbl v22.16b, {%[x].16b}, %[s2].16b\n\t"                                  \
    "tbl v23.16b, {%[x].16b}, %[s3].16b\n\t"                                  \
    NG_LOAD("%[p]")                                                           \
    NG_SET(F, "pmull", ".8b", "%[x]", "%[ld]", "%[ll]", "%[lm]", "%[ln]",     \
           "%[lk]")                                                           \
    NG_SET(F, "pmull2", ".16b", "%[x]", "%[hd]", "%[hl]", "%[hm]", "%[hn]",   \
           "%[hk]")
#define NG_BODY_M(F, op, sz)                                                  \
    "ext v31.16b, %[x].16b, %[x].16b, #8\n\t"                                 \
    "eor v31.16b, v31.16b, %[x].16b\n\t"                                      \
    "tbl v21.16b, {v31.16b}, %[s1].16b\n\t"                                   \
    "tbl v22.16b, {v31.16b}, %[s2].16b\n\t"                                   \
    "tbl v23.16b, {v31.16b}, %[s3].16b\n\t"                                   \
    NG_LOAD("%[p]")                                                           \
    NG_SET(F, op, sz, "v31", "%[md]", "%[ml]", "%[mm]", "%[mn]", "%[mk]")
/* (two statements: an asm takes at most 30 operands, "+" ones twice) */
#define NG_OUT_LH(c)                                                          \
    [ld] c(lo->d), [ll] c(lo->l), [lm] c(lo->m), [ln] c(lo->n),               \
    [lk] c(lo->k), [hd] c(hi->d), [hl] c(hi->l), [hm] c(hi->m),               \
    [hn] c(hi->n), [hk] c(hi->k)
#define NG_OUT_M(c)                                                           \
    [md] c(mid->d), [ml] c(mid->l), [mm] c(mid->m), [mn] c(mid->n),           \
    [mk] c(mid->k)
#define NG_IN(ptr)                                                            \
    [x] "w"(x), [p] "r"(ptr), [s1] "w"(s->s1), [s2] "w"(s->s2),               \
    [s3] "w"(s->s3), "m"(*(const uint8_t(*)[NG_OPS_BYTES])(ptr))
#define NG_CLOBBER                                                            \
    "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v31"
#define NG_EARLY(v) "=&w"(v)
#define NG_INOUT(v) "+w"(v)

NG_INLINE void acc_block(types *lo, types *hi, types *mid, gv x,
                         const uint8_t *pl, const uint8_t *pm, int high,
                         const sels *s, int first)
{
    if (first) {
        __asm__(NG_BODY_LH(NG_W)
                : NG_OUT_LH(NG_EARLY) : NG_IN(pl) : NG_CLOBBER);
        if (high)
            __asm__(NG_BODY_M(NG_W, "pmull2", ".16b")
                    : NG_OUT_M(NG_EARLY) : NG_IN(pm) : NG_CLOBBER);
        else
            __asm__(NG_BODY_M(NG_W, "pmull", ".8b")
                    : NG_OUT_M(NG_EARLY) : NG_IN(pm) : NG_CLOBBER);
    } else {
        __asm__(NG_BODY_LH(NG_A)
                : NG_OUT_LH(NG_INOUT) : NG_IN(pl) : NG_CLOBBER);
        if (high)
            __asm__(NG_BODY_M(NG_A, "pmull2", ".16b")
                    : NG_OUT_M(NG_INOUT) : NG_IN(pm) : NG_CLOBBER);
        else
            __asm__(NG_BODY_M(NG_A, "pmull", ".8b")
                    : NG_OUT_M(NG_INOUT) : NG_IN(pm) : NG_CLOBBER);
    }
}

/* Block x times H^e (e = 1..NG_POWERS): its operands in the table t */
#define ACC_POWER(x, e, first)                                                \
    acc_block(&lo, &hi, &mid, (x), t + NG_OPS_BYTES * ((e) - 1),              \
              t + NG_MID_OFFSET + NG_OPS_BYTES * (((e) - 1) / 2),             \
              ((e) - 1) & 1, s, (first))

/* y (bit-reversed) absorbs the NG_POWERS blocks at in, powers
 * NG_POWERS..1, one reduction */
NG_INLINE gv group(const uint8_t *t, gv y, const uint8_t *in, const sels *s)
{
    types lo, hi, mid;
    int j;

    ACC_POWER(vrbitq_u8(vld1q_u8(in)) ^ y, NG_POWERS, 1);
    RIJN_UNROLL(8)
    for (j = 1; j < NG_POWERS; j++)
        ACC_POWER(vrbitq_u8(vld1q_u8(in + 16 * j)), NG_POWERS - j, 0);
    return reduce(fix_up(&lo, s), fix_up(&mid, s), fix_up(&hi, s));
}

/* The same for n = 1 .. NG_POWERS - 1 blocks, powers n..1 (the end of a
 * run; a loop, not unrolled) */
__attribute__((noinline)) static gv group_tail(const uint8_t *t, gv y,
                                               const uint8_t *in, int n,
                                               const sels *s)
{
    types lo, hi, mid;
    int j;

    ACC_POWER(vrbitq_u8(vld1q_u8(in)) ^ y, n, 1);
    RIJN_NO_UNROLL
    for (j = 1; j < n; j++)
        ACC_POWER(vrbitq_u8(vld1q_u8(in + 16 * j)), n - j, 0);
    return reduce(fix_up(&lo, s), fix_up(&mid, s), fix_up(&hi, s));
}

/* The operands B_0..B_4 of x (both halves rotated) into p. */
static void store_ops(uint8_t *p, gv x)
{
    vst1q_u8(p, x);
    vst1q_u8(p + 16, vqtbl1q_u8(x, vld1q_u8(rot_sel[0])));
    vst1q_u8(p + 32, vqtbl1q_u8(x, vld1q_u8(rot_sel[1])));
    vst1q_u8(p + 48, vqtbl1q_u8(x, vld1q_u8(rot_sel[2])));
    vst1q_u8(p + 64, vqtbl1q_u8(x, vld1q_u8(rot4_sel)));
}

static void ng_init(uint64_t *hk, const uint8_t h[16])
{
    uint8_t *t = (uint8_t *)hk;
    const sels sl = load_sels(), *s = &sl;
    gv x = vrbitq_u8(vld1q_u8(h)), m = x;
    int e;

    for (e = 1; e <= NG_POWERS; e++) {
        if (e > 1) {
            /* x := x H, with H's operands (stored first) */
            types lo, hi, mid;
            ACC_POWER(x, 1, 1);
            x = reduce(fix_up(&lo, s), fix_up(&mid, s), fix_up(&hi, s));
        }
        store_ops(t + NG_OPS_BYTES * (e - 1), x);
        /* the middle words of H^e (odd e: low half) and H^(e+1); for
         * now H^e in both (H's is read for H^2) */
        if (e & 1) {
            m = x ^ vextq_u8(x, x, 8);
            store_ops(t + NG_MID_OFFSET + NG_OPS_BYTES * (e / 2), m);
        } else {
            gv n = x ^ vextq_u8(x, x, 8);
            store_ops(t + NG_MID_OFFSET + NG_OPS_BYTES * ((e - 1) / 2),
                      vcombine_u8(vget_low_u8(m), vget_low_u8(n)));
        }
    }
}

static void ng_blocks(const uint64_t *hk, uint8_t y[16], const uint8_t *in,
                      size_t nblocks)
{
    const uint8_t *t = (const uint8_t *)hk;
    const sels s = load_sels();
    gv v = vrbitq_u8(vld1q_u8(y));

    for (; nblocks >= NG_POWERS; nblocks -= NG_POWERS, in += 16 * NG_POWERS)
        v = group(t, v, in, &s);
    if (nblocks > 0)
        v = group_tail(t, v, in, (int)nblocks, &s);
    vst1q_u8(y, vrbitq_u8(v));
}

RIJN_GHASH_KEY_FITS(NG_KEY_BYTES, "neon's powers of H");
const rijn_ghash_engine rijn_ghash_neon = {
    .base = {.name = "neon", .needs = RIJN_CPU_NEON, .constant_time = 1,
             .rank = 20},
    .key_bytes = NG_KEY_BYTES,
    .init = ng_init,
    .blocks = ng_blocks,
};

#else
typedef int rijn_ghash_neon_not_built; /* ISO C wants a non-empty file */
#endif

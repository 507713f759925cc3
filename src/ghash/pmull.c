/*
 * pmull: GHASH with the ARMv8 64x64 -> 128-bit carry-less multiply
 * (PMULL/PMULL2, crypto extension), and AES-GCM kernels fused with the
 * armv8 AES backend (whose key layout they read: FIPS-197 round keys).
 * Compiled with -march=armv8-a+crypto; runs only when AT_HWCAP reports
 * PMULL (and AES for the fused kernels: armv8 is the backend then).
 *
 * Representation (the reflected method of Gueron and Kounavis, "Intel
 * Carry-Less Multiplication Instruction and its Usage for Computing the
 * GCM Mode"): a block is the 128-bit big-endian integer of its bytes; the
 * carry-less product of two such integers is the field product with its
 * bits reversed, one position off, so H is stored "twisted" (H << 1,
 * reduced by the reflected polynomial, 0xc2 << 120 | 1) and the 256-bit
 * product of X and twisted H is reduced with two multiplications by
 * 0xc2 << 56. Twisting is multiplication by a constant, so the product of
 * two twisted values is the twisted product: the powers H^2..H^8 come from
 * the same multiplication. In registers a block is loaded with LD1 and
 * byte-reversed within its 64-bit halves only (REV64): the high half is
 * then lane 0, and the powers of H are stored with their halves swapped
 * to match, so a block costs one REV64, not a full reversal.
 *
 * Aggregated reduction: 8 blocks per step, Y' = (Y ^ X1) H^8 ^ X2 H^7 ^
 * ... ^ X8 H; the 8 products are summed unreduced (Karatsuba: three
 * PMULLs per block, the middle operands of two blocks formed together
 * with TRN1/TRN2/EOR against packed H^i.hi ^ H^i.lo), then reduced once.
 *
 * Fused AES-GCM (enc, dec): 8 AES-CTR blocks per step (armv8's counter
 * scheme, armv8.h), in one inline-assembly loop in which the GHASH of the
 * previous 8 ciphertext blocks runs between the AES round groups, so the
 * AES and PMULL pipes work in parallel. Round keys are reloaded four at a
 * time per step (32 registers do not hold 15 round keys, 8 states, 8 data
 * blocks and the powers of H).
 *
 * Decryption reads each ciphertext block once (the decrypt rule of
 * rijn_gcm.h: the tag covers exactly the bytes decrypted, whatever another
 * thread or process writes to the input meanwhile). The registers cannot
 * keep a batch from its XOR with the keystream until its GHASH in the next
 * step, so the step that XORs a batch also stores the blocks it loaded
 * (two ST1) to a private 128-byte stack buffer, which the next step's
 * GHASH reads; the blocks of fewer than 8 after the batches are loaded
 * once into registers (pm_dec_short).
 *
 * Constant time: PMULL, AESE/AESMC, EOR, EXT, TRN, REV64 and loads at
 * public addresses only; no branch or index depends on H, the data or
 * the key (branches are on lengths and the public counter's low byte).
 *
 * hk (bytes): 0..191 the 8-block tables in the order the loop reads them:
 * H^8..H^5 (swapped), K(8,7), K(6,5), H^4..H^1 (swapped), K(4,3), K(2,1),
 * where K(a,b) holds H^a.hi ^ H^a.lo in lane 0 and the same of H^b in
 * lane 1; 192..319 H^i.hi ^ H^i.lo in both lanes, i = 8..1, for runs of
 * fewer than 8 blocks.
 */
#include "ghash/ghash.h"
#include "aes/arm/armv8.h"

#if defined(RIJN_ARMV8_AES)

typedef uint8x16_t gv;

#define PM_INLINE static inline __attribute__((always_inline))

/* the two halves exchanged */
PM_INLINE gv pm_swap(gv x)
{
    return vextq_u8(x, x, 8);
}

/* lane 0 x lane 0 and lane 1 x lane 1, carry-less */
PM_INLINE gv pm_mul0(gv a, gv b)
{
    return vreinterpretq_u8_p128(
        vmull_p64(vgetq_lane_p64(vreinterpretq_p64_u8(a), 0),
                  vgetq_lane_p64(vreinterpretq_p64_u8(b), 0)));
}

PM_INLINE gv pm_mul1(gv a, gv b)
{
    return vreinterpretq_u8_p128(
        vmull_high_p64(vreinterpretq_p64_u8(a), vreinterpretq_p64_u8(b)));
}

/* 0xc2 << 56 in lane 0 (and 1) */
PM_INLINE gv pm_poly(void)
{
    return vreinterpretq_u8_u64(vdupq_n_u64(0xc200000000000000ULL));
}

/*
 * The reduction: lo and hi are the low and high 128 bits of the product
 * (lane 0 the less significant word), mid the sum of the Karatsuba middle
 * products (a.hi ^ a.lo)(b.hi ^ b.lo). Returns the field element, lane 0
 * the low 64 bits. The low 128 bits z1:z0 are folded in two steps, each
 * multiplying a 64-bit word by 0xc2 << 56.
 */
PM_INLINE gv pm_reduce(gv lo, gv hi, gv mid)
{
    const gv p = pm_poly();
    gv m, a, t;

    m = veorq_u8(mid, veorq_u8(lo, hi));          /* true middle */
    m = veorq_u8(m, vextq_u8(lo, hi, 8));          /* [z1, z2] folded */
    a = pm_mul0(lo, p);                            /* z0 * c */
    hi = vreinterpretq_u8_u64(vcopyq_laneq_u64(vreinterpretq_u64_u8(hi), 0,
                                               vreinterpretq_u64_u8(m), 1));
    m = vreinterpretq_u8_u64(vcopyq_laneq_u64(vreinterpretq_u64_u8(m), 1,
                                              vreinterpretq_u64_u8(lo), 0));
    m = veorq_u8(m, a);                            /* [z1 ^ a0, z0 ^ a1] */
    t = veorq_u8(pm_swap(m), hi);
    return veorq_u8(pm_mul0(m, p), t);
}

/* a * b for field elements in lane order (lane 0 low), Karatsuba */
PM_INLINE gv pm_mul_nat(gv a, gv b)
{
    return pm_reduce(pm_mul0(a, b), pm_mul1(a, b),
                     pm_mul0(veorq_u8(a, pm_swap(a)), veorq_u8(b, pm_swap(b))));
}

/* y (bytes) -> swapped register form (lane 0 the high half) */
PM_INLINE gv pm_load_block(const uint8_t *p)
{
    return vrev64q_u8(vld1q_u8(p));
}

static void pm_init(uint64_t *hk, const uint8_t h[16])
{
    uint8_t *t = (uint8_t *)hk;
    uint64_t hi = rijn_load64_be(h), lo = rijn_load64_be(h + 8);
    const uint64_t mask = 0 - (hi >> 63);
    gv p[9], one;
    int i;

    /* twist: H << 1, reduced (constant time: a mask, no branch) */
    hi = (hi << 1) | (lo >> 63);
    lo <<= 1;
    hi ^= mask & 0xc200000000000000ULL;
    lo ^= mask & 1;
    one = vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(lo), vcreate_u64(hi)));
    p[1] = one;
    for (i = 2; i <= 8; i++)
        p[i] = pm_mul_nat(p[i - 1], one);
    for (i = 0; i < 4; i++) {
        vst1q_u8(t + 16 * i, pm_swap(p[8 - i]));        /* H^8..H^5 */
        vst1q_u8(t + 96 + 16 * i, pm_swap(p[4 - i]));   /* H^4..H^1 */
    }
    for (i = 0; i < 2; i++) {
        gv a = p[8 - 2 * i], b = p[7 - 2 * i];
        gv c = p[4 - 2 * i], d = p[3 - 2 * i];
        a = veorq_u8(a, pm_swap(a));
        b = veorq_u8(b, pm_swap(b));
        c = veorq_u8(c, pm_swap(c));
        d = veorq_u8(d, pm_swap(d));
        vst1q_u8(t + 64 + 16 * i, vreinterpretq_u8_u64(vzip1q_u64(
            vreinterpretq_u64_u8(a), vreinterpretq_u64_u8(b))));
        vst1q_u8(t + 160 + 16 * i, vreinterpretq_u8_u64(vzip1q_u64(
            vreinterpretq_u64_u8(c), vreinterpretq_u64_u8(d))));
    }
    for (i = 0; i < 8; i++)
        vst1q_u8(t + 192 + 16 * i, veorq_u8(p[8 - i], pm_swap(p[8 - i])));
    rijn_burn(p, sizeof p); /* no-op for registers; in case of spills */
}

/* the swapped power H^i for i = 1..8, and its Karatsuba word (both lanes) */
PM_INLINE gv pm_hs(const uint8_t *t, unsigned i)
{
    return vld1q_u8(t + (i > 4 ? 16 * (8 - i) : 96 + 16 * (4 - i)));
}

PM_INLINE gv pm_hk(const uint8_t *t, unsigned i)
{
    return vld1q_u8(t + 192 + 16 * (8 - i));
}

/* The unreduced sums: x (swapped form) times H^i added to lo, hi, mid. */
typedef struct {
    gv lo, hi, mid;
} pm_acc;

PM_INLINE void pm_acc_add(pm_acc *a, const uint8_t *t, gv x, unsigned i)
{
    const gv hs = pm_hs(t, i);

    a->lo = veorq_u8(a->lo, pm_mul1(x, hs));
    a->hi = veorq_u8(a->hi, pm_mul0(x, hs));
    a->mid = veorq_u8(a->mid,
                      pm_mul0(veorq_u8(x, pm_swap(x)), pm_hk(t, i)));
}

PM_INLINE void pm_acc_zero(pm_acc *a)
{
    a->lo = a->hi = a->mid = vdupq_n_u8(0);
}

/* y (swapped form) absorbs n < 8 blocks, one reduction: powers n..1 */
static gv pm_short(const uint8_t *t, gv y, const uint8_t *in, size_t n)
{
    pm_acc a;
    size_t j;

    pm_acc_zero(&a);
    for (j = 0; j < n; j++) {
        gv x = pm_load_block(in + 16 * j);
        if (j == 0)
            x = veorq_u8(x, y);
        pm_acc_add(&a, t, x, (unsigned)(n - j));
    }
    return pm_swap(pm_reduce(a.lo, a.hi, a.mid));
}

/*
 * The GHASH of 8 blocks at [gh] into v29 (Y, swapped form, in and out),
 * in two halves of 4 blocks and the reduction, for the loops below.
 * hp: the 8-block tables, back at their start afterwards (the last load
 * adds hneg = -160); gh advances by 64, then by ghinc (64, or gneg = -64
 * to read the same private buffer again next step). Registers: v14-v17 data,
 * v18-v21 powers, v22-v23 Karatsuba words, v24/v25/v26 lo/hi/mid sums,
 * v27, v28, v31 scratch, v30 the constant 0xc2 << 56.
 */
#define GH_PREP(hpinc, ghinc) \
    "ld1 {v14.16b-v17.16b}, [%[gh]], " ghinc "\n\t" \
    "ld1 {v18.16b-v21.16b}, [%[hp]], #64\n\t" \
    "ld1 {v22.16b-v23.16b}, [%[hp]], " hpinc "\n\t" \
    "rev64 v14.16b, v14.16b\n\t" \
    "rev64 v15.16b, v15.16b\n\t" \
    "rev64 v16.16b, v16.16b\n\t" \
    "rev64 v17.16b, v17.16b\n\t"
/* middle operands of blocks (a, b) into v<d>: [a.hi ^ a.lo, b.hi ^ b.lo] */
#define GH_KPAIR(d, a, b) \
    "trn1 v" #d ".2d, v" #a ".2d, v" #b ".2d\n\t" \
    "trn2 v31.2d, v" #a ".2d, v" #b ".2d\n\t" \
    "eor v" #d ".16b, v" #d ".16b, v31.16b\n\t"
/* block x with power v<h>, middle operand lane L of v<k>, Karatsuba word
 * lane L of v<w>, accumulated */
#define GH_ACC(x, h, k, w, L) \
    "pmull2 v31.1q, v" #x ".2d, v" #h ".2d\n\t" \
    "eor v24.16b, v24.16b, v31.16b\n\t" \
    "pmull v31.1q, v" #x ".1d, v" #h ".1d\n\t" \
    "eor v25.16b, v25.16b, v31.16b\n\t" \
    GH_MID_##L(k, w) \
    "eor v26.16b, v26.16b, v31.16b\n\t"
#define GH_MID_0(k, w) "pmull v31.1q, v" #k ".1d, v" #w ".1d\n\t"
#define GH_MID_1(k, w) "pmull2 v31.1q, v" #k ".2d, v" #w ".2d\n\t"
#define GH_FIRST_HALF \
    GH_PREP("#32", "#64") \
    "eor v14.16b, v14.16b, v29.16b\n\t" \
    GH_KPAIR(27, 14, 15) \
    GH_KPAIR(28, 16, 17) \
    "pmull2 v24.1q, v14.2d, v18.2d\n\t" \
    "pmull v25.1q, v14.1d, v18.1d\n\t" \
    "pmull v26.1q, v27.1d, v22.1d\n\t" \
    GH_ACC(15, 19, 27, 22, 1) \
    GH_ACC(16, 20, 28, 23, 0) \
    GH_ACC(17, 21, 28, 23, 1)
#define GH_SECOND_HALF(ghinc) \
    GH_PREP("%[hneg]", ghinc) \
    GH_KPAIR(27, 14, 15) \
    GH_KPAIR(28, 16, 17) \
    GH_ACC(14, 18, 27, 22, 0) \
    GH_ACC(15, 19, 27, 22, 1) \
    GH_ACC(16, 20, 28, 23, 0) \
    GH_ACC(17, 21, 28, 23, 1)
/* the reduction of v24/v25/v26 into v29, then swapped for the next step */
#define GH_REDUCE \
    "eor v27.16b, v24.16b, v25.16b\n\t" \
    "eor v26.16b, v26.16b, v27.16b\n\t" \
    "ext v27.16b, v24.16b, v25.16b, #8\n\t" \
    "eor v26.16b, v26.16b, v27.16b\n\t" \
    "pmull v27.1q, v24.1d, v30.1d\n\t" \
    "mov v25.d[0], v26.d[1]\n\t" \
    "mov v26.d[1], v24.d[0]\n\t" \
    "eor v26.16b, v26.16b, v27.16b\n\t" \
    "ext v27.16b, v26.16b, v26.16b, #8\n\t" \
    "pmull v26.1q, v26.1d, v30.1d\n\t" \
    "eor v27.16b, v27.16b, v25.16b\n\t" \
    "eor v29.16b, v26.16b, v27.16b\n\t" \
    "ext v29.16b, v29.16b, v29.16b, #8\n\t"
#define GH_CLOBBERS \
    "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", \
    "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31"

/* y absorbs nbatches * 8 blocks at gh (GHASH only) */
static void pm_ghash8(const uint8_t *tab, uint8_t y[16], const uint8_t *gh,
                      size_t nbatches)
{
    gv yv = pm_load_block(y);
    const uint8_t *hp = tab;
    const long hneg = -160;

    __asm__ volatile(
        "mov v29.16b, %[y].16b\n\t"
        "movi v30.16b, #0xe1\n\t"
        "shl v30.2d, v30.2d, #57\n\t"
        "1:\n\t"
        GH_FIRST_HALF
        GH_SECOND_HALF("#64")
        GH_REDUCE
        "subs %[n], %[n], #1\n\t"
        "b.ne 1b\n\t"
        "mov %[y].16b, v29.16b\n\t"
        : [y] "+w"(yv), [gh] "+r"(gh), [n] "+r"(nbatches), [hp] "+r"(hp)
        : [hneg] "r"(hneg)
        : GH_CLOBBERS, "cc", "memory");
    vst1q_u8(y, vrev64q_u8(yv));
}

static void pm_blocks(const uint64_t *hk, uint8_t y[16], const uint8_t *in,
                      size_t nblocks)
{
    const uint8_t *t = (const uint8_t *)hk;

    if (nblocks >= 8) {
        pm_ghash8(t, y, in, nblocks / 8);
        in += 16 * (nblocks - nblocks % 8);
        nblocks %= 8;
    }
    if (nblocks > 0)
        vst1q_u8(y, vrev64q_u8(pm_short(t, pm_load_block(y), in, nblocks)));
}

/* ------------------------------------------------------------------------
 * Fused AES-CTR + GHASH (armv8 key layout)
 * --------------------------------------------------------------------- */

/* round keys in groups of four into v8-v11 (pointer kp, advanced) */
#define FK_LOAD4 "ld1 {v8.16b-v11.16b}, [%[kp]], #64\n\t"
#define FK_R1(j, k) "aese v" #j ".16b, v" #k ".16b\n\t" \
                    "aesmc v" #j ".16b, v" #j ".16b\n\t"
#define FK_R8(k) FK_R1(0, k) FK_R1(1, k) FK_R1(2, k) FK_R1(3, k) \
                 FK_R1(4, k) FK_R1(5, k) FK_R1(6, k) FK_R1(7, k)
#define FK_L1(j, k) "aese v" #j ".16b, v" #k ".16b\n\t"
#define FK_L8(k) FK_L1(0, k) FK_L1(1, k) FK_L1(2, k) FK_L1(3, k) \
                 FK_L1(4, k) FK_L1(5, k) FK_L1(6, k) FK_L1(7, k)
#define FK_GROUP4 FK_LOAD4 FK_R8(8) FK_R8(9) FK_R8(10) FK_R8(11)
/* the rounds after the first 8, ending with the last key in v<KL> */
#define FK_TAIL10 "ld1 {v8.16b-v10.16b}, [%[kp]], %[kneg]\n\t" FK_R8(8) FK_L8(9)
#define FK_TAIL14 FK_GROUP4 "ld1 {v8.16b-v10.16b}, [%[kp]], %[kneg]\n\t" \
                  FK_R8(8) FK_L8(9)
/* for 12 rounds the last AESE is the fourth of the third group */
#define FK_GROUP4_LAST FK_LOAD4 FK_R8(8) FK_R8(9) FK_R8(10) FK_L8(11)
#define FK_TAIL12X FK_GROUP4_LAST "ld1 {v8.16b}, [%[kp]], %[kneg]\n\t"

#define FK_SLOW1(j) "add w10, w11, #" #j "\n\t" \
                    "rev w10, w10\n\t" \
                    "mov v" #j ".16b, v12.16b\n\t" \
                    "mov v" #j ".s[3], w10\n\t"
/* out = in ^ k_last (v<KL>) ^ state, 4 blocks (v14-v17 as scratch);
 * COPY: nothing (encryption), or the store of the 4 blocks as loaded to
 * the private buffer at gh (decryption, FK_COPY) */
#define FK_XOR4(a, b, c_, d, kl, COPY) \
    "ld1 {v14.16b-v17.16b}, [%[in]], #64\n\t" \
    COPY \
    "eor v14.16b, v14.16b, v" #kl ".16b\n\t" \
    "eor v15.16b, v15.16b, v" #kl ".16b\n\t" \
    "eor v16.16b, v16.16b, v" #kl ".16b\n\t" \
    "eor v17.16b, v17.16b, v" #kl ".16b\n\t" \
    "eor v" #a ".16b, v" #a ".16b, v14.16b\n\t" \
    "eor v" #b ".16b, v" #b ".16b, v15.16b\n\t" \
    "eor v" #c_ ".16b, v" #c_ ".16b, v16.16b\n\t" \
    "eor v" #d ".16b, v" #d ".16b, v17.16b\n\t" \
    "st1 {v" #a ".16b-v" #d ".16b}, [%[out]], #64\n\t"
#define FK_COPY(ghinc) "st1 {v14.16b-v17.16b}, [%[gh]], " ghinc "\n\t"
/* the XOR of a batch: encryption, its ciphertext also to the private
 * buffer at gh (as made: the GHASH never reads back from out, where
 * another writer would choose what the tag covers), gh back at its start */
#define FK_XOR4_ENC(a, b, c_, d, kl, ghinc) \
    FK_XOR4(a, b, c_, d, kl, "") \
    "st1 {v" #a ".16b-v" #d ".16b}, [%[gh]], " ghinc "\n\t"
#define FK_XOR8_ENC(KL) \
    FK_XOR4_ENC(0, 1, 2, 3, KL, "#64") FK_XOR4_ENC(4, 5, 6, 7, KL, "%[gneg]")
/* decryption: its ciphertext to the private buffer, gh back at its start */
#define FK_XOR8_DEC(KL) \
    FK_XOR4(0, 1, 2, 3, KL, FK_COPY("#64")) \
    FK_XOR4(4, 5, 6, 7, KL, FK_COPY("%[gneg]"))

/*
 * The fused loops. v12 is the base counter block, v13 the constant 1 in
 * byte 15; [fast] counts the batches before byte 15 of the base wraps
 * (armv8.h), after which a batch is built from w + 8 * (batches done)
 * (label 3). Each step: the counters, the first 8 rounds with the GHASH
 * of the previous batch's 8 ciphertext blocks at gh between the round
 * groups (GH2: GH_SECOND_HALF with gh's second increment), the last
 * rounds (TAIL: FK_TAIL*, the last round key then in v<KL>), the
 * reduction, and out = in ^ k_last ^ state (XOR8: FK_XOR8_ENC or _DEC).
 */
#define FK_SETUP \
    "ld1 {v29.16b}, [%[y]]\n\t" \
    "rev64 v29.16b, v29.16b\n\t" \
    "ld1 {v12.16b}, [%[cp]]\n\t" \
    "movi v30.16b, #0xe1\n\t" \
    "shl v30.2d, v30.2d, #57\n\t" \
    "movi v13.2d, #0\n\t" \
    "mov w10, #1\n\t" \
    "mov v13.b[15], w10\n\t"
#define FK_MAIN(TAIL, KL, GH2, XOR8) \
    "1:\n\t" \
    "subs %[fast], %[fast], #1\n\t" \
    "b.lo 3f\n\t" \
    "mov v0.16b, v12.16b\n\t" \
    "add v1.16b, v12.16b, v13.16b\n\t" \
    "add v2.16b, v1.16b, v13.16b\n\t" \
    "add v3.16b, v2.16b, v13.16b\n\t" \
    "add v4.16b, v3.16b, v13.16b\n\t" \
    "add v5.16b, v4.16b, v13.16b\n\t" \
    "add v6.16b, v5.16b, v13.16b\n\t" \
    "add v7.16b, v6.16b, v13.16b\n\t" \
    "add v12.16b, v7.16b, v13.16b\n\t" \
    "2:\n\t" \
    FK_GROUP4 \
    GH_FIRST_HALF \
    FK_GROUP4 \
    GH2 \
    TAIL \
    GH_REDUCE \
    XOR8(KL) \
    "subs %[n], %[n], #1\n\t" \
    "b.ne 1b\n\t" \
    "b 4f\n\t" \
    "3:\n\t" \
    "mov %[fast], #31\n\t" \
    "sub x11, %[nall], %[n]\n\t" \
    "add w11, %w[w], w11, lsl #3\n\t" \
    FK_SLOW1(0) FK_SLOW1(1) FK_SLOW1(2) FK_SLOW1(3) \
    FK_SLOW1(4) FK_SLOW1(5) FK_SLOW1(6) FK_SLOW1(7) \
    "add w10, w11, #8\n\t" \
    "rev w10, w10\n\t" \
    "mov v12.s[3], w10\n\t" \
    "b 2b\n\t"
/* the first batch: AES only, its blocks built from w0 */
#define FK_FIRST(TAIL, KL, XOR8) \
    "mov w11, %w[w0]\n\t" \
    FK_SLOW1(0) FK_SLOW1(1) FK_SLOW1(2) FK_SLOW1(3) \
    FK_SLOW1(4) FK_SLOW1(5) FK_SLOW1(6) FK_SLOW1(7) \
    "add w10, w11, #8\n\t" \
    "rev w10, w10\n\t" \
    "mov v12.s[3], w10\n\t" \
    FK_GROUP4 FK_GROUP4 TAIL \
    XOR8(KL)
#define FK_FINISH \
    "rev64 v29.16b, v29.16b\n\t" \
    "st1 {v29.16b}, [%[y]]\n\t"
#define FK_OPERANDS \
    : [in] "+&r"(in), [out] "+&r"(out), [gh] "+&r"(gh), \
      [n] "+&r"(nbatches), [kp] "+&r"(kp), [hp] "+&r"(hp), \
      [fast] "+&r"(fast) \
    : [w] "r"(w), [w0] "r"(w0), [nall] "r"(nall), [kneg] "r"(kneg), \
      [hneg] "r"(hneg), [gneg] "r"(gneg), [cp] "r"(ctr), [y] "r"(y) \
    : "x10", "x11", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", \
      "v9", "v10", "v11", "v12", "v13", GH_CLOBBERS, "cc", "memory"
/* the first batch alone, nbatches (>= 0) steps each hashing the batch
 * before it, then the GHASH of the last batch; gh: the private buffer,
 * GH2 = GH_SECOND_HALF("%[gneg]") */
#define FK_RUN(TAIL, KL, GH2, XOR8) \
    __asm__ volatile(FK_SETUP FK_FIRST(TAIL, KL, XOR8) \
                     "cbz %[n], 4f\n\t" \
                     FK_MAIN(TAIL, KL, GH2, XOR8) \
                     "4:\n\t" \
                     GH_FIRST_HALF GH2 GH_REDUCE \
                     FK_FINISH \
                     FK_OPERANDS)
#define FK_ENC(TAIL, KL) \
    FK_RUN(TAIL, KL, GH_SECOND_HALF("%[gneg]"), FK_XOR8_ENC)
#define FK_DEC(TAIL, KL) \
    FK_RUN(TAIL, KL, GH_SECOND_HALF("%[gneg]"), FK_XOR8_DEC)

/* nbatches (> 0) batches of 8 blocks from counter block ctr, y absorbing
 * their ciphertext from copy, the private buffer the loop's GHASH reads:
 * as made (encryption), or in as loaded once (decryption; see the top). */
static void pm_fused(const rijn_aes_key *k, const uint8_t *tab,
                     uint8_t y[16], const uint8_t ctr[16], uint8_t *out,
                     const uint8_t *in, size_t nbatches, int enc)
{
    RIJN_ALIGN(16) uint8_t copy[128]; /* ciphertext only: no wipe */
    const uint8_t *kp = (const uint8_t *)k->rk, *hp = tab;
    uint8_t *gh = copy;
    const uint32_t w0 = rijn_load32_be(ctr + 12);
    /* the loop starts one batch later */
    const uint32_t w = w0 + 8;
    size_t fast = (w & 0xff) < 0xf8 ? (0xf7 - (w & 0xff)) / 8 + 1 : 0;
    const size_t nall = nbatches - 1; /* loop steps */
    const long kneg = k->rounds == 10 ? -128 : -192, hneg = -160,
               gneg = -64;

    nbatches = nall;
    if (enc) {
        if (k->rounds == 10)
            FK_ENC(FK_TAIL10, 10);
        else if (k->rounds == 12)
            FK_ENC(FK_TAIL12X, 8);
        else
            FK_ENC(FK_TAIL14, 10);
    } else {
        if (k->rounds == 10)
            FK_DEC(FK_TAIL10, 10);
        else if (k->rounds == 12)
            FK_DEC(FK_TAIL12X, 8);
        else
            FK_DEC(FK_TAIL14, 10);
    }
}

/* ctr + n (inc32) */
static void pm_ctr_add(uint8_t next[16], const uint8_t ctr[16], size_t n)
{
    memcpy(next, ctr, 12);
    rijn_store32_be(next + 12, rijn_load32_be(ctr + 12) + (uint32_t)n);
}

/*
 * Decryption of n (constant, 1..7) blocks from counter block ctr, y
 * (swapped form) absorbing them, returned: the keystream as one armv8
 * batch (armv8.h), then each ciphertext block loaded once
 * (RIJN_READ_ONCE_VEC: the compiler can neither load it again nor fold
 * the load twice), XORed with the keystream and hashed from that value.
 */
PM_INLINE gv pm_dec_short_n(const rijn_aes_key *k, const unsigned nr,
                            const uint8_t *t, gv y, const uint8_t ctr[16],
                            uint8_t *out, const uint8_t *in, const size_t n)
{
    a8_v s[7];
    a8_v kl;
    pm_acc a;
    size_t j;

    a8_counters(vld1q_u8(ctr), rijn_load32_be(ctr + 12), s, n);
    a8_rounds(k, nr, s, n);
    kl = a8_last_key(k, nr);
    pm_acc_zero(&a);
    RIJN_UNROLL(7)
    for (j = 0; j < n; j++) {
        gv x = vld1q_u8(in + 16 * j);
        RIJN_READ_ONCE_VEC(x);
        vst1q_u8(out + 16 * j, veorq_u8(s[j], veorq_u8(x, kl)));
        x = vrev64q_u8(x);
        if (j == 0)
            x = veorq_u8(x, y);
        pm_acc_add(&a, t, x, (unsigned)(n - j));
    }
    return pm_swap(pm_reduce(a.lo, a.hi, a.mid));
}

PM_INLINE gv pm_dec_short_nr(const rijn_aes_key *k, const unsigned nr,
                             const uint8_t *t, gv y, const uint8_t ctr[16],
                             uint8_t *out, const uint8_t *in, size_t n)
{
    switch (n) {
    case 7: return pm_dec_short_n(k, nr, t, y, ctr, out, in, 7);
    case 6: return pm_dec_short_n(k, nr, t, y, ctr, out, in, 6);
    case 5: return pm_dec_short_n(k, nr, t, y, ctr, out, in, 5);
    case 4: return pm_dec_short_n(k, nr, t, y, ctr, out, in, 4);
    case 3: return pm_dec_short_n(k, nr, t, y, ctr, out, in, 3);
    case 2: return pm_dec_short_n(k, nr, t, y, ctr, out, in, 2);
    default: return pm_dec_short_n(k, nr, t, y, ctr, out, in, 1);
    }
}

/* n (1..7) blocks, y (bytes) absorbing their ciphertext */
static void pm_dec_short(const rijn_aes_key *k, const uint8_t *t,
                         uint8_t y[16], const uint8_t ctr[16], uint8_t *out,
                         const uint8_t *in, size_t n)
{
    gv yv = pm_load_block(y);

    if (k->rounds == 10)
        yv = pm_dec_short_nr(k, 10, t, yv, ctr, out, in, n);
    else if (k->rounds == 12)
        yv = pm_dec_short_nr(k, 12, t, yv, ctr, out, in, n);
    else
        yv = pm_dec_short_nr(k, 14, t, yv, ctr, out, in, n);
    vst1q_u8(y, vrev64q_u8(yv));
}

static void pm_enc(const rijn_aes_key *k, const uint64_t *hk, uint8_t y[16],
                   const uint8_t ctr[16], uint8_t *out, const uint8_t *in,
                   size_t nblocks)
{
    const size_t nb = nblocks / 8, rest = nblocks % 8;
    uint8_t c[16];

    if (nb > 0)
        pm_fused(k, (const uint8_t *)hk, y, ctr, out, in, nb, 1);
    if (rest > 0) {
        /* made in t, hashed there, then copied: never read back from out */
        RIJN_ALIGN(16) uint8_t t[16 * 7];
        pm_ctr_add(c, ctr, 8 * nb);
        k->impl->ctr32(k, t, in + 128 * nb, rest, c);
        pm_blocks(hk, y, t, rest);
        memcpy(out + 128 * nb, t, 16 * rest);
    }
}

static void pm_dec(const rijn_aes_key *k, const uint64_t *hk, uint8_t y[16],
                   const uint8_t ctr[16], uint8_t *out, const uint8_t *in,
                   size_t nblocks)
{
    const size_t nb = nblocks / 8, rest = nblocks % 8;
    uint8_t c[16];

    if (nb > 0)
        pm_fused(k, (const uint8_t *)hk, y, ctr, out, in, nb, 0);
    if (rest > 0) {
        pm_ctr_add(c, ctr, 8 * nb);
        pm_dec_short(k, (const uint8_t *)hk, y, c, out + 128 * nb,
                     in + 128 * nb, rest);
    }
}

RIJN_GHASH_KEY_FITS(320, "pmull's powers of H");
const rijn_ghash_engine rijn_ghash_pmull = {
    .base = {.name = "pmull", .needs = RIJN_CPU_ARM_PMULL | RIJN_CPU_NEON,
             .constant_time = 1, .rank = 50},
    .key_bytes = 320,
    .init = pm_init,
    .blocks = pm_blocks,
    .fused_aes = "armv8",
    .enc = pm_enc,
    .dec = pm_dec,
};

#else
typedef int rijn_ghash_pmull_not_built; /* ISO C wants a non-empty file */
#endif

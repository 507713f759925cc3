/*
 * neon-bs: constant-time AES-CTR (128/192/256-bit keys) on AArch64 NEON
 * (Advanced SIMD) without the crypto extension (Cortex-A53, A72, A55:
 * Raspberry Pi 3, 4 and Zero 2), bitsliced and fixsliced, 8 blocks per
 * batch in 8 x 128-bit registers, after Kasper and Schwabe ("Faster and
 * timing-attack resistant AES-GCM", CHES 2009); the NEON sibling of
 * altivec-bs (src/aes/ppc/altivec_bs.c), with a one-block TBL S-box path
 * for short runs.
 *
 * Layout. Plane q[j] holds bit j of 128 bytes: byte p (state index
 * 4*column + row) of q[j] has, in its bit b, bit j of byte p of block b.
 * The row rotations of MixColumns are byte permutations, one TBL per
 * plane; blocks <-> planes is an 8x8 bit transpose inside every byte
 * position, 3 layers of 4 exchanges (BSL/BIT with shifted copies).
 *
 * Rounds. The S-box is the circuit of Boyar and Peralta (SEA 2010, 32 AND,
 * 83 XOR; src/aes/portable/sbox_bp.inc) without its output NOTs; the
 * constant 0x63 is added into round keys 1..Nr, as in ct64.c. ShiftRows is
 * never computed (fixslicing, Adomnicai and Peyrin, TCHES 2021/1): the
 * physical state P and the logical state S satisfy S(r,c) = P(r, c + k*r)
 * with k = (k0 + rounds done) mod 4, so MixColumns fetches row r+1 at
 * column offset k and row r+2 at offset 2k, one TBL each with a per-k
 * selector, and round key i is stored permuted for its k. The start
 * offset k0 (2 for AES-128/256, 0 for AES-192) makes k = 0 after the last
 * round: the output needs no correction, the input (the counter block,
 * once per call) is permuted instead.
 *
 * Round keys are 16 bytes each (fixslice-permuted, 0x63 folded in) and
 * are spread into the 8 planes inside AddRoundKey: CMTST against the bit
 * masks 0x01..0x80 gives 0xFF where the key bit is set, 8 compares and 8
 * XOR per round. The last round key is added to the 8 output blocks after
 * the transpose (8 XOR).
 *
 * One-block path: the 256-byte S-box in 16 NEON registers, looked up with
 * one TBL and three TBX over 4 registers each (as Linux's aes-neon.S), the
 * table holding S(x) ^ 0x63, so that the path reads the same stored
 * (fixsliced, 0x63-folded) round keys: the input is permuted by FIX_k0,
 * MixColumns uses the per-round TBL selectors, and no ShiftRows. About 18
 * instructions a round for 16 bytes. Runs of at most VP_MAX blocks, and
 * the tail of a long run, take this path. (Counted in instructions it
 * would win at every length, 12 per byte against 15; but a TBL over four
 * registers takes several cycles on the in-order Cortex-A53 and on the
 * A72, where the bitsliced batch's single-cycle logic is faster for CTR,
 * as Linux's aes-neonbs found: runs of 5 blocks or more go bitsliced.)
 *
 * Key schedule: FIPS-197 in one (AES-128) or two (AES-256) registers on
 * the stored form w ^ 0x63, as altivec-bs's (see setkey128), the SubWord
 * through a second TBL table U(z) = S(z ^ 0x63), the prefix XOR of the
 * four words by two EXT: about 22 instructions a round key; AES-192 word
 * by word, SubWord through the S-box table.
 *
 * CTR. Round key 0 and counter bytes 0..11 are spread into planes once per
 * call; the eight 32-bit counters live in four byte positions of the
 * planes and step by 8 with a bitsliced ripple-carry adder (mod 2^32).
 *
 * Constant time: only NEON logic (EOR, AND, BSL/BIT, CMTST), shifts by
 * constants, and TBL/TBX, whose index selects register lanes, never a
 * memory address: table lookups with register operands run in a time
 * independent of the index values on every ARM core (Cortex-A53, A55, A72,
 * A76, Neoverse, Apple), which Linux's aes-neon and OpenSSL's vpaes-armv8
 * rely on too. No multiply instruction is used. Branches and addresses
 * depend on lengths, the round count and the (public) counter only.
 *
 * Memory: in and out may have any alignment (NEON loads and stores take
 * any), and no byte outside the 16*n bytes of in and out is read or
 * written; keystream stays in registers, and v0..v7 are cleared on the
 * way out (NB_CLEAR_V0_V7).
 */
#include "internal.h"

#if defined(__aarch64__) && defined(__AARCH64EL__) && defined(__ARM_NEON)

#include <arm_neon.h>

extern const rijn_aes_impl rijn_aes_neon_bs;

typedef uint8x16_t v8;

#if defined(__GNUC__)
#define NB_INLINE static inline __attribute__((always_inline))
#else
#define NB_INLINE static inline
#endif

/*
 * Zero v0..v7 on the way out of every entry point. Keystream and key bytes
 * stay behind in the caller-saved vector registers, and the prologue of
 * any variadic function the caller runs next (snprintf) stores q0..q7 on
 * the stack (AAPCS64 va_list save area): without this they would end up
 * there. v16..v31 are never stored by a callee on its own, and v8..v15
 * are restored (low halves) and saved by callees only as the caller's.
 */
#define NB_CLEAR_V0_V7()                                                      \
    __asm__ __volatile__("movi v0.16b, #0\n\tmovi v1.16b, #0\n\t"            \
                         "movi v2.16b, #0\n\tmovi v3.16b, #0\n\t"            \
                         "movi v4.16b, #0\n\tmovi v5.16b, #0\n\t"            \
                         "movi v6.16b, #0\n\tmovi v7.16b, #0"                 \
                         ::: "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7")

/* Runs of at most this many blocks take the one-block path. */
#define VP_MAX 4

/* k->rk holds round keys 0..Nr, 16 bytes each, as stored_i =
 * FIX_{(k0+i) mod 4}(rk_i ^ (i ? 0x63 : 0)); k0 = 2, or 0 for AES-192. */
#define K0(rounds) ((rounds) == 12 ? 0u : 2u)

/* TBL selectors; byte p = 4 * column + row. */
static const uint8_t perm_r1[4][16] = { /* row r+1, column x+k */
    {1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12},
    {5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12, 1, 2, 3, 0},
    {9, 10, 11, 8, 13, 14, 15, 12, 1, 2, 3, 0, 5, 6, 7, 4},
    {13, 14, 15, 12, 1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8},
};
static const uint8_t perm_r2[2][16] = { /* row r+2, column x+2k (k even, odd) */
    {2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13},
    {10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5},
};
static const uint8_t perm_fix[4][16] = { /* stored key (r,x) = rk(r, x - k*r) */
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {0, 13, 10, 7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3},
    {0, 9, 2, 11, 4, 13, 6, 15, 8, 1, 10, 3, 12, 5, 14, 7},
    {0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11},
};
/* The counter bytes 15, 14, 13, 12 sit at byte positions 15, 14, 13, 12
 * (k0 = 0) or 7, 14, 5, 12 (k0 = 2). carry_init: bit 3 of byte 15 (+8)
 * in all 8 blocks; carry_move: the carry from one counter byte to the
 * next (index 16: zero); index_bits: bits 0..2 of the block number b, in
 * bit b of counter byte 15. */
static const uint8_t carry_init[2][16] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff},
    {0, 0, 0, 0, 0, 0, 0, 0xff, 0, 0, 0, 0, 0, 0, 0, 0},
};
static const uint8_t carry_move[2][3][16] = {
    {{16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 15, 16},
     {16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 14, 16, 16},
     {16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 13, 16, 16, 16}},
    {{16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 7, 16},
     {16, 16, 16, 16, 16, 14, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16},
     {16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 5, 16, 16, 16}},
};
static const uint8_t index_bits[2][3][16] = {
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xaa},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xcc},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xf0}},
    {{0, 0, 0, 0, 0, 0, 0, 0xaa, 0, 0, 0, 0, 0, 0, 0, 0},
     {0, 0, 0, 0, 0, 0, 0, 0xcc, 0, 0, 0, 0, 0, 0, 0, 0},
     {0, 0, 0, 0, 0, 0, 0, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0}},
};
static const uint8_t mask_ctr[16] = /* counter bytes 12..15 */
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};

/* The AES S-box without its constant, S(x) ^ 0x63. */
static const uint8_t sbox_tab[256] __attribute__((aligned(64))) = {
    0x00, 0x1f, 0x14, 0x18, 0x91, 0x08, 0x0c, 0xa6, 0x53, 0x62, 0x04, 0x48,
    0x9d, 0xb4, 0xc8, 0x15, 0xa9, 0xe1, 0xaa, 0x1e, 0x99, 0x3a, 0x24, 0x93,
    0xce, 0xb7, 0xc1, 0xcc, 0xff, 0xc7, 0x11, 0xa3, 0xd4, 0x9e, 0xf0, 0x45,
    0x55, 0x5c, 0x94, 0xaf, 0x57, 0xc6, 0x86, 0x92, 0x12, 0xbb, 0x52, 0x76,
    0x67, 0xa4, 0x40, 0xa0, 0x7b, 0xf5, 0x66, 0xf9, 0x64, 0x71, 0xe3, 0x81,
    0x88, 0x44, 0xd1, 0x16, 0x6a, 0xe0, 0x4f, 0x79, 0x78, 0x0d, 0x39, 0xc3,
    0x31, 0x58, 0xb5, 0xd0, 0x4a, 0x80, 0x4c, 0xe7, 0x30, 0xb2, 0x63, 0x8e,
    0x43, 0x9f, 0xd2, 0x38, 0x09, 0xa8, 0xdd, 0x5a, 0x29, 0x2f, 0x3b, 0xac,
    0xb3, 0x8c, 0xc9, 0x98, 0x20, 0x2e, 0x50, 0xe6, 0x26, 0x9a, 0x61, 0x1c,
    0x33, 0x5f, 0xfc, 0xcb, 0x32, 0xc0, 0x23, 0xec, 0xf1, 0xfe, 0x5b, 0x96,
    0xdf, 0xd5, 0xb9, 0x42, 0x73, 0x9c, 0x90, 0xb1, 0xae, 0x6f, 0x70, 0x8f,
    0x3c, 0xf4, 0x27, 0x74, 0xa7, 0xc4, 0x1d, 0x5e, 0x07, 0x3e, 0x7a, 0x10,
    0x03, 0xe2, 0x2c, 0xbf, 0x41, 0x49, 0xf3, 0xeb, 0x25, 0x8d, 0xdb, 0x77,
    0xbd, 0x3d, 0x68, 0xb8, 0x83, 0x51, 0x59, 0x69, 0x2a, 0x65, 0x47, 0x3f,
    0xa1, 0xb0, 0xcf, 0x01, 0xf2, 0xf6, 0x87, 0x1a, 0x84, 0xab, 0x54, 0x0e,
    0xee, 0xb6, 0x2d, 0xca, 0x0f, 0x35, 0x97, 0x89, 0x06, 0x19, 0xcd, 0x6b,
    0xd9, 0x1b, 0x46, 0x4d, 0x7f, 0xc5, 0xd7, 0xa5, 0x8b, 0xbe, 0x17, 0x7c,
    0x28, 0xde, 0xe8, 0xe9, 0x13, 0x5d, 0xd6, 0x05, 0x2b, 0x60, 0x95, 0x6d,
    0x02, 0x56, 0x34, 0xda, 0xe5, 0xa2, 0x7e, 0xfd, 0x82, 0x9b, 0xfb, 0x72,
    0x0a, 0xba, 0xed, 0xf7, 0xf8, 0x7d, 0xe4, 0x8a, 0xad, 0x36, 0x4b, 0xbc,
    0xef, 0xc2, 0xea, 0x6e, 0xdc, 0x85, 0x21, 0x0b, 0x22, 0xfa, 0x4e, 0x6c,
    0xd3, 0x37, 0xd8, 0x75,
};

/* ------------------------------------------------------------------------
 * One block: the TBL S-box in 16 registers.
 * --------------------------------------------------------------------- */
/* The table in 16 registers, as four groups of 4 (TBL takes a group of
 * consecutive registers); passed by value, so that they stay registers. */
#define SBOX_ARGS uint8x16x4_t s0, uint8x16x4_t s1, uint8x16x4_t s2,         \
                  uint8x16x4_t s3
#define SBOX s0, s1, s2, s3
#define LOAD_SBOX()                                                           \
    const uint8x16x4_t s0 = vld1q_u8_x4(sbox_tab),                            \
                       s1 = vld1q_u8_x4(sbox_tab + 64),                       \
                       s2 = vld1q_u8_x4(sbox_tab + 128),                      \
                       s3 = vld1q_u8_x4(sbox_tab + 192)

/* S(x) ^ 0x63 in every byte: TBL over bytes 0..63 of the table, TBX over
 * the three other quarters with the index moved down by 64 each time (an
 * index out of 0..63 leaves the byte as it is). */
NB_INLINE v8 subbytes(SBOX_ARGS, v8 x)
{
    const v8 c40 = vdupq_n_u8(0x40);
    v8 i1 = vsubq_u8(x, c40), i2 = vsubq_u8(i1, c40), i3 = vsubq_u8(i2, c40);
    v8 y = vqtbl4q_u8(s0, x);

    y = vqtbx4q_u8(y, s1, i1);
    y = vqtbx4q_u8(y, s2, i2);
    return vqtbx4q_u8(y, s3, i3);
}

/* 2x in GF(2^8), every byte */
NB_INLINE v8 xtime(v8 x)
{
    v8 hi = vreinterpretq_u8_s8(vshrq_n_s8(vreinterpretq_s8_u8(x), 7));

    return vaddq_u8(x, x) ^ (hi & vdupq_n_u8(0x1b));
}

/* One round of the one-block path (k: its MixColumns variant), then the
 * stored round key. */
NB_INLINE v8 round1(SBOX_ARGS, v8 x, const uint8_t *rk, unsigned k)
{
    v8 r1, t;

    x = subbytes(SBOX, x);
    r1 = vqtbl1q_u8(x, vld1q_u8(perm_r1[k]));
    t = x ^ r1;
    return xtime(t) ^ r1 ^ vqtbl1q_u8(t, vld1q_u8(perm_r2[k & 1])) ^
           vld1q_u8(rk);
}

/* x permuted by FIX_k0; rounds unrolled per key size so that every
 * selector is a constant. */
NB_INLINE v8 encrypt1(SBOX_ARGS, v8 x, const uint8_t *rk,
                      unsigned rounds)
{
    x ^= vld1q_u8(rk);
    if (rounds == 12) {
        x = round1(SBOX, x, rk + 16, 1);
        x = round1(SBOX, x, rk + 32, 2);
        rk += 32;
    }
    x = round1(SBOX, x, rk + 16, 3);
    rk += 16;
    x = round1(SBOX, x, rk + 16, 0);
    x = round1(SBOX, x, rk + 32, 1);
    x = round1(SBOX, x, rk + 48, 2);
    x = round1(SBOX, x, rk + 64, 3);
    x = round1(SBOX, x, rk + 80, 0);
    x = round1(SBOX, x, rk + 96, 1);
    x = round1(SBOX, x, rk + 112, 2);
    x = round1(SBOX, x, rk + 128, 3);
    rk += 128;
    if (rounds == 14) {
        x = round1(SBOX, x, rk + 16, 0);
        x = round1(SBOX, x, rk + 32, 1);
        x = round1(SBOX, x, rk + 48, 2);
        x = round1(SBOX, x, rk + 64, 3);
        rk += 64;
    }
    return subbytes(SBOX, x) ^ vld1q_u8(rk + 16);
}

/* n blocks, one at a time: ECB (ctr == NULL) or CTR from counter c. */
static void vp_blocks(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                      size_t n, const uint8_t *ctr, uint32_t c)
{
    const uint8_t *rk = (const uint8_t *)k->rk;
    const unsigned rounds = k->rounds;
    const v8 pf = vld1q_u8(perm_fix[K0(rounds)]);
    uint32x4_t cb = vdupq_n_u32(0);
    size_t i;

    if (n == 0)
        return;
    LOAD_SBOX();
    if (ctr != NULL)
        cb = vreinterpretq_u32_u8(vld1q_u8(ctr));
    for (i = 0; i < n; i++, in += 16, out += 16) {
        v8 x, d = vld1q_u8(in);
        if (ctr != NULL) {
            cb = vsetq_lane_u32(RIJN_BSWAP32(c + (uint32_t)i), cb, 3);
            x = vreinterpretq_u8_u32(cb);
        } else {
            x = d;
        }
        x = encrypt1(SBOX, vqtbl1q_u8(x, pf), rk, rounds);
        if (ctr != NULL)
            x ^= d;
        vst1q_u8(out, x);
    }
}

/* ------------------------------------------------------------------------
 * Bitsliced rounds. The S-box (Boyar-Peralta); x0 is the most significant
 * bit; the output lacks the constant 0x63.
 * --------------------------------------------------------------------- */
NB_INLINE void sbox_bs(v8 q[8])
{
#define RIJN_SBOX_T v8
#include "aes/portable/sbox_bp.inc"
#undef RIJN_SBOX_T
}

/*
 * MixColumns on a state k ShiftRows behind: out = 2t ^ R1(q) ^ R2(t) with
 * t = q ^ R1(q); p1 / p2 are the R1 / R2 selectors for this k.
 */
NB_INLINE void mix_columns(v8 q[8], v8 p1, v8 p2)
{
    v8 r7, t7, r, t, tp;

    r7 = vqtbl1q_u8(q[7], p1);
    t7 = q[7] ^ r7;
#define MC_PLANE(j, xt)                                                       \
    r = vqtbl1q_u8(q[j], p1);                                                 \
    t = q[j] ^ r;                                                             \
    q[j] = (xt) ^ r ^ vqtbl1q_u8(t, p2);                                      \
    tp = t
    MC_PLANE(0, t7);
    MC_PLANE(1, tp ^ t7);
    MC_PLANE(2, tp);
    MC_PLANE(3, tp ^ t7);
    MC_PLANE(4, tp ^ t7);
    MC_PLANE(5, tp);
    MC_PLANE(6, tp);
#undef MC_PLANE
    q[7] = tp ^ r7 ^ vqtbl1q_u8(t7, p2);
}

/* Plane j of the 16 key bytes v: 0xFF where bit j is set. */
#define SPREAD(v, j) vtstq_u8((v), vdupq_n_u8(1u << (j)))

/* q ^= the 8 planes of the stored round key at rk. */
NB_INLINE void add_round_key(v8 q[8], const uint8_t *rk)
{
    const v8 v = vld1q_u8(rk);

    q[0] ^= SPREAD(v, 0);
    q[1] ^= SPREAD(v, 1);
    q[2] ^= SPREAD(v, 2);
    q[3] ^= SPREAD(v, 3);
    q[4] ^= SPREAD(v, 4);
    q[5] ^= SPREAD(v, 5);
    q[6] ^= SPREAD(v, 6);
    q[7] ^= SPREAD(v, 7);
}

NB_INLINE void full_round(v8 q[8], const uint8_t *rk, unsigned k)
{
    sbox_bs(q);
    mix_columns(q, vld1q_u8(perm_r1[k]), vld1q_u8(perm_r2[k & 1]));
    add_round_key(q, rk);
}

/* Rounds 1..Nr on a state that has round key 0 added (rk: stored keys),
 * without the last AddRoundKey: after the last round k = 0, so that key is
 * plain bytes, added by the caller to the 8 blocks after the transpose. */
NB_INLINE void encrypt_bs(v8 q[8], const uint8_t *rk, unsigned rounds)
{
    const uint8_t *last = rk + 16 * rounds;

    rk += 16;
    if (rounds == 12) { /* k0 = 0: rounds 1, 2 */
        full_round(q, rk, 1);
        full_round(q, rk + 16, 2);
        rk += 32;
    }
    full_round(q, rk, 3);
    rk += 16;
    while (rk != last) {
        full_round(q, rk, 0);
        full_round(q, rk + 16, 1);
        full_round(q, rk + 32, 2);
        full_round(q, rk + 48, 3);
        rk += 64;
    }
    sbox_bs(q);
}

/*
 * 8x8 bit transpose in every byte position: bit i of q[w] <-> bit w of
 * q[i]. Planes <-> blocks, both ways. Each exchange takes the bits of b
 * under the mask m, shifted up by n, into a, and the bits of a under
 * m << n, shifted down, into b: two shifts and two bit-selects.
 */
#define SWAPMOVE(a, b, m, n)                                                  \
    do {                                                                      \
        v8 sm_a = vshrq_n_u8((a), (n)), sm_b = vshlq_n_u8((b), (n));          \
        (a) = vbslq_u8(vshlq_n_u8((m), (n)), sm_b, (a));                      \
        (b) = vbslq_u8((m), sm_a, (b));                                       \
    } while (0)

NB_INLINE void transpose(v8 q[8])
{
    const v8 m1 = vdupq_n_u8(0x55), m2 = vdupq_n_u8(0x33),
             m4 = vdupq_n_u8(0x0f);

    SWAPMOVE(q[0], q[1], m1, 1);
    SWAPMOVE(q[2], q[3], m1, 1);
    SWAPMOVE(q[4], q[5], m1, 1);
    SWAPMOVE(q[6], q[7], m1, 1);
    SWAPMOVE(q[0], q[2], m2, 2);
    SWAPMOVE(q[1], q[3], m2, 2);
    SWAPMOVE(q[4], q[6], m2, 2);
    SWAPMOVE(q[5], q[7], m2, 2);
    SWAPMOVE(q[0], q[4], m4, 4);
    SWAPMOVE(q[1], q[5], m4, 4);
    SWAPMOVE(q[2], q[6], m4, 4);
    SWAPMOVE(q[3], q[7], m4, 4);
}

/* out[0..16n) = in ^ blocks v[0..n) ^ last, n <= 8 */
NB_INLINE void xor_out(uint8_t *out, const uint8_t *in, const v8 *v, v8 last,
                       size_t n)
{
    size_t i;

    RIJN_UNROLL(8)
    for (i = 0; i < 8; i++)
        if (i < n)
            vst1q_u8(out + 16 * i, vld1q_u8(in + 16 * i) ^ v[i] ^ last);
}

/* ------------------------------------------------------------------------
 * Key schedule
 * --------------------------------------------------------------------- */

/*
 * The expansion runs on the stored form s = w ^ 0x63 (every byte, words
 * w of FIPS-197), as altivec-bs's: with P the prefix XOR over the four
 * words (word j := w_0 ^ ... ^ w_j) and T = (S(x) ^ Rcon, 0x63, 0x63,
 * 0x63) (words; x the SubWord input), P(s ^ T) is the next s: the prefix
 * broadcasts S(x) ^ Rcon and makes the 0x63s the stored form needs. The
 * lookups take the stored form too, through the table U(z) = S(z ^ 0x63),
 * and the words 1..3 of the SubWord input are set to 0x63 (TBX keeps a
 * lane whose index is out of range), whose U is 0x63: one TBX builds the
 * input, one lookup gives T but for Rcon.
 */
static const uint8_t ks_tab[256] __attribute__((aligned(64))) = {
    0xfb, 0xaa, 0xef, 0xd0, 0x85, 0x33, 0x4d, 0x43, 0x7f, 0x02, 0xf9, 0x45,
    0xa8, 0x9f, 0x3c, 0x50, 0x8f, 0x40, 0xa3, 0x51, 0xf5, 0x38, 0x9d, 0x92,
    0x21, 0xda, 0xb6, 0xbc, 0xd2, 0xf3, 0xff, 0x10, 0x1a, 0x2c, 0x83, 0x09,
    0xa0, 0x5a, 0x6e, 0x1b, 0xb3, 0xd6, 0x3b, 0x52, 0x84, 0x2f, 0xe3, 0x29,
    0xed, 0x00, 0xd1, 0x53, 0x5b, 0xb1, 0xfc, 0x20, 0x39, 0xbe, 0xcb, 0x6a,
    0xcf, 0x58, 0x4c, 0x4a, 0x26, 0x93, 0xfd, 0xb7, 0xcc, 0xf7, 0x3f, 0x36,
    0xf1, 0xe5, 0xa5, 0x34, 0x15, 0x31, 0xd8, 0x71, 0xc3, 0x23, 0xc7, 0x04,
    0x9a, 0x05, 0x96, 0x18, 0xe2, 0x80, 0x12, 0x07, 0x75, 0xb2, 0x27, 0xeb,
    0x7b, 0x77, 0x7c, 0x63, 0xc5, 0x6f, 0x6b, 0xf2, 0x2b, 0x67, 0x01, 0x30,
    0x76, 0xab, 0xd7, 0xfe, 0x7d, 0xc9, 0x82, 0xca, 0xf0, 0x47, 0x59, 0xfa,
    0xaf, 0xa2, 0xd4, 0xad, 0xc0, 0x72, 0xa4, 0x9c, 0x11, 0x98, 0xf8, 0xe1,
    0x94, 0x8e, 0xd9, 0x69, 0xe9, 0x87, 0x1e, 0x9b, 0xdf, 0x28, 0x55, 0xce,
    0x0d, 0x89, 0xa1, 0x8c, 0x68, 0x42, 0xe6, 0xbf, 0x0f, 0x2d, 0x99, 0x41,
    0x16, 0xbb, 0x54, 0xb0, 0x2e, 0x25, 0x78, 0xba, 0xc6, 0xb4, 0xa6, 0x1c,
    0x1f, 0x74, 0xdd, 0xe8, 0x8a, 0x8b, 0xbd, 0x4b, 0x66, 0xb5, 0x3e, 0x70,
    0x0e, 0xf6, 0x03, 0x48, 0xb9, 0x57, 0x35, 0x61, 0x9e, 0x1d, 0xc1, 0x86,
    0x0a, 0x3a, 0x32, 0xe0, 0x5c, 0x24, 0x06, 0x49, 0x62, 0xac, 0xd3, 0xc2,
    0x79, 0xe4, 0x95, 0x91, 0x6d, 0x37, 0xc8, 0xe7, 0xa9, 0x4e, 0xd5, 0x8d,
    0xea, 0xf4, 0x56, 0x6c, 0x08, 0xae, 0x7a, 0x65, 0xec, 0x13, 0x0c, 0xcd,
    0x17, 0x44, 0x97, 0x5f, 0x3d, 0x7e, 0xa7, 0xc4, 0x73, 0x19, 0x5d, 0x64,
    0xdc, 0x4f, 0x81, 0x60, 0x88, 0x90, 0x2a, 0x22, 0x14, 0xb8, 0xee, 0x46,
    0xdb, 0x0b, 0x5e, 0xde,
};
/* Rcon_i in byte 0 of row i - 1 */
static const uint8_t rcon[10][16] = {
    {0x01}, {0x02}, {0x04}, {0x08}, {0x10}, {0x20}, {0x40}, {0x80}, {0x1b},
    {0x36},
};
/* TBX selectors: RotWord(word 3), word 3, into word 0; 16: keep 0x63 */
static const uint8_t sel_rot3[16] = {13, 14, 15, 12, 16, 16, 16, 16,
                                     16, 16, 16, 16, 16, 16, 16, 16};
static const uint8_t sel_w3[16] = {12, 13, 14, 15, 16, 16, 16, 16,
                                   16, 16, 16, 16, 16, 16, 16, 16};

#define LOAD_KS_TAB()                                                         \
    const uint8x16x4_t s0 = vld1q_u8_x4(ks_tab),                              \
                       s1 = vld1q_u8_x4(ks_tab + 64),                         \
                       s2 = vld1q_u8_x4(ks_tab + 128),                        \
                       s3 = vld1q_u8_x4(ks_tab + 192)

/* P(s ^ t) */
NB_INLINE v8 ks_next(v8 s, v8 t)
{
    const v8 z = vdupq_n_u8(0);

    s ^= t;
    s ^= vextq_u8(z, s, 12);
    return s ^ vextq_u8(z, s, 8);
}

/* The next stored-form words from s and the SubWord input selected from
 * v by sel, with rc (Rcon in byte 0, or 0) */
#define KS_STEP(s, v, sel, rc)                                                \
    ks_next((s), subbytes(SBOX, vqtbx1q_u8(c63, (v), (sel))) ^ (rc))

/* Store a round key: its stored form s permuted by fix (FIX_k); then fix
 * := FIX_(k+1) (rows rotated once more). */
#define KS_PUT(p, s)                                                          \
    do {                                                                      \
        vst1q_u8((p), vqtbl1q_u8((s), fix));                                  \
        fix = vqtbl1q_u8(fix, fix1);                                          \
    } while (0)

/* AES-128 (k0 = 2): the whole expansion in one register. */
__attribute__((noinline)) static void setkey128(uint8_t *rk,
                                                const uint8_t *key)
{
    LOAD_KS_TAB();
    const v8 c63 = vdupq_n_u8(0x63), sel = vld1q_u8(sel_rot3),
             fix1 = vld1q_u8(perm_fix[1]);
    v8 fix = vld1q_u8(perm_fix[2]), a = vld1q_u8(key);
    unsigned i;

    KS_PUT(rk, a);
    a ^= c63;
    RIJN_NO_UNROLL
    for (i = 0; i < 10; i++) {
        a = KS_STEP(a, a, sel, vld1q_u8(rcon[i]));
        KS_PUT(rk + 16 * (i + 1), a);
    }
}

/* AES-256 (k0 = 2): round keys 2i and 2i+1 in two registers. */
__attribute__((noinline)) static void setkey256(uint8_t *rk,
                                                const uint8_t *key)
{
    LOAD_KS_TAB();
    const v8 c63 = vdupq_n_u8(0x63), sel = vld1q_u8(sel_rot3),
             sel3 = vld1q_u8(sel_w3), fix1 = vld1q_u8(perm_fix[1]),
             zero = vdupq_n_u8(0);
    v8 fix = vld1q_u8(perm_fix[2]), a = vld1q_u8(key),
       b = vld1q_u8(key + 16);
    unsigned i;

    KS_PUT(rk, a);
    b ^= c63;
    KS_PUT(rk + 16, b);
    a ^= c63;
    RIJN_NO_UNROLL
    for (i = 0; i < 7; i++) {
        /* SubWord(RotWord(w[8i+7])) ^ Rcon */
        a = KS_STEP(a, b, sel, vld1q_u8(rcon[i]));
        KS_PUT(rk + 32 * (i + 1), a);
        if (i == 6)
            break;
        /* SubWord(w[8i+11]) */
        b = KS_STEP(b, a, sel3, zero);
        KS_PUT(rk + 32 * (i + 1) + 16, b);
    }
}

#undef KS_PUT
#undef KS_STEP

/* SubWord of a 32-bit word (any byte order: bytewise) through the TBL
 * S-box. */
NB_INLINE uint32_t sub_word(SBOX_ARGS, uint32_t w)
{
    v8 x = vreinterpretq_u8_u32(vdupq_n_u32(w));

    x = subbytes(SBOX, x) ^ vdupq_n_u8(0x63);
    return vgetq_lane_u32(vreinterpretq_u32_u8(x), 0);
}

/* AES-192, word by word (words as native 32-bit values of the key bytes,
 * so RotWord is a rotation by 8 bits on a little-endian host). */
__attribute__((noinline)) static void setkey192(uint8_t *rk,
                                                const uint8_t *key)
{
    LOAD_SBOX();
    uint32_t w[52];
    unsigned i;

    memcpy(w, key, 24);
    for (i = 6; i < 52; i++) {
        uint32_t t = w[i - 1];
        if (i % 6 == 0) {
            t = sub_word(SBOX, (t >> 8) | (t << 24)) ^ rcon[i / 6 - 1][0];
        }
        w[i] = w[i - 6] ^ t;
    }
    for (i = 0; i <= 12; i++) {
        v8 x = vld1q_u8((const uint8_t *)(w + 4 * i));
        if (i > 0)
            x ^= vdupq_n_u8(0x63);
        vst1q_u8(rk + 16 * i, vqtbl1q_u8(x, vld1q_u8(perm_fix[i & 3])));
    }
    rijn_burn(w, sizeof w);
}

static void nbs_setkey(rijn_aes_key *k, const uint8_t *key, size_t key_len)
{
    uint8_t *rk = (uint8_t *)k->rk;

    if (key_len == 16)
        setkey128(rk, key);
    else if (key_len == 24)
        setkey192(rk, key);
    else
        setkey256(rk, key);
    NB_CLEAR_V0_V7();
}

/* ------------------------------------------------------------------------
 * ECB and CTR
 * --------------------------------------------------------------------- */

/* Not inlined: ECB is not the hot path. */
__attribute__((noinline)) static void encrypt_bs_call(v8 q[8],
                                                      const uint8_t *rk,
                                                      unsigned rounds)
{
    encrypt_bs(q, rk, rounds);
}

static void nbs_ecb(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                    size_t nblocks)
{
    const uint8_t *rk = (const uint8_t *)k->rk;
    const unsigned rounds = k->rounds;
    const v8 pf = vld1q_u8(perm_fix[K0(rounds)]);

    while (nblocks > 0) {
        size_t n = nblocks < 8 ? nblocks : 8, i;
        v8 q[8], rk0, last;

        if (n <= VP_MAX) {
            vp_blocks(k, out, in, n, NULL, 0);
            break;
        }
        rk0 = vld1q_u8(rk);
        RIJN_UNROLL(8)
        for (i = 0; i < 8; i++) {
            v8 x = i < n ? vld1q_u8(in + 16 * i) : vdupq_n_u8(0);
            q[i] = vqtbl1q_u8(x, pf) ^ rk0;
        }
        transpose(q);
        encrypt_bs_call(q, rk, rounds);
        transpose(q);
        last = vld1q_u8(rk + 16 * rounds);
        RIJN_UNROLL(8)
        for (i = 0; i < 8; i++)
            if (i < n)
                vst1q_u8(out + 16 * i, q[i] ^ last);
        in += 16 * n;
        out += 16 * n;
        nblocks -= n;
    }
    NB_CLEAR_V0_V7();
}

/* Propagate carry (one bit per block, in the byte of counter byte 15)
 * into planes j0..7 of that byte, then into counter bytes 14, 13, 12 while
 * it is non-zero (a test on the counter, which is public); a carry out of
 * byte 12 is dropped (mod 2^32). */
NB_INLINE void ctr_carry(v8 c[8], v8 carry, int j0, unsigned k0i)
{
    v8 s;
    int j, r;

    RIJN_UNROLL(8)
    for (j = j0; j < 8; j++) {
        s = c[j] ^ carry;
        carry &= c[j];
        c[j] = s;
    }
    for (r = 0; r < 3 && vmaxvq_u8(carry) != 0; r++) {
        carry = vqtbl1q_u8(carry, vld1q_u8(carry_move[k0i][r]));
        RIJN_UNROLL(8)
        for (j = 0; j < 8; j++) {
            s = c[j] ^ carry;
            carry &= c[j];
            c[j] = s;
        }
    }
}

/* Add b to the counter of block b (b = 0..7): a full adder on planes 0..2
 * with the addend bits as byte masks 0xAA, 0xCC, 0xF0. */
NB_INLINE void ctr_add_index(v8 c[8], unsigned k0i)
{
    v8 carry = vdupq_n_u8(0), a, t, cj;
    int j;

    RIJN_UNROLL(3)
    for (j = 0; j < 3; j++) {
        a = vld1q_u8(index_bits[k0i][j]);
        cj = c[j];
        t = cj ^ a;
        c[j] = t ^ carry;
        carry = (cj & a) | (carry & t);
    }
    ctr_carry(c, carry, 3, k0i);
}

/* More than VP_MAX blocks (kept apart from nbs_ctr32 so that short runs
 * do not pay for this function's register saves). */
__attribute__((noinline)) static void ctr_long(const rijn_aes_key *k,
                                               uint8_t *out,
                                               const uint8_t *in,
                                               size_t nblocks,
                                               const uint8_t ctr[16])
{
    uint32_t c0 = rijn_load32_be(ctr + 12);
    const uint8_t *rk = (const uint8_t *)k->rk;
    const unsigned rounds = k->rounds, k0i = K0(rounds) / 2;
    const v8 pf = vld1q_u8(perm_fix[K0(rounds)]);
    v8 base[8], cnt[8], q[8], v, c, m, last;
    int i;

    /* round key 0 and counter bytes 0..11, spread into planes */
    c = vld1q_u8(ctr);
    m = vld1q_u8(mask_ctr);
    v = vbicq_u8(c, m);
    v = vqtbl1q_u8(v, pf) ^ vld1q_u8(rk);
    base[0] = SPREAD(v, 0);
    base[1] = SPREAD(v, 1);
    base[2] = SPREAD(v, 2);
    base[3] = SPREAD(v, 3);
    base[4] = SPREAD(v, 4);
    base[5] = SPREAD(v, 5);
    base[6] = SPREAD(v, 6);
    base[7] = SPREAD(v, 7);
    /* counter bytes 12..15 spread, then + b in block b */
    v = vqtbl1q_u8(c & m, pf);
    cnt[0] = SPREAD(v, 0);
    cnt[1] = SPREAD(v, 1);
    cnt[2] = SPREAD(v, 2);
    cnt[3] = SPREAD(v, 3);
    cnt[4] = SPREAD(v, 4);
    cnt[5] = SPREAD(v, 5);
    cnt[6] = SPREAD(v, 6);
    cnt[7] = SPREAD(v, 7);
    ctr_add_index(cnt, k0i);
    last = vld1q_u8(rk + 16 * rounds);

    for (;;) {
        RIJN_UNROLL(8)
        for (i = 0; i < 8; i++)
            q[i] = base[i] ^ cnt[i];
        encrypt_bs(q, rk, rounds);
        transpose(q);
        if (nblocks < 8) {
            xor_out(out, in, q, last, nblocks);
            return;
        }
        xor_out(out, in, q, last, 8);
        nblocks -= 8;
        if (nblocks == 0)
            return;
        in += 128;
        out += 128;
        c0 += 8;
        if (nblocks <= VP_MAX) {
            vp_blocks(k, out, in, nblocks, ctr, c0);
            return;
        }
        ctr_carry(cnt, vld1q_u8(carry_init[k0i]), 3, k0i);
    }
}

static void nbs_ctr32(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                      size_t nblocks, const uint8_t ctr[16])
{
    if (nblocks <= VP_MAX)
        vp_blocks(k, out, in, nblocks, ctr, rijn_load32_be(ctr + 12));
    else
        ctr_long(k, out, in, nblocks, ctr);
    NB_CLEAR_V0_V7();
}

RIJN_AES_KEY_FITS(15 * 16, "neon-bs's AES-256 schedule");
const rijn_aes_impl rijn_aes_neon_bs = {
    .base = {.name = "neon-bs", .needs = RIJN_CPU_NEON, .constant_time = 1,
             .rank = 20},
    .key_bytes = RIJN_AES_KEY_BYTES(16),
    .setkey = nbs_setkey,
    .ecb = nbs_ecb,
    .ctr32 = nbs_ctr32,
};

#else
typedef int rijn_aes_neon_bs_not_built; /* ISO C wants a non-empty file */
#endif /* little-endian AArch64 */

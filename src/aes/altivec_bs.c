/*
 * altivec-bs: constant-time AES-CTR (128/192/256-bit keys) on AltiVec
 * (PowerPC G4/G5 and later), bitsliced and fixsliced, 8 blocks per batch
 * in 8 x 128-bit vector registers, after Kasper and Schwabe ("Faster and
 * timing-attack resistant AES-GCM", CHES 2009), with a one-block
 * vector-permute path for short runs and for the key schedule.
 *
 * Layout. Plane q[j] holds bit j of 128 bytes: byte p (state index
 * 4*column + row) of q[j] has, in its bit b, bit j of byte p of block b.
 * Byte moves (the row rotations of MixColumns) are one vec_perm per plane;
 * bytes <-> planes is an 8x8 bit transpose inside every byte position,
 * 3 layers of shift-and-mask exchanges between plane pairs.
 *
 * Rounds. The S-box is the circuit of Boyar and Peralta (SEA 2010, 32 AND,
 * 83 XOR) without its output NOTs; the missing constant 0x63 is added into
 * round keys 1..Nr (MixColumns and ShiftRows keep the all-0x63 state), as
 * in ct64.c. ShiftRows is never computed (fixslicing, Adomnicai and Peyrin,
 * TCHES 2021/1): the physical state P and the logical state S satisfy
 * S(r,c) = P(r, c + k*r) with k = (k0 + rounds done) mod 4, so MixColumns
 * fetches row r+1 at column offset k and row r+2 at offset 2k, one vec_perm
 * each with a per-k selector, and round key i is stored permuted for its
 * k. The start offset k0 (2 for AES-128/256, 0 for AES-192) makes k = 0
 * after the last round, so the output needs no correction; the input (the
 * counter blocks, once per call) is permuted instead.
 *
 * Round keys are stored as 16 bytes each (fixslice-permuted, 0x63 folded
 * in) and spread into the 8 planes inside AddRoundKey (byte -> 0x00/0xFF
 * per bit by shifts): 15 operations, no more than loading 8 stored planes
 * (2 instructions each on AltiVec), and the key setup stays small. The
 * last round ends at k = 0, so its key is added to the 8 output blocks
 * after the transpose (8 XOR).
 *
 * One-block path, in the manner of Kraszewski's AltiVec AES notes: the
 * 256-byte S-box lives in 16 vector registers and is read with 8 vec_perm
 * (5 index bits) and 7 vec_sel (3 index bits) for 16 bytes at once; no
 * memory lookup. The table is S(x) ^ 0x63 and the path has its own copy of
 * the round keys (not permuted, 0x63 folded in). Runs of at most VP_MAX
 * blocks, and the tail of a long run, take this path and cost only per
 * block (about 37 instructions a round). The key schedules (128, 192,
 * 256) run the FIPS-197 expansion in one or two vector registers with
 * the same tables, read for one word (ks_sub: 8 vec_perm, word merges and
 * one vec_perm instead of the vec_sel tree), fully unrolled.
 *
 * CTR. Round key 0 and counter bytes 0..11 are spread into planes once per
 * call; the eight 32-bit counters live in four byte positions of the
 * planes and step by 8 with a bitsliced ripple-carry adder (mod 2^32).
 *
 * Constant time: only vector logic, shifts, vec_perm and vec_sel; vec_perm
 * indexes registers, never memory. Branches and addresses depend on lengths,
 * alignment, the round count and the (public) counter only.
 *
 * Memory: in and out may have any alignment (unaligned data goes through an
 * aligned stack buffer with memcpy), and no byte outside the 16*n bytes of
 * in and out is read or written.
 */
#include "internal.h"

#if defined(__powerpc__) || defined(__powerpc64__) || defined(__PPC__)

#if !defined(__ALTIVEC__)
#error "altivec_bs.c must be compiled with -maltivec -mabi=altivec"
#endif

#include <altivec.h>

/* GCC's pre-allocation scheduling lengthens live ranges past the 32 vector
 * registers in the bitsliced rounds; without it, 0.3-1.5% fewer
 * instructions (spills) in every column. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-schedule-insns")
#endif

extern const rijn_aes_impl rijn_aes_altivec_bs;

typedef __vector unsigned char v8;

#if defined(__GNUC__)
#define AB_INLINE static inline __attribute__((always_inline))
#else
#define AB_INLINE static inline
#endif

/* Loops over the 8 planes or blocks must be unrolled, or the state goes
 * through the stack in every round. */
#define AB_UNROLL _Pragma("GCC unroll 8")

/* Runs of at most this many blocks take the one-block path. */
#define VP_MAX 4

/* k->rk holds round keys 0..Nr, 16 bytes each, as stored_i =
 * FIX_{(k0+i) mod 4}(rk_i ^ (i ? 0x63 : 0)); k0 = 2, or 0 for AES-192. */
#define K0(rounds) ((rounds) == 12 ? 0u : 2u)
/* ... and at byte PK_OFF + 16*i the same keys for the one-block path,
 * rk_i ^ (i ? 0x63 : 0), not permuted. */
#define PK_OFF 256

/* vec_perm selectors; byte p = 4 * column + row, element order. */
static const v8 perm_r1[4] = { /* row r+1, column x+k */
    {1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12},
    {5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12, 1, 2, 3, 0},
    {9, 10, 11, 8, 13, 14, 15, 12, 1, 2, 3, 0, 5, 6, 7, 4},
    {13, 14, 15, 12, 1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8},
};
static const v8 perm_r2[2] = { /* row r+2, column x+2k (k even, odd) */
    {2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13},
    {10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5},
};
static const v8 perm_fix[4] = { /* stored key (r,x) = rk(r, x - k*r) */
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {0, 13, 10, 7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3},
    {0, 9, 2, 11, 4, 13, 6, 15, 8, 1, 10, 3, 12, 5, 14, 7},
    {0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11},
};
/* ShiftRows; ShiftRows then row r+1; row r+2 (one-block path) */
static const v8 perm_sr =
    {0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11};
static const v8 perm_r1sr =
    {5, 10, 15, 0, 9, 14, 3, 4, 13, 2, 7, 8, 1, 6, 11, 12};
static const v8 perm_rot2 =
    {2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13};
/* RotWord(w3) and w3 in every column; words shifted up by one and two
 * columns */
static const v8 perm_rotb =
    {13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12};
static const v8 perm_bc3 =
    {12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15};
static const v8 perm_rotw1 = /* RotWord(w1) in every column (AES-192) */
    {5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7, 4};
static const v8 perm_lo_lo = /* low half of a, low half of b */
    {0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23};
static const v8 perm_hi_lo = /* high half of a, low half of b */
    {8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23};
static const v8 perm_sh1 =
    {16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static const v8 perm_sh2 =
    {16, 16, 16, 16, 16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7};
/* Rcon in row 0, and the 0x63 the S-box table leaves out, per round */
#define RC(x) {(x) ^ 0x63, 0x63, 0x63, 0x63, (x) ^ 0x63, 0x63, 0x63, 0x63,     \
               (x) ^ 0x63, 0x63, 0x63, 0x63, (x) ^ 0x63, 0x63, 0x63, 0x63}
static const v8 rcon_tab[10] = {
    RC(0x01), RC(0x02), RC(0x04), RC(0x08), RC(0x10),
    RC(0x20), RC(0x40), RC(0x80), RC(0x1b), RC(0x36),
};
#undef RC
/* The counter bytes 15, 14, 13, 12 sit at byte positions 15, 14, 13, 12
 * (k0 = 0) or 7, 14, 5, 12 (k0 = 2). carry_init: bit 3 of byte 15 (+8)
 * in all 8 blocks; carry_move: the carry from one counter byte to the
 * next (index 16 selects the zero vector); index_bits: bits 0..2 of the
 * block number b, in bit b of counter byte 15. */
static const v8 carry_init[2] = {
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff},
    {0, 0, 0, 0, 0, 0, 0, 0xff, 0, 0, 0, 0, 0, 0, 0, 0},
};
static const v8 carry_move[2][3] = {
    {{16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 15, 16},
     {16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 14, 16, 16},
     {16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 13, 16, 16, 16}},
    {{16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 7, 16},
     {16, 16, 16, 16, 16, 14, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16},
     {16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 5, 16, 16, 16}},
};
static const v8 index_bits[2][3] = {
    {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xaa},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xcc},
     {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xf0}},
    {{0, 0, 0, 0, 0, 0, 0, 0xaa, 0, 0, 0, 0, 0, 0, 0, 0},
     {0, 0, 0, 0, 0, 0, 0, 0xcc, 0, 0, 0, 0, 0, 0, 0, 0},
     {0, 0, 0, 0, 0, 0, 0, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0}},
};
static const v8 mask_ctr = /* counter bytes 12..15 */
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
static const v8 c55 = {0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55,
                       0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55};
static const v8 c33 = {0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33,
                       0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33};
static const v8 c63 = {0x63, 0x63, 0x63, 0x63, 0x63, 0x63, 0x63, 0x63,
                       0x63, 0x63, 0x63, 0x63, 0x63, 0x63, 0x63, 0x63};
/* xtime after a rotation by 1: 0x1a at odd indices (bit 0 = old bit 7) */
static const v8 xtime_tab = {0, 0x1a, 0, 0x1a, 0, 0x1a, 0, 0x1a,
                             0, 0x1a, 0, 0x1a, 0, 0x1a, 0, 0x1a};

/* The AES S-box without its constant, S(x) ^ 0x63, as 16 vectors
 * (entries 16*i .. 16*i+15). */
static const v8 sbox_tab[16] = {
    {0x00, 0x1f, 0x14, 0x18, 0x91, 0x08, 0x0c, 0xa6, 0x53, 0x62, 0x04, 0x48, 0x9d, 0xb4, 0xc8, 0x15},
    {0xa9, 0xe1, 0xaa, 0x1e, 0x99, 0x3a, 0x24, 0x93, 0xce, 0xb7, 0xc1, 0xcc, 0xff, 0xc7, 0x11, 0xa3},
    {0xd4, 0x9e, 0xf0, 0x45, 0x55, 0x5c, 0x94, 0xaf, 0x57, 0xc6, 0x86, 0x92, 0x12, 0xbb, 0x52, 0x76},
    {0x67, 0xa4, 0x40, 0xa0, 0x7b, 0xf5, 0x66, 0xf9, 0x64, 0x71, 0xe3, 0x81, 0x88, 0x44, 0xd1, 0x16},
    {0x6a, 0xe0, 0x4f, 0x79, 0x78, 0x0d, 0x39, 0xc3, 0x31, 0x58, 0xb5, 0xd0, 0x4a, 0x80, 0x4c, 0xe7},
    {0x30, 0xb2, 0x63, 0x8e, 0x43, 0x9f, 0xd2, 0x38, 0x09, 0xa8, 0xdd, 0x5a, 0x29, 0x2f, 0x3b, 0xac},
    {0xb3, 0x8c, 0xc9, 0x98, 0x20, 0x2e, 0x50, 0xe6, 0x26, 0x9a, 0x61, 0x1c, 0x33, 0x5f, 0xfc, 0xcb},
    {0x32, 0xc0, 0x23, 0xec, 0xf1, 0xfe, 0x5b, 0x96, 0xdf, 0xd5, 0xb9, 0x42, 0x73, 0x9c, 0x90, 0xb1},
    {0xae, 0x6f, 0x70, 0x8f, 0x3c, 0xf4, 0x27, 0x74, 0xa7, 0xc4, 0x1d, 0x5e, 0x07, 0x3e, 0x7a, 0x10},
    {0x03, 0xe2, 0x2c, 0xbf, 0x41, 0x49, 0xf3, 0xeb, 0x25, 0x8d, 0xdb, 0x77, 0xbd, 0x3d, 0x68, 0xb8},
    {0x83, 0x51, 0x59, 0x69, 0x2a, 0x65, 0x47, 0x3f, 0xa1, 0xb0, 0xcf, 0x01, 0xf2, 0xf6, 0x87, 0x1a},
    {0x84, 0xab, 0x54, 0x0e, 0xee, 0xb6, 0x2d, 0xca, 0x0f, 0x35, 0x97, 0x89, 0x06, 0x19, 0xcd, 0x6b},
    {0xd9, 0x1b, 0x46, 0x4d, 0x7f, 0xc5, 0xd7, 0xa5, 0x8b, 0xbe, 0x17, 0x7c, 0x28, 0xde, 0xe8, 0xe9},
    {0x13, 0x5d, 0xd6, 0x05, 0x2b, 0x60, 0x95, 0x6d, 0x02, 0x56, 0x34, 0xda, 0xe5, 0xa2, 0x7e, 0xfd},
    {0x82, 0x9b, 0xfb, 0x72, 0x0a, 0xba, 0xed, 0xf7, 0xf8, 0x7d, 0xe4, 0x8a, 0xad, 0x36, 0x4b, 0xbc},
    {0xef, 0xc2, 0xea, 0x6e, 0xdc, 0x85, 0x21, 0x0b, 0x22, 0xfa, 0x4e, 0x6c, 0xd3, 0x37, 0xd8, 0x75},
};

/* ------------------------------------------------------------------------
 * Vector-permute S-box: 16 lookups, tables in registers.
 * --------------------------------------------------------------------- */
typedef struct {
    v8 t[16];
} sbox_regs;

/* Written out: a loop here becomes a memcpy to the stack. */
AB_INLINE void sbox_load(sbox_regs *s)
{
    s->t[0] = sbox_tab[0];
    s->t[1] = sbox_tab[1];
    s->t[2] = sbox_tab[2];
    s->t[3] = sbox_tab[3];
    s->t[4] = sbox_tab[4];
    s->t[5] = sbox_tab[5];
    s->t[6] = sbox_tab[6];
    s->t[7] = sbox_tab[7];
    s->t[8] = sbox_tab[8];
    s->t[9] = sbox_tab[9];
    s->t[10] = sbox_tab[10];
    s->t[11] = sbox_tab[11];
    s->t[12] = sbox_tab[12];
    s->t[13] = sbox_tab[13];
    s->t[14] = sbox_tab[14];
    s->t[15] = sbox_tab[15];
}

AB_INLINE v8 sub_bytes(const sbox_regs *s, v8 x)
{
    const v8 s7 = vec_splat_u8(7), x1 = vec_add(x, x), x2 = vec_add(x1, x1);
    v8 m5 = vec_sra(x2, s7);
    v8 m6 = vec_sra(x1, s7);
    v8 m7 = vec_sra(x, s7);
    v8 a0, a1, a2, a3;

    /* vec_perm uses the low 5 bits of x: entries 32*i .. 32*i+31 */
    a0 = vec_sel(vec_perm(s->t[0], s->t[1], x), vec_perm(s->t[2], s->t[3], x), m5);
    a1 = vec_sel(vec_perm(s->t[4], s->t[5], x), vec_perm(s->t[6], s->t[7], x), m5);
    a2 = vec_sel(vec_perm(s->t[8], s->t[9], x), vec_perm(s->t[10], s->t[11], x), m5);
    a3 = vec_sel(vec_perm(s->t[12], s->t[13], x), vec_perm(s->t[14], s->t[15], x), m5);
    a0 = vec_sel(a0, a1, m6);
    a2 = vec_sel(a2, a3, m6);
    return vec_sel(a0, a2, m7);
}

/*
 * One block with the one-block round keys pk (PK_OFF: not fixsliced, 0x63
 * folded in). Constant selectors (ShiftRows, ShiftRows + row r+1, row
 * r+2) stay in registers next to the 16 S-box registers; one copy of
 * SubBytes serves all rounds (the last one leaves the loop before
 * MixColumns), so the tables keep their registers.
 */
AB_INLINE v8 encrypt1(const sbox_regs *s, v8 x, const unsigned char *pk,
                      unsigned rounds)
{
    const v8 one = vec_splat_u8(1), x1a = xtime_tab;
    const v8 psr = perm_sr, pr1 = perm_r1sr, pr2 = perm_rot2;
    const unsigned char *end = pk + 16 * rounds;
    v8 a;

    x ^= vec_ld(0, pk);
    for (;;) {
        v8 r1, t;
        pk += 16;
        x = sub_bytes(s, x);
        a = vec_perm(x, x, psr);
        if (pk == end)
            break;
        r1 = vec_perm(x, x, pr1);
        t = a ^ r1;
        x = vec_rl(t, one); /* xtime: rotate, then 0x1a where bit 0 is set */
        x = x ^ vec_perm(x1a, x1a, x) ^ r1 ^ vec_perm(t, t, pr2) ^
            vec_ld(0, pk);
    }
    return a ^ vec_ld(0, pk);
}

/* ------------------------------------------------------------------------
 * Bitsliced rounds. The S-box (Boyar-Peralta); x0 is the most significant
 * bit; the output lacks the constant 0x63.
 * --------------------------------------------------------------------- */
AB_INLINE void sbox_bs(v8 q[8])
{
#define RIJN_SBOX_T v8
#include "sbox_bp.inc"
#undef RIJN_SBOX_T
}

/*
 * MixColumns on a state k ShiftRows behind: out = 2t ^ R1(q) ^ R2(t) with
 * t = q ^ R1(q); p1 / p2 are the R1 / R2 selectors for this k.
 */
AB_INLINE void mix_columns(v8 q[8], v8 p1, v8 p2)
{
    v8 r7, t7, r, t, tp;

    r7 = vec_perm(q[7], q[7], p1);
    t7 = q[7] ^ r7;
#define MC_PLANE(j, xt)                                                       \
    r = vec_perm(q[j], q[j], p1);                                             \
    t = q[j] ^ r;                                                             \
    q[j] = (xt) ^ r ^ vec_perm(t, t, p2);                                     \
    tp = t
    MC_PLANE(0, t7);
    MC_PLANE(1, tp ^ t7);
    MC_PLANE(2, tp);
    MC_PLANE(3, tp ^ t7);
    MC_PLANE(4, tp ^ t7);
    MC_PLANE(5, tp);
    MC_PLANE(6, tp);
#undef MC_PLANE
    q[7] = tp ^ r7 ^ vec_perm(t7, t7, p2);
}

/* q ^= the 8 planes of the stored round key v (v spread: plane j byte p
 * = 0xFF if bit j of byte p of v is set). */
AB_INLINE void add_round_key(v8 q[8], v8 v)
{
    const v8 s7 = vec_splat_u8(7);

    q[7] ^= vec_sra(v, s7);
    v = vec_add(v, v);
    q[6] ^= vec_sra(v, s7);
    v = vec_add(v, v);
    q[5] ^= vec_sra(v, s7);
    v = vec_add(v, v);
    q[4] ^= vec_sra(v, s7);
    v = vec_add(v, v);
    q[3] ^= vec_sra(v, s7);
    v = vec_add(v, v);
    q[2] ^= vec_sra(v, s7);
    v = vec_add(v, v);
    q[1] ^= vec_sra(v, s7);
    v = vec_add(v, v);
    q[0] ^= vec_sra(v, s7);
}

AB_INLINE void full_round(v8 q[8], const unsigned char *rk, unsigned k)
{
    sbox_bs(q);
    mix_columns(q, perm_r1[k], perm_r2[k & 1]);
    add_round_key(q, vec_ld(0, rk));
}

/* Rounds 1..Nr on a state that has round key 0 added (rk: stored keys),
 * without the last AddRoundKey: after the last round k = 0, so that key is
 * plain bytes, added by the caller to the 8 blocks after the transpose
 * (8 XOR instead of 23 operations on the planes). */
AB_INLINE void encrypt_bs(v8 qio[8], const unsigned char *rk,
                          unsigned rounds)
{
    const unsigned char *last = rk + 16 * rounds;
    v8 q[8]; /* a local copy: the key loads cannot alias it */
    int i;

    AB_UNROLL
    for (i = 0; i < 8; i++)
        q[i] = qio[i];
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
    AB_UNROLL
    for (i = 0; i < 8; i++)
        qio[i] = q[i];
}

/*
 * 8x8 bit transpose in every byte position: bit i of q[w] <-> bit w of
 * q[i]. Planes <-> blocks, both ways.
 */
#define SWAPMOVE(a, b, m, n)                                                  \
    do {                                                                      \
        v8 sm_t = (vec_sr((a), (n)) ^ (b)) & (m);                             \
        (b) ^= sm_t;                                                          \
        (a) ^= vec_sl(sm_t, (n));                                             \
    } while (0)

AB_INLINE void transpose(v8 q[8])
{
    const v8 n1 = vec_splat_u8(1), n2 = vec_splat_u8(2), n4 = vec_splat_u8(4);
    const v8 m1 = c55, m2 = c33, m4 = vec_splat_u8(15);

    SWAPMOVE(q[0], q[1], m1, n1);
    SWAPMOVE(q[2], q[3], m1, n1);
    SWAPMOVE(q[4], q[5], m1, n1);
    SWAPMOVE(q[6], q[7], m1, n1);
    SWAPMOVE(q[0], q[2], m2, n2);
    SWAPMOVE(q[1], q[3], m2, n2);
    SWAPMOVE(q[4], q[6], m2, n2);
    SWAPMOVE(q[5], q[7], m2, n2);
    SWAPMOVE(q[0], q[4], m4, n4);
    SWAPMOVE(q[1], q[5], m4, n4);
    SWAPMOVE(q[2], q[6], m4, n4);
    SWAPMOVE(q[3], q[7], m4, n4);
}

/* ------------------------------------------------------------------------
 * Memory: any alignment; never outside the 16*n bytes.
 * --------------------------------------------------------------------- */
#define IS_ALIGNED16(p) ((((uintptr_t)(p)) & 15) == 0)

/* out[0..16n) = in ^ blocks v[0..n) ^ last, n <= 8 */
AB_INLINE void xor_out(uint8_t *out, const uint8_t *in, const v8 *v, v8 last,
                       size_t n)
{
    size_t i;

    if (IS_ALIGNED16(in) && IS_ALIGNED16(out)) {
        AB_UNROLL
        for (i = 0; i < n; i++)
            vec_st(vec_ld((int)(16 * i), in) ^ v[i] ^ last, (int)(16 * i), out);
    } else {
        RIJN_ALIGN(16) uint8_t buf[128];
        memcpy(buf, in, 16 * n);
        AB_UNROLL
        for (i = 0; i < n; i++)
            vec_st(vec_ld((int)(16 * i), buf) ^ v[i] ^ last, (int)(16 * i), buf);
        memcpy(out, buf, 16 * n);
    }
}

/* ------------------------------------------------------------------------
 * Key schedule
 * --------------------------------------------------------------------- */

/*
 * SubWord for the key schedules: x holds one word in all four columns
 * (byte 4g+j = x_j), the result is S(x_j) ^ 0x63 in every column. Only
 * 4 distinct lookups are needed, so instead of the 7 vec_sel of sub_bytes
 * (and the 5 operations for their masks), the 8 32-entry lookups (every
 * column of each the same) are merged word-wise, lookup g (or 4+g) into
 * column g, and one vec_perm picks column x_j >> 5 for every byte:
 * 17 operations, no mask registers.
 */
static const v8 ks_row = /* byte index within the column */
    {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3};
/* Rcon 0x01 and 0x1b in row 0 of every column (the others double) */
static const v8 ks_rc1 = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
static const v8 ks_rc9 =
    {0x1b, 0, 0, 0, 0x1b, 0, 0, 0, 0x1b, 0, 0, 0, 0x1b, 0, 0, 0};

typedef __vector unsigned int v32;

/* column g of the result: column 0 of a, b, a, b */
#define KS_MERGE(a, b) ((v8)vec_mergeh((v32)(a), (v32)(b)))

/* words shifted up by n columns, zeros shifted in (vec_sld works on the
 * register, not on element order) */
#if defined(__LITTLE_ENDIAN__)
#define KS_UP(v, z, n) vec_sld((v), (z), 4 * (n))
#else
#define KS_UP(v, z, n) vec_sld((z), (v), 16 - 4 * (n))
#endif

/* Keeps a value computed in a register (no constant-pool load for each
 * doubled Rcon). */
#if defined(__GNUC__)
#define KS_OPAQUE(v) __asm__("" : "+v"(v))
#define KS_OPAQUE_PTR(p) __asm__("" : "+r"(p))
#else
#define KS_OPAQUE(v) ((void)0)
#define KS_OPAQUE_PTR(p) ((void)0)
#endif

typedef struct {
    sbox_regs s;
    v8 row;
} ks_regs;

AB_INLINE void ks_load(ks_regs *r)
{
    sbox_load(&r->s);
    r->row = ks_row;
}

AB_INLINE v8 ks_sub(const ks_regs *r, v8 x)
{
    const v8 *t = r->s.t;
    v8 m0, m1, idx;

    m0 = KS_MERGE(KS_MERGE(vec_perm(t[0], t[1], x), vec_perm(t[4], t[5], x)),
                  KS_MERGE(vec_perm(t[2], t[3], x), vec_perm(t[6], t[7], x)));
    m1 = KS_MERGE(
        KS_MERGE(vec_perm(t[8], t[9], x), vec_perm(t[12], t[13], x)),
        KS_MERGE(vec_perm(t[10], t[11], x), vec_perm(t[14], t[15], x)));
    /* 4 * (x_j >> 5) + j: bits 2..4 from x >> 3, bits 0..1 from row */
    idx = vec_sel(r->row, vec_sr(x, vec_splat_u8(3)), (v8)vec_splat_s8(-4));
    return vec_perm(m0, m1, idx);
}

/* w_j ^= w_{j-1} ^ ... ^ w_0 in the four columns */
AB_INLINE v8 ks_prefix(v8 v)
{
    const v8 zero = vec_splat_u8(0);

    v ^= KS_UP(v, zero, 1);
    return v ^ KS_UP(v, zero, 2);
}

/* Store round key i (stored form t: 0x63 folded in) in both layouts. */
AB_INLINE void ks_store(unsigned char *rk, v8 t, unsigned i, unsigned k0)
{
    vec_st(t, (int)(PK_OFF + 16 * i), rk);
    if (((k0 + i) & 3) != 0)
        vec_st(vec_perm(t, t, perm_fix[(k0 + i) & 3]), (int)(16 * i), rk);
    else
        vec_st(t, (int)(16 * i), rk);
}

/* One AES-128 round: v = round key i-1 (true bytes), rc = Rcon i in row
 * 0; stores round key i in both layouts at *rk (advanced to the next key:
 * one address update for the two stores) and returns it (true bytes). */
AB_INLINE v8 ks128_round(unsigned char **rk, const ks_regs *r, v8 v, v8 rc,
                         v8 rotb, v8 c, unsigned i)
{
    v8 t = ks_sub(r, vec_perm(v, v, rotb));
    unsigned char *p = *rk + 16;

    KS_OPAQUE_PTR(p);
    t ^= ks_prefix(v) ^ rc; /* round key i ^ 0x63: the stored form */
    ks_store(p, t, 0, (2 + i) & 3);
    *rk = p;
    return t ^ c;
}

/* AES-128: the whole expansion in one register. */
__attribute__((noinline)) static void setkey128(unsigned char *rk,
                                                const uint8_t *key)
{
    const v8 c = c63, rotb = perm_rotb;
    RIJN_ALIGN(16) uint8_t buf[16];
    ks_regs r;
    v8 v, rc;
    unsigned i;

    ks_load(&r);
    memcpy(buf, key, 16);
    v = vec_ld(0, buf);
    rijn_burn(buf, sizeof buf);
    ks_store(rk, v, 0, 2);
    rc = ks_rc1;
    AB_UNROLL
    for (i = 1; i <= 8; i++) {
        v = ks128_round(&rk, &r, v, rc, rotb, c, i);
        rc = vec_add(rc, rc);
        KS_OPAQUE(rc);
    }
    rc = ks_rc9;
    v = ks128_round(&rk, &r, v, rc, rotb, c, 9);
    rc = vec_add(rc, rc);
    (void)ks128_round(&rk, &r, v, rc, rotb, c, 10);
}

/* AES-256, rounds i (even) and i+1: a, b = round keys i-2, i-1 (true
 * bytes); stores round keys i and i+1 at *rk + 16, *rk + 32. */
AB_INLINE void ks256_pair(unsigned char **rk, const ks_regs *r, v8 *a, v8 *b,
                          v8 rc, v8 rotb, v8 bc3, v8 c, unsigned i, int last)
{
    unsigned char *p = *rk + 16;
    v8 t;

    KS_OPAQUE_PTR(p);
    /* SubWord(RotWord(w[i-1])) ^ Rcon */
    t = ks_sub(r, vec_perm(*b, *b, rotb)) ^ ks_prefix(*a) ^ rc;
    ks_store(p, t, 0, (2 + i) & 3);
    *a = t ^ c;
    if (last) {
        *rk = p;
        return;
    }
    p += 16;
    KS_OPAQUE_PTR(p);
    /* SubWord(w[i-1]) */
    t = ks_sub(r, vec_perm(*a, *a, bc3)) ^ ks_prefix(*b);
    ks_store(p, t, 0, (3 + i) & 3);
    *b = t ^ c;
    *rk = p;
}

/* AES-256: the expansion in two registers (round keys 2i and 2i+1). */
__attribute__((noinline)) static void setkey256(unsigned char *rk,
                                                const uint8_t *key)
{
    const v8 c = c63, rotb = perm_rotb, bc3 = perm_bc3;
    RIJN_ALIGN(16) uint8_t buf[32];
    ks_regs r;
    v8 a, b, rc;
    unsigned i;

    ks_load(&r);
    memcpy(buf, key, 32);
    a = vec_ld(0, buf);
    b = vec_ld(16, buf);
    rijn_burn(buf, sizeof buf);
    ks_store(rk, a, 0, 2);
    rk += 16;
    ks_store(rk, b ^ c, 0, 3);
    rc = ks_rc1;
    AB_UNROLL
    for (i = 2; i <= 12; i += 2) {
        ks256_pair(&rk, &r, &a, &b, rc, rotb, bc3, c, i, 0);
        rc = vec_add(rc, rc);
        KS_OPAQUE(rc);
    }
    ks256_pair(&rk, &r, &a, &b, rc, rotb, bc3, c, 14, 1);
}

/* Store round key i (0x63 folded in for i > 0) in both layouts. */
AB_INLINE void store_key(unsigned char *rk, v8 v, unsigned i, unsigned k0)
{
    if (i > 0)
        v ^= c63;
    vec_st(v, (int)(PK_OFF + 16 * i), rk);
    vec_st(vec_perm(v, v, perm_fix[(k0 + i) & 3]), (int)(16 * i), rk);
}

/*
 * AES-192: step s holds words w[6s..6s+3] in a and w[6s+4..6s+5] in the
 * low half of b. Round keys 3m, 3m+1, 3m+2 are a_2m, (low b_2m, low
 * a_2m+1) and (high a_2m+1, low b_2m+1).
 */
__attribute__((noinline)) static void setkey192(unsigned char *rk,
                                                const uint8_t *key)
{
    const v8 zero = vec_splat_u8(0);
    RIJN_ALIGN(16) uint8_t buf[32];
    ks_regs r;
    v8 a, b, an, bn, t;
    unsigned step, i = 0;

    ks_load(&r);
    memset(buf, 0, sizeof buf);
    memcpy(buf, key, 24);
    a = vec_ld(0, buf);
    b = vec_ld(16, buf);
    rijn_burn(buf, sizeof buf);
    AB_UNROLL
    for (step = 0; step < 8; step++) {
        if ((step & 1) == 0)
            store_key(rk, a, i, 0);
        /* w[6s+6] = w[6s] ^ SubWord(RotWord(w[6s+5])) ^ Rcon, and chains */
        t = ks_sub(&r, vec_perm(b, b, perm_rotw1)) ^ rcon_tab[step];
        an = a ^ vec_perm(a, zero, perm_sh1);
        an ^= vec_perm(an, zero, perm_sh2);
        an ^= t;
        bn = b ^ vec_perm(b, zero, perm_sh1);
        bn ^= vec_perm(an, an, perm_bc3);
        if ((step & 1) == 0) {
            store_key(rk, vec_perm(b, an, perm_lo_lo), i + 1, 0);
            i += 2;
        } else {
            store_key(rk, vec_perm(a, b, perm_hi_lo), i, 0);
            i += 1;
        }
        a = an;
        b = bn;
    }
    store_key(rk, a, 12, 0);
}

static void bs_setkey(rijn_aes_key *k, const uint8_t *key, size_t key_len)
{
    unsigned char *rk = (unsigned char *)k->rk;

    if (key_len == 16)
        setkey128(rk, key);
    else if (key_len == 24)
        setkey192(rk, key);
    else
        setkey256(rk, key);
}

/* ------------------------------------------------------------------------
 * ECB and CTR
 * --------------------------------------------------------------------- */

/* n blocks, one at a time: ECB (ctr == NULL) or CTR from counter c. */
static void vp_blocks(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                      size_t n, const uint8_t *ctr, uint32_t c)
{
    const unsigned char *rk = (const unsigned char *)k->rk;
    const unsigned rounds = k->rounds;
    const int direct = IS_ALIGNED16(in) && IS_ALIGNED16(out);
    RIJN_ALIGN(16) uint8_t cb[16], buf[16];
    sbox_regs s;
    size_t i;

    sbox_load(&s);
    if (ctr != NULL)
        memcpy(cb, ctr, 12);
    for (i = 0; i < n; i++, in += 16, out += 16) {
        v8 x, d;
        if (direct) {
            d = vec_ld(0, in);
        } else {
            memcpy(buf, in, 16);
            d = vec_ld(0, buf);
        }
        if (ctr != NULL) {
            rijn_store32_be(cb + 12, c + (uint32_t)i);
            x = vec_ld(0, cb);
        } else {
            x = d;
        }
        x = encrypt1(&s, x, rk + PK_OFF, rounds);
        if (ctr != NULL)
            x ^= d;
        if (direct) {
            vec_st(x, 0, out);
        } else {
            vec_st(x, 0, buf);
            memcpy(out, buf, 16);
        }
    }
}

/* Not inlined: ECB is not the hot path. */
static void encrypt_bs_call(v8 q[8], const unsigned char *rk, unsigned rounds)
{
    encrypt_bs(q, rk, rounds);
}

static void bs_ecb(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                   size_t nblocks)
{
    const unsigned char *rk = (const unsigned char *)k->rk;
    const unsigned rounds = k->rounds;
    const v8 pf = perm_fix[K0(rounds)];

    while (nblocks > 0) {
        size_t n = nblocks < 8 ? nblocks : 8, i;
        RIJN_ALIGN(16) uint8_t buf[128];
        v8 q[8], rk0;

        if (n <= VP_MAX) {
            vp_blocks(k, out, in, n, NULL, 0);
            return;
        }
        memset(buf, 0, sizeof buf);
        memcpy(buf, in, 16 * n);
        rk0 = vec_ld(0, rk);
        AB_UNROLL
        for (i = 0; i < 8; i++) {
            v8 x = vec_ld((int)(16 * i), buf);
            q[i] = vec_perm(x, x, pf) ^ rk0;
        }
        transpose(q);
        encrypt_bs_call(q, rk, rounds);
        transpose(q);
        rk0 = vec_ld((int)(16 * rounds), rk); /* the last round key */
        AB_UNROLL
        for (i = 0; i < 8; i++)
            vec_st(q[i] ^ rk0, (int)(16 * i), buf);
        memcpy(out, buf, 16 * n);
        in += 16 * n;
        out += 16 * n;
        nblocks -= n;
    }
}

/* Propagate carry (one bit per block, in the byte of counter byte 15)
 * into planes j0..7 of that byte, then into counter bytes 14, 13, 12 while
 * it is non-zero (a test on the counter, which is public); a carry out of
 * byte 12 is dropped (mod 2^32). */
AB_INLINE void ctr_carry(v8 c[8], v8 carry, int j0, unsigned k0i)
{
    const v8 zero = vec_splat_u8(0);
    v8 s;
    int j, r;

    AB_UNROLL
    for (j = j0; j < 8; j++) {
        s = c[j] ^ carry;
        carry &= c[j];
        c[j] = s;
    }
    for (r = 0; r < 3 && !vec_all_eq(carry, zero); r++) {
        carry = vec_perm(carry, zero, carry_move[k0i][r]);
        AB_UNROLL
        for (j = 0; j < 8; j++) {
            s = c[j] ^ carry;
            carry &= c[j];
            c[j] = s;
        }
    }
}

/* Add 8 to the eight 32-bit counters. */
AB_INLINE void ctr_add8(v8 c[8], unsigned k0i)
{
    ctr_carry(c, carry_init[k0i], 3, k0i);
}

/* Add b to the counter of block b (b = 0..7): a full adder on planes 0..2
 * with the addend bits as byte masks 0xAA, 0xCC, 0xF0. */
AB_INLINE void ctr_add_index(v8 c[8], unsigned k0i)
{
    v8 carry = vec_splat_u8(0), a, t, cj;
    int j;

    AB_UNROLL
    for (j = 0; j < 3; j++) {
        a = index_bits[k0i][j];
        cj = c[j];
        t = cj ^ a;
        c[j] = t ^ carry;
        carry = (cj & a) | (carry & t);
    }
    ctr_carry(c, carry, 3, k0i);
}

/* More than VP_MAX blocks (kept apart from bs_ctr32 so that short runs do
 * not pay for this function's register saves). */
static void ctr_long(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                     size_t nblocks, const uint8_t ctr[16])
{
    uint32_t c0 = rijn_load32_be(ctr + 12);
    const unsigned char *rk = (const unsigned char *)k->rk;
    const unsigned rounds = k->rounds, k0i = K0(rounds) / 2;
    const v8 pf = perm_fix[K0(rounds)];
    RIJN_ALIGN(16) uint8_t buf[16];
    v8 base[8], cnt[8], q[8], v, c, last;
    int i;

    /* round key 0 and counter bytes 0..11, spread into planes */
    memcpy(buf, ctr, 16);
    c = vec_ld(0, buf);
    v = vec_andc(c, mask_ctr);
    v = vec_perm(v, v, pf) ^ vec_ld(0, rk);
    AB_UNROLL
    for (i = 7; i >= 0; i--) {
        base[i] = vec_sra(v, vec_splat_u8(7));
        v = vec_add(v, v);
    }
    /* counter bytes 12..15 spread, then + b in block b */
    v = c & mask_ctr;
    v = vec_perm(v, v, pf);
    AB_UNROLL
    for (i = 7; i >= 0; i--) {
        cnt[i] = vec_sra(v, vec_splat_u8(7));
        v = vec_add(v, v);
    }
    ctr_add_index(cnt, k0i);
    last = vec_ld((int)(16 * rounds), rk);

    for (;;) {
        AB_UNROLL
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
        ctr_add8(cnt, k0i);
    }
}

static void bs_ctr32(const rijn_aes_key *k, uint8_t *out, const uint8_t *in,
                     size_t nblocks, const uint8_t ctr[16])
{
    if (nblocks <= VP_MAX)
        vp_blocks(k, out, in, nblocks, ctr, rijn_load32_be(ctr + 12));
    else
        ctr_long(k, out, in, nblocks, ctr);
}

const rijn_aes_impl rijn_aes_altivec_bs = {
    "altivec-bs", RIJN_CPU_ALTIVEC, 1, 15, bs_setkey, bs_ecb, bs_ctr32
};

#endif /* PowerPC */

/*
 * altivec-bs: constant-time AES-CTR (128/192/256-bit keys) on AltiVec
 * (PowerPC G4/G5 and later), bitsliced and fixsliced, 8 blocks per batch
 * in 8 x 128-bit vector registers, after Kasper and Schwabe ("Faster and
 * timing-attack resistant AES-GCM", CHES 2009), with a one-block
 * vector-permute path for short runs and a vector-permute key schedule.
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
 * One-block path: the register S-box of altivec_sbox.h (Kraszewski's
 * AltiVec AES notes: the 256-byte table in 16 vector registers, 16
 * lookups by 8 vperm and 7 vsel, no memory lookup), shared with
 * altivec-vperm. The table is S(x) ^ 0x63, and the path is fixsliced like
 * the bitsliced one (input permuted by FIX_k0, MixColumns selectors per
 * round, no ShiftRows), so both read the same stored round keys. Runs of
 * at most VP_MAX blocks, and the tail of a long run, take this path and
 * cost only per block (about 35 instructions a round).
 *
 * Key schedule: the FIPS-197 expansion in one or two vector registers,
 * fully unrolled, on the stored form key ^ 0x63. SubWord is Hamburg's
 * tower-field S-box for vector permutes ("Accelerating AES with vector
 * permute instructions", CHES 2009): GF(2^8) as GF(16)^2, a change of
 * basis by two nibble lookups, the inverse from 16-entry GF(16) tables
 * whose "infinity" (1/0) is index bit 4, read by vec_perm(table, zero) as
 * 0, and two output lookups with the affine map: 19 operations, 7 table
 * registers. Its three spare columns (input 0x63) give exactly the 0x63s
 * the stored form needs, so a round is about 28 instructions: SubWord,
 * Rcon, the prefix XOR of the four words, FIX_k and one store.
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

#include "altivec_sbox.h"

/* GCC's pre-allocation scheduling lengthens live ranges past the 32 vector
 * registers in the bitsliced rounds; without it, 0.3-1.5% fewer
 * instructions (spills) in every column. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-schedule-insns")
#endif

extern const rijn_aes_impl rijn_aes_altivec_bs;

typedef __vector unsigned char v8;
typedef __vector unsigned int v32;

#if defined(__GNUC__)
#define AB_INLINE static inline __attribute__((always_inline))
#else
#define AB_INLINE static inline
#endif

/* Loops over the 8 planes or blocks must be unrolled, or the state goes
 * through the stack in every round. */
/* ... and so must the key schedules, up to 14 rounds */

/* Runs of at most this many blocks take the one-block path. */
#define VP_MAX 4

/* k->rk holds round keys 0..Nr, 16 bytes each, as stored_i =
 * FIX_{(k0+i) mod 4}(rk_i ^ (i ? 0x63 : 0)); k0 = 2, or 0 for AES-192.
 * Both paths read them. */
#define K0(rounds) ((rounds) == 12 ? 0u : 2u)

/* vec_perm selectors; byte p = 4 * column + row, element order. */
#define R1_0 (1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12)
#define R1_1 (5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12, 1, 2, 3, 0)
#define R1_2 (9, 10, 11, 8, 13, 14, 15, 12, 1, 2, 3, 0, 5, 6, 7, 4)
#define R1_3 (13, 14, 15, 12, 1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8)
#define R2_0 (2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13)
#define R2_1 (10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5)
#define APPLY(m, list) m list
#define VEC(...) {__VA_ARGS__}
/* row r+1, column x+k; row r+2, column x+2k (k even, odd) */
static const v8 perm_r1[4] = {APPLY(VEC, R1_0), APPLY(VEC, R1_1),
                              APPLY(VEC, R1_2), APPLY(VEC, R1_3)};
static const v8 perm_r2[2] = {APPLY(VEC, R2_0), APPLY(VEC, R2_1)};
/* perm_r1[k], perm_r2[k & 1] for k = 1, 2, 3, 0, 1, ...: the selectors of
 * round r at entry 2 * (r - 1 + k0) (one-block path, up to 13 rounds from
 * k0 = 2), as controls of avp_vperm_raw (no vnor on little-endian) */
#define SEL2(r1, r2) APPLY(AVP_CTL1, r1), APPLY(AVP_CTL1, r2)
#define SEL4 SEL2(R1_1, R2_1), SEL2(R1_2, R2_0), SEL2(R1_3, R2_1), SEL2(R1_0, R2_0)
static const v8 sel_tab[30] = {SEL4, SEL4, SEL4, SEL2(R1_1, R2_1),
                               SEL2(R1_2, R2_0), SEL2(R1_3, R2_1)};
#undef SEL4
#undef SEL2
#undef VEC
#undef APPLY
#undef R1_0
#undef R1_1
#undef R1_2
#undef R1_3
#undef R2_0
#undef R2_1
static const v8 perm_fix[4] = { /* stored key (r,x) = rk(r, x - k*r) */
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {0, 13, 10, 7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3},
    {0, 9, 2, 11, 4, 13, 6, 15, 8, 1, 10, 3, 12, 5, 14, 7},
    {0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11},
};
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
/* The AES S-box without its constant, S(x) ^ 0x63 (altivec_sbox.h) */
AVP_SBOX_TABLE(sbox_tab, 0x63);

/*
 * One block, fixsliced like the bitsliced path: the input is permuted by
 * FIX_k0 and the round keys are the stored ones, so a round is SubBytes
 * and MixColumns with the selectors for its k (sel: perm_r1[k],
 * perm_r2[k & 1] for each round in turn), no ShiftRows. One copy of
 * SubBytes serves all rounds (the last one leaves the loop before
 * MixColumns), so the 16 tables keep their registers.
 */
AB_INLINE v8 encrypt1(const avp_sbox_regs *s, v8 x, const unsigned char *rk,
                      const v8 *sel, unsigned rounds)
{
    const unsigned char *end = rk + 16 * rounds;

    x ^= vec_ld(0, rk);
    for (;;) {
        v8 r1, t;
        rk += 16;
        x = avp_subbytes(s, x);
        if (rk == end)
            break;
        r1 = avp_vperm_raw(x, x, sel[0]);
        t = x ^ r1;
        x = avp_xtime(t) ^ r1 ^ avp_vperm_raw(t, t, sel[1]) ^ vec_ld(0, rk);
        sel += 2;
    }
    return x ^ vec_ld(0, rk);
}

/* ------------------------------------------------------------------------
 * Bitsliced rounds. The S-box (Boyar-Peralta); x0 is the most significant
 * bit; the output lacks the constant 0x63.
 * --------------------------------------------------------------------- */
AB_INLINE void sbox_bs(v8 q[8])
{
#define RIJN_SBOX_T v8
#include "aes/portable/sbox_bp.inc"
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

    RIJN_UNROLL(8)
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
    RIJN_UNROLL(8)
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
        RIJN_UNROLL(8)
        for (i = 0; i < n; i++)
            vec_st(vec_ld((int)(16 * i), in) ^ v[i] ^ last, (int)(16 * i), out);
    } else {
        RIJN_ALIGN(16) uint8_t buf[128];
        memcpy(buf, in, 16 * n);
        RIJN_UNROLL(8)
        for (i = 0; i < n; i++)
            vec_st(vec_ld((int)(16 * i), buf) ^ v[i] ^ last, (int)(16 * i), buf);
        memcpy(out, buf, 16 * n);
        rijn_burn(buf, 16 * n); /* keystream when the input was 0 */
    }
}

/* ------------------------------------------------------------------------
 * Key schedule
 * --------------------------------------------------------------------- */

/*
 * The expansion runs on the stored form s = key ^ 0x63 (every byte), so a
 * new round key is stored as computed. With P the prefix XOR over the
 * four words (w_j ^= w_{j-1} ^ ... ^ w_0) and
 * T = (S(x) ^ Rcon, 0x63, 0x63, 0x63) (words; x = the SubWord input),
 * P(s ^ T) = P(s) ^ (S(x) ^ Rcon in every word) ^ (0, 0x63, 0, 0x63) is
 * the next s: the broadcast of SubWord and the 0x63s that the prefix of
 * the stored form needs both come from one XOR with T. The words 1..3 of
 * T are S(0x00) = 0x63, so one vec_perm builds x from (Rot)Word in column
 * 0 and the stored-form byte 0x63 elsewhere.
 *
 * SubWord (ks_sbox), after Hamburg (CHES 2009): GF(2^8) = GF(16)[t] with
 * t^2 + t = mu (mu = 0x0c in AES's field, t = 0xae); x = i*t + m with i, m
 * in GF(16), and k = a*m, a = 1/mu. With j = i + k and N = x * x^16,
 *   io = 1/(1/i + a/k) + j = a N / (i + m),
 *   jo = 1/(1/j + a/k) + i = a N / (i + (1 + a) m),
 * and 1/x = (1/io) ((a + 1) t + a) + (1/jo) t is GF(2)-linear in 1/io and
 * 1/jo: two 16-entry tables give the S-box output, its affine map folded
 * in. GF(16) elements are nibbles (basis 0x01, 0x0c, 0x50, 0xb0 of the
 * subfield). 1/0 and a/0 are "infinity", the flag 0x10: a sum keeps it,
 * and a lookup whose index may carry it reads vec_perm(table, zero), whose
 * zero half gives 1/inf = 0 (vec_perm(o1, 0x63) for the output table that
 * holds the S-box constant); every other index is a clean nibble or reads
 * a duplicated table (vec_perm(T, T, x) ignores bits 4..7 of x). The
 * change of basis (i, k of z ^ 0x63) is two nibble lookups. 19 operations
 * on 16 bytes, 7 table registers; the tables were generated for this file
 * and checked, with this sequence of lookups, against the FIPS-197 S-box
 * for all 256 inputs (entry 0 of o1 and o2 is never read).
 */
enum {
    KS_IPL, KS_IPH, KS_AK, KS_INV, KS_O1, KS_O2, KS_C63, KS_FIX1,
    KS_ROT, KS_RC1, KS_RC9, KS_ROTW1, KS_LO_LO, KS_FIX2, KS_FIX3, KS_N
};
static const v8 ksc[KS_N] = {
    /* KS_IPL, KS_IPH: low / high nibble of z -> (i, k) of z ^ 0x63 */
    {0x88, 0x80, 0xee, 0xe6, 0x4a, 0x42, 0x2c, 0x24,
     0x4b, 0x43, 0x2d, 0x25, 0x89, 0x81, 0xef, 0xe7},
    {0x00, 0x78, 0x9c, 0xe4, 0x7a, 0x02, 0xe6, 0x9e,
     0xeb, 0x93, 0x77, 0x0f, 0x91, 0xe9, 0x0d, 0x75},
    /* KS_AK, KS_INV: z -> a/z, 1/z in GF(16); 0x10: infinity */
    {0x10, 0x08, 0x0f, 0x05, 0x04, 0x03, 0x0a, 0x0c,
     0x01, 0x0d, 0x06, 0x0e, 0x07, 0x09, 0x0b, 0x02},
    {0x10, 0x01, 0x08, 0x0d, 0x0f, 0x06, 0x05, 0x0e,
     0x02, 0x0c, 0x0b, 0x0a, 0x09, 0x03, 0x07, 0x04},
    /* KS_O1, KS_O2: io, jo -> S-box output (KS_O1 holds the 0x63) */
    {0x63, 0x32, 0xbd, 0x50, 0xf1, 0x7e, 0x8e, 0xa0,
     0xc2, 0x01, 0x4d, 0x1c, 0xec, 0x93, 0x2f, 0xdf},
    {0x00, 0xd6, 0x1a, 0x9c, 0xf4, 0x38, 0x86, 0x22,
     0x68, 0x4a, 0xa4, 0x72, 0xcc, 0xbe, 0xee, 0x50},
    /* KS_C63 */
    {0x63, 0x63, 0x63, 0x63, 0x63, 0x63, 0x63, 0x63,
     0x63, 0x63, 0x63, 0x63, 0x63, 0x63, 0x63, 0x63},
    /* KS_FIX1: perm_fix[1] */
    {0, 13, 10, 7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3},
    /* KS_ROT: SubWord input RotWord(w3) in column 0, and index 16 (0x63)
     * elsewhere */
    {13, 14, 15, 12, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16},
    /* KS_RC1, KS_RC9: Rcon 0x01, 0x1b in byte 0 */
    {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0x1b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* AES-192: KS_ROTW1 (RotWord(w1), as KS_ROT), KS_LO_LO (low halves
     * of a and b) */
    {5, 6, 7, 4, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16},
    {0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23},
    /* KS_FIX2, KS_FIX3: perm_fix[2], perm_fix[3] (AES-192) */
    {0, 9, 2, 11, 4, 13, 6, 15, 8, 1, 10, 3, 12, 5, 14, 7},
    {0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11},
};

/* Keeps a value in a register: the compiler neither folds it into a
 * constant-pool load nor rewrites base + index addresses. */
#if defined(__GNUC__)
#define KS_REG(x) __asm__("" : "+b"(x))
#define KS_VREG(x) __asm__("" : "+v"(x))
#else
#define KS_REG(x) ((void)0)
#define KS_VREG(x) ((void)0)
#endif

/*
 * The address of ksc. 32-bit SysV PIC: computed from the program counter
 * (bcl 20,31 is the form that leaves the return-address predictor
 * alone), so that the key schedules need neither the GOT pointer nor a
 * stack frame to save it in; elsewhere the compiler's own access.
 */
AB_INLINE const unsigned char *ks_const_base(void)
{
#if defined(__GNUC__) && !defined(__clang__) && defined(__PIC__) &&           \
    !defined(__powerpc64__) && defined(__ELF__)
    const unsigned char *p;
    unsigned long lr;

    __asm__("mflr %1\n\t"
            "bcl 20,31,1f\n"
            "1:\tmflr %0\n\t"
            "mtlr %1\n\t"
            "addis %0,%0,%2-1b@ha\n\t"
            "addi %0,%0,%2-1b@l"
            : "=&b"(p), "=&r"(lr)
            : "s"(ksc));
    return p;
#else
    const unsigned char *p = (const unsigned char *)ksc;

    KS_REG(p);
    return p;
#endif
}

/*
 * Addressing: lvx and stvx take (base + index) registers only, so vector
 * n of ksc and round key i are reached from a base every 64 bytes and
 * the index registers 16, 32, 48 (or none): one instruction per load or
 * store and a few to set up, instead of two each.
 */
typedef struct {
    const unsigned char *c[(KS_N + 3) / 4]; /* ksc + 64 m */
    unsigned char *k[4];                    /* rk + 64 m */
    int o[4];                               /* o[n] = 16 n, n = 1..3 */
} ks_addr;

AB_INLINE void ks_addr_init(ks_addr *w, unsigned char *rk, unsigned nc,
                            unsigned nk)
{
    const unsigned char *c = ks_const_base();
    unsigned m;

    w->o[0] = 0;
    w->o[1] = 16;
    w->o[2] = 32;
    w->o[3] = 48;
    KS_REG(w->o[1]);
    KS_REG(w->o[2]);
    KS_REG(w->o[3]);
    for (m = 0; m < (KS_N + 3) / 4; m++) {
        w->c[m] = c + 64 * m;
        if (m > 0 && 4 * m < nc)
            KS_REG(w->c[m]);
    }
    for (m = 0; m < 4; m++) {
        w->k[m] = rk + 64 * m;
        if (m > 0 && 4 * m < nk)
            KS_REG(w->k[m]);
    }
}

/* ksc[n] */
AB_INLINE v8 ks_c(const ks_addr *w, unsigned n)
{
    return (n & 3) != 0 ? vec_ld(w->o[n & 3], w->c[n >> 2])
                        : vec_ld(0, w->c[n >> 2]);
}

/* round key i */
AB_INLINE void ks_st(const ks_addr *w, v8 v, unsigned i)
{
    if ((i & 3) != 0)
        vec_st(v, w->o[i & 3], w->k[i >> 2]);
    else
        vec_st(v, 0, w->k[i >> 2]);
}

/* bytes n..n+15 of (a, b), in element order (vec_sld works on the
 * register, not on element order); words shifted up by n columns, with
 * the top words of z shifted in */
#if defined(__LITTLE_ENDIAN__)
#define KS_SLD(a, b, n) vec_sld((b), (a), 16 - (n))
#else
#define KS_SLD(a, b, n) vec_sld((a), (b), (n))
#endif
#define KS_UP(v, z, n) KS_SLD((z), (v), 16 - 4 * (n))

typedef struct {
    v8 ipl, iph, ak, inv, o1, o2, c63, zero, n4, m0f;
} ks_regs;

AB_INLINE void ks_load(ks_regs *r, const ks_addr *w)
{
    r->ipl = ks_c(w, KS_IPL);
    r->iph = ks_c(w, KS_IPH);
    r->ak = ks_c(w, KS_AK);
    r->inv = ks_c(w, KS_INV);
    r->o1 = ks_c(w, KS_O1);
    r->o2 = ks_c(w, KS_O2);
    r->c63 = ks_c(w, KS_C63);
    r->zero = vec_splat_u8(0);
    r->n4 = vec_splat_u8(4);
    r->m0f = vec_splat_u8(15);
}

/* perm_fix[1..3] in registers (fix[0] unused): FIX_1 applied twice and
 * three times */
AB_INLINE void ks_load_fix(v8 fix[4], const ks_addr *w)
{
    fix[0] = fix[1] = ks_c(w, KS_FIX1);
    fix[2] = vec_perm(fix[1], fix[1], fix[1]);
    fix[3] = vec_perm(fix[2], fix[2], fix[1]);
}

/* S(z ^ 0x63) in every byte */
AB_INLINE v8 ks_sbox(const ks_regs *r, v8 z)
{
    v8 y, i, k, j, ak, iak, jak, io, jo;

    y = vec_perm(r->ipl, r->ipl, z) ^
        vec_perm(r->iph, r->iph, vec_sr(z, r->n4));
    i = vec_sr(y, r->n4);
    k = y & r->m0f;
    j = i ^ k;
    ak = vec_perm(r->ak, r->ak, k);
    iak = vec_perm(r->inv, r->inv, i) ^ ak;
    jak = vec_perm(r->inv, r->inv, j) ^ ak;
    io = vec_perm(r->inv, r->zero, iak) ^ j;
    jo = vec_perm(r->inv, r->zero, jak) ^ i;
    return vec_perm(r->o1, r->c63, io) ^ vec_perm(r->o2, r->zero, jo);
}

/* the next stored-form key from s and T (see above): P(s ^ t) */
AB_INLINE v8 ks_next(const ks_regs *r, v8 s, v8 t)
{
    s ^= t;
    s ^= KS_UP(s, r->zero, 1);
    return s ^ KS_UP(s, r->zero, 2);
}

/* Store round key i (stored form s); k = (k0 + i) mod 4. The FIX_k
 * selectors are in registers (fix) or, with fix == NULL, loaded. */
AB_INLINE void ks_put(const ks_addr *w, const v8 *fix, v8 s, unsigned i,
                      unsigned k)
{
    if (k != 0)
        s = vec_perm(s, s,
                     fix != NULL ? fix[k]
                     : ks_c(w, k == 1 ? KS_FIX1 : KS_FIX2 + k - 2));
    ks_st(w, s, i);
}

/* Word 3 of v in every column: vspltw (GCC 12 sends vec_splat of a word
 * of a vector register through memory when compiling for 32-bit). */
AB_INLINE v8 ks_bcast3(v8 v)
{
    v32 r = (v32)v;

#if defined(__GNUC__) && defined(__LITTLE_ENDIAN__)
    __asm__("vspltw %0,%1,0" : "=v"(r) : "v"(r));
#elif defined(__GNUC__)
    __asm__("vspltw %0,%1,3" : "=v"(r) : "v"(r));
#else
    r = vec_splat(r, 3);
#endif
    return (v8)r;
}

/* Rcon: doubled in its register (not a constant load per round) */
AB_INLINE v8 ks_rc_next(v8 rc)
{
    rc = vec_add(rc, rc);
    KS_VREG(rc);
    return rc;
}

/* The key into a (bytes 0..15) and b (16..31; for 24 bytes, 16..23 and
 * junk). key is 16-byte aligned (bs_setkey), and exactly n bytes are
 * read unless key is rk itself. */
AB_INLINE void ks_load_key(const uint8_t *key, size_t n, v8 *a, v8 *b)
{
    *a = vec_ld(0, key);
    *b = n > 16 ? vec_ld(16, key) : *a;
}

/* AES-128 (k0 = 2): the whole expansion in one register. */
__attribute__((noinline)) static void setkey128(unsigned char *rk,
                                                const uint8_t *key)
{
    ks_addr w;
    ks_regs r;
    v8 fix[4], k, s, rc, rot, t;
    unsigned i;

    ks_addr_init(&w, rk, KS_RC9 + 1, 11);
    ks_load(&r, &w);
    ks_load_fix(fix, &w);
    rot = ks_c(&w, KS_ROT);
    ks_load_key(key, 16, &k, &s);
    ks_put(&w, fix, k, 0, 2);
    s = k ^ r.c63;
    rc = ks_c(&w, KS_RC1);
    RIJN_UNROLL(16)
    for (i = 1; i <= 10; i++) {
        t = ks_sbox(&r, vec_perm(s, r.c63, rot)) ^ rc;
        s = ks_next(&r, s, t);
        ks_put(&w, fix, s, i, (2 + i) & 3);
        rc = i == 8 ? ks_c(&w, KS_RC9) : ks_rc_next(rc);
    }
}

/* AES-256 (k0 = 2): round keys 2i and 2i+1 in two registers. */
__attribute__((noinline)) static void setkey256(unsigned char *rk,
                                                const uint8_t *key)
{
    ks_addr w;
    ks_regs r;
    v8 fix[4], a, b, rc, rot, t;
    unsigned i;

    ks_addr_init(&w, rk, KS_RC1 + 1, 15);
    ks_load(&r, &w);
    ks_load_fix(fix, &w);
    rot = ks_c(&w, KS_ROT);
    ks_load_key(key, 32, &a, &b);
    ks_put(&w, fix, a, 0, 2);
    a ^= r.c63;
    b ^= r.c63;
    ks_put(&w, fix, b, 1, 3);
    rc = ks_c(&w, KS_RC1);
    RIJN_UNROLL(16)
    for (i = 2; i <= 14; i += 2) {
        /* SubWord(RotWord(w[4i-1])) ^ Rcon */
        t = ks_sbox(&r, vec_perm(b, r.c63, rot)) ^ rc;
        a = ks_next(&r, a, t);
        ks_put(&w, fix, a, i, (2 + i) & 3);
        if (i == 14)
            break;
        /* SubWord(w[4i+3]) */
        t = ks_sbox(&r, KS_SLD(a, r.c63, 12));
        b = ks_next(&r, b, t);
        ks_put(&w, fix, b, i + 1, (3 + i) & 3);
        rc = ks_rc_next(rc);
    }
}

/*
 * AES-192 (k0 = 0): step s holds words w[6s..6s+3] in a and w[6s+4..6s+5]
 * in the low half of b (stored form). Round keys 3m, 3m+1, 3m+2 are
 * a_2m, (low b_2m, low a_2m+1) and (high a_2m+1, low b_2m+1). In stored
 * form, w[6s+10] = w[6s+4] ^ w[6s+9] ^ 0x63 and w[6s+11] = w[6s+5] ^
 * w[6s+4] ^ w[6s+9]: 0x63 shifted in below w[6s+4].
 */
__attribute__((noinline)) static void setkey192(unsigned char *rk,
                                                const uint8_t *key)
{
    ks_addr w;
    ks_regs r;
    v8 a, b, an, bn, rc, rotw1, lo_lo, t;
    unsigned step, i = 0;

    ks_addr_init(&w, rk, KS_N, 13);
    ks_load(&r, &w);
    rotw1 = ks_c(&w, KS_ROTW1);
    lo_lo = ks_c(&w, KS_LO_LO);
    ks_load_key(key, 24, &a, &b);
    ks_put(&w, NULL, a, 0, 0);
    a ^= r.c63;
    b ^= r.c63;
    rc = ks_c(&w, KS_RC1);
    RIJN_UNROLL(16)
    for (step = 0; step < 8; step++) {
        if ((step & 1) == 0 && step > 0)
            ks_put(&w, NULL, a, i, i & 3);
        /* w[6s+6] = w[6s] ^ SubWord(RotWord(w[6s+5])) ^ Rcon, and chains */
        t = ks_sbox(&r, vec_perm(b, r.c63, rotw1)) ^ rc;
        rc = ks_rc_next(rc);
        an = ks_next(&r, a, t);
        bn = b ^ KS_UP(b, r.c63, 1) ^ ks_bcast3(an);
        if ((step & 1) == 0) {
            ks_put(&w, NULL, vec_perm(b, an, lo_lo), i + 1, (i + 1) & 3);
            i += 2;
        } else {
            ks_put(&w, NULL, KS_SLD(a, b, 8), i, i & 3);
            i += 1;
        }
        a = an;
        b = bn;
    }
    ks_put(&w, NULL, a, 12, 0);
}

/* An unaligned key (and a 24-byte one, which an aligned 32-byte load
 * would read past) is copied into rk first, where round keys 0 and 1
 * overwrite it: the key schedules load it with aligned vector loads and
 * need no stack frame. */
static void bs_setkey(rijn_aes_key *k, const uint8_t *key, size_t key_len)
{
    unsigned char *rk = (unsigned char *)k->rk;

    if (key_len == 16 && IS_ALIGNED16(key)) {
        setkey128(rk, key);
    } else if (key_len == 16) {
        memcpy(rk, key, 16);
        setkey128(rk, rk);
    } else if (key_len == 24) {
        memcpy(rk, key, 24);
        setkey192(rk, rk);
    } else if (IS_ALIGNED16(key)) {
        setkey256(rk, key);
    } else {
        memcpy(rk, key, 32);
        setkey256(rk, rk);
    }
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
    const v8 pf = perm_fix[K0(rounds)], *sel = sel_tab + 2 * K0(rounds);
    RIJN_ALIGN(16) uint8_t cb[16], buf[16];
    avp_sbox_regs s;
    size_t i;

    avp_load_sbox(&s, sbox_tab);
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
        x = encrypt1(&s, vec_perm(x, x, pf), rk, sel, rounds);
        if (ctr != NULL)
            x ^= d;
        if (direct) {
            vec_st(x, 0, out);
        } else {
            vec_st(x, 0, buf);
            memcpy(out, buf, 16);
        }
    }
    if (!direct)
        rijn_burn(buf, sizeof buf); /* keystream when the input was 0 */
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
        RIJN_UNROLL(8)
        for (i = 0; i < 8; i++) {
            v8 x = vec_ld((int)(16 * i), buf);
            q[i] = vec_perm(x, x, pf) ^ rk0;
        }
        transpose(q);
        encrypt_bs_call(q, rk, rounds);
        transpose(q);
        rk0 = vec_ld((int)(16 * rounds), rk); /* the last round key */
        RIJN_UNROLL(8)
        for (i = 0; i < 8; i++)
            vec_st(q[i] ^ rk0, (int)(16 * i), buf);
        memcpy(out, buf, 16 * n);
        /* with the encryptions of the zero padding blocks */
        rijn_burn(buf, sizeof buf);
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

    RIJN_UNROLL(8)
    for (j = j0; j < 8; j++) {
        s = c[j] ^ carry;
        carry &= c[j];
        c[j] = s;
    }
    for (r = 0; r < 3 && !vec_all_eq(carry, zero); r++) {
        carry = vec_perm(carry, zero, carry_move[k0i][r]);
        RIJN_UNROLL(8)
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

    RIJN_UNROLL(8)
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
    RIJN_UNROLL(8)
    for (i = 7; i >= 0; i--) {
        base[i] = vec_sra(v, vec_splat_u8(7));
        v = vec_add(v, v);
    }
    /* counter bytes 12..15 spread, then + b in block b */
    v = c & mask_ctr;
    v = vec_perm(v, v, pf);
    RIJN_UNROLL(8)
    for (i = 7; i >= 0; i--) {
        cnt[i] = vec_sra(v, vec_splat_u8(7));
        v = vec_add(v, v);
    }
    ctr_add_index(cnt, k0i);
    last = vec_ld((int)(16 * rounds), rk);

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

RIJN_AES_KEY_FITS(15 * 16, "altivec-bs's AES-256 schedule");
const rijn_aes_impl rijn_aes_altivec_bs = {
    .base = {.name = "altivec-bs", .needs = RIJN_CPU_ALTIVEC,
             .constant_time = 1, .rank = 15},
    .key_bytes = RIJN_AES_KEY_BYTES(16),
    .setkey = bs_setkey,
    .ecb = bs_ecb,
    .ctr32 = bs_ctr32,
};

#endif /* PowerPC */

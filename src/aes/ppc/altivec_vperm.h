/*
 * Shared code of the AltiVec vector-permute backends altivec-vperm (stored
 * key schedule, altivec_vperm.c) and altivec-vperm-otf (round keys computed
 * on the fly in registers, altivec_vperm_otf.c). Included only by those two
 * files, which are compiled with -maltivec -mabi=altivec on PowerPC; every
 * function here is static inline, so each file gets its own copy.
 *
 * S-box (the approach of Grzegorz Kraszewski's AltiVec AES notes): the
 * whole 256-byte table lives in 16 vector registers, T[0..15]. vperm
 * indexes the 32 bytes of a register pair by the low 5 bits of each index
 * byte, so perm(T[2j], T[2j+1], x) gives S[32j + (x & 31)] in every byte;
 * eight of them give the eight candidates for bits 7..5 of x, and a
 * three-level vsel tree picks the right one with byte masks made from
 * those bits (vsrab by 7 of x, 2x, 4x). 8 vperm + 7 vsel + 5 mask
 * instructions = 20 instructions for 16 S-box lookups, no memory access:
 * the tables are loaded once per call from a constant address, and vperm,
 * vsel, vsrab and vaddubm take the same time whatever the data.
 *
 * Hamburg's vector-permute AES (S-box by GF(2^4) inversion with 4-bit
 * vperm lookups) was not chosen: a tower-field inversion with log/exp
 * vperm tables, counted on paper with standard-basis round keys, came to
 * about 36 instructions per round against 30 here, and the tighter
 * formulations change the basis of every round key, which the on-the-fly
 * schedule would have to follow.
 *
 * Round (from the state s after AddRoundKey), all bytes in block order
 * (element i = byte i of the block, column-major as in FIPS-197):
 *   b  = SubBytes(s)                               20
 *   a  = ShiftRows(b), r1 = RotCol1(ShiftRows(b))   2 vperm, constant control
 *   t  = a ^ r1                                     1
 *   s' = xtime(t) ^ r1 ^ RotCol2(t) ^ rk            3 + 1 + 3
 * which is MixColumns (2a_r ^ 3a_{r+1} ^ a_{r+2} ^ a_{r+3}) = 30 per round.
 *
 * Endianness: every vec_perm with a constant control uses the compiler's
 * element numbering (the same on big- and little-endian). The S-box vperm
 * is data-indexed: on little-endian GCC would add a vnor to each (it
 * complements the control to emulate big-endian numbering), so there it is
 * issued raw with inline asm and the table rows are stored byte-reversed
 * (lvx on little-endian puts memory byte i in register byte 15 - i), which
 * makes the raw vperm return S[x] in place of x.
 */
#ifndef RIJN_AES_ALTIVEC_VPERM_H
#define RIJN_AES_ALTIVEC_VPERM_H

#include "internal.h"

#if defined(__ALTIVEC__)

#include <altivec.h>
#include <stdint.h>
#include <string.h>

/* altivec.h defines these as macros in some modes; we use the C meanings */
#undef vector
#undef pixel
#undef bool

typedef __vector unsigned char avp_v8;
typedef __vector signed char avp_s8;
typedef __vector unsigned int avp_v32;

#define AVP_INLINE static inline __attribute__((always_inline))
/* Fully unroll loops over the blocks of a batch (constant trip counts), so
 * the state arrays live in registers, never on the stack. */

#if defined(__LITTLE_ENDIAN__) || \
    (defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
#define AVP_LE 1
#else
#define AVP_LE 0
#endif

/* One S-box row of 16 bytes, in the order lvx + raw vperm need. */
#if AVP_LE
#define AVP_ROW(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15) \
    a15, a14, a13, a12, a11, a10, a9, a8, a7, a6, a5, a4, a3, a2, a1, a0
#else
#define AVP_ROW(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15) \
    a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15
#endif

/* FIPS-197 S-box (the public table, read only at fixed addresses) */
static const uint8_t avp_sbox[256] __attribute__((aligned(16))) = {
    AVP_ROW(0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76),
    AVP_ROW(0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0),
    AVP_ROW(0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15),
    AVP_ROW(0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75),
    AVP_ROW(0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84),
    AVP_ROW(0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf),
    AVP_ROW(0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8),
    AVP_ROW(0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2),
    AVP_ROW(0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73),
    AVP_ROW(0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb),
    AVP_ROW(0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79),
    AVP_ROW(0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08),
    AVP_ROW(0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a),
    AVP_ROW(0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e),
    AVP_ROW(0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf),
    AVP_ROW(0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16)
};

/* Register-held S-box and round constants, loaded once per call. */
typedef struct {
    avp_v8 t[16];
} avp_sbox_regs;

AVP_INLINE void avp_load_sbox(avp_sbox_regs *S)
{
    int i;
    for (i = 0; i < 16; i++)
        S->t[i] = vec_ld(16 * i, avp_sbox);
}

/* Data-indexed vperm with the hardware's own byte numbering (see top). */
AVP_INLINE avp_v8 avp_vperm_raw(avp_v8 a, avp_v8 b, avp_v8 c)
{
#if AVP_LE
    avp_v8 r;
    __asm__("vperm %0,%1,%2,%3" : "=v"(r) : "v"(a), "v"(b), "v"(c));
    return r;
#else
    return vec_perm(a, b, c);
#endif
}

/* 16 S-box lookups: 8 vperm, 5 mask instructions, 7 vsel */
AVP_INLINE avp_v8 avp_subbytes(const avp_sbox_regs *S, avp_v8 x)
{
    const avp_v8 seven = vec_splat_u8(7);
    const avp_v8 x1 = vec_add(x, x);
    const avp_v8 x2 = vec_add(x1, x1);
    const avp_v8 m7 = (avp_v8)vec_sra((avp_s8)x, seven);
    const avp_v8 m6 = (avp_v8)vec_sra((avp_s8)x1, seven);
    const avp_v8 m5 = (avp_v8)vec_sra((avp_s8)x2, seven);
    const avp_v8 d0 = vec_sel(avp_vperm_raw(S->t[0], S->t[1], x),
                              avp_vperm_raw(S->t[2], S->t[3], x), m5);
    const avp_v8 d1 = vec_sel(avp_vperm_raw(S->t[4], S->t[5], x),
                              avp_vperm_raw(S->t[6], S->t[7], x), m5);
    const avp_v8 d2 = vec_sel(avp_vperm_raw(S->t[8], S->t[9], x),
                              avp_vperm_raw(S->t[10], S->t[11], x), m5);
    const avp_v8 d3 = vec_sel(avp_vperm_raw(S->t[12], S->t[13], x),
                              avp_vperm_raw(S->t[14], S->t[15], x), m5);
    return vec_sel(vec_sel(d0, d1, m6), vec_sel(d2, d3, m6), m7);
}

/* Constant permutations (element numbering). Byte i = row i%4, col i/4. */
#define AVP_SR ((avp_v8){0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11})
/* RotCol1(ShiftRows(b)): element r+4c takes SR[(r+1)%4 + 4c] */
#define AVP_SR_ROT1 ((avp_v8){5, 10, 15, 0, 9, 14, 3, 4, 13, 2, 7, 8, 1, 6, 11, 12})
/* RotCol2: element r+4c takes (r+2)%4 + 4c */
#define AVP_ROT2 ((avp_v8){2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13})

/*
 * Multiply every byte by x in GF(2^8), in three instructions: r = rotl(t, 1)
 * is (t << 1) | (t >> 7), so xtime(t) = r ^ (0x1a if bit 0 of r is set);
 * that correction is a vperm of a constant indexed by r (only its bit 0
 * matters; on little-endian the raw byte numbering flips the parity).
 */
#if AVP_LE
#define AVP_X1A ((avp_v8){0x1a, 0, 0x1a, 0, 0x1a, 0, 0x1a, 0, 0x1a, 0, 0x1a, 0, 0x1a, 0, 0x1a, 0})
#else
#define AVP_X1A ((avp_v8){0, 0x1a, 0, 0x1a, 0, 0x1a, 0, 0x1a, 0, 0x1a, 0, 0x1a, 0, 0x1a, 0, 0x1a})
#endif
AVP_INLINE avp_v8 avp_xtime(avp_v8 t)
{
    const avp_v8 r = vec_rl(t, vec_splat_u8(1));
    return vec_xor(r, avp_vperm_raw(AVP_X1A, AVP_X1A, r));
}

/* One full round (SubBytes, ShiftRows, MixColumns, AddRoundKey) */
AVP_INLINE avp_v8 avp_round(const avp_sbox_regs *S, avp_v8 s, avp_v8 rk)
{
    const avp_v8 b = avp_subbytes(S, s);
    const avp_v8 a = vec_perm(b, b, AVP_SR);
    const avp_v8 r1 = vec_perm(b, b, AVP_SR_ROT1);
    const avp_v8 t = vec_xor(a, r1);
    const avp_v8 r2 = vec_perm(t, t, AVP_ROT2);
    return vec_xor(vec_xor(avp_xtime(t), r1), vec_xor(r2, rk));
}

/* The last round (no MixColumns) */
AVP_INLINE avp_v8 avp_last_round(const avp_sbox_regs *S, avp_v8 s, avp_v8 rk)
{
    const avp_v8 b = avp_subbytes(S, s);
    return vec_xor(vec_perm(b, b, AVP_SR), rk);
}

/* ------------------------------------------------------------------------
 * Key expansion steps (FIPS-197 5.2) on whole round keys; words are
 * elements 0-3, 4-7, 8-11, 12-15. SubWord is the register S-box, so the
 * schedule has no secret-indexed memory access either.
 * --------------------------------------------------------------------- */
#define AVP_Z 16 /* index of byte 0 of the zero vector in vec_perm(w, 0, .) */
/* words shifted up by one / two positions, zeros shifted in */
#define AVP_SH4 ((avp_v8){AVP_Z, AVP_Z, AVP_Z, AVP_Z, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})
#define AVP_SH8 ((avp_v8){AVP_Z, AVP_Z, AVP_Z, AVP_Z, AVP_Z, AVP_Z, AVP_Z, AVP_Z, 0, 1, 2, 3, 4, 5, 6, 7})
/* RotWord(w3) / w3 / RotWord(w1) in all four words */
#define AVP_ROTW3 ((avp_v8){13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12})
#define AVP_BCW3 ((avp_v8){12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15})
#define AVP_ROTW1 ((avp_v8){5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7, 4})
/* rcon 0x01 in byte 0 of every word; the next ones are avp_xtime of it */
#define AVP_RCON1 ((avp_v8){1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0})
/* round keys 1 and 2 of AES-192 from (B0, A1) and (A1, B1) */
#define AVP_K192_1 ((avp_v8){0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23})
#define AVP_K192_2 ((avp_v8){8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23})

/* [w0, w0^w1, w0^w1^w2, w0^w1^w2^w3] */
AVP_INLINE avp_v8 avp_prefix(avp_v8 w)
{
    const avp_v8 z = vec_splat_u8(0);
    const avp_v8 p = vec_xor(w, vec_perm(w, z, AVP_SH4));
    return vec_xor(p, vec_perm(p, z, AVP_SH8));
}

/* AES-128 (and the first half of an AES-256 step): next four words */
AVP_INLINE avp_v8 avp_ks_step(const avp_sbox_regs *S, avp_v8 prev,
                              avp_v8 last, avp_v8 rc)
{
    const avp_v8 g = vec_xor(avp_subbytes(S, vec_perm(last, last, AVP_ROTW3)), rc);
    return vec_xor(avp_prefix(prev), g);
}

/* The second half of an AES-256 step: SubWord without RotWord or rcon */
AVP_INLINE avp_v8 avp_ks_step256b(const avp_sbox_regs *S, avp_v8 prev, avp_v8 last)
{
    return vec_xor(avp_prefix(prev), avp_subbytes(S, vec_perm(last, last, AVP_BCW3)));
}

/* AES-192: (a = w[6i..6i+3], b = w[6i+4..6i+5] in elements 0-7) -> next
 * six words. Elements 8-15 of b hold junk that never reaches 0-7. */
AVP_INLINE void avp_ks_step192(const avp_sbox_regs *S, avp_v8 *a, avp_v8 *b,
                               avp_v8 rc)
{
    const avp_v8 z = vec_splat_u8(0);
    const avp_v8 g = vec_xor(avp_subbytes(S, vec_perm(*b, *b, AVP_ROTW1)), rc);
    const avp_v8 an = vec_xor(avp_prefix(*a), g);
    *b = vec_xor(vec_xor(*b, vec_perm(*b, z, AVP_SH4)), vec_perm(an, an, AVP_BCW3));
    *a = an;
}

/* ------------------------------------------------------------------------
 * Loads, stores and the counter. vec_ld/vec_st ignore the low four address
 * bits, so an unaligned block goes through an aligned stack copy (never a
 * byte outside the block is read or written). `aligned` is a compile-time
 * constant at every call site.
 * --------------------------------------------------------------------- */
AVP_INLINE avp_v8 avp_load(const uint8_t *p, const int aligned)
{
    if (aligned)
        return vec_ld(0, p);
    {
        uint8_t buf[16] __attribute__((aligned(16)));
        memcpy(buf, p, 16);
        return vec_ld(0, buf);
    }
}

AVP_INLINE void avp_store(uint8_t *p, avp_v8 v, const int aligned)
{
    if (aligned) {
        vec_st(v, 0, p);
    } else {
        uint8_t buf[16] __attribute__((aligned(16)));
        vec_st(v, 0, buf);
        memcpy(p, buf, 16);
        rijn_burn(buf, sizeof buf); /* keystream when the input was 0 */
    }
}

/* Bytes 4i..4i+3 reversed (little-endian only): a word's number as a
 * big-endian one, so that vadduwm steps the counter bytes 12..15. */
#define AVP_BSWAP32 ((avp_v8){3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12})
#define AVP_CTR_ONE ((avp_v32){0, 0, 0, 1})

/* counter block -> the numeric form stepped with vadduwm */
AVP_INLINE avp_v8 avp_ctr_load(const uint8_t ctr[16])
{
    const avp_v8 c = avp_load(ctr, 0);
#if AVP_LE
    return vec_perm(c, c, AVP_BSWAP32);
#else
    return c;
#endif
}

/* numeric form -> counter block (byte order of the block) */
AVP_INLINE avp_v8 avp_ctr_block(avp_v8 c)
{
#if AVP_LE
    return vec_perm(c, c, AVP_BSWAP32);
#else
    return c;
#endif
}

AVP_INLINE avp_v8 avp_ctr_next(avp_v8 c)
{
    return (avp_v8)vec_add((avp_v32)c, AVP_CTR_ONE);
}

#define AVP_IS_ALIGNED(p) ((((uintptr_t)(p)) & 15u) == 0)

#endif /* __ALTIVEC__ */
#endif /* RIJN_AES_ALTIVEC_VPERM_H */

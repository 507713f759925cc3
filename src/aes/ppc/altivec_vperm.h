/*
 * Shared code of the AltiVec vector-permute backends altivec-vperm (stored
 * key schedule, altivec_vperm.c) and altivec-vperm-otf (round keys computed
 * on the fly in registers, altivec_vperm_otf.c). Included only by those two
 * files, which are compiled with -maltivec -mabi=altivec on PowerPC; every
 * function here is static inline, so each file gets its own copy.
 *
 * S-box: the register S-box of altivec_sbox.h (16 lookups in 20
 * instructions, tables in registers, no data-dependent memory access),
 * with the FIPS-197 table.
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
 * element numbering (the same on big- and little-endian); the data-indexed
 * vperms (S-box, xtime) are raw on little-endian, see altivec_sbox.h.
 */
#ifndef RIJN_AES_ALTIVEC_VPERM_H
#define RIJN_AES_ALTIVEC_VPERM_H

#include "internal.h"
#include "altivec_sbox.h"

#if defined(__ALTIVEC__)

#include <string.h>

/* FIPS-197 S-box, in the order avp_load_sbox needs */
AVP_SBOX_TABLE(avp_sbox, 0x00);

/* Constant permutations (element numbering). Byte i = row i%4, col i/4. */
#define AVP_SR ((avp_v8){0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11})
/* RotCol1(ShiftRows(b)): element r+4c takes SR[(r+1)%4 + 4c] */
#define AVP_SR_ROT1 ((avp_v8){5, 10, 15, 0, 9, 14, 3, 4, 13, 2, 7, 8, 1, 6, 11, 12})
/* RotCol2: element r+4c takes (r+2)%4 + 4c */
#define AVP_ROT2 ((avp_v8){2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13})

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

/*
 * The AltiVec register S-box, shared by the three AltiVec backends:
 * altivec-vperm and altivec-vperm-otf (every round, altivec_vperm.h) and
 * altivec-bs (its one-block path for short runs, altivec_bs.c). Included
 * only by files compiled with -maltivec -mabi=altivec on PowerPC; every
 * function is static inline, and each file instantiates only the table it
 * uses (AVP_SBOX_TABLE below).
 *
 * Technique (Grzegorz Kraszewski's AltiVec AES notes): the whole 256-byte
 * table lives in 16 vector registers, T[0..15]. vperm indexes the 32
 * bytes of a register pair by the low 5 bits of each index byte, so
 * perm(T[2j], T[2j+1], x) gives S[32j + (x & 31)] in every byte; eight of
 * them give the eight candidates for bits 7..5 of x, and a three-level
 * vsel tree picks the right one with byte masks made from those bits
 * (vsrab by 7 of x, 2x, 4x). 8 vperm + 7 vsel + 5 mask instructions = 20
 * instructions for 16 S-box lookups.
 *
 * Constant time: no memory access depends on the data. The tables are
 * loaded into registers once per call from a constant address, and vperm,
 * vsel, vsrab and vaddubm take the same time whatever the data.
 *
 * Endianness: the S-box vperm is data-indexed. GCC's vec_perm follows the
 * big-endian element numbering on little-endian too, by adding a vnor to
 * every vperm whose control is not a compile-time constant (it complements
 * the control and swaps the operands). So the lookups are issued raw with
 * inline asm on little-endian (avp_vperm_raw, the hardware's own byte
 * numbering), and the table rows are stored byte-reversed there (lvx on
 * little-endian puts memory byte i in register byte 15 - i), which makes
 * the raw vperm return S[x] in place of x. xtime's 0x1a lookup is
 * data-indexed too and uses the same raw vperm.
 *
 * Tables: the 16 rows are written once (AVP_SBOX_ROWS) and instantiated
 * XORed with a constant: 0 gives the FIPS-197 S-box (altivec-vperm), 0x63
 * gives S(x) ^ 0x63 (altivec-bs, whose round keys hold the 0x63).
 */
#ifndef RIJN_AES_ALTIVEC_SBOX_H
#define RIJN_AES_ALTIVEC_SBOX_H

#if defined(__ALTIVEC__)

#include <altivec.h>
#include <stdint.h>

/* altivec.h defines these as macros in some modes; we use the C meanings */
#undef vector
#undef pixel
#undef bool

typedef __vector unsigned char avp_v8;
typedef __vector signed char avp_s8;
typedef __vector unsigned int avp_v32;

#define AVP_INLINE static inline __attribute__((always_inline))

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

/* The FIPS-197 S-box, S[16i .. 16i+15] in row i, as R(c, row) */
#define AVP_SBOX_ROWS(R, c) \
    R(c, 0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76) \
    R(c, 0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0) \
    R(c, 0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15) \
    R(c, 0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75) \
    R(c, 0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84) \
    R(c, 0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf) \
    R(c, 0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8) \
    R(c, 0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2) \
    R(c, 0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73) \
    R(c, 0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb) \
    R(c, 0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79) \
    R(c, 0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08) \
    R(c, 0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a) \
    R(c, 0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e) \
    R(c, 0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf) \
    R(c, 0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16)

/* one row XORed with c, in lvx + raw vperm order */
#define AVP_ROW_XOR(c, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15) \
    AVP_ROW((a0) ^ (c), (a1) ^ (c), (a2) ^ (c), (a3) ^ (c), (a4) ^ (c), (a5) ^ (c),       \
            (a6) ^ (c), (a7) ^ (c), (a8) ^ (c), (a9) ^ (c), (a10) ^ (c), (a11) ^ (c),     \
            (a12) ^ (c), (a13) ^ (c), (a14) ^ (c), (a15) ^ (c)),

/* static const uint8_t name[256]: S(x) ^ c, for avp_load_sbox (public
 * data, read only at fixed addresses) */
#define AVP_SBOX_TABLE(name, c)                                             \
    static const uint8_t name[256] __attribute__((aligned(16))) = {         \
        AVP_SBOX_ROWS(AVP_ROW_XOR, c)}

/* The S-box in 16 registers, loaded once per call. */
typedef struct {
    avp_v8 t[16];
} avp_sbox_regs;

/* Left to the compiler to unroll or not (gcc 12 unrolls it in altivec-bs
 * and keeps a stack copy in the altivec-vperm files): forcing the unroll
 * takes about 160 instructions off each altivec-vperm call but lengthens
 * altivec-vperm-otf's rounds on the G4 and G5 (register allocation;
 * measured with bench/ppc-insncount.sh). */
AVP_INLINE void avp_load_sbox(avp_sbox_regs *S, const uint8_t table[256])
{
    int i;

    for (i = 0; i < 16; i++)
        S->t[i] = vec_ld(16 * i, table);
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

/* A control table for avp_vperm_raw(x, x, c) (one source vector): gives
 * element c_i of x in element i, as vec_perm(x, x, {c_0, ..., c_15});
 * the raw vperm counts bytes from the other end on little-endian. */
#if AVP_LE
#define AVP_CTL1(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15) \
    {15 - (a0), 15 - (a1), 15 - (a2), 15 - (a3), 15 - (a4), 15 - (a5), 15 - (a6),       \
     15 - (a7), 15 - (a8), 15 - (a9), 15 - (a10), 15 - (a11), 15 - (a12), 15 - (a13),   \
     15 - (a14), 15 - (a15)}
#else
#define AVP_CTL1(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15) \
    {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15}
#endif

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

#endif /* __ALTIVEC__ */
#endif /* RIJN_AES_ALTIVEC_SBOX_H */

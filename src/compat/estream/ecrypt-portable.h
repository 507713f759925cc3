/*
 * ecrypt-portable.h: portable rotations and byte-order conversions of the
 * eSTREAM API, a minimal stand-in for the framework's own file written for
 * rijn (the shim itself uses none of these; they are here so that code
 * written against the eSTREAM API compiles). All of them work on values,
 * never through pointer casts, so they are correct on either byte order.
 */
#ifndef ECRYPT_PORTABLE
#define ECRYPT_PORTABLE

#include "ecrypt-config.h"

#define ROTL8(v, n) (U8V((v) << (n)) | ((v) >> (8 - (n))))
#define ROTL16(v, n) (U16V((v) << (n)) | ((v) >> (16 - (n))))
#define ROTL32(v, n) (U32V((v) << (n)) | ((v) >> (32 - (n))))
#define ROTL64(v, n) (U64V((v) << (n)) | ((v) >> (64 - (n))))

#define ROTR8(v, n) ROTL8(v, 8 - (n))
#define ROTR16(v, n) ROTL16(v, 16 - (n))
#define ROTR32(v, n) ROTL32(v, 32 - (n))
#define ROTR64(v, n) ROTL64(v, 64 - (n))

#define SWAP16(v) ROTL16(v, 8)
#define SWAP32(v) \
    ((ROTL32(v, 8) & U32C(0x00FF00FF)) | (ROTL32(v, 24) & U32C(0xFF00FF00)))

#define U8TO16_LITTLE(p) \
    ((u16)(((const u8 *)(p))[0]) | ((u16)(((const u8 *)(p))[1]) << 8))
#define U8TO32_LITTLE(p)                                               \
    ((u32)(((const u8 *)(p))[0]) | ((u32)(((const u8 *)(p))[1]) << 8) | \
     ((u32)(((const u8 *)(p))[2]) << 16) |                              \
     ((u32)(((const u8 *)(p))[3]) << 24))
#define U8TO32_BIG(p)                                                        \
    (((u32)(((const u8 *)(p))[0]) << 24) |                                   \
     ((u32)(((const u8 *)(p))[1]) << 16) |                                   \
     ((u32)(((const u8 *)(p))[2]) << 8) | (u32)(((const u8 *)(p))[3]))

#define U32TO8_LITTLE(p, v)                  \
    do {                                     \
        ((u8 *)(p))[0] = U8V((v));           \
        ((u8 *)(p))[1] = U8V((v) >> 8);      \
        ((u8 *)(p))[2] = U8V((v) >> 16);     \
        ((u8 *)(p))[3] = U8V((v) >> 24);     \
    } while (0)
#define U32TO8_BIG(p, v)                     \
    do {                                     \
        ((u8 *)(p))[0] = U8V((v) >> 24);     \
        ((u8 *)(p))[1] = U8V((v) >> 16);     \
        ((u8 *)(p))[2] = U8V((v) >> 8);      \
        ((u8 *)(p))[3] = U8V((v));           \
    } while (0)

#include "ecrypt-machine.h"

#endif /* ECRYPT_PORTABLE */

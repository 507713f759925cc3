/*
 * ecrypt-config.h: the fixed-width integer types of the eSTREAM API.
 *
 * A minimal stand-in for the eSTREAM framework's own file, written for
 * rijn. Inside the framework its ecrypt-config.h is used instead; the
 * shim only relies on u8 being an unsigned char and u32 being an
 * unsigned type of at least 32 bits, which both versions guarantee.
 */
#ifndef ECRYPT_CONFIG
#define ECRYPT_CONFIG

#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#define U8C(v) (v##U)
#define U16C(v) (v##U)
#define U32C(v) (v##U)
#define U64C(v) (v##ULL)

#define U8V(v) ((u8)(v) & U8C(0xFF))
#define U16V(v) ((u16)(v) & U16C(0xFFFF))
#define U32V(v) ((u32)(v) & U32C(0xFFFFFFFF))
#define U64V(v) ((u64)(v) & U64C(0xFFFFFFFFFFFFFFFF))

#endif /* ECRYPT_CONFIG */

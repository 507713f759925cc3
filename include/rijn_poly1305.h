/*
 * rijn: Poly1305-AES (D. J. Bernstein, FSE 2005) and raw Poly1305 (RFC 8439).
 *
 * Included at the end of rijn.h; may also be included on its own.
 *
 * Poly1305-AES
 *   tag = (Poly1305_r(m) + AES_k(n)) mod 2^128, where
 *     kr = k || r: k is a 16-byte AES-128 key, r a 16-byte little-endian
 *          number with some bits cleared ("clamped", see
 *          rijn_poly1305aes_clamp);
 *     n  = a 16-byte nonce, never used twice with the same kr.
 *   The functions below have the names, arguments and meaning of
 *   Bernstein's poly1305aes library with a rijn_ prefix. They also clamp r
 *   internally, so an unclamped kr gives the tag of the clamped key (the
 *   original leaves that case undefined).
 *   AES is computed by the AES backend rijn_aes_setkey() picks (RIJN_IMPL
 *   is honoured).
 *
 * Raw Poly1305 (RFC 8439 section 2.5)
 *   key = r || s (32 bytes); tag = (Poly1305_r(m) + s) mod 2^128. r is
 *   clamped internally. A key must authenticate only one message.
 *
 * Engines
 *   Poly1305 is computed by one of several interchangeable engines, picked
 *   once per process (the first time one is needed):
 *
 *     name        arch     constant-time  needs / notes
 *     avx512ifma  x86-64   yes            AVX-512F, IFMA: 8 blocks in
 *                                         parallel, radix 2^44 (vpmadd52)
 *     avx2        x86-64   yes            AVX2: 16 blocks per step in 4
 *                                         lanes, radix 2^26
 *     neon        aarch64  yes            NEON: 8 blocks per step in 2
 *                                         lanes, radix 2^26 (UMLAL)
 *     poly64      64-bit   yes            radix 2^64, 64x64->128 products
 *     poly32      any      yes            radix 2^26, 32x32->64 products;
 *                                         32-bit hosts
 *   (tests/docs.cmake checks this table against CMakeLists.txt.)
 *
 *   The SIMD engines use the scalar 64-bit code for short inputs, where the
 *   vector set-up does not pay. All engines assume that the CPU multiplies
 *   in constant time (32x32->64 for poly32, avx2 and neon, 64x64->128 for poly64,
 *   52x52->104 for avx512ifma); there is no secret-dependent branch or
 *   memory index, and the final reduction uses masks.
 *
 *   Environment:
 *     RIJN_POLY1305_IMPL=name  force an engine; every function below then
 *                              fails (returns -1, verify returns 0) if the
 *                              name is unknown or this CPU cannot run it.
 *     RIJN_CPU_MASK            (see rijn.h) also limits the engines.
 *   Read once, and ignored by setuid and setgid programs, as in rijn.h.
 */
#ifndef RIJN_POLY1305_H
#define RIJN_POLY1305_H

#include <stddef.h>
#include <stdint.h>

#include "rijn.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rijn_poly1305_engine; /* an engine; opaque */

/*
 * Incremental Poly1305 / Poly1305-AES state. Caller-allocated; the contents
 * are the engine's own layout (accumulator, r, precomputed powers of r) and
 * must be treated as opaque. rijn_poly1305_final() wipes it.
 */
typedef struct rijn_poly1305_ctx {
    RIJN_ALIGN(64) uint64_t st[48];          /* engine state */
    unsigned char pad[16];                   /* s, or AES_k(n) */
    unsigned char buf[16];                   /* partial block */
    size_t used;                             /* bytes in buf (0..15) */
    const struct rijn_poly1305_engine *eng;  /* picked at init */
} rijn_poly1305_ctx;

/* ---- Poly1305-AES (Bernstein's API) ------------------------------------ */

/* Clear the bits of r = kr[16..31] that Poly1305 requires to be zero:
 * kr[19], kr[23], kr[27], kr[31] &= 15; kr[20], kr[24], kr[28] &= 252. */
RIJN_API void rijn_poly1305aes_clamp(unsigned char kr[32]);

/* out = Poly1305-AES tag of m[0..len) under kr and nonce n. Returns 0, or
 * -1 (and out zeroed) if no AES backend or Poly1305 engine is usable. */
RIJN_API int rijn_poly1305aes_authenticate(unsigned char out[16],
                                           const unsigned char kr[32],
                                           const unsigned char n[16],
                                           const unsigned char m[],
                                           size_t len);

/* 1 if a is the tag of m[0..len) under kr and n, 0 otherwise (also on a
 * setup failure). The comparison takes the same time wherever a differs. */
RIJN_API int rijn_poly1305aes_verify(const unsigned char a[16],
                                     const unsigned char kr[32],
                                     const unsigned char n[16],
                                     const unsigned char m[], size_t len);

/* Incremental Poly1305-AES: init, then rijn_poly1305_update/final below.
 * Returns 0, or -1 if no AES backend or Poly1305 engine is usable. */
RIJN_API int rijn_poly1305aes_init(rijn_poly1305_ctx *ctx,
                                   const unsigned char kr[32],
                                   const unsigned char n[16]);

/* ---- Raw Poly1305 (RFC 8439: key = r || s) ---------------------------- */

/* tag = Poly1305 of m[0..len) under the one-time key; 0, or -1 (tag
 * zeroed) if RIJN_POLY1305_IMPL names an unusable engine. */
RIJN_API int rijn_poly1305(unsigned char tag[16], const unsigned char m[],
                           size_t len, const unsigned char key[32]);

/* 1 if tag is the Poly1305 tag of m[0..len) under the one-time key, 0
 * otherwise (also if no engine is usable). The comparison takes the same
 * time wherever the tags differ: use this (or rijn_poly1305_final_verify),
 * never memcmp, to check a tag. */
RIJN_API int rijn_poly1305_verify(const unsigned char tag[16],
                                  const unsigned char m[], size_t len,
                                  const unsigned char key[32]);

/* Returns 0, or -1 if RIJN_POLY1305_IMPL names an unusable engine. */
RIJN_API int rijn_poly1305_init(rijn_poly1305_ctx *ctx,
                                const unsigned char key[32]);

/* Same with a named engine ("poly32", ...); NULL means the default.
 * Returns -1 if the engine is unknown or this CPU cannot run it. */
RIJN_API int rijn_poly1305_init_impl(rijn_poly1305_ctx *ctx,
                                     const unsigned char key[32],
                                     const char *impl);

/* Absorb m[0..len); the tag does not depend on how a message is split. */
RIJN_API void rijn_poly1305_update(rijn_poly1305_ctx *ctx,
                                   const unsigned char m[], size_t len);

/* Write the tag and wipe the context. */
RIJN_API void rijn_poly1305_final(rijn_poly1305_ctx *ctx,
                                  unsigned char tag[16]);

/* Finish and compare with `tag` in constant time: 1 if equal, 0 if not
 * (or if init had failed). Wipes the context; the computed tag is never
 * released. For both Poly1305 and Poly1305-AES contexts. */
RIJN_API int rijn_poly1305_final_verify(rijn_poly1305_ctx *ctx,
                                        const unsigned char tag[16]);

/* Wipe a context without producing a tag. */
RIJN_API void rijn_poly1305_wipe(rijn_poly1305_ctx *ctx);

/* The engine a context uses. */
RIJN_API const char *rijn_poly1305_ctx_impl(const rijn_poly1305_ctx *ctx);

/* ---- Engines ------------------------------------------------------------ */

/* Number of Poly1305 engines compiled into this library. */
RIJN_API size_t rijn_poly1305_impl_count(void);

/* Describe engine i (0 <= i < rijn_poly1305_impl_count()); -1 if out of
 * range. Same fields as the AES backends (rijn_impl_info in rijn.h). */
RIJN_API int rijn_poly1305_impl_get(size_t i, rijn_impl_info *info);

/* The engine used by default (honouring RIJN_POLY1305_IMPL), or NULL if
 * RIJN_POLY1305_IMPL names one that is unknown or unavailable. */
RIJN_API const char *rijn_poly1305_impl_default(void);

#ifdef __cplusplus
}
#endif

#endif /* RIJN_POLY1305_H */

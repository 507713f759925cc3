/*
 * Helpers shared by the library's fuzz targets (tests/fuzz/fuzz_*.c):
 *
 *   - a reader that takes typed values from the fuzzer's input (zeros once
 *     it is used up, so every input is valid), for structure-aware targets;
 *   - FZ_CHECK: an oracle failure prints what differs and aborts, which
 *     libFuzzer reports as a crash (and saves the input) and which fails
 *     the replay test;
 *   - the implementations this CPU runs (AES backends, GHASH engines,
 *     Poly1305 engines), listed once;
 *   - the independent oracles: OpenSSL's EVP where the build has it
 *     (RIJN_FUZZ_OPENSSL), otherwise rijn's `ref` AES backend with this
 *     file's own CTR and GCM (bit-by-bit GF(2^128), SP 800-38D Algorithm
 *     1) and Poly1305 (schoolbook, byte arithmetic): code paths that share
 *     nothing with the library's modes.
 */
#ifndef RIJN_FUZZUTIL_H
#define RIJN_FUZZUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "rijn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- input reader ---------------------------------------------------- */
typedef struct {
    const uint8_t *p;
    size_t n;
} fz_in;

uint8_t fz_u8(fz_in *in);
uint16_t fz_u16(fz_in *in);
uint32_t fz_u32(fz_in *in);
uint64_t fz_u64(fz_in *in);
/* A value in [lo, hi] (lo <= hi), from as few bytes as the range needs. */
size_t fz_range(fz_in *in, size_t lo, size_t hi);
/* Copy n bytes (zeros past the end of the input). */
void fz_bytes(fz_in *in, uint8_t *dst, size_t n);
/* Bytes left. */
size_t fz_left(const fz_in *in);

/* ---- failures --------------------------------------------------------- */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2), noreturn))
#endif
void fz_fail(const char *fmt, ...);
#define FZ_CHECK(cond, ...)                                                 \
    do {                                                                    \
        if (!(cond))                                                        \
            fz_fail(__VA_ARGS__);                                           \
    } while (0)
/* FZ_CHECK(memcmp == 0) with the first differing offset in the message. */
void fz_check_eq(const uint8_t *got, const uint8_t *want, size_t n,
                 const char *what);
/* All n bytes zero. */
int fz_all_zero(const uint8_t *p, size_t n);

/* ---- implementations this CPU runs ------------------------------------- */
typedef struct {
    size_t n;
    const char *name[32];
} fz_list;

/* AES backends (rijn_impl_get), GHASH engines (rijn_gcm_impl_get),
 * Poly1305 engines (rijn_poly1305_impl_get) with available == 1, in the
 * library's order. Never empty (ref / ctmul32 / poly32 run everywhere). */
const fz_list *fz_aes_backends(void);
const fz_list *fz_ghash_engines(void);
const fz_list *fz_poly_engines(void);

/* ---- oracles (OpenSSL, or ref + this file's code) ---------------------- */
/* "EVP" or "ref": what the oracles below compare with. */
const char *fz_oracle_name(void);
/* AES-CTR with the 128-bit big-endian counter of SP 800-38A. */
void fz_oracle_ctr(const uint8_t *key, size_t key_len, const uint8_t iv[16],
                   uint8_t *out, const uint8_t *in, size_t len);
/* AES-GCM encryption: ct and a 16-byte tag. */
void fz_oracle_gcm(const uint8_t *key, size_t key_len, const uint8_t *iv,
                   size_t iv_len, const uint8_t *aad, size_t aad_len,
                   const uint8_t *pt, size_t len, uint8_t *ct,
                   uint8_t tag[16]);
/* One AES block (ECB). */
void fz_oracle_aes(const uint8_t *key, size_t key_len, const uint8_t in[16],
                   uint8_t out[16]);
/* nblocks AES blocks (ECB). */
void fz_oracle_ecb(const uint8_t *key, size_t key_len, const uint8_t *in,
                   uint8_t *out, size_t nblocks);
/* Poly1305 (RFC 8439) under key = r || s; r is clamped. */
void fz_oracle_poly1305(const uint8_t key[32], const uint8_t *m, size_t len,
                        uint8_t tag[16]);

/* ---- GF(2^128) of GCM (bit-reflected, SP 800-38D), for the targets ------- */
/* z = x * y */
void fz_gf_mul(uint8_t z[16], const uint8_t x[16], const uint8_t y[16]);
/* z = x^-1 (x != 0) */
void fz_gf_inv(uint8_t z[16], const uint8_t x[16]);

#endif /* RIJN_FUZZUTIL_H */

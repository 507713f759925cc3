/*
 * Hash functions of the library (internal, not in the public headers):
 * MD5, SHA-1, SHA-224, SHA-256, SHA-384, SHA-512, HMAC over any of them,
 * PBKDF2-HMAC (RFC 8018) and OpenSSL's EVP_BytesToKey (count 1), for
 * `rijn enc` password mode and the library's own key derivations.
 *
 * Written for this project so that the tool needs no libcrypto at run
 * time. Variable-time is fine here: the inputs are a password and a salt
 * that are processed once, not a stream of secret data an attacker can
 * time. Every function is byte-order independent (no type punning).
 * SHA-1 and SHA-256 use the x86 SHA extensions when the CPU has them
 * (hash_x86.c), as OpenSSL does: PBKDF2 with many iterations is bound by
 * the compression function.
 */
#ifndef RIJN_HASH_H
#define RIJN_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "internal.h" /* rijn_impl, rijn_impl_info */

#define RIJN_HASH_MAX_OUT 64   /* SHA-512 */
#define RIJN_HASH_MAX_BLOCK 128

/* The chaining value: 32-bit words (MD5, SHA-1, SHA-224/256) or 64-bit
 * words (SHA-384/512). */
typedef union rijn_hash_state {
    uint32_t w32[8];
    uint64_t w64[8];
} rijn_hash_state;

/* One block_len-byte block into the chaining value. */
typedef void rijn_hash_compress_fn(rijn_hash_state *h, const unsigned char *block);

typedef struct rijn_hash_ctx {
    rijn_hash_state h;
    unsigned char buf[RIJN_HASH_MAX_BLOCK];
    size_t used;          /* bytes in buf */
    uint64_t total;       /* bytes hashed (fits: passwords and salts) */
    const struct rijn_hash_alg *alg;
    rijn_hash_compress_fn *compress; /* alg's, picked at rijn_hash_init */
} rijn_hash_ctx;

typedef struct rijn_hash_alg {
    const char *name;     /* "md5", "sha1", "sha256", ... */
    size_t out_len;       /* digest bytes */
    size_t block_len;     /* 64 or 128 (64-bit words) */
    int little_endian;    /* MD5: words and length little-endian */
    rijn_hash_state iv;
    rijn_hash_compress_fn *compress;       /* portable C */
    rijn_hash_compress_fn *compress_fast;  /* CPU extension, or NULL */
} rijn_hash_alg;

/* Use the CPU's hash instructions where there are some (the default), or
 * only the portable code (on = 0; tests). Returns 1 if they are in use.
 * Call before hashing, not while another thread hashes. */
int rijn_hash_set_accel(int on);

/* The CPU-extension path (x86-64: "sha-ni") described like a backend:
 * available if the CPU features after RIJN_CPU_MASK include its needs,
 * is_default if it is in use now. -1 where there is none. */
int rijn_hash_accel_info(rijn_impl_info *info);

/* The digest named `name` (case-insensitive; "sha256", "SHA2-256",
 * "sha-256" ...), or NULL. */
const rijn_hash_alg *rijn_hash_find(const char *name);

/* Comma-separated list of supported names, for messages. */
const char *rijn_hash_names(void);

void rijn_hash_init(rijn_hash_ctx *c, const rijn_hash_alg *alg);
void rijn_hash_update(rijn_hash_ctx *c, const void *data, size_t len);
/* Writes alg->out_len bytes and wipes the context. */
void rijn_hash_final(rijn_hash_ctx *c, unsigned char *out);
void rijn_hash(const rijn_hash_alg *alg, unsigned char *out, const void *data,
          size_t len);

/* HMAC(key, msg) (RFC 2104); out gets alg->out_len bytes. */
void rijn_hash_hmac(const rijn_hash_alg *alg, unsigned char *out,
               const unsigned char *key, size_t key_len,
               const unsigned char *msg, size_t msg_len);

/* HKDF-Expand (RFC 5869, section 2.3) with HMAC-alg: out_len <= 255 *
 * alg->out_len bytes of output keying material from prk and info. */
void rijn_hash_hkdf_expand(const rijn_hash_alg *alg, unsigned char *out,
                           size_t out_len, const unsigned char *prk,
                           size_t prk_len, const unsigned char *info,
                           size_t info_len);

/* PBKDF2-HMAC-alg (RFC 8018, section 5.2): out_len bytes. iter >= 1. */
void rijn_hash_pbkdf2(const rijn_hash_alg *alg, const unsigned char *pass,
                      size_t pass_len, const unsigned char *salt,
                      size_t salt_len, unsigned long iter, unsigned char *out,
                      size_t out_len);

/* The same, but only the alg->out_len-byte blocks first, first + step,
 * first + 2 step, ... (numbered from 1) of the output: the blocks are
 * independent, so callers can compute them on several threads (the CLI
 * does) and the rest of out is not touched. */
void rijn_hash_pbkdf2_part(const rijn_hash_alg *alg, const unsigned char *pass,
                           size_t pass_len, const unsigned char *salt,
                           size_t salt_len, unsigned long iter,
                           unsigned char *out, size_t out_len, uint32_t first,
                           uint32_t step);

/*
 * OpenSSL's EVP_BytesToKey with count 1: D_1 = H(pass || salt),
 * D_i = H(D_{i-1} || pass || salt); key || iv is the concatenation of
 * D_1, D_2, ... (salt may be NULL: then it is left out).
 */
void rijn_hash_bytes_to_key(const rijn_hash_alg *alg, const unsigned char *pass,
                       size_t pass_len, const unsigned char *salt,
                       size_t salt_len, unsigned char *key, size_t key_len,
                       unsigned char *iv, size_t iv_len);

/* SHA-256's round constants (hash.c). */
extern const uint32_t rijn_hash_sha256_k[64];

/* rijn_hash_x86.c: SHA extensions (SHA-NI), x86-64 with GCC or Clang. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RIJN_HASH_X86 1
/* The SHA-NI path as an implementation: its name and needs. */
extern const rijn_impl rijn_hash_x86_impl;
rijn_hash_compress_fn rijn_hash_x86_sha1, rijn_hash_x86_sha256;
#endif

#endif /* RIJN_HASH_H */

/*
 * Hash functions for `rijn enc` password mode: MD5, SHA-1, SHA-224,
 * SHA-256, SHA-384, SHA-512, HMAC over any of them, PBKDF2-HMAC
 * (RFC 8018) and OpenSSL's EVP_BytesToKey (count 1).
 *
 * Written for this project so that the tool needs no libcrypto at run
 * time. Variable-time is fine here: the inputs are a password and a salt
 * that are processed once, not a stream of secret data an attacker can
 * time. Every function is byte-order independent (no type punning).
 */
#ifndef RIJN_TOOL_HASH_H
#define RIJN_TOOL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_MAX_OUT 64   /* SHA-512 */
#define HASH_MAX_BLOCK 128

typedef struct hash_ctx {
    union {
        uint32_t w32[8];
        uint64_t w64[8];
    } h;
    unsigned char buf[HASH_MAX_BLOCK];
    size_t used;          /* bytes in buf */
    uint64_t total;       /* bytes hashed (fits: passwords and salts) */
    const struct hash_alg *alg;
} hash_ctx;

typedef struct hash_alg {
    const char *name;     /* "md5", "sha1", "sha256", ... */
    size_t out_len;       /* digest bytes */
    size_t block_len;     /* 64 or 128 */
    void (*init)(hash_ctx *c);
    void (*compress)(hash_ctx *c, const unsigned char *block);
    void (*final)(hash_ctx *c, unsigned char *out);
} hash_alg;

/* The digest named `name` (case-insensitive; "sha256", "SHA2-256",
 * "sha-256" ...), or NULL. */
const hash_alg *hash_find(const char *name);

/* Comma-separated list of supported names, for messages. */
const char *hash_names(void);

void hash_init(hash_ctx *c, const hash_alg *alg);
void hash_update(hash_ctx *c, const void *data, size_t len);
/* Writes alg->out_len bytes and wipes the context. */
void hash_final(hash_ctx *c, unsigned char *out);
void hash(const hash_alg *alg, unsigned char *out, const void *data,
          size_t len);

/* HMAC(key, msg) (RFC 2104); out gets alg->out_len bytes. */
void hash_hmac(const hash_alg *alg, unsigned char *out,
               const unsigned char *key, size_t key_len,
               const unsigned char *msg, size_t msg_len);

/* PBKDF2-HMAC-alg (RFC 8018, section 5.2): out_len bytes. iter >= 1. */
void hash_pbkdf2(const hash_alg *alg, const unsigned char *pass,
                 size_t pass_len, const unsigned char *salt, size_t salt_len,
                 unsigned long iter, unsigned char *out, size_t out_len);

/*
 * OpenSSL's EVP_BytesToKey with count 1: D_1 = H(pass || salt),
 * D_i = H(D_{i-1} || pass || salt); key || iv is the concatenation of
 * D_1, D_2, ... (salt may be NULL: then it is left out).
 */
void hash_bytes_to_key(const hash_alg *alg, const unsigned char *pass,
                       size_t pass_len, const unsigned char *salt,
                       size_t salt_len, unsigned char *key, size_t key_len,
                       unsigned char *iv, size_t iv_len);

/* Zero memory in a way the compiler keeps. */
void hash_wipe(void *p, size_t n);

#endif /* RIJN_TOOL_HASH_H */

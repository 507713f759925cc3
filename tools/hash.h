/*
 * Hash functions for `rijn enc` password mode: MD5, SHA-1, SHA-224,
 * SHA-256, SHA-384, SHA-512, HMAC over any of them, PBKDF2-HMAC
 * (RFC 8018) and OpenSSL's EVP_BytesToKey (count 1).
 *
 * Written for this project so that the tool needs no libcrypto at run
 * time. Variable-time is fine here: the inputs are a password and a salt
 * that are processed once, not a stream of secret data an attacker can
 * time. Every function is byte-order independent (no type punning).
 * SHA-1 and SHA-256 use the x86 SHA extensions when the CPU has them
 * (hash_x86.c), as OpenSSL does: PBKDF2 with many iterations is bound by
 * the compression function.
 */
#ifndef RIJN_TOOL_HASH_H
#define RIJN_TOOL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_MAX_OUT 64   /* SHA-512 */
#define HASH_MAX_BLOCK 128

/* The chaining value: 32-bit words (MD5, SHA-1, SHA-224/256) or 64-bit
 * words (SHA-384/512). */
typedef union hash_state {
    uint32_t w32[8];
    uint64_t w64[8];
} hash_state;

/* One block_len-byte block into the chaining value. */
typedef void hash_compress_fn(hash_state *h, const unsigned char *block);

typedef struct hash_ctx {
    hash_state h;
    unsigned char buf[HASH_MAX_BLOCK];
    size_t used;          /* bytes in buf */
    uint64_t total;       /* bytes hashed (fits: passwords and salts) */
    const struct hash_alg *alg;
    hash_compress_fn *compress; /* alg's, picked at hash_init */
} hash_ctx;

typedef struct hash_alg {
    const char *name;     /* "md5", "sha1", "sha256", ... */
    size_t out_len;       /* digest bytes */
    size_t block_len;     /* 64 or 128 (64-bit words) */
    int little_endian;    /* MD5: words and length little-endian */
    hash_state iv;
    hash_compress_fn *compress;       /* portable C */
    hash_compress_fn *compress_fast;  /* CPU extension, or NULL */
} hash_alg;

/* Use the CPU's hash instructions where there are some (the default), or
 * only the portable code (on = 0; tests). Returns 1 if they are in use.
 * Call before hashing, not while another thread hashes. */
int hash_set_accel(int on);

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

/* PBKDF2-HMAC-alg (RFC 8018, section 5.2): out_len bytes. iter >= 1.
 * The out_len / alg->out_len blocks are independent; up to `threads`
 * threads compute them side by side (1: this thread only). */
void hash_pbkdf2(const hash_alg *alg, const unsigned char *pass,
                 size_t pass_len, const unsigned char *salt, size_t salt_len,
                 unsigned long iter, unsigned char *out, size_t out_len,
                 int threads);

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

/* SHA-256's round constants (hash.c). */
extern const uint32_t hash_sha256_k[64];

/* hash_x86.c: SHA extensions (SHA-NI), x86-64 with GCC or Clang. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HASH_X86 1
int hash_x86_have_sha(void);
hash_compress_fn hash_x86_sha1, hash_x86_sha256;
#endif

#endif /* RIJN_TOOL_HASH_H */

/*
 * Shared helpers of the provider tests (tests/provider): a library context
 * with OpenSSL's default provider and the rijn.so module loaded from an
 * absolute path, fetching a cipher from one named provider and proving it
 * came from there, the evp_test stanza reader (OpenSSL's test data format:
 * "Key = Value" lines, stanzas ended by a blank line, "#" comments), hex
 * decoding, a seeded PRNG and the OpenSSL error queue.
 *
 * Every program takes the module's path on its command line; none relies
 * on OPENSSL_MODULES or on an installed rijn.so.
 */
#ifndef RIJN_PROVTEST_H
#define RIJN_PROVTEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <openssl/evp.h>
#include <openssl/provider.h>

/* Exit status ctest treats as "skipped" (SKIP_RETURN_CODE 77). */
#define PT_SKIP 77

#if defined(__GNUC__)
#define PT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PT_PRINTF(a, b)
#endif

typedef struct {
    OSSL_LIB_CTX *libctx;
    OSSL_PROVIDER *deflt; /* OpenSSL's "default" */
    OSSL_PROVIDER *rijn;  /* the module, NULL when not loaded */
} pt_env;

/*
 * A fresh library context with "default" loaded and, when `module` is not
 * NULL, the module at that path. 0, or -1 with the reason printed.
 */
int pt_env_open(pt_env *e, const char *module);
/* Unload the providers (the module first) and free the context. */
void pt_env_close(pt_env *e);

/*
 * Fetch cipher `name` with "provider=rijn" (`rijn` != 0) or
 * "provider=default" and check EVP_CIPHER_get0_provider() is that provider
 * object. NULL (reason printed) when it cannot be had from there.
 */
EVP_CIPHER *pt_fetch(pt_env *e, const char *name, int rijn);

/*
 * Decode a hex string (whitespace around it ignored). *out is malloc'd and
 * never NULL (one spare byte), *len its length. 0, or -1 on a bad digit or
 * an odd count.
 */
int pt_unhex(const char *hex, unsigned char **out, size_t *len);

/* One "Key = Value" line of a stanza. */
typedef struct {
    char *key;
    char *value;
    int line;
} pt_field;

#define PT_MAX_FIELDS 256

typedef struct {
    FILE *f;
    const char *path;
    int line;       /* lines read so far */
    int start;      /* first line of the current stanza */
    pt_field fld[PT_MAX_FIELDS];
    int n;
    char *buf;
    size_t cap;
} pt_reader;

int pt_reader_open(pt_reader *r, const char *path);
/* The next stanza: 1, 0 at the end of the file, -1 on a malformed line. */
int pt_reader_next(pt_reader *r);
/* The value of `key` (first occurrence, case-sensitive) or NULL. */
const char *pt_reader_get(const pt_reader *r, const char *key);
void pt_reader_close(pt_reader *r);

/* splitmix64: small, seedable, the same on every host. */
typedef struct {
    uint64_t s;
} pt_rng;

uint64_t pt_rand64(pt_rng *r);
/* Uniform in [0, n) (n > 0). */
uint32_t pt_below(pt_rng *r, uint32_t n);
/* 1 with probability num/den. */
int pt_chance(pt_rng *r, uint32_t num, uint32_t den);
void pt_fill(pt_rng *r, unsigned char *p, size_t n);

/* Print the OpenSSL error queue (each line prefixed), then clear it. */
void pt_print_errors(const char *prefix);

/* 1 when a and b are equal ignoring ASCII case, else 0. */
int pt_strcaseeq(const char *a, const char *b);

#endif /* RIJN_PROVTEST_H */

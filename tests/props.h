/*
 * The CTR/ECB property engine shared by ctr_props (oracle: the `ref`
 * backend's ECB over counter blocks the test computes itself) and
 * diff_openssl (oracle: OpenSSL EVP aes-*-ctr / aes-*-ecb).
 */
#ifndef RIJN_PROPS_H
#define RIJN_PROPS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *name; /* for messages */
    /* out = AES-ECB(key, in), nblocks blocks. 0 on success. */
    int (*ecb)(const uint8_t *key, size_t key_len, uint8_t *out,
               const uint8_t *in, size_t nblocks);
    /* out = in XOR the SP 800-38A CTR keystream from counter block iv
     * (128-bit big-endian counter, wrapping mod 2^128). 0 on success. */
    int (*ctr)(const uint8_t *key, size_t key_len, const uint8_t iv[16],
               uint8_t *out, const uint8_t *in, size_t len);
} props_oracle;

/* Runs every property on the backend named in argv[1] ("--seed N" may
 * follow) and returns the process exit code. */
int props_main(const char *suite, const props_oracle *o, int argc,
               char **argv);

#endif /* RIJN_PROPS_H */

/*
 * crypto_aead_encrypt / crypto_aead_decrypt (SUPERCOP API) for AES-GCM:
 * 12-byte public nonce, no secret nonce, 16-byte tag appended to the
 * ciphertext. The key size comes from crypto_aead_KEYBYTES.
 *
 * Used twice, as stream.c: inside SUPERCOP, copied into
 * crypto_aead/aes{128,256}gcmv1/rijn/ next to api.h, where SUPERCOP's
 * generated crypto_aead.h maps the names; and in librijn_supercop, where
 * aead_aes*gcmv1.c define RIJN_SUPERCOP_NAMES and the names, then include
 * this file.
 */
#include <stddef.h>
#include <stdint.h>

#ifndef RIJN_SUPERCOP_NAMES
#include "crypto_aead.h"
#endif
#include "rijn.h"

int crypto_aead_encrypt(unsigned char *c, unsigned long long *clen,
                        const unsigned char *m, unsigned long long mlen,
                        const unsigned char *ad, unsigned long long adlen,
                        const unsigned char *nsec, const unsigned char *npub,
                        const unsigned char *k)
{
    rijn_gcm_key key;
    int r;

    (void)nsec;
    if (mlen > (unsigned long long)SIZE_MAX - 16 ||
        adlen > (unsigned long long)SIZE_MAX ||
        rijn_gcm_setkey(&key, k, crypto_aead_KEYBYTES) != 0)
        return -1;
    r = rijn_gcm_seal(&key, c, 16, npub, 12, ad, (size_t)adlen, m,
                      (size_t)mlen);
    rijn_gcm_key_wipe(&key);
    if (r == 0)
        *clen = mlen + 16;
    return r;
}

/* Returns -1 (and m all zero) if the tag does not verify. */
int crypto_aead_decrypt(unsigned char *m, unsigned long long *mlen,
                        unsigned char *nsec, const unsigned char *c,
                        unsigned long long clen, const unsigned char *ad,
                        unsigned long long adlen, const unsigned char *npub,
                        const unsigned char *k)
{
    rijn_gcm_key key;
    int r;

    (void)nsec;
    if (clen < 16 || clen > (unsigned long long)SIZE_MAX ||
        adlen > (unsigned long long)SIZE_MAX ||
        rijn_gcm_setkey(&key, k, crypto_aead_KEYBYTES) != 0)
        return -1;
    r = rijn_gcm_open(&key, m, 16, npub, 12, ad, (size_t)adlen, c,
                      (size_t)clen);
    rijn_gcm_key_wipe(&key);
    if (r == 0)
        *mlen = clen - 16;
    return r;
}

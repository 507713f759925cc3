/*
 * crypto_aead_aes256gcmv1: AES-256-GCM under the SUPERCOP names, provided
 * by rijn (library rijn_supercop): 32-byte key, 12-byte public nonce, no
 * secret nonce, 16-byte tag appended to the ciphertext (clen = mlen + 16).
 *
 *   crypto_aead_aes256gcmv1_encrypt(c, &clen, m, mlen, ad, adlen, nsec, npub, k)
 *   crypto_aead_aes256gcmv1_decrypt(m, &mlen, nsec, c, clen, ad, adlen, npub, k)
 *
 * Both return 0, or -1: no key could be set up (RIJN_IMPL names a backend
 * that cannot be used), a length does not fit in size_t, or (decrypt) the
 * tag does not verify, in which case m is all zero.
 */
#ifndef crypto_aead_aes256gcmv1_H
#define crypto_aead_aes256gcmv1_H

#define crypto_aead_aes256gcmv1_KEYBYTES 32
#define crypto_aead_aes256gcmv1_NSECBYTES 0
#define crypto_aead_aes256gcmv1_NPUBBYTES 12
#define crypto_aead_aes256gcmv1_ABYTES 16
#define crypto_aead_aes256gcmv1_IMPLEMENTATION "rijn"
#define crypto_aead_aes256gcmv1_VERSION "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

int crypto_aead_aes256gcmv1_encrypt(unsigned char *c, unsigned long long *clen,
                                  const unsigned char *m,
                                  unsigned long long mlen,
                                  const unsigned char *ad,
                                  unsigned long long adlen,
                                  const unsigned char *nsec,
                                  const unsigned char *npub,
                                  const unsigned char *k);
int crypto_aead_aes256gcmv1_decrypt(unsigned char *m, unsigned long long *mlen,
                                  unsigned char *nsec,
                                  const unsigned char *c,
                                  unsigned long long clen,
                                  const unsigned char *ad,
                                  unsigned long long adlen,
                                  const unsigned char *npub,
                                  const unsigned char *k);

#ifdef __cplusplus
}
#endif

#endif /* crypto_aead_aes256gcmv1_H */

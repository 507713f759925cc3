/* SUPERCOP api.h for crypto_aead_aes256gcmv1, implementation "rijn". */
#define CRYPTO_KEYBYTES 32
#define CRYPTO_NSECBYTES 0
#define CRYPTO_NPUBBYTES 12
#define CRYPTO_ABYTES 16

/* SUPERCOP api.h for crypto_aead_aes128gcmv1, implementation "rijn". */
#define CRYPTO_KEYBYTES 16
#define CRYPTO_NSECBYTES 0
#define CRYPTO_NPUBBYTES 12
#define CRYPTO_ABYTES 16

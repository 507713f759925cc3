/* SUPERCOP api.h for crypto_stream_aes256ctr, implementation "rijn". */
#define CRYPTO_KEYBYTES 32
#define CRYPTO_NONCEBYTES 16

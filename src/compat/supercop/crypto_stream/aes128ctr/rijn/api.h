/* SUPERCOP api.h for crypto_stream_aes128ctr, implementation "rijn". */
#define CRYPTO_KEYBYTES 16
#define CRYPTO_NONCEBYTES 16

/* SUPERCOP api.h for crypto_stream_aes192ctr, implementation "rijn". */
#define CRYPTO_KEYBYTES 24
#define CRYPTO_NONCEBYTES 16

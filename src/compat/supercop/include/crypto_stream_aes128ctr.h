/*
 * crypto_stream_aes128ctr: AES-128 in CTR mode under the NaCl / SUPERCOP
 * names, provided by rijn (library rijn_supercop).
 *
 * The 16-byte nonce n is the first counter block; the whole block is one
 * 128-bit big-endian counter incremented per 16-byte block, carrying across
 * all bytes and wrapping from ff..ff to 00..00 (NIST SP 800-38A; the same
 * output as OpenSSL's AES-128-CTR). The key k is 16 bytes.
 *
 *   crypto_stream_aes128ctr(c, clen, n, k)          c = first clen bytes of
 *                                                    keystream
 *   crypto_stream_aes128ctr_xor(c, m, mlen, n, k)   c = m XOR keystream;
 *                                                    c may equal m exactly
 *
 * Both return 0, or -1 if no key could be set up (RIJN_IMPL names a
 * backend that is unknown or that this CPU cannot run).
 */
#ifndef crypto_stream_aes128ctr_H
#define crypto_stream_aes128ctr_H

#define crypto_stream_aes128ctr_KEYBYTES 16
#define crypto_stream_aes128ctr_NONCEBYTES 16
#define crypto_stream_aes128ctr_IMPLEMENTATION "rijn"
#define crypto_stream_aes128ctr_VERSION "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

int crypto_stream_aes128ctr(unsigned char *c, unsigned long long clen,
                             const unsigned char *n, const unsigned char *k);
int crypto_stream_aes128ctr_xor(unsigned char *c, const unsigned char *m,
                                 unsigned long long mlen,
                                 const unsigned char *n,
                                 const unsigned char *k);

#ifdef __cplusplus
}
#endif

#endif /* crypto_stream_aes128ctr_H */

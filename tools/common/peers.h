/*
 * The comparison libraries of the `rijn` tool (peers.c): OpenSSL's
 * libcrypto and libgcrypt, loaded with dlopen() at run time (never
 * linked), each once for the whole program.
 */
#ifndef RIJN_TOOL_PEERS_H
#define RIJN_TOOL_PEERS_H

#include <stddef.h>

/*
 * A comparison library: OpenSSL's libcrypto (EVP) or libgcrypt, loaded at
 * run time. A session is one AES-CTR or one AES-GCM context with a fixed
 * key.
 */
typedef struct peer peer;
typedef struct peer_session peer_session;

/* Load the peers once; returns NULL if the library is absent. */
const peer *peer_openssl(void);
const peer *peer_gcrypt(void);
/* Why a peer is absent (dlopen message), or NULL if it loaded. */
const char *peer_openssl_error(void);
const char *peer_gcrypt_error(void);

/* Under RIJN_CPU_MASK (x86-64): the peers run without the CPU features
 * rijn's view lacks (peers.c, peer_mask); this says how ("RIJN_CPU_MASK=
 * ...: OPENSSL_ia32cap=..., libgcrypt without ..."). NULL otherwise. Takes
 * effect for a peer loaded after the first call of this or of
 * peer_openssl()/peer_gcrypt(). */
const char *peer_cpu_mask(void);

const char *peer_name(const peer *p);     /* "openssl", "gcrypt" */
const char *peer_version(const peer *p);  /* e.g. "OpenSSL 3.0.19 ..." */
const char *peer_soname(const peer *p);   /* "libcrypto.so.3" */

/*
 * Any other function of a loaded peer's library, for callers with needs
 * beyond AES-CTR (`rijn speed --mac`: EVP_MAC): *fnptr (of `size` bytes, a
 * function pointer of the symbol's type) is set to it. 0, or -1 if the
 * library lacks it. PEER_SYM(p, "name", fn) passes fn's address and size.
 */
int peer_sym(const peer *p, const char *name, void *fnptr, size_t size);
#define PEER_SYM(p, name, var) peer_sym((p), (name), &(var), sizeof(var))

/* A CTR context for key (key_len 16/24/32) and iv; NULL on failure. */
peer_session *peer_open(const peer *p, const unsigned char *key,
                        size_t key_len, const unsigned char iv[16]);
void peer_close(peer_session *s);
/* Replace the key (CTR: the IV is kept). */
void peer_setkey(peer_session *s, const unsigned char *key);
/* Restart the counter at iv (same key). */
void peer_setiv(peer_session *s, const unsigned char iv[16]);
/* out = in XOR the next len bytes of keystream (len <= INT_MAX). */
void peer_xor(peer_session *s, unsigned char *out, const unsigned char *in,
              size_t len);
/* 1 if any call on s has failed since peer_open (a tag that does not
 * verify is a result, not a failure). */
int peer_failed(const peer_session *s);

/*
 * AES-GCM, one message per call with a 12-byte IV, no AAD and a 16-byte
 * tag, the IV set per message as an application does: OpenSSL
 * EVP_CipherInit_ex (IV only), EVP_CipherUpdate, EVP_CipherFinal_ex and
 * EVP_CTRL_GCM_GET_TAG / _SET_TAG; libgcrypt GCRY_CIPHER_MODE_GCM with
 * gcry_cipher_setiv, gcry_cipher_encrypt/_decrypt and gcry_cipher_gettag /
 * _checktag. peer_setkey re-keys a GCM session too.
 */
/* A GCM context for key (key_len 16/24/32); NULL on failure or if the
 * library lacks GCM. */
peer_session *peer_open_gcm(const peer *p, const unsigned char *key,
                            size_t key_len);
/* out = ciphertext of in[0..len) (out may equal in), tag = its tag. */
void peer_gcm_seal(peer_session *s, unsigned char *out, unsigned char tag[16],
                   const unsigned char iv[12], const unsigned char *in,
                   size_t len);
/* out = plaintext of in[0..len); 0 if tag verifies, -1 if not. */
int peer_gcm_open(peer_session *s, unsigned char *out,
                  const unsigned char tag[16], const unsigned char iv[12],
                  const unsigned char *in, size_t len);

#endif /* RIJN_TOOL_PEERS_H */

/*
 * rijn: authenticated file encryption, the format of `rijn seal` / `rijn
 * open` (doc/format.md is the specification).
 *
 * Two layers, both usable on their own:
 *
 * 1. Cobblestone-256: C2SP chunked encryption (c2sp.org/chunked-encryption)
 *    with HKDF-Expand-SHA-512 and AES-256-GCM, as pinned in doc/format.md.
 *    Per message, HKDF-Expand of a 32-byte input key with a random 24-byte
 *    salt and a context gives the AES key, a base nonce and a 32-byte key
 *    commitment; the message is cut into 16 KiB chunks, the last one always
 *    shorter (so that truncation shows), chunk i is encrypted with the base
 *    nonce XOR i; the ciphertext is salt || commitment || the chunks (56
 *    bytes of fixed overhead, 16 per chunk). A chunk is authenticated on its
 *    own, so it can be released as soon as it is checked, and any range of
 *    the message can be read by decrypting only its chunks.
 *
 * 2. The rijn envelope: a short header (magic, version, how the input key
 *    is obtained: a raw 32-byte key file, or a passphrase through Argon2id
 *    with its parameters and salt) in front of a Cobblestone-256 ciphertext
 *    whose context is that header, so the key commitment authenticates every
 *    header byte: a change to any of them fails before any chunk is
 *    decrypted.
 *
 * Every function returns 0 on success or a negative RIJN_SEAL_E* code
 * (rijn_seal_strerror names it). After an error a stream stays failed.
 */
#ifndef RIJN_SEAL_H
#define RIJN_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "rijn.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RIJN_CHUNK 16384            /* plaintext bytes per full chunk */
#define RIJN_CHUNK_TAG 16           /* AES-GCM tag per chunk */
#define RIJN_CHUNK_CT (RIJN_CHUNK + RIJN_CHUNK_TAG)
#define RIJN_CHUNKED_HEADER 56      /* salt (24) || commitment (32) */
#define RIJN_CHUNKED_MAX_CHUNKS (((uint64_t)1) << 38) /* 4 PiB */

enum {
    RIJN_SEAL_OK = 0,
    RIJN_SEAL_EARG = -1,      /* bad argument (key size, lengths, order) */
    RIJN_SEAL_EMAGIC = -2,    /* not a rijn sealed file */
    RIJN_SEAL_EVERSION = -3,  /* a version this library does not read */
    RIJN_SEAL_EHEADER = -4,   /* malformed header */
    RIJN_SEAL_ELIMITS = -5,   /* KDF parameters over the limits */
    RIJN_SEAL_EKEY = -6,      /* commitment mismatch: wrong key/passphrase */
    RIJN_SEAL_ECHUNK = -7,    /* a chunk fails authentication */
    RIJN_SEAL_ETRUNC = -8,    /* the message is cut short */
    RIJN_SEAL_ETRAIL = -9,    /* data after the end of the message */
    RIJN_SEAL_ETOOBIG = -10,  /* more chunks than the format allows */
    RIJN_SEAL_ERANDOM = -11,  /* getrandom() failed */
    RIJN_SEAL_EKDF = -12,     /* Argon2id failed or is not built in */
    RIJN_SEAL_ESINK = -13,    /* the output callback failed */
    RIJN_SEAL_ELAST = -14     /* the last chunk fails authentication: cut
                               * inside a chunk, or modified at the end */
};

/* A short English message for an error code. */
RIJN_API const char *rijn_seal_strerror(int err);

/* ---- Cobblestone-256, chunk by chunk ------------------------------------ */

typedef struct rijn_chunked {
    rijn_gcm_key key;
    unsigned char base_nonce[12];
    unsigned char header[RIJN_CHUNKED_HEADER]; /* salt || commitment */
} rijn_chunked;

/* For encryption: derive from the 32-byte input key, the context and a
 * salt (NULL: 24 random bytes from getrandom). header then holds what must
 * start the ciphertext. */
RIJN_API int rijn_chunked_init_seal(rijn_chunked *c,
                                    const unsigned char key[32],
                                    const unsigned char *context,
                                    size_t context_len,
                                    const unsigned char salt[24]);

/* For decryption: derive from the key, the context and the salt of
 * header[0..56), and check the commitment (constant time): RIJN_SEAL_EKEY
 * if it differs (a wrong key or context, or a modified salt/commitment). */
RIJN_API int rijn_chunked_init_open(rijn_chunked *c,
                                    const unsigned char key[32],
                                    const unsigned char *context,
                                    size_t context_len,
                                    const unsigned char header[56]);

/* Chunk `index`: a non-final chunk has exactly RIJN_CHUNK bytes of
 * plaintext, the final one fewer (0 included). out gets len + 16 bytes
 * (seal) or in_len - 16 (open; RIJN_SEAL_ECHUNK if it does not
 * authenticate; on that and every other failure, out is all zero when
 * in_len >= 16). Thread-safe: c is only read. out may equal in.
 * open reads each byte of in once (the decrypt rule of rijn_gcm.h): if
 * another thread or process changes in meanwhile (a MAP_SHARED mapping of
 * the file), the chunk may fail to authenticate, but what out receives
 * with RIJN_SEAL_OK is the decryption of the chunk that authenticated.
 * The streaming reader copies its input into the stream first. */
RIJN_API int rijn_chunked_seal_chunk(const rijn_chunked *c, uint64_t index,
                                     int final, unsigned char *out,
                                     const unsigned char *in, size_t len);
RIJN_API int rijn_chunked_open_chunk(const rijn_chunked *c, uint64_t index,
                                     int final, unsigned char *out,
                                     const unsigned char *in, size_t in_len);

/* After chunk `index` (ciphertext in[0..in_len), opened as the final one
 * or not) failed to open: say why. RIJN_SEAL_ETRAIL if a prefix of it is
 * a valid final chunk (the message ended there and bytes were appended);
 * else RIJN_SEAL_ELAST for a final chunk (the file was cut inside a
 * chunk, or its end modified: the two look the same), RIJN_SEAL_ECHUNK
 * for another. One pass over in (every prefix length is tried); for error
 * paths. */
RIJN_API int rijn_chunked_diagnose(const rijn_chunked *c, uint64_t index,
                                   int final, const unsigned char *in,
                                   size_t in_len);

RIJN_API void rijn_chunked_wipe(rijn_chunked *c);

/* The ciphertext length of an n-byte message, and the number of chunks of
 * a ciphertext of ct_len bytes (-1 if no message has that length). */
RIJN_API uint64_t rijn_chunked_ct_len(uint64_t n);
RIJN_API int64_t rijn_chunked_msg_len(uint64_t ct_len);

/* ---- Cobblestone-256, streaming ----------------------------------------- */

/* Where a stream's output goes: return 0, or non-zero to fail the stream
 * (RIJN_SEAL_ESINK). */
typedef int (*rijn_sink)(void *arg, const unsigned char *p, size_t n);

typedef struct rijn_chunked_stream {
    rijn_chunked c;
    rijn_sink sink;
    void *arg;
    uint64_t index;                   /* next chunk */
    size_t used;                      /* bytes in buf */
    int state;                        /* internal; < 0: the error */
    unsigned char buf[RIJN_CHUNK_CT]; /* a chunk being filled */
    unsigned char out[RIJN_CHUNK_CT];
    unsigned char context[512];       /* reader: kept until the header */
    size_t context_len;
    unsigned char input_key[32];
} rijn_chunked_stream;

/* Writer: init emits the 56-byte header; write cuts the input into chunks
 * and emits each full one; finish emits the final short chunk (always). */
RIJN_API int rijn_chunked_writer_init(rijn_chunked_stream *s,
                                      const unsigned char key[32],
                                      const unsigned char *context,
                                      size_t context_len,
                                      const unsigned char salt[24],
                                      rijn_sink sink, void *arg);
RIJN_API int rijn_chunked_writer_write(rijn_chunked_stream *s,
                                       const unsigned char *in, size_t len);
RIJN_API int rijn_chunked_writer_finish(rijn_chunked_stream *s);

/*
 * Reader: feed the ciphertext in pieces of any size; a chunk's plaintext
 * goes to the sink only once that chunk authenticates. finish checks the
 * end: RIJN_SEAL_ETRUNC if the message was cut (the ciphertext ended after
 * a full chunk, or inside a tag), RIJN_SEAL_ETRAIL if data follows the
 * final chunk. So a sink may already have received a prefix of the message
 * when an error comes: only a 0 from finish says it was the whole message.
 * context_len <= 512.
 */
RIJN_API int rijn_chunked_reader_init(rijn_chunked_stream *s,
                                      const unsigned char key[32],
                                      const unsigned char *context,
                                      size_t context_len, rijn_sink sink,
                                      void *arg);
RIJN_API int rijn_chunked_reader_write(rijn_chunked_stream *s,
                                       const unsigned char *in, size_t len);
RIJN_API int rijn_chunked_reader_finish(rijn_chunked_stream *s);

/* Wipe a stream (both directions); finish does it too. */
RIJN_API void rijn_chunked_stream_wipe(rijn_chunked_stream *s);

/* ---- The rijn envelope --------------------------------------------------- */

#define RIJN_SEAL_VERSION 1
#define RIJN_SEAL_HEADER_MAX 64
enum { RIJN_SEAL_KEYFILE = 1, RIJN_SEAL_PASSPHRASE = 2 };

/* Argon2id defaults (about 0.4 s and 256 MiB on a 2-core 2020s CPU) and
 * the limits a header may ask of `open` (doc/format.md explains both). */
#define RIJN_SEAL_ARGON2_T 3
#define RIJN_SEAL_ARGON2_M 262144u   /* KiB = 256 MiB */
#define RIJN_SEAL_ARGON2_P 4
#define RIJN_SEAL_ARGON2_MAX_T 10
#define RIJN_SEAL_ARGON2_MAX_M 1048576u /* KiB = 1 GiB */
#define RIJN_SEAL_ARGON2_MAX_P 16

typedef struct rijn_seal_params {
    int mode;                   /* RIJN_SEAL_KEYFILE or _PASSPHRASE */
    uint32_t t_cost, m_cost;    /* Argon2id passes; memory in KiB */
    uint32_t parallelism;       /* Argon2id lanes */
    unsigned char salt[16];     /* Argon2id salt */
} rijn_seal_params;

/* Write the header for p (fill the Argon2id salt with getrandom first, or
 * pass salt_random = 1); returns its length (> 0) or an error. */
RIJN_API int rijn_seal_header_write(unsigned char out[RIJN_SEAL_HEADER_MAX],
                                    rijn_seal_params *p, int salt_random);

/* Parse a header from the start of in[0..len): its length (> 0), or
 * RIJN_SEAL_EMAGIC, _EVERSION, _EHEADER, _ELIMITS, or _ETRUNC if len is
 * too short. */
RIJN_API int rijn_seal_header_read(const unsigned char *in, size_t len,
                                   rijn_seal_params *p);

/* The 32-byte input key of a passphrase header: Argon2id(passphrase,
 * salt, t, m, p) with libargon2 (RIJN_SEAL_EKDF if the library was built
 * without it or it fails). */
RIJN_API int rijn_seal_passphrase_key(unsigned char key[32],
                                      const rijn_seal_params *p,
                                      const unsigned char *pass,
                                      size_t pass_len);

/* 1 if this library can derive passphrase keys (built with libargon2). */
RIJN_API int rijn_seal_have_argon2(void);

#ifdef __cplusplus
}
#endif

#endif /* RIJN_SEAL_H */

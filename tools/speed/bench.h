/*
 * Internals of `rijn speed` shared by speed.c (options, interleaving,
 * report) and bench.c (sessions, measures, timing).
 */
#ifndef RIJN_BENCH_H
#define RIJN_BENCH_H

#include <stddef.h>

#include "common/clock.h"
#include "common/peers.h"
#include "rijn.h"
#include "tool.h"

/* ---- engines: rijn and the comparison libraries ----------------------- */

enum { ENG_RIJN, ENG_OPENSSL, ENG_GCRYPT, ENG_N };
extern const char *const eng_names[ENG_N]; /* "rijn", "openssl", "gcrypt" */

/* The loaded peer for an engine, or NULL (always NULL for ENG_RIJN). */
const peer *engine_peer(int eng);

/* The modes measured: AES-CTR, or AES-GCM with a 12-byte IV per message
 * (its first 12 bytes of the 16 given below), no AAD, a 16-byte tag. */
enum bmode { MODE_CTR, MODE_GCM };
extern const char *const mode_names[2]; /* "CTR", "GCM" */

/* What one row measures besides the library and the measure: the mode,
 * rijn's AES backend and GHASH engine, the key length. The peers use the
 * mode and key length only. */
typedef struct variant {
    enum bmode mode;
    const char *impl;   /* AES backend */
    const char *ghash;  /* GCM: GHASH engine; NULL: the one a key picks */
    size_t key_len;
} variant;

/* One AES-CTR or AES-GCM context of one engine with a fixed key. */
typedef struct session {
    rijn_aes_key key;         /* rijn CTR: one-shot */
    rijn_aes_ctr_ctx ctx;     /* rijn CTR: streaming and packets */
    rijn_gcm_key gkey;        /* rijn GCM */
    variant v;
    int eng;
    int failed;               /* a rijn call failed */
    unsigned char tag[16];    /* GCM: the tag of the last message */
    peer_session *ps;         /* peers */
} session;

/* NULL if the engine cannot set the key up (iv: CTR only). */
session *sess_open(int eng, const variant *v, const unsigned char *key,
                   const unsigned char *iv);
void sess_close(session *s);
/* One message with the fixed key and this IV: CTR rijn_aes_ctr_key; GCM
 * encryption and its tag (s->tag). */
void sess_oneshot(session *s, unsigned char *out, const unsigned char *in,
                  size_t len, const unsigned char iv[16]);
/* IV setup, then one packet: CTR on the streaming context; GCM as
 * sess_oneshot (its IV is set per message anyway). */
void sess_packet(session *s, unsigned char *out, const unsigned char *in,
                 size_t len, const unsigned char iv[16]);
/* GCM: decryption of one message with its tag; 0 if the tag verifies. */
int sess_decrypt(session *s, unsigned char *out, const unsigned char *in,
                 size_t len, const unsigned char iv[16],
                 const unsigned char tag[16]);
/* CTR: the next len bytes of a continuing stream. GCM: the message of
 * sess_oneshot, rijn's through the streaming calls (start, update,
 * finish); a peer's as in sess_oneshot (EVP is that sequence already). */
void sess_stream(session *s, unsigned char *out, const unsigned char *in,
                 size_t len, const unsigned char iv[16]);
/* rijn only: the message of sess_oneshot through the streaming API, in
 * uneven pieces (GCM: tag in s->tag); -1 if a call fails. */
int sess_pieces(session *s, unsigned char *out, const unsigned char *in,
                size_t len, const unsigned char iv[16]);
void sess_setkey(session *s, const unsigned char *key);
/* CTR only. */
void sess_setiv(session *s, const unsigned char iv[16]);
/* 1 if a call failed since sess_open. */
int sess_failed(const session *s);

/* ---- measures ---------------------------------------------------------- */

enum mkind { M_ONESHOT, M_STREAM, M_PACKET, M_IMIX, M_AGILITY, M_KEYSETUP,
             M_IVSETUP, M_OPEN };

typedef struct measure {
    enum bmode mode;    /* the rows of `rijn speed` (CTR) or --gcm */
    const char *id;     /* JSON name */
    const char *label;  /* table label */
    enum mkind kind;    /* M_OPEN: GCM decryption with the tag check */
    size_t len;         /* message length; LONG_LEN = the long buffer */
} measure;

#define LONG_LEN 0
#define AGILITY_CTX 16
#define AGILITY_CHUNK 256
#define OPEN_IVS 4      /* M_OPEN: messages (IV, tag) in turn */
#define N_MEASURES 32

extern const measure measures[N_MEASURES];
extern const unsigned char bench_key[32];
extern const unsigned char bench_iv[16];

/* 1 for the rows of the cycles/byte-against-length curve (--plot): the
 * one-shot messages (CTR), the messages with their own IV (GCM). */
int measure_on_curve(const measure *m);

/* One engine set up for one measure. */
typedef struct cell {
    const measure *m;
    session *s[AGILITY_CTX];
    int ns;
    unsigned char *in, *out;
    size_t len;         /* bytes per message (M_ONESHOT/STREAM/PACKET) */
    unsigned char iv[16];
    /* Distinct nonces for packet measures, made before timing: writing a
     * byte of an IV right before it is read as 16 bytes would time a
     * store-forwarding stall, not the library. */
    unsigned char ivs[256][16];
    unsigned char tags[OPEN_IVS][16]; /* M_OPEN: in's tag under ivs[j] */
    unsigned char keys[2][32];
    size_t counter;
} cell;

/* in/out must hold max(long_len, AGILITY_CTX * AGILITY_CHUNK) bytes; out
 * may equal in but for M_OPEN. v->mode must be m->mode. */
int cell_open(cell *c, const measure *m, int eng, const variant *v,
              unsigned char *in, unsigned char *out, size_t long_len);
/* -1 if an engine call failed during the cell's life. */
int cell_close(cell *c);
/* Bytes one iteration processes; 0 for per-operation measures. */
double bytes_per_iter(const cell *c);
void run_iters(cell *c, size_t iters);
/* Seconds (benchmark clock) for iters iterations. */
double time_iters(cell *c, size_t iters);
/* Iterations for one repetition of about target seconds (also warms up). */
size_t calibrate(cell *c, double target);

/* ---- helpers ----------------------------------------------------------- */

/* 64-byte aligned allocation; exits with a message when out of memory. */
void *alloc64(size_t n);
/* Sorts v and returns its median. */
double median(double *v, int n);
/* Aggregate bytes/second of n threads, each with its own session and
 * len-byte buffer, for about seconds (wall time): CTR a continuing stream,
 * GCM len-byte messages in place, each with its IV. Each thread's rate is
 * timed on the benchmark clock (with --cpu-time its own CPU time, which
 * leaves out the time it waits for a core). 0 on failure. */
double run_threads(int eng, const variant *v, int n, size_t len,
                   double seconds);

#endif /* RIJN_BENCH_H */

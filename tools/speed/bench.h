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

/* One AES-CTR context of one engine with a fixed key. */
typedef struct session {
    rijn_aes_key key;         /* rijn: one-shot */
    rijn_aes_ctr_ctx ctx;     /* rijn: streaming and packets */
    int eng;
    const char *impl;         /* rijn backend name */
    size_t key_len;
    peer_session *ps;         /* peers */
} session;

/* NULL if the engine cannot set the key up. */
session *sess_open(int eng, const char *impl, size_t key_len,
                   const unsigned char *key, const unsigned char *iv);
void sess_close(session *s);
/* One message with the fixed key and this IV (rijn_aes_ctr_key). */
void sess_oneshot(session *s, unsigned char *out, const unsigned char *in,
                  size_t len, const unsigned char iv[16]);
/* IV setup on the streaming context, then one packet. */
void sess_packet(session *s, unsigned char *out, const unsigned char *in,
                 size_t len, const unsigned char iv[16]);
/* The next len bytes of a continuing stream. */
void sess_stream(session *s, unsigned char *out, const unsigned char *in,
                 size_t len);
void sess_setkey(session *s, const unsigned char *key);
void sess_setiv(session *s, const unsigned char iv[16]);
/* 1 if a peer call failed since sess_open. */
int sess_failed(const session *s);

/* ---- measures ---------------------------------------------------------- */

enum mkind { M_ONESHOT, M_STREAM, M_PACKET, M_IMIX, M_AGILITY, M_KEYSETUP,
             M_IVSETUP };

typedef struct measure {
    const char *id;     /* JSON name */
    const char *label;  /* table label */
    enum mkind kind;
    size_t len;         /* message length; LONG_LEN = the long buffer */
} measure;

#define LONG_LEN 0
#define AGILITY_CTX 16
#define AGILITY_CHUNK 256
#define N_MEASURES 16

extern const measure measures[N_MEASURES];
extern const unsigned char bench_key[32];
extern const unsigned char bench_iv[16];

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
    unsigned char keys[2][32];
    size_t counter;
} cell;

/* in/out must hold max(long_len, AGILITY_CTX * AGILITY_CHUNK) bytes. */
int cell_open(cell *c, const measure *m, int eng, const char *impl,
              size_t key_len, unsigned char *in, unsigned char *out,
              size_t long_len);
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
 * len-byte buffer, running a continuing stream for about seconds (wall
 * time); 0 on failure. */
double run_threads(int eng, const char *impl, size_t key_len, int n,
                   size_t len, double seconds);

#endif /* RIJN_BENCH_H */

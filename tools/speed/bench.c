/*
 * The measuring half of `rijn speed` (bench.c): rijn and the peers behind
 * one session interface, the measures, and the timing of one library on
 * one measure ("cell"). speed.c holds the options, interleaving, report.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

_Static_assert(sizeof measures / sizeof measures[0] == N_MEASURES,
               "N_MEASURES");

/* ------------------------------------------------------------------------
 * Engines: rijn and the peers behind one small interface
 * --------------------------------------------------------------------- */

const char *const eng_names[ENG_N] = {"rijn", "openssl", "gcrypt"};
const char *const mode_names[2] = {"CTR", "GCM"};

const peer *engine_peer(int eng)
{
    return eng == ENG_OPENSSL ? peer_openssl()
           : eng == ENG_GCRYPT ? peer_gcrypt() : NULL;
}

void *alloc64(size_t n)
{
    void *p = aligned_alloc(64, (n + 63) / 64 * 64);
    if (p == NULL) {
        tool_err("speed: out of memory");
        exit(1);
    }
    return p;
}

session *sess_open(int eng, const variant *v, const unsigned char *key,
                   const unsigned char *iv)
{
    session *s = alloc64(sizeof *s);
    int gcm = v->mode == MODE_GCM;

    memset(s, 0, sizeof *s);
    s->eng = eng;
    s->v = *v;
    if (eng == ENG_RIJN) {
        if (gcm ? rijn_gcm_setkey_impl(&s->gkey, key, v->key_len, v->impl,
                                       v->ghash) != 0
                : rijn_aes_setkey_impl(&s->key, key, v->key_len,
                                       v->impl) != 0 ||
                      rijn_aes_ctr_init_impl(&s->ctx, key, v->key_len, iv,
                                             v->impl) != 0)
            goto fail;
    } else {
        s->ps = gcm ? peer_open_gcm(engine_peer(eng), key, v->key_len)
                    : peer_open(engine_peer(eng), key, v->key_len, iv);
        if (s->ps == NULL)
            goto fail;
    }
    return s;
fail:
    free(s);
    return NULL;
}

void sess_close(session *s)
{
    if (s == NULL)
        return;
    if (s->ps != NULL)
        peer_close(s->ps);
    rijn_aes_key_wipe(&s->key);
    rijn_aes_ctr_wipe(&s->ctx);
    rijn_gcm_key_wipe(&s->gkey);
    free(s);
}

/* One message with the fixed key and a given IV. */
void sess_oneshot(session *s, unsigned char *out,
                  const unsigned char *in, size_t len,
                  const unsigned char iv[16])
{
    if (s->v.mode == MODE_GCM) {
        if (s->eng != ENG_RIJN)
            peer_gcm_seal(s->ps, out, s->tag, iv, in, len);
        else if (rijn_gcm_encrypt(&s->gkey, out, s->tag, 16, iv, 12, NULL,
                                  0, in, len) != 0)
            s->failed = 1;
    } else if (s->eng == ENG_RIJN) {
        rijn_aes_ctr_key(&s->key, out, in, len, iv);
    } else {
        peer_setiv(s->ps, iv);
        peer_xor(s->ps, out, in, len);
    }
}

/* GCM: one message with its tag; 0 if the tag verifies. */
int sess_decrypt(session *s, unsigned char *out, const unsigned char *in,
                 size_t len, const unsigned char iv[16],
                 const unsigned char tag[16])
{
    if (s->eng != ENG_RIJN)
        return peer_gcm_open(s->ps, out, tag, iv, in, len);
    return rijn_gcm_decrypt(&s->gkey, out, tag, 16, iv, 12, NULL, 0, in, len);
}

/* IV setup on the streaming context, then one packet. */
void sess_packet(session *s, unsigned char *out,
                 const unsigned char *in, size_t len,
                 const unsigned char iv[16])
{
    if (s->v.mode == MODE_GCM) {
        sess_oneshot(s, out, in, len, iv);
    } else if (s->eng == ENG_RIJN) {
        rijn_aes_ctr_setiv(&s->ctx, iv);
        rijn_aes_ctr_xor(&s->ctx, out, in, len);
    } else {
        peer_setiv(s->ps, iv);
        peer_xor(s->ps, out, in, len);
    }
}

/* CTR: the next len bytes of a continuing stream; GCM: one message
 * through the streaming calls. */
void sess_stream(session *s, unsigned char *out,
                 const unsigned char *in, size_t len,
                 const unsigned char iv[16])
{
    if (s->v.mode == MODE_GCM && s->eng == ENG_RIJN) {
        rijn_gcm_ctx c;
        if (rijn_gcm_start(&c, &s->gkey, iv, 12) != 0 ||
            rijn_gcm_encrypt_update(&c, out, in, len) != 0 ||
            rijn_gcm_finish(&c, s->tag, 16) != 0)
            s->failed = 1;
    } else if (s->v.mode == MODE_GCM) {
        sess_oneshot(s, out, in, len, iv);
    } else if (s->eng == ENG_RIJN) {
        rijn_aes_ctr_xor(&s->ctx, out, in, len);
    } else {
        peer_xor(s->ps, out, in, len);
    }
}

/* The message under iv through the streaming API, in pieces of 1, 4, 13,
 * 40, ... bytes (rijn only). */
int sess_pieces(session *s, unsigned char *out, const unsigned char *in,
                size_t len, const unsigned char iv[16])
{
    rijn_gcm_ctx c;
    int gcm = s->v.mode == MODE_GCM, rc = 0;

    if (gcm)
        rc = rijn_gcm_start(&c, &s->gkey, iv, 12);
    else
        rijn_aes_ctr_setiv(&s->ctx, iv);
    for (size_t off = 0, step = 1; off < len; step = step * 3 + 1) {
        size_t n = len - off < step ? len - off : step;
        if (gcm)
            rc |= rijn_gcm_encrypt_update(&c, out + off, in + off, n);
        else
            rijn_aes_ctr_xor(&s->ctx, out + off, in + off, n);
        off += n;
    }
    if (gcm)
        rc |= rijn_gcm_finish(&c, s->tag, 16);
    return rc != 0 ? -1 : 0;
}

void sess_setkey(session *s, const unsigned char *key)
{
    if (s->eng != ENG_RIJN)
        peer_setkey(s->ps, key);
    else if (s->v.mode == MODE_GCM
                 ? rijn_gcm_setkey_impl(&s->gkey, key, s->v.key_len,
                                        s->v.impl, s->v.ghash) != 0
                 : rijn_aes_setkey_impl(&s->key, key, s->v.key_len,
                                        s->v.impl) != 0)
        abort(); /* validated at sess_open */
}

void sess_setiv(session *s, const unsigned char iv[16])
{
    if (s->eng == ENG_RIJN)
        rijn_aes_ctr_setiv(&s->ctx, iv);
    else
        peer_setiv(s->ps, iv);
}

int sess_failed(const session *s)
{
    return s->failed || (s->ps != NULL && peer_failed(s->ps));
}

/* ------------------------------------------------------------------------
 * Measures
 * --------------------------------------------------------------------- */

/* A GCM message of n bytes, encrypted with its own IV and tag. */
#define GCM_MSG(n, label) {MODE_GCM, "msg" #n, label, M_PACKET, n}

const measure measures[N_MEASURES] = {
    /* AES-CTR (`rijn speed`) */
    {MODE_CTR, "msg16", "16 B", M_ONESHOT, 16},
    {MODE_CTR, "msg40", "40 B", M_ONESHOT, 40},
    {MODE_CTR, "msg64", "64 B", M_ONESHOT, 64},
    {MODE_CTR, "msg576", "576 B", M_ONESHOT, 576},
    {MODE_CTR, "msg1500", "1500 B", M_ONESHOT, 1500},
    {MODE_CTR, "msg8192", "8192 B", M_ONESHOT, 8192},
    {MODE_CTR, "msg16384", "16384 B", M_ONESHOT, 16384},
    {MODE_CTR, "long", "long", M_ONESHOT, LONG_LEN},
    {MODE_CTR, "estream_stream", "eS stream", M_STREAM, LONG_LEN},
    {MODE_CTR, "estream_pkt40", "eS 40 B+IV", M_PACKET, 40},
    {MODE_CTR, "estream_pkt576", "eS 576 B+IV", M_PACKET, 576},
    {MODE_CTR, "estream_pkt1500", "eS 1500 B+IV", M_PACKET, 1500},
    {MODE_CTR, "estream_imix", "eS Imix", M_IMIX, 0},
    {MODE_CTR, "estream_agility", "eS agility", M_AGILITY, AGILITY_CHUNK},
    {MODE_CTR, "keysetup", "key setup [cyc]", M_KEYSETUP, 0},
    {MODE_CTR, "ivsetup", "IV setup [cyc]", M_IVSETUP, 0},
    /* AES-GCM (`rijn speed --gcm`): every message with its own
     * IV set, encrypted with its tag (or decrypted and checked: open) */
    GCM_MSG(16, "16 B"),    GCM_MSG(64, "64 B"),     GCM_MSG(256, "256 B"),
    GCM_MSG(576, "576 B"),  GCM_MSG(1420, "1420 B"), GCM_MSG(1500, "1500 B"),
    GCM_MSG(4096, "4 KiB"), GCM_MSG(8192, "8 KiB"),  GCM_MSG(16384, "16 KiB"),
    {MODE_GCM, "long", "long", M_PACKET, LONG_LEN},
    {MODE_GCM, "imix", "Imix", M_IMIX, 0},
    {MODE_GCM, "open1420", "1420 B open", M_OPEN, 1420},
    {MODE_GCM, "open_long", "long open", M_OPEN, LONG_LEN},
    {MODE_GCM, "stream16", "16 B stream", M_STREAM, 16},
    {MODE_GCM, "stream1420", "1420 B stream", M_STREAM, 1420},
    {MODE_GCM, "keysetup", "key setup [cyc]", M_KEYSETUP, 0},
};

int measure_on_curve(const measure *m)
{
    return m->kind == (m->mode == MODE_GCM ? M_PACKET : M_ONESHOT);
}

/* eSTREAM Imix: 7 x 40, 4 x 576, 1 x 1500 bytes, interleaved. */
static const size_t imix[12] = {40, 576, 40, 40, 1500, 40,
                                576, 40, 40, 576, 40, 576};
#define IMIX_BYTES (7 * 40 + 4 * 576 + 1500)

const unsigned char bench_key[32] = {
    0x60, 0x3d, 0xeb, 0x10, 0x15, 0xca, 0x71, 0xbe, 0x2b, 0x73, 0xae,
    0xf0, 0x85, 0x7d, 0x77, 0x81, 0x1f, 0x35, 0x2c, 0x07, 0x3b, 0x61,
    0x08, 0xd7, 0x2d, 0x98, 0x10, 0xa3, 0x09, 0x14, 0xdf, 0xf4};
const unsigned char bench_iv[16] = {
    0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,
    0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff};


double bytes_per_iter(const cell *c)
{
    switch (c->m->kind) {
    case M_ONESHOT:
    case M_STREAM:
    case M_PACKET:
    case M_OPEN:
        return (double)c->len;
    case M_IMIX:
        return IMIX_BYTES;
    case M_AGILITY:
        return AGILITY_CTX * AGILITY_CHUNK;
    default:
        return 0; /* per operation */
    }
}

void run_iters(cell *c, size_t iters)
{
    session *s = c->s[0];

    switch (c->m->kind) {
    case M_ONESHOT:
        for (size_t i = 0; i < iters; i++)
            sess_oneshot(s, c->out, c->in, c->len, c->iv);
        break;
    case M_STREAM:
        for (size_t i = 0; i < iters; i++)
            sess_stream(s, c->out, c->in, c->len, c->iv);
        break;
    case M_PACKET:
        for (size_t i = 0; i < iters; i++) /* a new nonce each */
            sess_packet(s, c->out, c->in, c->len, c->ivs[c->counter++ & 255]);
        break;
    case M_IMIX:
        for (size_t i = 0; i < iters; i++) {
            for (size_t j = 0; j < 12; j++)
                sess_packet(s, c->out, c->in, imix[j],
                            c->ivs[c->counter++ & 255]);
        }
        break;
    case M_AGILITY:
        for (size_t i = 0; i < iters; i++)
            for (int j = 0; j < c->ns; j++)
                sess_stream(c->s[j], c->out + (size_t)j * AGILITY_CHUNK,
                            c->in + (size_t)j * AGILITY_CHUNK, AGILITY_CHUNK,
                            c->iv);
        break;
    case M_KEYSETUP:
        for (size_t i = 0; i < iters; i++)
            sess_setkey(s, c->keys[i & 1]);
        break;
    case M_IVSETUP:
        for (size_t i = 0; i < iters; i++)
            sess_setiv(s, c->ivs[i & 255]);
        break;
    case M_OPEN: {
        int bad = 0;
        for (size_t i = 0; i < iters; i++) {
            size_t j = c->counter++ % OPEN_IVS;
            bad |= sess_decrypt(s, c->out, c->in, c->len, c->ivs[j],
                                c->tags[j]);
        }
        if (bad)
            s->failed = 1; /* a tag did not verify */
        break;
    }
    }
}

int cell_open(cell *c, const measure *m, int eng, const variant *v,
              unsigned char *in, unsigned char *out, size_t long_len)
{
    memset(c, 0, sizeof *c);
    c->m = m;
    c->in = in;
    c->out = out;
    c->len = m->len == LONG_LEN ? long_len : m->len;
    memcpy(c->iv, bench_iv, 16);
    for (int j = 0; j < 256; j++) {
        memcpy(c->ivs[j], bench_iv, 16);
        c->ivs[j][0] = (unsigned char)j;
    }
    memcpy(c->keys[0], bench_key, 32);
    memcpy(c->keys[1], bench_key, 32);
    c->keys[1][0] ^= 0x5a;
    c->ns = m->kind == M_AGILITY ? AGILITY_CTX : 1;
    for (int j = 0; j < c->ns; j++) {
        unsigned char key[32], iv[16];
        memcpy(key, bench_key, 32);
        memcpy(iv, bench_iv, 16);
        key[31] ^= (unsigned char)j;
        iv[0] ^= (unsigned char)j;
        c->s[j] = sess_open(eng, v, key, iv);
        if (c->s[j] == NULL)
            return -1;
    }
    /* M_OPEN: in is the ciphertext of some plaintext under each ivs[j]:
     * encrypting in gives that plaintext, encrypting it gives in back,
     * and the tag the decryption must verify. */
    for (int j = 0; m->kind == M_OPEN && j < OPEN_IVS; j++) {
        sess_oneshot(c->s[0], out, in, c->len, c->ivs[j]);
        sess_oneshot(c->s[0], out, out, c->len, c->ivs[j]);
        memcpy(c->tags[j], c->s[0]->tag, 16);
    }
    return 0;
}

int cell_close(cell *c)
{
    int failed = 0;
    for (int j = 0; j < c->ns; j++) {
        if (c->s[j] != NULL && sess_failed(c->s[j]))
            failed = 1;
        sess_close(c->s[j]);
        c->s[j] = NULL;
    }
    return failed ? -1 : 0;
}

double time_iters(cell *c, size_t iters)
{
    double t0 = clock_now();
    run_iters(c, iters);
    return clock_now() - t0;
}

/* Iterations for one repetition of about `target` seconds (also warms up). */
size_t calibrate(cell *c, double target)
{
    size_t n = 1;
    for (;;) {
        double t = time_iters(c, n);
        if (t >= target / 8 || n >= ((size_t)1 << 30)) {
            double want = t > 0 ? (double)n * target / t : (double)n;
            if (want < 1)
                want = 1;
            if (want > 1e9)
                want = 1e9;
            return (size_t)want;
        }
        n *= 2;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ------------------------------------------------------------------------
 * Threads: aggregate throughput of N threads on their own buffers
 * --------------------------------------------------------------------- */

typedef struct thread_job {
    cell c; /* zero (nothing to close) until cell_open */
    unsigned char *buf;
    atomic_int *stop;
    double bytes, secs;
} thread_job;

static void *thread_main(void *arg)
{
    thread_job *j = arg;
    double per_iter = bytes_per_iter(&j->c);
    double t0 = clock_now(); /* this thread's CPU time with --cpu-time */
    while (!atomic_load_explicit(j->stop, memory_order_relaxed)) {
        run_iters(&j->c, 1);
        j->bytes += per_iter;
    }
    j->secs = clock_now() - t0;
    return NULL;
}

/* Aggregate bytes/second of n threads running for about `seconds`. */
double run_threads(int eng, const variant *v, int n, size_t len,
                   double seconds)
{
    /* CTR: a continuing stream; GCM: long messages, each with its IV */
    const measure *m = NULL;
    thread_job *jobs = calloc((size_t)n, sizeof *jobs);
    pthread_t *tids = calloc((size_t)n, sizeof *tids);
    atomic_int stop;
    double total = 0;
    int started = 0;

    if (jobs == NULL || tids == NULL) {
        free(jobs);
        free(tids);
        return 0;
    }
    for (size_t k = 0; k < N_MEASURES && m == NULL; k++)
        if (measures[k].mode == v->mode && measures[k].len == LONG_LEN &&
            measures[k].kind == (v->mode == MODE_GCM ? M_PACKET : M_STREAM))
            m = &measures[k];
    atomic_init(&stop, 0);
    for (int i = 0; i < n; i++) {
        jobs[i].buf = alloc64(len);
        memset(jobs[i].buf, i, len);
        jobs[i].stop = &stop;
        if (cell_open(&jobs[i].c, m, eng, v, jobs[i].buf, jobs[i].buf,
                      len) != 0)
            goto out;
    }
    for (; started < n; started++)
        if (pthread_create(&tids[started], NULL, thread_main,
                           &jobs[started]) != 0)
            break;
    if (started == n) {
        struct timespec ts;
        ts.tv_sec = (time_t)seconds;
        ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
    if (started == n)
        for (int i = 0; i < n; i++)
            if (jobs[i].secs > 0)
                total += jobs[i].bytes / jobs[i].secs;
out:
    for (int i = 0; i < n; i++) {
        if (cell_close(&jobs[i].c) != 0)
            total = 0;
        free(jobs[i].buf);
    }
    free(jobs);
    free(tids);
    return total;
}

/*
 * `rijn enc` stream engine, for what the other two do not take: any input
 * that is not a regular file, and a regular one of 1 MiB or more through
 * base64 or to another output than our temporary file. The main thread
 * reads (and decodes base64) into a ring of 1 MiB slots and a writer
 * thread writes them in order (and encodes base64), so reading and
 * writing overlap. The reading thread encrypts too while that is cheap
 * next to reading (AES instructions); with a slow backend, worker threads
 * take over (see stream_engine). Pipes are enlarged to 1 MiB
 * (F_SETPIPE_SZ) to cut system calls.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "common/clock.h"
#include "engine.h"
#include "tool.h"

enum { S_FREE, S_FILLED, S_DONE };

struct slot {
    unsigned char *buf;
    size_t len;
    uint64_t off;      /* keystream offset of buf[0] */
    uint64_t raw_end;  /* input bytes read once buf was filled (progress;
                        * base64 characters when decoding) */
    uint64_t seq;
    size_t used;       /* most bytes buf ever held: what to wipe */
    int state;
};

struct stream {
    struct shared sh;
    struct slot *slots;
    size_t nslots;
    uint64_t read_seq;     /* slots filled so far */
    uint64_t work_seq;     /* next slot to encrypt */
    int eof;               /* read_seq is final */
    int writer_done;
    const rijn_aes_ctr_ctx *ctx;
    struct enc_dst *dst;
    struct progress pg;
};

static void *stream_worker(void *arg)
{
    struct stream *s = arg;
    rijn_aes_ctr_ctx ctx = *s->ctx;

    pthread_mutex_lock(&s->sh.mu);
    for (;;) {
        if (s->sh.failed || s->writer_done)
            break;
        if (s->work_seq < s->read_seq) {
            struct slot *sl = &s->slots[s->work_seq % s->nslots];
            s->work_seq++;
            pthread_mutex_unlock(&s->sh.mu);
            rijn_aes_ctr_seek(&ctx, sl->off);
            rijn_aes_ctr_xor(&ctx, sl->buf, sl->buf, sl->len);
            pthread_mutex_lock(&s->sh.mu);
            sl->state = S_DONE;
            pthread_cond_broadcast(&s->sh.cv);
            continue;
        }
        if (s->eof)
            break;
        pthread_cond_wait(&s->sh.cv, &s->sh.mu);
    }
    pthread_mutex_unlock(&s->sh.mu);
    rijn_aes_ctr_wipe(&ctx);
    return NULL;
}

static void *stream_writer(void *arg)
{
    struct stream *s = arg;

    for (uint64_t seq = 0;; seq++) {
        struct slot *sl = &s->slots[seq % s->nslots];
        pthread_mutex_lock(&s->sh.mu);
        while (!s->sh.failed &&
               !(sl->seq == seq && sl->state == S_DONE) &&
               !(s->eof && seq >= s->read_seq))
            pthread_cond_wait(&s->sh.cv, &s->sh.mu);
        if (s->sh.failed || (s->eof && seq >= s->read_seq)) {
            s->writer_done = 1;
            pthread_cond_broadcast(&s->sh.cv);
            pthread_mutex_unlock(&s->sh.mu);
            break;
        }
        pthread_mutex_unlock(&s->sh.mu);
        if (enc_dst_write(s->dst, sl->buf, sl->len) != 0) {
            report(&s->sh, "write", s->dst->name, errno);
            pthread_mutex_lock(&s->sh.mu);
            s->writer_done = 1;
            pthread_cond_broadcast(&s->sh.cv);
            pthread_mutex_unlock(&s->sh.mu);
            break;
        }
        pthread_mutex_lock(&s->sh.mu);
        sl->state = S_FREE;
        s->sh.done = sl->raw_end;
        uint64_t d = s->sh.done;
        pthread_cond_broadcast(&s->sh.cv);
        pthread_mutex_unlock(&s->sh.mu);
        progress_show(&s->pg, d, 0);
    }
    return NULL;
}

/* Start the workers (up to nw); returns how many started. */
static int stream_start_workers(struct stream *s, pthread_t *workers, int nw)
{
    int started = 0;

    while (started < nw &&
           pthread_create(&workers[started], NULL, stream_worker, s) == 0)
        started++;
    return started;
}

int stream_engine(struct enc_run *r, uint64_t total)
{
    struct stream s;
    pthread_t writer, workers[8];
    /* Streams are bound by the pipe or device, not by AES: a few workers
     * keep up with any backend, and memory stays at (2 nw + 2) MiB. */
    int nw = r->threads < 8 ? r->threads : 8, started = 0, rc = 0;
    uint64_t off = 0;
    /* AES runs in this (the reading) thread while it costs less than half
     * the time spent reading: with AES instructions the data waits on the
     * pipe, not on AES, and waking a worker per slot only costs (the pipe's
     * other end wants a core too). A software backend soon costs more:
     * then the workers take it. RIJN_ENC_AES=reader|workers fixes it, for
     * tests and measurements. */
    const char *force = getenv("RIJN_ENC_AES");
    int in_reader = force == NULL || strcmp(force, "workers") != 0;
    int adapt = force == NULL || (strcmp(force, "reader") != 0 &&
                                  strcmp(force, "workers") != 0);
    double t_read = 0, t_aes = 0;
    uint64_t reader_slots = 0;
    rijn_aes_ctr_ctx ctx = *r->ctx;

    memset(&s, 0, sizeof s);
    pthread_mutex_init(&s.sh.mu, NULL);
    pthread_cond_init(&s.sh.cv, NULL);
    s.ctx = r->ctx;
    s.dst = r->dst;
    s.nslots = (size_t)nw * 2 + 2;
    s.slots = calloc(s.nslots, sizeof *s.slots);
    if (s.slots == NULL)
        goto oom;
    for (size_t i = 0; i < s.nslots; i++) {
        if (posix_memalign((void **)&s.slots[i].buf, 4096, CHUNK) != 0) {
            s.slots[i].buf = NULL;
            goto oom;
        }
        s.slots[i].seq = UINT64_MAX;
    }
    progress_init(&s.pg, r->progress, total);
    tool_grow_pipe(r->src->fd, (int)CHUNK);
    tool_grow_pipe(r->dst->fd, (int)CHUNK);

    if (pthread_create(&writer, NULL, stream_writer, &s) != 0)
        goto oom;
    if (!in_reader) {
        started = stream_start_workers(&s, workers, nw);
        in_reader = started == 0; /* no thread to spare: do it here */
    }

    /* This thread reads. */
    for (uint64_t seq = 0;; seq++) {
        struct slot *sl = &s.slots[seq % s.nslots];
        pthread_mutex_lock(&s.sh.mu);
        while (!s.sh.failed && !s.writer_done && sl->state != S_FREE)
            pthread_cond_wait(&s.sh.cv, &s.sh.mu);
        int stop = s.sh.failed || s.writer_done;
        pthread_mutex_unlock(&s.sh.mu);
        if (stop)
            break;
        double t0 = adapt && in_reader ? clock_wall() : 0;
        ssize_t n = enc_src_read(r->src, sl->buf, CHUNK);
        if (n > 0 && in_reader) {
            double t1 = adapt ? clock_wall() : 0;
            rijn_aes_ctr_seek(&ctx, off);
            rijn_aes_ctr_xor(&ctx, sl->buf, sl->buf, (size_t)n);
            reader_slots++;
            if (adapt) {
                t_read += t1 - t0;
                t_aes += clock_wall() - t1;
            }
        }
        pthread_mutex_lock(&s.sh.mu);
        if (n <= 0) {
            if (n < 0)
                s.sh.failed = 1;   /* enc_src_read printed the message */
            s.eof = 1;
            pthread_cond_broadcast(&s.sh.cv);
            pthread_mutex_unlock(&s.sh.mu);
            break;
        }
        sl->len = (size_t)n;
        sl->raw_end = r->src->raw_read;
        if (sl->used < sl->len)
            sl->used = sl->len;
        sl->off = off;
        sl->seq = seq;
        sl->state = in_reader ? S_DONE : S_FILLED;
        off += (uint64_t)n;
        s.read_seq = seq + 1;
        if (in_reader)
            s.work_seq = seq + 1; /* workers, if started, go on from here */
        pthread_cond_broadcast(&s.sh.cv);
        pthread_mutex_unlock(&s.sh.mu);
        if (adapt && in_reader && 2 * t_aes > t_read && nw > 0) {
            started = stream_start_workers(&s, workers, nw);
            in_reader = started == 0;
        }
    }
    pthread_mutex_lock(&s.sh.mu);
    s.eof = 1;
    pthread_cond_broadcast(&s.sh.cv);
    pthread_mutex_unlock(&s.sh.mu);
    pthread_join(writer, NULL);
    pthread_mutex_lock(&s.sh.mu);
    s.writer_done = 1;
    pthread_cond_broadcast(&s.sh.cv);
    pthread_mutex_unlock(&s.sh.mu);
    for (int t = 0; t < started; t++)
        pthread_join(workers[t], NULL);
    rc = s.sh.failed ? -1 : 0;
    progress_show(&s.pg, s.sh.done, 1);
    if (stats_wanted())
        tool_err("enc: stream engine: %llu of %llu slots encrypted by the "
                 "reading thread, %d worker thread%s",
                 (unsigned long long)reader_slots,
                 (unsigned long long)s.read_seq, started,
                 started == 1 ? "" : "s");
    goto out;

oom:
    tool_err("enc: out of memory");
    rc = -1;
out:
    rijn_aes_ctr_wipe(&ctx);
    if (s.slots != NULL) {
        for (size_t i = 0; i < s.nslots; i++) {
            if (s.slots[i].buf != NULL) {
                rijn_wipe(s.slots[i].buf, s.slots[i].used);
                free(s.slots[i].buf);
            }
        }
        free(s.slots);
    }
    pthread_cond_destroy(&s.sh.cv);
    pthread_mutex_destroy(&s.sh.mu);
    return rc;
}

/*
 * `rijn seal` / `rijn open` data phase: a pipeline over slots of
 * SLOT_CHUNKS chunks (1 MiB of message each).
 *
 *   reader thread   reads the input in order into free slots (the only
 *                   thread that reads, so pipes work as files do); for a
 *                   regular input file (r->in_pread) it only hands out
 *                   the slots, sized from the file's size at the start
 *   worker threads  (--threads of them) seal or open the chunks of filled
 *                   slots, from `in` into `out`, any slot in any order; a
 *                   regular input is pread() by the worker into the slot's
 *                   own buffer, READ_CHUNKS chunks at a time, just before
 *                   it processes them (the bytes are still in its cache,
 *                   and the copying is shared by the workers)
 *   writer          (the calling thread) writes finished slots in order
 *
 * The input is never processed where another process can change it: a
 * file is copied into private memory (read or pread) and every chunk is
 * opened from that copy, so the bytes its tag was checked over are the
 * bytes decrypted (a shared mapping of the file would let a writer change
 * a byte between the library's two reads of it: DESIGN.md, "Untrusted
 * input"). A file that shrinks while it is read is a read error, one that
 * grows past its final chunk while it is opened has data after the end.
 *
 * Opening, a slot's plaintext is written only up to its first chunk that
 * fails; then nothing more is written and the run stops, so what reaches
 * the output is always every chunk before the first bad one, whatever
 * the thread count. The final chunk is the one shorter than a full chunk
 * at the end of the input: a full chunk is never final (C2SP chunked
 * encryption), so no read-ahead is needed to know where the message ends.
 *
 * A failing chunk is diagnosed (rijn_chunked_diagnose): a valid final
 * chunk followed by more bytes is an extended file, anything else a
 * modified one.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/progress.h"
#include "seal.h"
#include "tool.h"

#define SLOT_CHUNKS 64
#define NSLOTS_MAX 16
/* chunks a worker preads at once (65600 bytes opening): few system calls,
 * and what it read is still in its L2 cache when it processes it */
#define READ_CHUNKS 4

enum { SL_FREE, SL_FILLED, SL_BUSY, SL_DONE };

struct slot {
    unsigned char *buf, *out;  /* SLOT_CHUNKS * RIJN_CHUNK_CT bytes each */
    const unsigned char *in;   /* the input: buf, or (seal) in r->in_map */
    uint64_t seq;              /* slot number in the run */
    uint64_t in_off;           /* r->in_pread: the file offset of buf[0] */
    uint64_t chunk0;           /* index of its first chunk */
    size_t in_len;             /* bytes read */
    size_t nfull;              /* full chunks */
    int final;                 /* then the final chunk, rem bytes of input */
    size_t rem;
    size_t out_len;            /* bytes of output made (and authenticated) */
    int err;                   /* RIJN_SEAL_E* found at err_chunk, or 0 */
    uint64_t err_chunk;
    int read_err;              /* a worker's pread failed: errno, or -1
                                * when the file shrank; then err is 0 */
    int state;
};

struct engine {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct seal_run *r;
    struct slot slot[NSLOTS_MAX];
    size_t nslots;
    uint64_t next_read, next_work, next_write;
    int read_done;             /* next_read is the number of slots */
    int reader_exited;
    int stop;                  /* failed: every thread stops */
    int io_failed;             /* an I/O error was reported */
    struct progress pg;
    uint64_t done;             /* input bytes of the written slots */
};

/* see seal.h */
ssize_t seal_read_full(int fd, unsigned char *p, size_t n)
{
    size_t got = 0;

    while (got < n) {
        ssize_t k = read(fd, p + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            break;
        got += (size_t)k;
    }
    return (ssize_t)got;
}

/* see seal.h */
int seal_write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Under e->mu: fail the run with an I/O message (the first one only). */
static void io_fail(struct engine *e, const char *what, const char *name,
                    int err)
{
    if (!e->stop)
        tool_err("%s: %s error on %s: %s", e->r->who, what, name,
                 strerror(err));
    e->stop = 1;
    e->io_failed = 1;
    pthread_cond_broadcast(&e->cv);
}

/* Fill s from the input; 0, or -1 with errno. */
static int fill(struct engine *e, struct slot *s)
{
    struct seal_run *r = e->r;
    size_t unit = r->open ? RIJN_CHUNK_CT : RIJN_CHUNK;
    size_t cap = SLOT_CHUNKS * unit;
    ssize_t got;

    s->chunk0 = r->first_chunk + s->seq * SLOT_CHUNKS;
    if (r->open && r->last_chunk != UINT64_MAX &&
        r->last_chunk - s->chunk0 < SLOT_CHUNKS)
        cap = (size_t)(r->last_chunk - s->chunk0 + 1) * unit;
    s->in = s->buf;
    if (r->in_pread || r->in_map != NULL) {
        /* the worker reads it (load), or seals from the mapping */
        uint64_t at = s->seq * SLOT_CHUNKS * unit;
        uint64_t left = at < r->in_len ? r->in_len - at : 0;
        s->in_off = r->in_off + at;
        if (r->in_map != NULL)
            s->in = r->in_map + (at < r->in_len ? at : 0);
        got = (ssize_t)(left < cap ? left : cap);
    } else {
        got = seal_read_full(r->in_fd, s->buf, cap);
    }
    if (got < 0)
        return -1;
    s->in_len = (size_t)got;
    s->nfull = s->in_len / unit;
    s->rem = s->in_len % unit;
    /* Short: the input ended, and what is left is the final chunk. */
    s->final = s->in_len < cap;
    s->err = 0;
    s->read_err = 0;
    s->out_len = 0;
    return 0;
}

/* r->in_pread: before chunk i of s is processed, read it (and the next
 * READ_CHUNKS - 1) from the file into s->buf. 0, or -1 with s->read_err
 * set. */
static int load(const struct seal_run *r, struct slot *s, size_t i)
{
    size_t unit = r->open ? RIJN_CHUNK_CT : RIJN_CHUNK;
    size_t from = i * unit, to = (i + READ_CHUNKS) * unit;

    if (!r->in_pread || i % READ_CHUNKS != 0)
        return 0;
    if (to > s->in_len)
        to = s->in_len;
    while (from < to) {
        ssize_t k = pread(r->in_fd, s->buf + from, to - from,
                          (off_t)(s->in_off + from));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            s->read_err = k < 0 ? errno : -1;
            return -1;
        }
        from += (size_t)k;
    }
    return 0;
}

static void *reader_main(void *arg)
{
    struct engine *e = arg;
    struct seal_run *r = e->r;

    pthread_mutex_lock(&e->mu);
    while (!e->stop) {
        struct slot *s = &e->slot[e->next_read % e->nslots];
        int end;
        if (s->state != SL_FREE) {
            pthread_cond_wait(&e->cv, &e->mu);
            continue;
        }
        s->seq = e->next_read;
        pthread_mutex_unlock(&e->mu);
        int rc = fill(e, s), err = errno;
        pthread_mutex_lock(&e->mu);
        if (rc != 0) {
            io_fail(e, "read", r->in_name, err);
            break;
        }
        /* The end: the final chunk, or the last chunk asked for. */
        end = s->final || (r->open && r->last_chunk != UINT64_MAX &&
                           s->chunk0 + s->nfull - 1 == r->last_chunk);
        s->state = SL_FILLED;
        e->next_read++;
        if (end)
            e->read_done = 1;
        pthread_cond_broadcast(&e->cv);
        if (end)
            break;
    }
    e->reader_exited = 1;
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

static void seal_slot(const struct seal_run *r, struct slot *s)
{
    size_t i;
    int rc = RIJN_SEAL_OK;

    for (i = 0; i < s->nfull && rc == RIJN_SEAL_OK; i++) {
        if (load(r, s, i) != 0)
            return;
        rc = rijn_chunked_seal_chunk(r->c, s->chunk0 + i, 0,
                                     s->out + i * RIJN_CHUNK_CT,
                                     s->in + i * RIJN_CHUNK, RIJN_CHUNK);
    }
    if (rc == RIJN_SEAL_OK && s->final) {
        if (load(r, s, i) != 0)
            return;
        rc = rijn_chunked_seal_chunk(r->c, s->chunk0 + i, 1,
                                     s->out + i * RIJN_CHUNK_CT,
                                     s->in + i * RIJN_CHUNK, s->rem);
    }
    if (rc != RIJN_SEAL_OK) {
        s->err = rc;
        s->err_chunk = s->chunk0 + i;
        return;
    }
    s->out_len = s->nfull * RIJN_CHUNK_CT +
                 (s->final ? s->rem + RIJN_CHUNK_TAG : 0);
}

static void open_slot(const struct seal_run *r, struct slot *s)
{
    size_t i;

    for (i = 0; i <= s->nfull; i++) {
        const unsigned char *in = s->buf + i * RIJN_CHUNK_CT;
        int final = i == s->nfull, rc;
        size_t len = final ? s->rem : RIJN_CHUNK_CT;
        if (final && !s->final)
            break;
        if (load(r, s, i) != 0)
            return;
        if (final && len < RIJN_CHUNK_TAG) {
            rc = RIJN_SEAL_ETRUNC; /* no final chunk, or cut in its tag */
        } else {
            rc = rijn_chunked_open_chunk(r->c, s->chunk0 + i, final,
                                         s->out + i * RIJN_CHUNK, in, len);
            if (rc == RIJN_SEAL_ECHUNK)
                rc = rijn_chunked_diagnose(r->c, s->chunk0 + i, final, in,
                                           len);
        }
        if (rc == RIJN_SEAL_OK && final && r->in_pread) {
            /* The message ends here: so must the file, which may have
             * grown since its size was taken. */
            unsigned char b;
            ssize_t k;
            do
                k = pread(r->in_fd, &b, 1, (off_t)(s->in_off + s->in_len));
            while (k < 0 && errno == EINTR);
            if (k < 0) {
                s->read_err = errno;
                return;
            }
            if (k > 0)
                rc = RIJN_SEAL_ETRAIL;
        }
        if (rc != RIJN_SEAL_OK) {
            s->err = rc;
            s->err_chunk = s->chunk0 + i;
            return;
        }
        s->out_len += final ? len - RIJN_CHUNK_TAG : RIJN_CHUNK;
    }
}

static void *worker_main(void *arg)
{
    struct engine *e = arg;

    pthread_mutex_lock(&e->mu);
    for (;;) {
        struct slot *s = &e->slot[e->next_work % e->nslots];
        if (e->stop || (e->read_done && e->next_work == e->next_read))
            break;
        if (s->state != SL_FILLED || s->seq != e->next_work) {
            pthread_cond_wait(&e->cv, &e->mu);
            continue;
        }
        s->state = SL_BUSY;
        e->next_work++;
        pthread_mutex_unlock(&e->mu);
        if (e->r->open)
            open_slot(e->r, s);
        else
            seal_slot(e->r, s);
        pthread_mutex_lock(&e->mu);
        s->state = SL_DONE;
        pthread_cond_broadcast(&e->cv);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* Write slot s (the next in order), trimmed to the window when opening.
 * 0, or -1 with errno. */
static int put(struct engine *e, struct slot *s)
{
    struct seal_run *r = e->r;
    const unsigned char *p = s->out;
    size_t n = s->out_len;

    if (r->open) {
        uint64_t lo = s->chunk0 * RIJN_CHUNK, hi = lo + n;
        if (s->final && s->err == 0)
            r->msg_end = hi;
        if (hi > r->win_hi)
            hi = r->win_hi;
        if (lo < r->win_lo) {
            p += r->win_lo < hi ? r->win_lo - lo : n;
            lo = r->win_lo;
        }
        n = hi > lo ? (size_t)(hi - lo) : 0;
    }
    if (seal_write_all(r->out_fd, p, n) != 0)
        return -1;
    r->written += n;
    return 0;
}

/* The writer: the calling thread. */
static void writer_loop(struct engine *e)
{
    struct seal_run *r = e->r;

    pthread_mutex_lock(&e->mu);
    for (;;) {
        struct slot *s = &e->slot[e->next_write % e->nslots];
        if (e->stop || (e->read_done && e->next_write == e->next_read))
            break;
        if (s->state != SL_DONE || s->seq != e->next_write) {
            pthread_cond_wait(&e->cv, &e->mu);
            continue;
        }
        pthread_mutex_unlock(&e->mu);
        int rc = put(e, s), err = errno;
        pthread_mutex_lock(&e->mu);
        if (rc != 0) {
            io_fail(e, "write", r->out_name, err);
            break;
        }
        if (s->read_err != 0) {
            /* after the chunks before it, as a read() error would be */
            if (s->read_err > 0) {
                io_fail(e, "read", r->in_name, s->read_err);
            } else {
                if (!e->stop)
                    tool_err("%s: %s: the input changed (shrank) while "
                             "being read", r->who, r->in_name);
                e->stop = e->io_failed = 1;
                pthread_cond_broadcast(&e->cv);
            }
            break;
        }
        if (s->err != 0) {
            r->fmt_err = s->err;
            r->fmt_chunk = s->err_chunk;
            e->stop = 1;
            pthread_cond_broadcast(&e->cv);
            break;
        }
        e->done += s->in_len;
        /* the plaintext (sealing: the input; opening: the output) is
         * wiped; the ciphertext is public */
        if (r->open)
            rijn_wipe(s->out, s->out_len);
        else if (s->in == s->buf)
            rijn_wipe(s->buf, s->in_len);
        s->state = SL_FREE;
        e->next_write++;
        pthread_cond_broadcast(&e->cv);
        pthread_mutex_unlock(&e->mu);
        progress_show(&e->pg, e->done, 0);
        pthread_mutex_lock(&e->mu);
    }
    pthread_mutex_unlock(&e->mu);
}

/* The engine outlives a run that failed while its reader was blocked in
 * read() (a pipe that never ends): the process exits with it. */
static struct engine *engine;

/* see seal.h */
int seal_run_data(struct seal_run *r)
{
    struct engine *e;
    pthread_t reader, worker[64];
    int nworkers = 0, ok;
    size_t bytes = SLOT_CHUNKS * RIJN_CHUNK_CT;

    r->fmt_err = 0;
    r->msg_end = UINT64_MAX;
    r->written = 0;
    e = calloc(1, sizeof *e);
    if (e == NULL) {
        tool_err("%s: out of memory", r->who);
        return -1;
    }
    engine = e;
    e->r = r;
    e->nslots = (size_t)(r->threads < 64 ? r->threads : 64) + 3;
    if (e->nslots > NSLOTS_MAX)
        e->nslots = NSLOTS_MAX;
    for (size_t i = 0; i < e->nslots; i++) {
        e->slot[i].buf = malloc(bytes);
        e->slot[i].out = malloc(bytes);
        if (e->slot[i].buf == NULL || e->slot[i].out == NULL) {
            tool_err("%s: out of memory", r->who);
            return -1;
        }
        e->slot[i].state = SL_FREE;
    }
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->cv, NULL);
    progress_init(&e->pg, r->progress, r->total);
    /* a slot's worth per pipe buffer: one read and one write per slot */
    if (!r->in_pread && r->in_map == NULL)
        tool_grow_pipe(r->in_fd, (int)(SLOT_CHUNKS * RIJN_CHUNK));
    tool_grow_pipe(r->out_fd, (int)(SLOT_CHUNKS * RIJN_CHUNK));

    if (pthread_create(&reader, NULL, reader_main, e) != 0) {
        tool_err("%s: cannot start a thread", r->who);
        return -1;
    }
    for (int i = 0; i < r->threads && i < 64; i++) {
        if (pthread_create(&worker[i], NULL, worker_main, e) != 0)
            break;
        nworkers++;
    }
    if (nworkers == 0) {
        pthread_mutex_lock(&e->mu);
        tool_err("%s: cannot start a thread", r->who);
        e->stop = e->io_failed = 1;
        pthread_cond_broadcast(&e->cv);
        pthread_mutex_unlock(&e->mu);
    } else {
        writer_loop(e);
    }

    pthread_mutex_lock(&e->mu);
    e->stop = 1;
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
    for (int i = 0; i < nworkers; i++)
        pthread_join(worker[i], NULL);
    ok = r->fmt_err == 0 && !e->io_failed;
    pthread_mutex_lock(&e->mu);
    int reader_gone = e->reader_exited;
    pthread_mutex_unlock(&e->mu);
    if (!reader_gone) {
        /* Stopped early while the reader waits for input: leave it; the
         * buffers stay allocated (and reachable) until the process ends. */
        pthread_detach(reader);
        return -1;
    }
    pthread_join(reader, NULL);
    if (ok)
        progress_show(&e->pg, e->done, 1);
    for (size_t i = 0; i < e->nslots; i++) {
        /* what a slot last held: its input, and the output of as many
         * chunks (the writer wiped the slots it wrote already) */
        size_t out_cap = (e->slot[i].nfull + 1) * RIJN_CHUNK_CT;
        if (e->slot[i].in == e->slot[i].buf)
            rijn_wipe(e->slot[i].buf, e->slot[i].in_len);
        rijn_wipe(e->slot[i].out, out_cap < bytes ? out_cap : bytes);
        free(e->slot[i].buf);
        free(e->slot[i].out);
    }
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->cv);
    free(e);
    engine = NULL;
    return ok ? 0 : -1;
}

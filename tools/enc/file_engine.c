/*
 * `rijn enc` file engine: a regular input file of 1 MiB or more -> our
 * temporary regular file, no base64; cut into FCHUNK pieces, each
 * encrypted at its own keystream offset (so the split is free).
 *
 * pwrite() to one file is serialized by its inode lock (tmpfs, ext4, ...):
 * however many threads encrypt, the writes go one at a time, and on tmpfs
 * they cost more than reading and encrypting together. Writing through a
 * shared mapping of the output is not serialized (a page fault takes no
 * inode lock) but costs more CPU per byte (the page is zeroed before we
 * fill it). So with two or more threads:
 *   - the calling thread is the writer: it pwrite()s filled slots, lowest
 *     offset first (and fills one itself when none is waiting and two are
 *     free, which only a slow backend makes happen often);
 *   - the other threads (producers) fill free slots from the front of the
 *     file (mapped or pread input, encrypted into the slot), and while no
 *     slot is free they take chunks from the back of the file and encrypt
 *     them straight into the mapped output. The kernel allocates those
 *     pages inside pread() (see fe_mapped), so that a full file system is
 *     an error code and not a SIGBUS; a chunk whose pages cannot be had
 *     is redone through pwrite(), which reports the real error (ENOSPC,
 *     EFBIG, ...).
 * The share each side takes adapts to their speeds: on this project's
 * tmpfs test machine about 3/4 of a 400 MiB file goes through pwrite().
 * One thread, RIJN_ENC_IO=mapin or pwrite, or an output that cannot be
 * mapped: every chunk goes through pwrite().
 */
#define _GNU_SOURCE

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include "engine.h"
#include "tool.h"

#define FCHUNK ((size_t)1 << 18)
#define FSLOTS 16

enum { FS_FREE, FS_BUSY, FS_FILLED };

struct fslot {
    unsigned char *buf;          /* FCHUNK bytes */
    uint64_t chunk;
    int state;
};

struct file_eng {
    struct shared sh;            /* sh.mu guards front, back, producers,
                                  * map_ok and the slot states */
    const rijn_aes_ctr_ctx *ctx;
    const unsigned char *in_map; /* data byte 0, or NULL: pread */
    unsigned char *out_map;      /* data byte 0, or NULL */
    int map_ok;                  /* producers may write through out_map */
    int in_fd, out_fd;
    uint64_t in_start, out_start, size;
    const char *in_name, *out_name;
    long page;
    uint64_t front, back;        /* chunks [front, back) are not taken */
    int producers;               /* producer threads still running */
    int nslots;                  /* slots in use, <= FSLOTS */
    uint64_t n_mapped, n_redone; /* chunks written through out_map, and
                                  * redone with pwrite() (RIJN_ENC_STATS) */
    uint64_t n_by_writer;        /* chunks the writer encrypted itself */
    struct fslot slot[FSLOTS];
};

static int has_failed(struct shared *sh)
{
    int f;
    pthread_mutex_lock(&sh->mu);
    f = sh->failed;
    pthread_mutex_unlock(&sh->mu);
    return f;
}

static void add_done(struct shared *sh, size_t n)
{
    pthread_mutex_lock(&sh->mu);
    sh->done += n;
    if (sh->pg != NULL)
        progress_show(sh->pg, sh->done, 0);
    pthread_mutex_unlock(&sh->mu);
}

static size_t fe_len(const struct file_eng *e, uint64_t c)
{
    uint64_t pos = c * FCHUNK;
    return e->size - pos < FCHUNK ? (size_t)(e->size - pos) : FCHUNK;
}

/* Map a chunk of the input in one system call rather than one page fault
 * per 64 KiB (measurably faster on tmpfs; Linux 5.14+, else a no-op). */
static void populate(const unsigned char *p, size_t len, long page)
{
#ifdef MADV_POPULATE_READ
    uintptr_t a, b;
    a = (uintptr_t)p & ~(uintptr_t)(page - 1);
    b = (uintptr_t)p + len;
    (void)madvise((void *)a, b - a, MADV_POPULATE_READ);
#else
    (void)p;
    (void)len;
    (void)page;
#endif
}

/* dst = chunk c of the input, encrypted. 0, or -1 (reported); with
 * soft_efault, 1 (not reported) when pread() gets EFAULT: dst is a mapping
 * of the output whose pages could not be allocated (see fe_mapped). */
static int fe_fill(struct file_eng *e, rijn_aes_ctr_ctx *ctx,
                   unsigned char *dst, uint64_t c, int soft_efault)
{
    uint64_t pos = c * FCHUNK;
    size_t len = fe_len(e, c), got = 0;

    rijn_aes_ctr_seek(ctx, pos);
    if (e->in_map != NULL) {
        populate(e->in_map + pos, len, e->page);
        rijn_aes_ctr_xor(ctx, dst, e->in_map + pos, len);
        return 0;
    }
    while (got < len) {
        ssize_t r = pread(e->in_fd, dst + got, len - got,
                          (off_t)(e->in_start + pos + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == EFAULT && soft_efault)
            return 1;
        if (r <= 0) {
            if (r == 0)
                fail_once(&e->sh, "enc: %s: the input changed (shrank) "
                          "while it was being read", e->in_name);
            else
                report(&e->sh, "read", e->in_name, errno);
            return -1;
        }
        got += (size_t)r;
    }
    rijn_aes_ctr_xor(ctx, dst, dst, len);
    return 0;
}

/* pwrite() chunk c from buf. 0, or -1 (reported). */
static int fe_put(struct file_eng *e, const unsigned char *buf, uint64_t c)
{
    uint64_t pos = c * FCHUNK;
    size_t len = fe_len(e, c), put = 0;

    while (put < len) {
        ssize_t w = pwrite(e->out_fd, buf + put, len - put,
                           (off_t)(e->out_start + pos + put));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            report(&e->sh, "write", e->out_name, w < 0 ? errno : EIO);
            return -1;
        }
        put += (size_t)w;
    }
    add_done(&e->sh, len);
    return 0;
}

/* Chunk c straight into the mapped output. 0 done, -1 failed (reported),
 * 1 its pages could not be allocated (nothing reported).
 *
 * With a pread() input, pread() into the mapping is what allocates the
 * pages: the kernel faults them in itself, and a page it cannot have
 * (ENOSPC, EFBIG) makes pread() fail with EFAULT rather than raise SIGBUS.
 * This is cheaper than MADV_POPULATE_WRITE first (one fault per page
 * instead of a get_user_pages walk on top). A mapped input is copied by
 * our own code, which must not fault on a missing page: those chunks are
 * populated first. */
static int fe_mapped(struct file_eng *e, rijn_aes_ctr_ctx *ctx, uint64_t c)
{
#ifdef MADV_POPULATE_WRITE
    unsigned char *dst = e->out_map + c * FCHUNK;
    size_t len = fe_len(e, c);
    uintptr_t a = (uintptr_t)dst & ~(uintptr_t)(e->page - 1);
    int rc;

    if (e->in_map != NULL &&
        madvise((void *)a, (uintptr_t)dst + len - a, MADV_POPULATE_WRITE)) {
        if (errno == EINVAL) { /* kernel before 5.14: pwrite() only */
            pthread_mutex_lock(&e->sh.mu);
            e->map_ok = 0;
            pthread_mutex_unlock(&e->sh.mu);
        }
        return 1;
    }
    rc = fe_fill(e, ctx, dst, c, 1);
    if (rc != 0)
        return rc;
    add_done(&e->sh, len);
    return 0;
#else
    (void)e;
    (void)ctx;
    (void)c;
    return 1;
#endif
}

static void *fe_producer(void *arg)
{
    struct file_eng *e = arg;
    rijn_aes_ctr_ctx ctx = *e->ctx;
    unsigned char *own = NULL; /* for mapped chunks redone with pwrite() */

    pthread_mutex_lock(&e->sh.mu);
    while (!e->sh.failed && e->front < e->back) {
        struct fslot *s = NULL;
        uint64_t c;
        int rc;

        for (int i = 0; i < e->nslots && s == NULL; i++)
            if (e->slot[i].state == FS_FREE)
                s = &e->slot[i];
        if (s == NULL && !e->map_ok) {
            pthread_cond_wait(&e->sh.cv, &e->sh.mu);
            continue;
        }
        if (s != NULL) {
            c = e->front++;
            s->state = FS_BUSY;
            pthread_mutex_unlock(&e->sh.mu);
            rc = fe_fill(e, &ctx, s->buf, c, 0);
            pthread_mutex_lock(&e->sh.mu);
            s->chunk = c;
            s->state = rc == 0 ? FS_FILLED : FS_FREE;
            pthread_cond_broadcast(&e->sh.cv);
            continue;
        }
        c = --e->back;
        pthread_mutex_unlock(&e->sh.mu);
        rc = fe_mapped(e, &ctx, c);
        pthread_mutex_lock(&e->sh.mu);
        e->n_mapped += rc == 0;
        e->n_redone += rc == 1;
        pthread_mutex_unlock(&e->sh.mu);
        if (rc == 1) {
            if (own == NULL && posix_memalign((void **)&own, 4096, FCHUNK)) {
                own = NULL;
                report(&e->sh, "memory", e->in_name, ENOMEM);
            } else if (fe_fill(e, &ctx, own, c, 0) == 0) {
                (void)fe_put(e, own, c);
            }
        }
        pthread_mutex_lock(&e->sh.mu);
    }
    e->producers--;
    pthread_cond_broadcast(&e->sh.cv);
    pthread_mutex_unlock(&e->sh.mu);
    if (own != NULL) {
        rijn_wipe(own, FCHUNK);
        free(own);
    }
    rijn_aes_ctr_wipe(&ctx);
    return NULL;
}

/* The calling thread while producers run: pwrite() filled slots, lowest
 * offset first. With nothing to write and two or more slots free it fills
 * one itself: with a slow backend (no AES instructions) its core encrypts
 * too, while with a fast one the producers keep the queue full and this
 * hardly happens. */
static void fe_writer(struct file_eng *e)
{
    rijn_aes_ctr_ctx ctx = *e->ctx;

    pthread_mutex_lock(&e->sh.mu);
    while (!e->sh.failed) {
        struct fslot *s = NULL, *idle = NULL;
        int n_idle = 0;

        for (int i = 0; i < e->nslots; i++) {
            if (e->slot[i].state == FS_FILLED &&
                (s == NULL || e->slot[i].chunk < s->chunk))
                s = &e->slot[i];
            else if (e->slot[i].state == FS_FREE && n_idle++ == 0)
                idle = &e->slot[i];
        }
        /* two free slots: one is left for a producer */
        if (s == NULL && n_idle >= 2 && e->front < e->back) {
            uint64_t c = e->front++;
            idle->state = FS_BUSY;
            e->n_by_writer++;
            pthread_mutex_unlock(&e->sh.mu);
            if (fe_fill(e, &ctx, idle->buf, c, 0) == 0)
                (void)fe_put(e, idle->buf, c);
            pthread_mutex_lock(&e->sh.mu);
            idle->state = FS_FREE;
            pthread_cond_broadcast(&e->sh.cv);
            continue;
        }
        if (s == NULL) {
            if (e->producers == 0)
                break;
            pthread_cond_wait(&e->sh.cv, &e->sh.mu);
            continue;
        }
        s->state = FS_BUSY;
        pthread_mutex_unlock(&e->sh.mu);
        (void)fe_put(e, s->buf, s->chunk);
        pthread_mutex_lock(&e->sh.mu);
        s->state = FS_FREE;
        pthread_cond_broadcast(&e->sh.cv);
    }
    pthread_mutex_unlock(&e->sh.mu);
    rijn_aes_ctr_wipe(&ctx);
}

/* One thread does everything, through slot 0 and pwrite(). */
static void fe_alone(struct file_eng *e)
{
    rijn_aes_ctr_ctx ctx = *e->ctx;

    for (uint64_t c = 0; c < e->back && !has_failed(&e->sh); c++)
        if (fe_fill(e, &ctx, e->slot[0].buf, c, 0) != 0 ||
            fe_put(e, e->slot[0].buf, c) != 0)
            break;
    rijn_aes_ctr_wipe(&ctx);
}

/* Unmapping the output costs milliseconds (a page-table entry per page
 * written through it). No one needs the mappings once the data is
 * written, so a thread unmaps them while the caller renames the output
 * into place; enc_run_end() waits for it. */
struct enc_teardown {
    pthread_t tid;
    void *map[2];
    size_t len[2];
};

static void *teardown_main(void *arg)
{
    struct enc_teardown *t = arg;

    for (int i = 0; i < 2; i++)
        if (t->map[i] != NULL)
            munmap(t->map[i], t->len[i]);
    return NULL;
}

static void teardown_start(struct enc_run *r, void *map0, size_t len0,
                           void *map1, size_t len1)
{
    struct enc_teardown *t;

    if (map0 == NULL && map1 == NULL)
        return;
    t = calloc(1, sizeof *t);
    if (t != NULL) {
        t->map[0] = map0;
        t->len[0] = len0;
        t->map[1] = map1;
        t->len[1] = len1;
        if (pthread_create(&t->tid, NULL, teardown_main, t) == 0) {
            r->teardown = t;
            return;
        }
        free(t);
    }
    if (map0 != NULL)
        munmap(map0, len0);
    if (map1 != NULL)
        munmap(map1, len1);
}

void enc_run_end(struct enc_run *r)
{
    if (r->teardown != NULL) {
        pthread_join(r->teardown->tid, NULL);
        free(r->teardown);
        r->teardown = NULL;
    }
}

/* Returns 0, -1 (message printed). */
int file_engine(struct enc_run *r, uint64_t in_start, uint64_t size)
{
    /* RIJN_ENC_IO (measurements, tests): "pwrite" maps nothing, "mapin"
     * maps the input only, "mapout" the output only, "mapboth" both;
     * default: mapout (a mapped input measured slower: populating and
     * unmapping its pages costs more than pread's copy). RIJN_ENC_SLOTS
     * (1..FSLOTS) shrinks the writer's queue, RIJN_ENC_STATS=1 prints how
     * the chunks went. */
    const char *io = getenv("RIJN_ENC_IO");
    const char *slots = getenv("RIJN_ENC_SLOTS");
    int map_in = 0, map_out = 1;
    if (io != NULL && *io != '\0') {
        map_in = strcmp(io, "mapin") == 0 || strcmp(io, "mapboth") == 0;
        map_out = strcmp(io, "mapout") == 0 || strcmp(io, "mapboth") == 0;
    }
    struct file_eng e;
    struct progress pg;
    pthread_t tid[64];
    unsigned char *in_map = NULL, *out_map = NULL;
    size_t in_map_len = 0, in_delta = 0, out_map_len = 0;
    long page = sysconf(_SC_PAGESIZE);
    int nt = r->threads, started = 0, rc = 0;

    memset(&e, 0, sizeof e);
    e.nslots = FSLOTS;
    if (slots != NULL && atoi(slots) >= 1 && atoi(slots) <= FSLOTS)
        e.nslots = atoi(slots);
    if (page <= 0)
        page = 4096;
    e.page = page;
    e.ctx = r->ctx;
    e.in_fd = r->src->fd;
    e.out_fd = r->dst->fd;
    e.in_start = in_start;
    e.out_start = r->dst->raw_written; /* after a Salted__ header */
    e.size = size;
    e.in_name = r->src->name;
    e.out_name = r->dst->name;
    e.back = (size + FCHUNK - 1) / FCHUNK;
    if ((uint64_t)nt > e.back)
        nt = (int)e.back;
    if (nt > 64)
        nt = 64;
    if (nt < 2)
        map_out = 0;
#ifndef MADV_POPULATE_WRITE
    map_out = 0;
#endif
    if (size > (uint64_t)SIZE_MAX / 2 - e.out_start - (uint64_t)page)
        map_in = map_out = 0;

    if (map_in) {
        in_delta = (size_t)(in_start % (uint64_t)page);
        in_map_len = (size_t)size + in_delta;
        void *m = mmap(NULL, in_map_len, PROT_READ, MAP_SHARED, e.in_fd,
                       (off_t)(in_start - in_delta));
        if (m != MAP_FAILED) {
            in_map = m;
            madvise(in_map, in_map_len, MADV_SEQUENTIAL);
            e.in_map = in_map + in_delta;
        }
    }
    /* The file is ours and new: give it its final size, map it whole. */
    if (map_out && ftruncate(e.out_fd, (off_t)(e.out_start + size)) == 0) {
        out_map_len = (size_t)(e.out_start + size);
        void *m = mmap(NULL, out_map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
                       e.out_fd, 0);
        if (m != MAP_FAILED) {
            out_map = m;
            e.out_map = out_map + e.out_start;
            e.map_ok = 1;
        }
    }

    pthread_mutex_init(&e.sh.mu, NULL);
    pthread_cond_init(&e.sh.cv, NULL);
    progress_init(&pg, r->progress, size);
    e.sh.pg = &pg;
    for (int i = 0; i < e.nslots && rc == 0; i++) {
        if (posix_memalign((void **)&e.slot[i].buf, 4096, FCHUNK) != 0) {
            e.slot[i].buf = NULL;
            tool_err("enc: out of memory");
            rc = -1;
        }
    }
    if (rc == 0) {
        e.producers = nt - 1;
        for (int t = 1; t < nt; t++) {
            if (pthread_create(&tid[t], NULL, fe_producer, &e) != 0)
                break;
            started = t;
        }
        pthread_mutex_lock(&e.sh.mu);
        e.producers -= nt - 1 - started; /* those that did not start */
        pthread_mutex_unlock(&e.sh.mu);
        if (started > 0)
            fe_writer(&e);
        else
            fe_alone(&e);
        for (int t = 1; t <= started; t++)
            pthread_join(tid[t], NULL);
        if (e.sh.failed)
            rc = -1;
    }
    progress_show(&pg, e.sh.done, 1);
    if (stats_wanted())
        tool_err("enc: file engine: %d thread%s, %llu chunks of %zu KiB: "
                 "%llu mapped, %llu redone with pwrite, the rest pwrite "
                 "(%llu of them read and encrypted by the writer)",
                 nt, nt == 1 ? "" : "s",
                 (unsigned long long)((size + FCHUNK - 1) / FCHUNK),
                 FCHUNK >> 10, (unsigned long long)e.n_mapped,
                 (unsigned long long)e.n_redone,
                 (unsigned long long)e.n_by_writer);
    for (int i = 0; i < FSLOTS; i++) {
        if (e.slot[i].buf != NULL) {
            rijn_wipe(e.slot[i].buf, FCHUNK);
            free(e.slot[i].buf);
        }
    }
    teardown_start(r, out_map, out_map_len, in_map, in_map_len);
    if (rc == 0) {
        r->src->raw_read += size;
        r->dst->raw_written += size;
    }
    pthread_cond_destroy(&e.sh.cv);
    pthread_mutex_destroy(&e.sh.mu);
    return rc;
}

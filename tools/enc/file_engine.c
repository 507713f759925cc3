/*
 * `rijn enc` I/O: the output file, signals, the data engines and
 * the progress line.
 *
 * Output: a regular (or new) file is written to a temporary file in the
 * same directory and renamed over the target only on success; it is
 * removed on any failure and on SIGINT/SIGTERM/SIGHUP (and SIGBUS, raised
 * when a mapped file shrinks under us: the input with RIJN_ENC_IO=mapin,
 * or our temporary file if someone truncates it). stdout and devices are
 * written directly, and so is a regular file that a rename would not
 * replace faithfully (see enc_open_output in enc.h).
 *
 * Engines (all compute out = in XOR keystream, the keystream being
 * positioned with rijn_aes_ctr_seek() on a per-thread copy of the keyed
 * context, so any split of the data gives the same bytes):
 *   - file engine: regular input file of 1 MiB or more -> our temporary
 *     regular file, no base64. One thread pwrite()s chunks that the others
 *     read and encrypt into a few buffers; while no buffer is free, the
 *     others encrypt chunks straight into a mapping of the output (see
 *     file_engine).
 *   - stream engine: anything else of 1 MiB or more. The main thread
 *     reads (and decodes base64) into a ring of 1 MiB slots and a writer
 *     thread writes them in order (and encodes base64), so reading and
 *     writing overlap. The reading thread encrypts too while that is
 *     cheap next to reading (AES instructions); with a slow backend,
 *     worker threads take over (see stream_engine).
 *     Pipes are enlarged to 1 MiB (F_SETPIPE_SZ) to cut system calls.
 *   - simple loop: a regular input under 1 MiB (one thread, one buffer).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "common/clock.h"
#include "enc.h"
#include "tool.h"

#define CHUNK ((size_t)1 << 20)

/* ---- output file -------------------------------------------------------- */

static char tmp_path[PATH_MAX + 64];
static volatile sig_atomic_t tmp_active;

static void on_fatal_signal(int sig)
{
    if (tmp_active)
        unlink(tmp_path);
    if (sig == SIGBUS) {
        static const char msg[] =
            "rijn: enc: a mapped file changed (shrank) while in use (the "
            "input?); nothing written\n";
        (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
        _exit(1);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void enc_install_signals(void)
{
    static const int stop[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa, old;

    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_fatal_signal;
    /* A signal ignored by whoever started us stays ignored: nohup (SIGHUP)
     * and the shell's background jobs (SIGINT) rely on it. */
    for (size_t i = 0; i < sizeof stop / sizeof stop[0]; i++)
        if (sigaction(stop[i], NULL, &old) != 0 || old.sa_handler != SIG_IGN)
            sigaction(stop[i], &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    /* A closed pipe must be an EPIPE write error, not a silent death. */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}

static int same_file(const struct stat *x, const struct stat *y)
{
    return x->st_dev == y->st_dev && x->st_ino == y->st_ino;
}

static int open_in_place(struct enc_output *o, const char *path,
                         const char *why)
{
    o->fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (o->fd < 0) {
        tool_err("enc: %s: %s", path, strerror(errno));
        return -1;
    }
    o->in_place = why;
    return 0;
}

int enc_open_output(struct enc_output *o, const char *path,
                    const struct stat *in_st)
{
    struct stat st, lst;
    char *target;
    const char *slash, *base;
    mode_t mode;
    int exists;

    o->fd = -1;
    o->final = NULL;
    o->is_regular_tmp = 0;
    o->in_place = NULL;
    o->name = path ? path : "standard output";

    if (path == NULL) {
        if (fstat(STDOUT_FILENO, &st) != 0) {
            tool_err("enc: standard output: %s", strerror(errno));
            return -1;
        }
        if (S_ISREG(st.st_mode) && in_st != NULL &&
            S_ISREG(in_st->st_mode) && same_file(&st, in_st)) {
            tool_err("enc: standard output is the input file (same file); "
                     "refusing to overwrite it");
            return -1;
        }
        o->fd = STDOUT_FILENO;
        return 0;
    }

    exists = stat(path, &st) == 0;
    if (!exists && errno != ENOENT) {
        tool_err("enc: %s: %s", path, strerror(errno));
        return -1;
    }
    if (!exists && lstat(path, &lst) == 0) {
        tool_err("enc: %s: dangling symbolic link; refusing to write", path);
        return -1;
    }
    if (exists && in_st != NULL && same_file(&st, in_st) &&
        !S_ISCHR(st.st_mode)) {
        tool_err("enc: input and output are the same file (%s); refusing to "
                 "overwrite it", path);
        return -1;
    }
    if (exists && S_ISDIR(st.st_mode)) {
        tool_err("enc: %s: is a directory", path);
        return -1;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* A device, FIFO or socket: write to it directly. */
        o->fd = open(path, O_WRONLY | O_CLOEXEC);
        if (o->fd < 0) {
            tool_err("enc: %s: %s", path, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (exists && access(path, W_OK) != 0) {
        tool_err("enc: %s: %s", path, strerror(errno));
        return -1;
    }
    if (exists && st.st_nlink > 1)
        return open_in_place(o, path, "it has other hard links");

    /* Regular or new file: temporary file in the target's directory. */
    if (exists) {
        target = realpath(path, NULL);
        if (target == NULL) {
            tool_err("enc: %s: %s", path, strerror(errno));
            return -1;
        }
        mode = st.st_mode & 07777;
    } else {
        target = strdup(path);
        if (target == NULL) {
            tool_err("enc: out of memory");
            return -1;
        }
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    slash = strrchr(target, '/');
    base = slash ? slash + 1 : target;
    if (snprintf(tmp_path, sizeof tmp_path, "%.*s.%s.rijn-XXXXXX",
                 slash ? (int)(slash - target + 1) : 0, target,
                 base) >= (int)sizeof tmp_path) {
        tool_err("enc: %s: path too long", path);
        free(target);
        return -1;
    }
    o->fd = mkostemp(tmp_path, O_CLOEXEC);
    if (o->fd < 0) {
        int err = errno;
        free(target);
        if (exists && (err == EACCES || err == EPERM))
            return open_in_place(o, path, "no file can be created in its "
                                 "directory");
        tool_err("enc: cannot create a temporary file for %s: %s", path,
                 strerror(err));
        return -1;
    }
    tmp_active = 1;
    /* The replacement keeps the replaced file's owner and mode. An owner
     * we cannot give it (someone else's file that we may write) means
     * writing in place instead, as a rename would hand the file to us. */
    if (exists && fchown(o->fd, st.st_uid, st.st_gid) != 0) {
        close(o->fd);
        unlink(tmp_path);
        tmp_active = 0;
        free(target);
        return open_in_place(o, path, "a new file could not keep its owner");
    }
    if (fchmod(o->fd, mode) != 0) {
        /* not fatal: the file keeps mkstemp's 0600 */
    }
    o->final = target;
    o->is_regular_tmp = 1;
    return 0;
}

int enc_close_output(struct enc_output *o, int ok)
{
    if (o->final != NULL) {
        if (close(o->fd) != 0 && ok) {
            tool_err("enc: write error on %s: %s", o->name, strerror(errno));
            ok = 0;
        }
        if (ok && rename(tmp_path, o->final) != 0) {
            tool_err("enc: cannot rename the temporary file to %s: %s",
                     o->name, strerror(errno));
            ok = 0;
        }
        if (!ok)
            unlink(tmp_path);
        tmp_active = 0;
        free(o->final);
        o->final = NULL;
    } else if (o->fd != STDOUT_FILENO && o->fd >= 0) {
        if (close(o->fd) != 0 && ok) {
            tool_err("enc: write error on %s: %s", o->name, strerror(errno));
            ok = 0;
        }
        if (!ok && o->in_place != NULL)
            tool_err("enc: %s was written in place (%s) and is incomplete",
                     o->name, o->in_place);
    }
    o->fd = -1;
    return ok ? 0 : -1;
}

/* ---- progress ----------------------------------------------------------------- */

struct progress {
    int on;
    int shown;
    uint64_t total;          /* 0: unknown */
    double t0, last;
    double first, every;     /* seconds: first line, then refreshes */
};

static void human(char *buf, size_t n, double v)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

/* RIJN_ENC_PROGRESS_EVERY=s (tests): a line from s seconds on and every s
 * seconds, instead of from 0.5 s on and every 0.25 s; 0 shows every
 * update. */
static void progress_init(struct progress *p, int on, uint64_t total)
{
    const char *every = getenv("RIJN_ENC_PROGRESS_EVERY");
    char *end;

    p->on = on;
    p->shown = 0;
    p->total = total;
    p->t0 = p->last = clock_wall();
    p->first = 0.5;
    p->every = 0.25;
    if (every != NULL && *every != '\0') {
        double v = strtod(every, &end);
        if (*end == '\0' && v >= 0 && v <= 3600)
            p->first = p->every = v;
    }
}

/* Print when due (every 0.25 s, from 0.5 s on) or when final. */
static void progress_show(struct progress *p, uint64_t done, int final)
{
    char a[32], b[32], r[32], line[160];
    double t, el;

    if (!p->on)
        return;
    t = clock_wall();
    el = t - p->t0;
    if (!final && (el < p->first || t - p->last < p->every))
        return;
    if (final && !p->shown)
        return;
    p->last = t;
    human(a, sizeof a, (double)done);
    human(r, sizeof r, el > 0 ? (double)done / el : 0);
    if (p->total > 0) {
        double rate = el > 0 ? (double)done / el : 0;
        long eta = rate > 0 && done < p->total
                       ? (long)((double)(p->total - done) / rate + 0.5) : 0;
        human(b, sizeof b, (double)p->total);
        snprintf(line, sizeof line,
                 "\r%s / %s (%3d%%)  %s/s  ETA %ld:%02ld   ", a, b,
                 (int)((double)done * 100 / (double)p->total), r,
                 eta / 60, eta % 60);
    } else {
        snprintf(line, sizeof line, "\r%s  %s/s   ", a, r);
    }
    fputs(line, stderr);
    if (final)
        fputc('\n', stderr);
    fflush(stderr);
    p->shown = 1;
}

/* ---- error bookkeeping shared by engine threads ------------------------- */

struct shared {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int failed;              /* an error was reported (message printed) */
    uint64_t done;           /* bytes finished (progress) */
    struct progress *pg;     /* updated under mu by add_done, or NULL */
};

/* Fail the run and wake every thread; the first failure prints its
 * message (tool_err's format), later ones print nothing. */
static void fail_once(struct shared *sh, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void fail_once(struct shared *sh, const char *fmt, ...)
{
    va_list ap;

    pthread_mutex_lock(&sh->mu);
    if (!sh->failed) {
        sh->failed = 1;
        va_start(ap, fmt);
        tool_verr(fmt, ap);
        va_end(ap);
    }
    pthread_cond_broadcast(&sh->cv);
    pthread_mutex_unlock(&sh->mu);
}

/* "enc: <what> error on <name>: <strerror(err)>", once. */
static void report(struct shared *sh, const char *what, const char *name,
                   int err)
{
    fail_once(sh, "enc: %s error on %s: %s", what, name, strerror(err));
}

/* RIJN_ENC_STATS=1: the engines say how the work went (tests, tuning). */
static int stats_wanted(void)
{
    const char *v = getenv("RIJN_ENC_STATS");
    return v != NULL && strcmp(v, "1") == 0;
}

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

/* ---- file engine ---------------------------------------------------------- */

/*
 * Regular input file -> our temporary regular file, cut into FCHUNK pieces,
 * each encrypted at its own keystream offset (so the split is free).
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
static int file_engine(struct enc_run *r, uint64_t in_start, uint64_t size)
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

/* ---- stream engine ---------------------------------------------------------- */

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

static void grow_pipe(int fd)
{
#ifdef F_SETPIPE_SZ
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
        (void)fcntl(fd, F_SETPIPE_SZ, (int)CHUNK);
#else
    (void)fd;
#endif
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

static int stream_engine(struct enc_run *r, uint64_t total)
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
    grow_pipe(r->src->fd);
    grow_pipe(r->dst->fd);

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

/* ---- simple loop (inputs under 1 MiB) --------------------------------------------- */

static int simple_loop(struct enc_run *r, uint64_t total)
{
    rijn_aes_ctr_ctx ctx = *r->ctx;
    unsigned char *buf = malloc(CHUNK);
    struct progress pg;
    uint64_t done = 0;
    size_t used = 0; /* most of buf ever filled: what to wipe */
    int rc = 0;

    if (buf == NULL) {
        tool_err("enc: out of memory");
        return -1;
    }
    progress_init(&pg, r->progress, total);
    for (;;) {
        ssize_t n = enc_src_read(r->src, buf, CHUNK);
        if (n < 0) {
            rc = -1;
            break;
        }
        if (n == 0)
            break;
        if (used < (size_t)n)
            used = (size_t)n;
        rijn_aes_ctr_xor(&ctx, buf, buf, (size_t)n);
        if (enc_dst_write(r->dst, buf, (size_t)n) != 0) {
            tool_err("enc: write error on %s: %s", r->dst->name,
                     strerror(errno));
            rc = -1;
            break;
        }
        done = r->src->raw_read;
        progress_show(&pg, done, 0);
    }
    progress_show(&pg, done, 1);
    rijn_wipe(buf, used);
    free(buf);
    rijn_aes_ctr_wipe(&ctx);
    return rc;
}

int enc_run_data(struct enc_run *r)
{
    struct stat st;
    uint64_t total = 0;
    int regular = 0;
    off_t pos = -1;

    if (fstat(r->src->fd, &st) == 0 && S_ISREG(st.st_mode)) {
        pos = lseek(r->src->fd, 0, SEEK_CUR);
        if (pos >= 0 && (uint64_t)st.st_size >= (uint64_t)pos) {
            regular = 1;
            total = (uint64_t)st.st_size - (uint64_t)pos;
        }
    }
    /* A regular file to our own file, raw: the parallel file engine. */
    if (regular && total >= CHUNK && r->out_is_tmp && r->src->b64 == NULL &&
        r->dst->b64 == NULL)
        return file_engine(r, (uint64_t)pos, total);

    /* Progress counts input bytes (base64 characters when decoding) from
     * the start, as src->raw_read does. */
    uint64_t progress_total = regular ? total + r->src->raw_read : 0;
    int rc;
    if (regular && total < CHUNK) /* no threads to start for a few bytes */
        rc = simple_loop(r, progress_total);
    else
        rc = stream_engine(r, progress_total);
    if (rc == 0 && enc_dst_finish(r->dst) != 0) { /* the base64 tail */
        tool_err("enc: write error on %s: %s", r->dst->name,
                 strerror(errno));
        rc = -1;
    }
    return rc;
}

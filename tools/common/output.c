/*
 * The output file of `rijn enc`, `rijn seal` and `rijn open`: a regular
 * (or new) file is written to a temporary file in the same directory and
 * put in place of the target only on success. stdout and devices are
 * written directly, and so is a regular file that a rename would not
 * replace faithfully (see output_open in output.h).
 *
 * The temporary file is unnamed where the file system can (O_TMPFILE:
 * ext4, xfs, btrfs, tmpfs...): nothing in the directory shows it, and
 * whatever ends the process, SIGKILL included, the kernel frees it. On
 * success it gets a name with linkat() through /proc/self/fd: the
 * target's own name if there was no file (no other name ever exists), or
 * else a fresh .NAME.rijn-XXXXXX renamed over the target at once (linkat
 * cannot replace a file), so a name other than the target exists only
 * between those two system calls; SIGINT/SIGTERM/SIGHUP arriving then are
 * held until the rename is done (output_defer_signal). Where O_TMPFILE
 * fails (a file system without it, no /proc, or RIJN_NO_TMPFILE=1 for the
 * tests), the temporary file is the named .NAME.rijn-XXXXXX from the
 * start, renamed over the target on success. Either is removed on any
 * failure and on SIGINT/SIGTERM/SIGHUP and SIGBUS (raised when a mapped
 * file shrinks under us: enc's input with RIJN_ENC_IO=mapin, or enc's
 * mapped output if someone truncates it; the handlers are in signals.c);
 * a SIGKILL leaves a named temporary file behind, an unnamed one not.
 *
 * With OUTPUT_SYNC (seal, open) the file is fsync()ed before it gets its
 * name, and its directory after, so that after a crash the name is either
 * the old file or the complete new one, and the new one once the command
 * has said it succeeded.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "output.h"
#include "tool.h"

static int open_unnamed(const char *dir);

/* The named temporary file (tmp_active), for the signal handlers. */
static char tmp_path[PATH_MAX + 64];
static volatile sig_atomic_t tmp_active;
/* An unnamed output is being given its name: a stop signal waits. */
static volatile sig_atomic_t linking, deferred_sig;

void output_abandon(void)
{
    if (tmp_active)
        unlink(tmp_path);
}

int output_defer_signal(int sig)
{
    if (!linking)
        return 0;
    deferred_sig = sig;
    return 1;
}

static int same_file(const struct stat *x, const struct stat *y)
{
    return x->st_dev == y->st_dev && x->st_ino == y->st_ino;
}

static int open_in_place(struct output *o, const char *path,
                         const char *why)
{
    if (o->atomic_only) {
        tool_err("%s: %s: cannot be replaced atomically (%s); refusing to "
                 "write it in place", o->who, path, why);
        return -1;
    }
    o->fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (o->fd < 0) {
        tool_err("%s: %s: %s", o->who, path, strerror(errno));
        return -1;
    }
    o->in_place = why;
    return 0;
}

int output_open(struct output *o, const char *who, const char *path,
                const struct stat *in_st, int flags)
{
    struct stat st, lst;
    char *target;
    const char *slash, *base;
    mode_t mode;
    int exists;

    o->who = who;
    o->atomic_only = (flags & OUTPUT_ATOMIC_ONLY) != 0;
    o->fd = -1;
    o->final = NULL;
    o->is_regular_tmp = 0;
    o->in_place = NULL;
    o->sync = (flags & OUTPUT_SYNC) != 0;
    o->unnamed = 0;
    o->existed = 0;
    o->dir = NULL;
    o->name = path ? path : "standard output";

    if (path == NULL) {
        if (fstat(STDOUT_FILENO, &st) != 0) {
            tool_err("%s: standard output: %s", o->who, strerror(errno));
            return -1;
        }
        if (S_ISREG(st.st_mode) && in_st != NULL &&
            S_ISREG(in_st->st_mode) && same_file(&st, in_st)) {
            tool_err("%s: standard output is the input file (same file); "
                     "refusing to overwrite it", o->who);
            return -1;
        }
        o->fd = STDOUT_FILENO;
        return 0;
    }

    exists = stat(path, &st) == 0;
    if (!exists && errno != ENOENT) {
        tool_err("%s: %s: %s", o->who, path, strerror(errno));
        return -1;
    }
    if (!exists && lstat(path, &lst) == 0) {
        tool_err("%s: %s: dangling symbolic link; refusing to write", o->who,
                 path);
        return -1;
    }
    if (exists && in_st != NULL && same_file(&st, in_st) &&
        !S_ISCHR(st.st_mode)) {
        tool_err("%s: input and output are the same file (%s); refusing to "
                 "overwrite it", o->who, path);
        return -1;
    }
    if (exists && S_ISDIR(st.st_mode)) {
        tool_err("%s: %s: is a directory", o->who, path);
        return -1;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* A device, FIFO or socket: write to it directly. */
        o->fd = open(path, O_WRONLY | O_CLOEXEC);
        if (o->fd < 0) {
            tool_err("%s: %s: %s", o->who, path, strerror(errno));
            return -1;
        }
        return 0;
    }
    if (exists && access(path, W_OK) != 0) {
        tool_err("%s: %s: %s", o->who, path, strerror(errno));
        return -1;
    }
    if (exists && st.st_nlink > 1)
        return open_in_place(o, path, "it has other hard links");

    /* Regular or new file: temporary file in the target's directory. */
    if (exists) {
        target = realpath(path, NULL);
        if (target == NULL) {
            tool_err("%s: %s: %s", o->who, path, strerror(errno));
            return -1;
        }
        mode = st.st_mode & 07777;
    } else {
        target = strdup(path);
        if (target == NULL) {
            tool_err("%s: out of memory", o->who);
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
        tool_err("%s: %s: path too long", o->who, path);
        free(target);
        return -1;
    }
    o->dir = slash == NULL ? strdup(".")
             : slash == target ? strdup("/")
                               : strndup(target, (size_t)(slash - target));
    if (o->dir == NULL) {
        tool_err("%s: out of memory", o->who);
        free(target);
        return -1;
    }
    o->fd = open_unnamed(o->dir);
    if (o->fd >= 0) {
        o->unnamed = 1;
    } else {
        o->fd = mkostemp(tmp_path, O_CLOEXEC);
        if (o->fd < 0) {
            int err = errno;
            free(target);
            free(o->dir);
            o->dir = NULL;
            if (exists && (err == EACCES || err == EPERM))
                return open_in_place(o, path, "no file can be created in "
                                     "its directory");
            tool_err("%s: cannot create a temporary file for %s: %s",
                     o->who, path, strerror(err));
            return -1;
        }
        tmp_active = 1;
    }
    /* The replacement keeps the replaced file's owner and mode. An owner
     * we cannot give it (someone else's file that we may write) means
     * writing in place instead, as a rename would hand the file to us. */
    if (exists && fchown(o->fd, st.st_uid, st.st_gid) != 0) {
        close(o->fd);
        if (!o->unnamed)
            unlink(tmp_path);
        tmp_active = 0;
        o->unnamed = 0;
        free(target);
        free(o->dir);
        o->dir = NULL;
        return open_in_place(o, path, "a new file could not keep its owner");
    }
    if (fchmod(o->fd, mode) != 0) {
        /* not fatal: the file keeps its 0600 */
    }
    o->final = target;
    o->existed = exists;
    o->is_regular_tmp = 1;
    return 0;
}

/* An unnamed file (O_TMPFILE) in dir that linkat() through /proc/self/fd
 * can name later; -1 if there is none (the file system or kernel has no
 * O_TMPFILE, /proc is not mounted, RIJN_NO_TMPFILE=1). Read-write, as
 * mkostemp's: enc maps its output. */
static int open_unnamed(const char *dir)
{
#ifdef O_TMPFILE
    const char *no = getenv("RIJN_NO_TMPFILE");
    char proc[64];
    struct stat a, b;
    int fd;

    if (no != NULL && strcmp(no, "1") == 0)
        return -1;
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    if (fstat(fd, &a) != 0 || stat(proc, &b) != 0 || a.st_dev != b.st_dev ||
        a.st_ino != b.st_ino) {
        close(fd);
        return -1;
    }
    return fd;
#else
    (void)dir;
    return -1;
#endif
}

/* A fresh name for the temporary link: tmp_path with 6 new characters. */
static void fresh_tmp_name(void)
{
    static const char set[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static unsigned counter;
    unsigned char rnd[6];
    size_t n = strlen(tmp_path);

    if (getrandom(rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd) {
        struct timespec ts;
        unsigned long x;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        x = (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 16) ^
            (unsigned long)counter++ * 2654435761u;
        for (size_t i = 0; i < sizeof rnd; i++, x >>= 5)
            rnd[i] = (unsigned char)x;
    }
    for (size_t i = 0; i < sizeof rnd; i++)
        tmp_path[n - 6 + i] = set[rnd[i] % (sizeof set - 1)];
}

/* Give the unnamed file o->fd the name o->final: 0, or -1 with errno
 * (EINTR: a stop signal arrived, held in deferred_sig, and nothing was
 * named). Stop signals that arrive meanwhile are held (linking). */
static int link_into_place(struct output *o)
{
    char proc[64];
    int err = 0;

    snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
    linking = 1;
    /* no file there: link it under its own name, nothing else appears */
    if (!o->existed) {
        if (deferred_sig) {
            err = EINTR;
            goto out;
        }
        if (linkat(AT_FDCWD, proc, AT_FDCWD, o->final, AT_SYMLINK_FOLLOW) ==
            0)
            goto out;
        if (errno != EEXIST) {
            err = errno;
            goto out;
        }
        /* one appeared meanwhile: replace it, as a rename would have */
    }
    /* replace a file: a fresh name, renamed over it at once */
    for (int tries = 0;; tries++) {
        fresh_tmp_name();
        tmp_active = 1;
        if (deferred_sig) {
            err = EINTR;
        } else if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp_path,
                          AT_SYMLINK_FOLLOW) == 0) {
            break;
        } else {
            err = errno;
        }
        tmp_active = 0;
        if (err != EEXIST || tries == 100)
            goto out;
    }
    if (deferred_sig)
        err = EINTR;
    else if (rename(tmp_path, o->final) != 0)
        err = errno;
    if (err != 0)
        unlink(tmp_path);
    tmp_active = 0;
out:
    linking = 0;
    errno = err;
    return err != 0 ? -1 : 0;
}

/* fsync the directory of the output, so that its new name lasts: 0, or
 * -1 with errno (a file system that cannot sync a directory is not an
 * error). */
static int sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

    if (fd < 0)
        return errno == EACCES ? 0 : -1; /* a directory we cannot read */
    if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS &&
        errno != EBADF)
        rc = -1;
    if (rc != 0) {
        int err = errno;
        close(fd);
        errno = err;
    } else {
        close(fd);
    }
    return rc;
}

int output_close(struct output *o, int ok)
{
    if (o->final != NULL) {
        if (ok && o->sync && fsync(o->fd) != 0) {
            tool_err("%s: write error on %s: %s", o->who, o->name,
                     strerror(errno));
            ok = 0;
        }
        if (o->unnamed) {
            /* A close reports the file system's delayed write errors
             * (NFS, FUSE: its flush) on any descriptor of the file: that
             * of a duplicate, before the file gets a name. */
            int dup_fd = ok ? dup(o->fd) : -1;
            if (ok && (dup_fd < 0 || close(dup_fd) != 0)) {
                tool_err("%s: write error on %s: %s", o->who, o->name,
                         strerror(errno));
                ok = 0;
            }
            if (ok && link_into_place(o) != 0) {
                if (!deferred_sig)
                        tool_err("%s: cannot put the new file in place as "
                             "%s: %s", o->who, o->name, strerror(errno));
                ok = 0;
            }
            close(o->fd); /* not ok: the unnamed file goes with it */
        } else {
            if (close(o->fd) != 0 && ok) {
                tool_err("%s: write error on %s: %s", o->who, o->name,
                         strerror(errno));
                ok = 0;
            }
            if (ok && rename(tmp_path, o->final) != 0) {
                tool_err("%s: cannot rename the temporary file to %s: %s",
                         o->who, o->name, strerror(errno));
                ok = 0;
            }
            if (!ok)
                unlink(tmp_path);
            tmp_active = 0;
        }
        if (ok && o->sync && sync_dir(o->dir) != 0) {
            tool_err("%s: %s is in place, but its directory could not be "
                     "synced: %s", o->who, o->name, strerror(errno));
            ok = 0;
        }
        free(o->final);
        o->final = NULL;
        free(o->dir);
        o->dir = NULL;
        if (deferred_sig) {
            /* a stop signal held while the file got its name: now */
            signal(deferred_sig, SIG_DFL);
            raise(deferred_sig);
        }
    } else if (o->fd != STDOUT_FILENO && o->fd >= 0) {
        if (close(o->fd) != 0 && ok) {
            tool_err("%s: write error on %s: %s", o->who, o->name,
                     strerror(errno));
            ok = 0;
        }
        if (!ok && o->in_place != NULL)
            tool_err("%s: %s was written in place (%s) and is incomplete",
                     o->who, o->name, o->in_place);
    }
    o->fd = -1;
    return ok ? 0 : -1;
}

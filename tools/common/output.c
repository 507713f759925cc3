/*
 * The output file of `rijn enc`, `rijn seal` and `rijn open`: a regular
 * (or new) file is written to a temporary file in the same directory and
 * renamed over the target only on success; it is removed on any failure
 * and on SIGINT/SIGTERM/SIGHUP (and SIGBUS, raised when a mapped file
 * shrinks under us: enc's input with RIJN_ENC_IO=mapin, or our temporary
 * file if someone truncates it; the handlers are in signals.c). stdout and
 * devices are written directly, and so is a regular file that a rename
 * would not replace faithfully (see output_open in output.h).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "output.h"
#include "tool.h"

static char tmp_path[PATH_MAX + 64];
static volatile sig_atomic_t tmp_active;

void output_abandon(void)
{
    if (tmp_active)
        unlink(tmp_path);
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
    o->fd = mkostemp(tmp_path, O_CLOEXEC);
    if (o->fd < 0) {
        int err = errno;
        free(target);
        if (exists && (err == EACCES || err == EPERM))
            return open_in_place(o, path, "no file can be created in its "
                                 "directory");
        tool_err("%s: cannot create a temporary file for %s: %s", o->who,
                 path, strerror(err));
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

int output_close(struct output *o, int ok)
{
    if (o->final != NULL) {
        if (close(o->fd) != 0 && ok) {
            tool_err("%s: write error on %s: %s", o->who, o->name,
                     strerror(errno));
            ok = 0;
        }
        if (ok && rename(tmp_path, o->final) != 0) {
            tool_err("%s: cannot rename the temporary file to %s: %s", o->who,
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

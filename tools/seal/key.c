/*
 * `rijn seal` / `rijn open`: where the input key comes from.
 *
 * A key file holds exactly 32 bytes, used as they are (Cobblestone-256
 * wants a uniformly random key of the AEAD's size: a file of any other
 * length is a mistake, not something to hash). A passphrase comes from
 * the first line of a file, an environment variable, or the terminal
 * (/dev/tty, echo off; never standard input, which may be the data), and
 * goes through Argon2id in the library (rijn_seal_passphrase_key).
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/prompt.h"
#include "seal.h"
#include "tool.h"

#define PASS_MAX 1024 /* bytes of a passphrase line, newline included */

/* see seal.h */
int seal_read_key_file(const char *who, const char *path,
                       unsigned char key[32])
{
    unsigned char buf[33];
    size_t n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        tool_err("%s: key file %s: %s", who, path, strerror(errno));
        return -1;
    }
    while (n < sizeof buf) {
        ssize_t r = read(fd, buf + n, sizeof buf - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            tool_err("%s: key file %s: %s", who, path, strerror(errno));
            close(fd);
            rijn_wipe(buf, sizeof buf);
            return -1;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (n != 32) {
        tool_err("%s: key file %s: must hold exactly 32 bytes (it holds %s"
                 "%zu); make one with: head -c 32 /dev/urandom > FILE",
                 who, path, n > 32 ? "more than " : "", n > 32 ? 32 : n);
        rijn_wipe(buf, sizeof buf);
        return -1;
    }
    memcpy(key, buf, 32);
    rijn_wipe(buf, sizeof buf);
    return 0;
}

static char *dup_or_complain(const char *who, const char *s)
{
    char *p = strdup(s);
    if (p == NULL)
        tool_err("%s: out of memory", who);
    return p;
}

static char *from_file(const char *who, const char *path)
{
    char buf[PASS_MAX];
    char *p = NULL;
    int n, fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        tool_err("%s: passphrase file %s: %s", who, path, strerror(errno));
        return NULL;
    }
    n = tool_read_line(fd, buf, sizeof buf);
    close(fd);
    if (n < 0) {
        tool_err("%s: passphrase file %s: %s", who, path, strerror(errno));
    } else if (n == PASS_MAX - 1 && buf[n - 1] != '\n') {
        tool_err("%s: passphrase file %s: the first line is longer than "
                 "%d bytes", who, path, PASS_MAX - 2);
    } else {
        if (n > 0 && buf[n - 1] == '\n')
            buf[--n] = '\0';
        if (n > 0 && buf[n - 1] == '\r')
            buf[--n] = '\0';
        p = dup_or_complain(who, buf);
    }
    rijn_wipe(buf, sizeof buf);
    return p;
}

static char *from_tty(const char *who, int confirm)
{
    char a[PASS_MAX], b[PASS_MAX];
    char *p = NULL;
    int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);

    if (fd < 0) {
        tool_err("%s: no terminal to ask for the passphrase on; give "
                 "--key-file, --passphrase-file or --passphrase-env", who);
        return NULL;
    }
    if (tool_prompt_line(fd, fd, 1, "Passphrase: ", a, sizeof a) < 0) {
        tool_err("%s: could not read the passphrase", who);
        goto out;
    }
    if (confirm) {
        if (tool_prompt_line(fd, fd, 1, "Passphrase (again): ", b,
                             sizeof b) < 0) {
            tool_err("%s: could not read the passphrase", who);
            goto out;
        }
        if (strcmp(a, b) != 0) {
            tool_err("%s: the two passphrases differ", who);
            goto out;
        }
    }
    p = dup_or_complain(who, a);
out:
    rijn_wipe(a, sizeof a);
    rijn_wipe(b, sizeof b);
    close(fd);
    return p;
}

/* see seal.h */
char *seal_get_passphrase(const char *who, const struct seal_key_opts *o,
                          int confirm)
{
    char *p;

    if (o->pass_file != NULL) {
        p = from_file(who, o->pass_file);
    } else if (o->pass_env != NULL) {
        const char *v = getenv(o->pass_env);
        if (v == NULL) {
            tool_err("%s: --passphrase-env %s: no such environment variable",
                     who, o->pass_env);
            return NULL;
        }
        p = dup_or_complain(who, v);
    } else {
        p = from_tty(who, confirm);
    }
    if (p != NULL && p[0] == '\0') {
        tool_err("%s: the passphrase is empty", who);
        free(p);
        p = NULL;
    }
    return p;
}

/*
 * `rijn enc`: AES-CTR file encryption, byte-identical to
 * `openssl enc -aes-{128,192,256}-ctr -K hex -iv hex`.
 *
 * Safety rules, in the order they are applied:
 *   1. every argument is parsed and validated (key and IV hex, backend),
 *   2. the input is opened,
 *   3. only then is the output touched: refused if it is the input file;
 *      a regular (or new) output file is written to a temporary file in
 *      the same directory and renamed over the target on success, removed
 *      on failure or on SIGINT/SIGTERM/SIGHUP, so a failed run never leaves
 *      a truncated or half-written output behind.
 * Any read or write error (EPIPE, ENOSPC, /dev/full, ...) is reported in
 * one line and the exit status is 1.
 */
#define _XOPEN_SOURCE 700

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

#include "rijn.h"
#include "tool.h"

#define ENC_BUF_SIZE ((size_t)1 << 20)

struct enc_args {
    size_t key_len;          /* 16, 24, 32; 0 until a cipher is named */
    const char *cipher;      /* "aes-128-ctr", ... */
    const char *key_hex, *iv_hex;
    const char *in_path, *out_path;
    const char *impl;        /* -impl name (rijn extension) */
};

/* Temporary output file, removed by the signal handler if set. */
static char tmp_path[PATH_MAX + 64];
static volatile sig_atomic_t tmp_active;

static void on_fatal_signal(int sig)
{
    if (tmp_active)
        unlink(tmp_path);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void enc_usage(FILE *f)
{
    fputs("usage: rijn enc -aes-{128,192,256}-ctr [-e|-d] -K hex -iv hex\n"
          "                [-in file] [-out file] [-impl backend]\n"
          "       rijn aes-{128,192,256}-ctr [options as above]\n"
          "\n"
          "Encrypts (or, identically, decrypts) with AES in CTR mode; the\n"
          "output is byte for byte that of `openssl enc` with the same -K/-iv.\n"
          "  -K hex      the key: exactly 32, 48 or 64 hex digits\n"
          "  -iv hex     the initial counter block: exactly 32 hex digits\n"
          "  -in file    input (default: standard input)\n"
          "  -out file   output (default: standard output); a regular file\n"
          "              is replaced atomically only when all went well\n"
          "  -e, -d      encrypt / decrypt (the same operation in CTR mode)\n"
          "  -impl name  use this AES backend (see `rijn impl`)\n"
          "Password-based keys (-k, -pass), -base64 and -a are not supported\n"
          "yet.\n",
          f);
}

static int set_cipher(struct enc_args *a, const char *name)
{
    static const struct {
        const char *name;
        size_t key_len;
    } ciphers[] = {
        {"aes-128-ctr", 16}, {"aes-192-ctr", 24}, {"aes-256-ctr", 32}};

    for (size_t i = 0; i < sizeof ciphers / sizeof ciphers[0]; i++) {
        if (strcmp(name, ciphers[i].name) == 0) {
            a->cipher = ciphers[i].name;
            a->key_len = ciphers[i].key_len;
            return 0;
        }
    }
    return -1;
}

/* Returns 0 to go on, 1 on error, 2 if help was printed. */
static int parse_args(struct enc_args *a, int argc, char **argv)
{
    /* `rijn aes-128-ctr ...` names the cipher as the command. */
    if (set_cipher(a, argv[0]) != 0)
        a->cipher = NULL;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char **dst = NULL;

        if (tool_is_help(arg)) {
            enc_usage(stdout);
            return 2;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            tool_err("enc: unexpected argument '%s' (see `rijn enc --help`)",
                     arg);
            return 1;
        }
        /* openssl accepts --opt for -opt */
        const char *opt = (arg[1] == '-' && arg[2] != '\0') ? arg + 2 : arg + 1;

        if (set_cipher(a, opt) == 0)
            continue;
        if (strcmp(opt, "e") == 0 || strcmp(opt, "d") == 0)
            continue;
        if (strcmp(opt, "K") == 0)
            dst = &a->key_hex;
        else if (strcmp(opt, "iv") == 0)
            dst = &a->iv_hex;
        else if (strcmp(opt, "in") == 0)
            dst = &a->in_path;
        else if (strcmp(opt, "out") == 0)
            dst = &a->out_path;
        else if (strcmp(opt, "impl") == 0)
            dst = &a->impl;
        if (dst == NULL) {
            if (strcmp(opt, "k") == 0 || strcmp(opt, "pass") == 0 ||
                strcmp(opt, "a") == 0 || strcmp(opt, "base64") == 0)
                tool_err("enc: option '%s' is not supported yet", arg);
            else
                tool_err("enc: unknown option '%s' (see `rijn enc --help`)",
                         arg);
            return 1;
        }
        if (i + 1 >= argc) {
            tool_err("enc: option '%s' needs an argument", arg);
            return 1;
        }
        *dst = argv[++i];
    }
    if (a->cipher == NULL) {
        tool_err("enc: no cipher given: use -aes-128-ctr, -aes-192-ctr or "
                 "-aes-256-ctr");
        return 1;
    }
    if (a->key_hex == NULL) {
        tool_err("enc: -K is required (password-based keys are not supported "
                 "yet)");
        return 1;
    }
    if (a->iv_hex == NULL) {
        tool_err("enc: -iv is required with -K");
        return 1;
    }
    return 0;
}

static int decode_hex_arg(unsigned char *out, size_t n, const char *hex,
                          const char *opt, const char *what)
{
    size_t len = strlen(hex);

    if (tool_hex_decode(out, n, hex) == 0)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = hex[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
              (c >= 'A' && c <= 'F'))) {
            tool_err("enc: %s: non-hex character at position %zu", opt,
                     i + 1);
            return -1;
        }
    }
    tool_err("enc: %s: %s needs exactly %zu hex digits, got %zu", opt, what,
             2 * n, len);
    return -1;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (w == 0) {
            errno = EIO;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int same_file(const struct stat *x, const struct stat *y)
{
    return x->st_dev == y->st_dev && x->st_ino == y->st_ino;
}

/*
 * Where the output goes. For a regular or new file, `final` is the path
 * that will be replaced (symbolic links resolved) and fd is a temporary
 * file next to it.
 */
struct output {
    int fd;
    const char *name;     /* for messages */
    char *final;          /* rename target, or NULL (stdout, device) */
};

static int open_output(struct output *o, const char *path,
                       const struct stat *in_st)
{
    struct stat st, lst;
    char *target;
    const char *slash, *base;
    mode_t mode;
    int exists;

    o->fd = -1;
    o->final = NULL;
    o->name = path ? path : "standard output";

    if (path == NULL) {
        if (fstat(STDOUT_FILENO, &st) != 0) {
            tool_err("enc: standard output: %s", strerror(errno));
            return -1;
        }
        if (S_ISREG(st.st_mode) && S_ISREG(in_st->st_mode) &&
            same_file(&st, in_st)) {
            tool_err("enc: standard output is the input file; refusing to "
                     "overwrite it");
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
    if (exists && same_file(&st, in_st) && !S_ISCHR(st.st_mode)) {
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
    o->fd = mkstemp(tmp_path);
    if (o->fd < 0) {
        tool_err("enc: cannot create a temporary file for %s: %s", path,
                 strerror(errno));
        free(target);
        return -1;
    }
    tmp_active = 1;
    /* Best effort: keep the replaced file's owner (works for root) and
     * mode; on failure the file keeps our owner and mkstemp's 0600. */
    if (exists && fchown(o->fd, st.st_uid, st.st_gid) != 0) {
        /* not fatal */
    }
    if (fchmod(o->fd, mode) != 0) {
        /* not fatal */
    }
    o->final = target;
    return 0;
}

/* Finish the output; on failure (ok == 0) remove the temporary file. */
static int close_output(struct output *o, int ok)
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
    }
    o->fd = -1;
    return ok ? 0 : -1;
}

static void install_signals(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_fatal_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    /* A closed pipe must be an EPIPE write error, not a silent death. */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}

static int run(const struct enc_args *a, rijn_aes_ctr_ctx *ctx,
               unsigned char *buf)
{
    unsigned char key[32], iv[16];
    struct stat in_st;
    struct output out;
    const char *in_name = a->in_path ? a->in_path : "standard input";
    int in_fd, ok = 1;

    /* 1. Validate everything. */
    if (decode_hex_arg(key, a->key_len, a->key_hex, "-K", a->cipher) != 0)
        return 1;
    if (decode_hex_arg(iv, 16, a->iv_hex, "-iv", "the IV") != 0) {
        rijn_wipe(key, sizeof key);
        return 1;
    }
    if (rijn_aes_ctr_init_impl(ctx, key, a->key_len, iv, a->impl) != 0) {
        rijn_wipe(key, sizeof key);
        if (a->impl != NULL)
            tool_err("enc: -impl %s: unknown backend or not available on "
                     "this CPU (see `rijn impl`)", a->impl);
        else if (tool_check_rijn_impl_env("enc") == 0)
            tool_err("enc: key setup failed");
        return 1;
    }
    rijn_wipe(key, sizeof key);

    /* 2. Open the input. */
    if (a->in_path != NULL) {
        in_fd = open(a->in_path, O_RDONLY | O_CLOEXEC);
        if (in_fd < 0) {
            tool_err("enc: %s: %s", a->in_path, strerror(errno));
            return 1;
        }
    } else {
        in_fd = STDIN_FILENO;
    }
    if (fstat(in_fd, &in_st) != 0) {
        tool_err("enc: %s: %s", in_name, strerror(errno));
        goto fail_in;
    }
    if (S_ISDIR(in_st.st_mode)) {
        tool_err("enc: %s: is a directory", in_name);
        goto fail_in;
    }

    /* 3. Only now touch the output. */
    install_signals();
    if (open_output(&out, a->out_path, &in_st) != 0)
        goto fail_in;

    for (;;) {
        ssize_t n = read(in_fd, buf, ENC_BUF_SIZE);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            tool_err("enc: read error on %s: %s", in_name, strerror(errno));
            ok = 0;
            break;
        }
        if (n == 0)
            break;
        rijn_aes_ctr_xor(ctx, buf, buf, (size_t)n);
        if (write_all(out.fd, buf, (size_t)n) != 0) {
            tool_err("enc: write error on %s: %s", out.name, strerror(errno));
            ok = 0;
            break;
        }
    }
    if (close_output(&out, ok) != 0)
        ok = 0;
    if (in_fd != STDIN_FILENO)
        close(in_fd);
    return ok ? 0 : 1;

fail_in:
    if (in_fd != STDIN_FILENO)
        close(in_fd);
    return 1;
}

int cmd_enc(int argc, char **argv)
{
    struct enc_args a;
    rijn_aes_ctr_ctx *ctx;
    unsigned char *buf;
    int rc;

    memset(&a, 0, sizeof a);
    rc = parse_args(&a, argc, argv);
    if (rc != 0)
        return rc == 2 ? 0 : 1;

    ctx = malloc(sizeof *ctx);
    buf = malloc(ENC_BUF_SIZE);
    if (ctx == NULL || buf == NULL) {
        tool_err("enc: out of memory");
        free(ctx);
        free(buf);
        return 1;
    }
    rc = run(&a, ctx, buf);
    rijn_aes_ctr_wipe(ctx);
    rijn_wipe(buf, ENC_BUF_SIZE);
    free(ctx);
    free(buf);
    return rc;
}

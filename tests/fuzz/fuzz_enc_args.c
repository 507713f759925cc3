/*
 * Fuzz target enc_args: `rijn enc` option parsing and behaviour
 * (tools/enc/args.c and the flow of tools/enc/enc.c) against `openssl enc`
 * on the same argv and input.
 *
 * The input picks an argv from a vocabulary of real options and values
 * (ciphers, valid and not; -e/-d; -a/-base64/-A; -salt/-nosalt/-S;
 * -k/-kfile/-pass pass:/env:/file:/fd:/stdin; -pbkdf2/-iter/-md; -p/-P;
 * -K/-iv hex of every length, odd, empty, non-hex; -in/-out paths inside
 * a scratch directory; -bufsize; -v; -nopad/-debug; -list/-help; options
 * rijn refuses; unknown options; the rijn-only -threads/-progress/-impl;
 * extra arguments; repeated options; -opt, --opt and -opt=value
 * spellings; a last option without its value) and a small input (raw, or
 * with a Salted__ header, or base64 in several layouts when decrypting
 * with -a).
 *
 *   byte 0  bits 0-2 argv[0]: enc + -aes-{128,192,256}-ctr, the command
 *                    forms aes-{128,256,192}-ctr, enc alone, aes-128-cbc
 *           bit 3    standard input is a pipe (else the file in.bin)
 *           bit 4    out.bin exists before the run
 *           bits 5-7 the input's shape
 *   byte 1  bits 0-3 number of options; bit 7: the last one loses its
 *                    value
 *   then    per option: one byte (which option, which spelling), and one
 *           byte for its value if it takes one
 *   rest    the data (at most 512 bytes)
 *
 * Both programs run in child processes (posix_spawn, a new session so
 * neither has a terminal, 20 s limit) in two identical scratch
 * directories under $TMPDIR, rijn and openssl at the same time; argv uses
 * relative paths so messages match.
 *
 * Oracle: the exit status (zero or not) and the output bytes (standard
 * output and the -out file) must be the same, and when both succeed,
 * standard error too (README.md: "same messages on standard error for
 * everything openssl reports"). Besides that, on every run: rijn exits
 * with 0 or 1 (anything else is a crash or a sanitizer report, whose
 * output is shown); a failed run leaves an existing output file
 * byte-identical and an absent one absent, and no run leaves another file
 * in the directory (README.md, "Safer than openssl"). Where rijn
 * deliberately differs, the difference is encoded below, each with the
 * document that says so; a random salt (encryption with a password) is
 * matched by running openssl again with -S set to the salt rijn chose.
 *
 * For coverage feedback the in-process parser (enc_parse_args, args.c)
 * runs on the same argv too: it has no side effect beyond reading a
 * -kfile and printing (stdout is sent to /dev/null around the call), and
 * its verdict must agree with the process: rc 1 means rijn exits 1.
 *
 * The target needs the rijn program of this build and an openssl binary;
 * where either cannot run here (cross builds under qemu), it says why and
 * exits 77, which ctest counts as skipped.
 */
#define _GNU_SOURCE 1

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "enc/enc.h"

#include "cli_fuzz.h"

extern char **environ;

#ifndef RIJN_FUZZ_RIJN_BIN
#define RIJN_FUZZ_RIJN_BIN ""
#endif
#ifndef RIJN_FUZZ_OPENSSL_BIN
#define RIJN_FUZZ_OPENSSL_BIN "openssl"
#endif

#define MAX_DATA 512
#define MAX_ARGS 64
#define TIMEOUT_MS 20000

/* ---- the vocabulary ----------------------------------------------------- */

/* Class of a value: both programs take it (or both refuse it), or rijn
 * refuses it by its documentation while openssl may take it, or openssl
 * fails on it where rijn need not (see the -bufsize case below). */
enum { BOTH = 0, RIJN_REFUSES = 1, OPENSSL_FAILS = 2, NEITHER = 3 };

struct val {
    const char *s;
    int cls;
};

enum kind {
    K_CIPHER, K_E, K_D, K_A, K_AA, K_NOSALT, K_SALT, K_S, K_PASS, K_PW,
    K_KFILE, K_PBKDF2, K_ITER, K_MD, K_PRINT, K_PRINT_EXIT, K_NOPAD,
    K_DEBUG, K_KEY, K_IV, K_IN, K_OUT, K_BUFSIZE, K_VERBOSE, K_LIST, K_HELP,
    K_REFUSED, K_UNKNOWN, K_THREADS, K_PROGRESS, K_IMPL, K_EXTRA
};

#define V(a) a, sizeof a / sizeof a[0]

static const struct val v_cipher[] = {
    {"aes-128-ctr", BOTH},       {"aes-192-ctr", BOTH},
    {"aes-256-ctr", BOTH},       {"AES-128-CTR", BOTH},
    {"Aes-256-Ctr", BOTH},       {"aes-128-ctr", BOTH},
    {"aes-128-cbc", RIJN_REFUSES}, {"aes-256-ecb", RIJN_REFUSES},
    {"aes-256-gcm", RIJN_REFUSES}, {"des-ede3-cbc", RIJN_REFUSES},
    {"chacha20", RIJN_REFUSES},  {"aria-128-ctr", RIJN_REFUSES},
    {"camellia-256-ctr", RIJN_REFUSES}, {"aes128", RIJN_REFUSES},
    {"aes-999-ctr", BOTH},       {"aes-128-ctr-x", BOTH},
};
static const struct val v_key[] = {
    {"2b7e151628aed2a6abf7158809cf4f3c", BOTH},
    {"8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b", BOTH},
    {"603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
     BOTH},
    {"00", BOTH},
    {"2b7e151628aed2a6abf7158809cf4f3", BOTH},
    {"603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4aa",
     BOTH},
    {"0g", BOTH},
    {"", BOTH},
    {"2B7E1516", BOTH},
    {"zz00", BOTH},
};
static const struct val v_iv[] = {
    {"f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", BOTH},
    {"ffffffffffffffffffffffffffffffff", BOTH},
    {"0000000000000000fffffffffffffff0", BOTH},
    {"00", BOTH},
    {"001", BOTH},
    {"f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff0011", BOTH},
    {"f0f1zz", BOTH},
    {"", BOTH},
};
static const struct val v_salt[] = {
    {"0102030405060708", BOTH}, {"01", BOTH}, {"0102030405060708090a", BOTH},
    {"01zz", BOTH},             {"", BOTH},   {"A1B2C3D4E5F60718", BOTH},
};
static const struct val v_pass[] = {
    {"pass:secret", BOTH},       {"pass:", BOTH},
    {"env:RIJN_FUZZ_PW", BOTH},  {"env:RIJN_FUZZ_NO_SUCH", BOTH},
    {"file:pw.txt", BOTH},       {"file:pw-crlf.txt", BOTH},
    {"file:empty.txt", BOTH},    {"file:missing.txt", BOTH},
    {"fd:0", BOTH},              {"stdin", BOTH},
    {"bogus", BOTH},             {"abc:x", BOTH},
    {"fd:9", BOTH},              {"file:long.txt", BOTH},
};
static const struct val v_pw[] = {
    {"secret", BOTH},
    {"", BOTH},
    {"x", BOTH},
    {"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
     "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
     "0123456789", BOTH},
};
static const struct val v_kfile[] = {
    {"pw.txt", BOTH},  {"pw-crlf.txt", BOTH}, {"empty.txt", BOTH},
    {"one.txt", BOTH}, {"missing.txt", BOTH}, {"long.txt", BOTH},
};
static const struct val v_iter[] = {
    {"1", BOTH},   {"3", BOTH},   {"1000", BOTH},       {"0", BOTH},
    {"-1", BOTH},  {"3x", BOTH},  {"0x10", BOTH},       {"010", BOTH},
    {"", BOTH},    {"2147483648", BOTH},
};
static const struct val v_md[] = {
    {"md5", BOTH},      {"sha1", BOTH},          {"sha224", BOTH},
    {"sha256", BOTH},   {"sha384", BOTH},        {"sha512", BOTH},
    {"SHA256", BOTH},   {"sha3-256", RIJN_REFUSES},
    {"blake2s256", RIJN_REFUSES}, {"md5-sha1", RIJN_REFUSES},
    {"sha512-256", RIJN_REFUSES}, {"nosuch", NEITHER}, {"", NEITHER},
};
static const struct val v_in[] = {
    {"in.bin", BOTH}, {"-", BOTH}, {"missing.bin", BOTH}, {"dir", BOTH},
    {"out.bin", BOTH},
};
static const struct val v_out[] = {
    {"out.bin", BOTH}, {"-", BOTH}, {"dir", BOTH}, {"nodir/out.bin", BOTH},
    {"in.bin", BOTH},
};
static const struct val v_bufsize[] = {
    {"8192", BOTH},      {"1", BOTH},    {"80", BOTH},   {"64k", BOTH},
    {"0", RIJN_REFUSES}, {"0x10", BOTH}, {"010", BOTH},  {"1m", BOTH},
    {"-1", BOTH},        {"2147483648", BOTH}, {"1024k", BOTH},
    {"2097151k", OPENSSL_FAILS},
    {"k", BOTH},         {"", BOTH},
};
static const struct val v_threads[] = {
    {"1", BOTH},         {"2", BOTH},         {"64", BOTH},
    {"0", RIJN_REFUSES}, {"65", RIJN_REFUSES}, {"x", RIJN_REFUSES},
};
static const struct val v_impl[] = {{"ct64", BOTH}, {"bogus", RIJN_REFUSES}};
static const struct val v_x[] = {{"x", BOTH}};
static const struct val v_default[] = {{"default", BOTH}};
static const struct val v_extra[] = {{"extra", BOTH}, {"-", RIJN_REFUSES}};

static const struct opt {
    const char *name; /* without the dash; "" for ciphers and arguments */
    enum kind kind;
    const struct val *vals; /* NULL: a flag */
    size_t nvals;
} opts[] = {
    {"", K_CIPHER, V(v_cipher)},
    {"e", K_E, NULL, 0},
    {"d", K_D, NULL, 0},
    {"d", K_D, NULL, 0},
    {"a", K_A, NULL, 0},
    {"base64", K_A, NULL, 0},
    {"A", K_AA, NULL, 0},
    {"nosalt", K_NOSALT, NULL, 0},
    {"salt", K_SALT, NULL, 0},
    {"S", K_S, V(v_salt)},
    {"pass", K_PASS, V(v_pass)},
    {"k", K_PW, V(v_pw)},
    {"kfile", K_KFILE, V(v_kfile)},
    {"pbkdf2", K_PBKDF2, NULL, 0},
    {"iter", K_ITER, V(v_iter)},
    {"md", K_MD, V(v_md)},
    {"p", K_PRINT, NULL, 0},
    {"P", K_PRINT_EXIT, NULL, 0},
    {"nopad", K_NOPAD, NULL, 0},
    {"debug", K_DEBUG, NULL, 0},
    {"K", K_KEY, V(v_key)},
    {"K", K_KEY, V(v_key)},
    {"iv", K_IV, V(v_iv)},
    {"iv", K_IV, V(v_iv)},
    {"in", K_IN, V(v_in)},
    {"out", K_OUT, V(v_out)},
    {"bufsize", K_BUFSIZE, V(v_bufsize)},
    {"v", K_VERBOSE, NULL, 0},
    {"list", K_LIST, NULL, 0},
    {"ciphers", K_LIST, NULL, 0},
    {"help", K_HELP, NULL, 0},
    {"engine", K_REFUSED, V(v_x)},
    {"rand", K_REFUSED, V(v_x)},
    {"provider", K_REFUSED, V(v_default)},
    {"none", K_REFUSED, NULL, 0},
    {"z", K_REFUSED, NULL, 0},
    {"bogus", K_UNKNOWN, NULL, 0},
    {"threads", K_THREADS, V(v_threads)},
    {"progress", K_PROGRESS, NULL, 0},
    {"noprogress", K_PROGRESS, NULL, 0},
    {"impl", K_IMPL, V(v_impl)},
    {"", K_EXTRA, V(v_extra)},
};
#define NOPTS (sizeof opts / sizeof opts[0])

/* ---- the argv and what the documentation says it means ----------------- */

struct tok {
    const struct opt *o;
    const struct val *v; /* NULL: a flag, or the value is missing */
    int spelling;        /* 0 -x, 1 --x, 2 -x=value */
};

struct model {
    int cmd;                 /* byte 0 bits 0-2 */
    int cipher_refused;      /* the cipher in effect is not AES-CTR */
    int enc;                 /* last of -e/-d */
    int base64, olb64;
    int nosalt;
    const char *salt_hex;    /* last -S */
    const char *key_hex, *iv_hex;
    int pw;                  /* -k or -kfile given */
    const char *passarg;     /* last -pass */
    int printkey;            /* last of -p (1) / -P (2) */
    int debug, progress;
    int huge_bufsize;        /* last -bufsize one openssl cannot allocate */
    int verbose_differs;     /* stderr not comparable (set while checking) */
    const char *in, *out;    /* last -in / -out ("-": standard stream) */
    int help, list;
    int list_first;          /* -list/-ciphers before any -help */
    const char *refusal;     /* a documented refusal of rijn, seen
                              * while parsing, or NULL */
    const char *refusal_end; /* one checked after parsing (cipher,
                              * -bufsize 0): not with -help or -list */
    int rijn_only;           /* a rijn-only option is in argv */
};

static int stream_path(const char *p)
{
    return p == NULL || strcmp(p, "-") == 0;
}

/* The openssl-visible meaning of the argv (doc/rijn.1, OPTIONS (enc)):
 * the last of a repeated option counts. */
static void model_argv(struct model *m, const struct tok *t, size_t n)
{
    int cipher_cls = m->cmd == 7 ? RIJN_REFUSES : BOTH;
    int have_cipher = m->cmd != 6;
    int impl_bad = 0;
    int md_cls = BOTH;

    for (size_t i = 0; i < n; i++) {
        const struct val *v = t[i].v;
        int flag_with_value = t[i].o->vals == NULL && t[i].spelling == 2;

        if (m->help)
            break; /* both stop at -help */
        if (flag_with_value && t[i].o->kind == K_PROGRESS) {
            /* rijn's own -progress=value: rijn refuses it ("takes no
             * value") and openssl is not given rijn's options */
            if (m->refusal == NULL)
                m->refusal = "-progress/-noprogress=value (rijn: the "
                             "option takes no value, as openssl says of "
                             "its own flags)";
            continue;
        }
        if (flag_with_value && t[i].o->kind != K_REFUSED &&
            t[i].o->kind != K_UNKNOWN)
            continue; /* -flag=value: both refuse it */
        if (t[i].o->vals != NULL && v == NULL && m->refusal == NULL)
            /* the last option without its value: both fail
             * (tests/cli/golden_cases.txt, opt-missing-value), and rijn
             * also for its own options, which openssl is not given */
            m->refusal = "an option without its value (golden case "
                         "opt-missing-value)";
        switch (t[i].o->kind) {
        case K_CIPHER:
            cipher_cls = t[i].v->cls;
            have_cipher = 1;
            break;
        case K_E: m->enc = 1; break;
        case K_D: m->enc = 0; break;
        case K_A: m->base64 = 1; break;
        case K_AA: m->olb64 = 1; break;
        case K_NOSALT: m->nosalt = 1; break;
        case K_SALT: m->nosalt = 0; break;
        case K_S: if (v) m->salt_hex = v->s; break;
        case K_PASS: if (v) m->passarg = v->s; break;
        case K_PW:
        case K_KFILE: if (v) m->pw = 1; break;
        case K_PRINT: m->printkey = 1; break;
        case K_PRINT_EXIT: m->printkey = 2; break;
        case K_DEBUG: m->debug = 1; break;
        case K_KEY: if (v) m->key_hex = v->s; break;
        case K_IV: if (v) m->iv_hex = v->s; break;
        case K_IN: if (v) m->in = v->s; break;
        case K_OUT: if (v) m->out = v->s; break;
        case K_LIST:
            if (!m->list && !m->help)
                m->list_first = 1;
            m->list = 1;
            break;
        case K_HELP: m->help = 1; break;
        case K_MD:
        case K_BUFSIZE:
            /* doc/rijn.1 -md: "other digests openssl knows are refused";
             * README: "-bufsize 0 (openssl: empty output, status 0) ...
             * [is an error]" */
            if (t[i].o->kind == K_MD && v) {
                md_cls = v->cls;
            }
            if (t[i].o->kind == K_BUFSIZE && v)
                m->huge_bufsize = v->cls == OPENSSL_FAILS;
            if (t[i].o->kind == K_BUFSIZE && v)
                m->refusal_end = v->cls == RIJN_REFUSES
                                     ? "-bufsize 0 (README.md, Deliberate "
                                       "differences)"
                                     : NULL;
            break;
        case K_REFUSED:
            /* README: "-engine, -provider, -rand, -none ... are refused";
             * doc/rijn.1: "and the other openssl options that load code
             * or do not encrypt are refused" (-z: compression) */
            if (m->refusal == NULL)
                m->refusal = "an option rijn refuses (README.md, Deliberate "
                             "differences; doc/rijn.1)";
            break;
        case K_THREADS:
            /* doc/rijn.1: -threads "(rijn) Threads, 1 to 64" */
            m->rijn_only = 1;
            if (v && v->cls == RIJN_REFUSES && m->refusal == NULL)
                m->refusal = "-threads out of 1..64 (doc/rijn.1)";
            break;
        case K_IMPL:
            /* README, failure cases: "unknown -impl" is an error (found
             * at key setup, so not with -help or -list) */
            m->rijn_only = 1;
            if (v)
                impl_bad = v->cls == RIJN_REFUSES;
            break;
        case K_EXTRA:
            /* a lone "-": openssl takes it for an empty cipher name and
             * then copies the data unencrypted (exit 0) unless a cipher
             * follows; rijn refuses it as an extra argument (golden case
             * extra-arg; doc/rijn.1: what does not encrypt is refused).
             * openssl's behaviour is NOT named in README.md: reported */
            if (v && v->cls == RIJN_REFUSES && m->refusal == NULL)
                m->refusal = "a lone \"-\" argument (doc/rijn.1: what does "
                             "not encrypt is refused)";
            break;
        case K_UNKNOWN:
            /* README.md, failure cases: an unsupported option is an
             * error. openssl takes an unknown -name for a cipher name and
             * ignores it when another cipher follows (the last one
             * counts): there it succeeds where rijn refuses. That part is
             * NOT documented: reported (issue 19, fuzz target enc_args) */
            if (m->refusal == NULL)
                m->refusal = "an unknown option (README.md, failure cases)";
            break;
        case K_PROGRESS:
            m->rijn_only = 1;
            m->progress = 1;
            break;
        default:
            break;
        }
    }
    /* README: "ciphers other than AES-CTR are refused" (also the command
     * form: rijn knows only aes-{128,192,256}-ctr as commands, so that
     * one is refused even with -help or -list) */
    m->cipher_refused = cipher_cls == RIJN_REFUSES;
    if (m->cipher_refused && m->refusal_end == NULL)
        m->refusal_end = "a cipher other than AES-CTR (README.md, Deliberate "
                         "differences; doc/rijn.1 -aes-*-ctr)";
    /* doc/rijn.1 -md: "other digests openssl knows are refused" (the
     * last -md counts: doc/rijn.1, "when an option is repeated, the last
     * one counts": both look the last one up after parsing, so not with
     * -help or -list) */
    if (md_cls == RIJN_REFUSES && m->refusal_end == NULL)
        m->refusal_end = "a digest openssl has, rijn not (doc/rijn.1, -md)";
    if (impl_bad && m->refusal_end == NULL)
        m->refusal_end = "an unknown -impl (README.md, failure cases)";
    /* openssl enc without a cipher copies the data unencrypted, as with
     * -none; doc/rijn.1: "-none and the other openssl options that ... do
     * not encrypt are refused" */
    if (!have_cipher && m->refusal_end == NULL)
        m->refusal_end = "no cipher: openssl would copy the data "
                         "unencrypted (doc/rijn.1: what does not encrypt "
                         "is refused)";
    if (m->cmd == 7)
        m->refusal = "aes-128-cbc as a command (README.md: ciphers other "
                     "than AES-CTR are refused)";
    if (m->help || m->list)
        m->refusal_end = NULL;
}

/* ---- the scratch directories --------------------------------------------- */

static char base_dir[512];

static void rm_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        if (d != NULL) {
            while ((e = readdir(d)) != NULL) {
                char sub[1024];
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                    continue;
                snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
                rm_tree(sub);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void cleanup(void)
{
    if (base_dir[0] != '\0')
        rm_tree(base_dir);
}

static void write_file(const char *dir, const char *name,
                       const unsigned char *p, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    FZ_CHECK(fd >= 0, "%s: %s", path, strerror(errno));
    FZ_CHECK(n == 0 || write(fd, p, n) == (ssize_t)n, "%s: write", path);
    close(fd);
}

/* The fixtures, same in both directories. */
static const char *const fixtures[] = {"in.bin", "pw.txt", "pw-crlf.txt",
                                       "empty.txt", "one.txt", "long.txt",
                                       "dir", "out.bin"};
static const unsigned char prev_out[] = "the previous output\n";

static void reset_dir(const char *dir, const unsigned char *data, size_t n,
                      int out_exists)
{
    char path[1024], longpw[202];
    DIR *d = opendir(dir);
    struct dirent *e;

    FZ_CHECK(d != NULL, "%s: %s", dir, strerror(errno));
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            !strcmp(e->d_name, "dir"))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        rm_tree(path);
    }
    closedir(d);
    snprintf(path, sizeof path, "%s/dir", dir);
    if (mkdir(path, 0755) == 0)
        write_file(path, "f", (const unsigned char *)"f\n", 2);
    write_file(dir, "in.bin", data, n);
    write_file(dir, "pw.txt", (const unsigned char *)"secret\nsecond\n", 14);
    write_file(dir, "pw-crlf.txt", (const unsigned char *)"secret\r\n", 8);
    write_file(dir, "empty.txt", NULL, 0);
    write_file(dir, "one.txt", (const unsigned char *)"a\n", 2);
    memset(longpw, 'x', 200);
    longpw[200] = '\n';
    write_file(dir, "long.txt", (const unsigned char *)longpw, 201);
    if (out_exists)
        write_file(dir, "out.bin", prev_out, sizeof prev_out - 1);
}

static unsigned char *read_file(const char *dir, const char *name,
                                size_t *len)
{
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return NULL;
    }
    unsigned char *p = malloc((size_t)st.st_size + 1);
    FZ_CHECK(p != NULL, "out of memory");
    ssize_t r = pread(fd, p, (size_t)st.st_size, 0);
    FZ_CHECK(r == st.st_size, "%s: read", path);
    close(fd);
    *len = (size_t)st.st_size;
    return p;
}

/* Another file than the fixtures in dir: its name, or NULL. */
static const char *stray_file(const char *dir)
{
    static char name[256];
    DIR *d = opendir(dir);
    struct dirent *e;
    const char *found = NULL;

    FZ_CHECK(d != NULL, "%s: %s", dir, strerror(errno));
    while (found == NULL && (e = readdir(d)) != NULL) {
        int known = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
        for (size_t i = 0; !known && i < sizeof fixtures / sizeof *fixtures;
             i++)
            known = !strcmp(e->d_name, fixtures[i]);
        if (!known) {
            snprintf(name, sizeof name, "%s", e->d_name);
            found = name;
        }
    }
    closedir(d);
    return found;
}

/* ---- child processes -------------------------------------------------------- */

struct buf {
    unsigned char *p;
    size_t len, cap;
};

struct child {
    pid_t pid;
    int fd[2];        /* stdout, stderr read ends (-1 when closed) */
    struct buf io[2]; /* what they wrote */
    int status;       /* exit status, or 128 + signal */
};

static void buf_add(struct buf *b, const unsigned char *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        FZ_CHECK(b->p != NULL, "out of memory");
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void buf_free(struct buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static char *child_env[] = {
    "PATH=/usr/local/bin:/usr/bin:/bin",
    "LC_ALL=C",
    "RIJN_FUZZ_PW=envsecret",
    /* a sanitizer report in rijn must not look like an ordinary exit 1 */
    "ASAN_OPTIONS=exitcode=86:detect_leaks=1",
    "UBSAN_OPTIONS=halt_on_error=1:exitcode=87:print_stacktrace=1",
    "LSAN_OPTIONS=exitcode=88",
    NULL, /* LLVM_PROFILE_FILE when set (child_env_init) */
    NULL,
};

/* A coverage build's rijn writes its profile where the caller says
 * (scripts/fuzz-coverage.sh), not as default.profraw in the scratch
 * folder, which would count as a file it left behind. */
static void child_env_init(void)
{
    static char prof[4096 + 32];
    static int done;
    const char *v = getenv("LLVM_PROFILE_FILE");
    size_t n = sizeof child_env / sizeof child_env[0];

    if (done)
        return;
    done = 1;
    if (v != NULL && strlen(v) < 4096) {
        snprintf(prof, sizeof prof, "LLVM_PROFILE_FILE=%s", v);
        child_env[n - 2] = prof;
    }
}

/* Start prog with argv in dir, stdin from stdin_fd. */
static void child_start(struct child *c, const char *prog, char **argv,
                        const char *dir, int stdin_fd)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, def;
    int out[2], err[2];

    memset(c, 0, sizeof *c);
    FZ_CHECK(pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0,
             "pipe: %s", strerror(errno));
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, stdin_fd, 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    posix_spawn_file_actions_addchdir_np(&fa, dir);
    posix_spawnattr_init(&at);
    sigemptyset(&none);
    sigfillset(&def);
    sigdelset(&def, SIGKILL);
    sigdelset(&def, SIGSTOP);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &def);
    /* setsid: no controlling terminal, so a password prompt goes to
     * stderr and reads stdin, as in tests/cli/golden_cases.txt */
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
    child_env_init();
    int rc = posix_spawn(&c->pid, prog, &fa, &at, argv, child_env);
    FZ_CHECK(rc == 0, "cannot run %s: %s", prog, strerror(rc));
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(out[1]);
    close(err[1]);
    c->fd[0] = out[0];
    c->fd[1] = err[0];
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Collect the output of the n children and wait for them. */
static void children_wait(struct child *c, int n, char **what)
{
    long deadline = now_ms() + TIMEOUT_MS;

    for (;;) {
        struct pollfd pf[8];
        int map[8], np = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < 2; j++)
                if (c[i].fd[j] >= 0) {
                    pf[np].fd = c[i].fd[j];
                    pf[np].events = POLLIN;
                    map[np++] = i * 2 + j;
                }
        if (np == 0)
            break;
        long left = deadline - now_ms();
        if (left <= 0) {
            for (int i = 0; i < n; i++)
                kill(-c[i].pid, SIGKILL);
            FZ_CHECK(0, "timeout (%d s): %s", TIMEOUT_MS / 1000, what[0]);
        }
        int r = poll(pf, (nfds_t)np, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        FZ_CHECK(r >= 0, "poll: %s", strerror(errno));
        for (int k = 0; k < np; k++) {
            if (pf[k].revents == 0)
                continue;
            struct child *ch = &c[map[k] / 2];
            int j = map[k] % 2;
            unsigned char tmp[65536];
            ssize_t got = read(ch->fd[j], tmp, sizeof tmp);
            if (got > 0) {
                buf_add(&ch->io[j], tmp, (size_t)got);
            } else if (got == 0 || errno != EINTR) {
                close(ch->fd[j]);
                ch->fd[j] = -1;
            }
        }
    }
    for (int i = 0; i < n; i++) {
        int st;
        while (waitpid(c[i].pid, &st, 0) < 0)
            FZ_CHECK(errno == EINTR, "waitpid: %s", strerror(errno));
        c[i].status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
}

/* A pipe holding p[0..n) (n is small: it fits the pipe buffer). */
static int pipe_of(const unsigned char *p, size_t n)
{
    int fd[2];
    FZ_CHECK(pipe2(fd, O_CLOEXEC) == 0, "pipe: %s", strerror(errno));
    FZ_CHECK(n == 0 || write(fd[1], p, n) == (ssize_t)n, "pipe write");
    close(fd[1]);
    return fd[0];
}

/* ---- one run of each program -------------------------------------------------- */

struct run {
    int status;
    struct buf out, err;
    unsigned char *file; /* out.bin after the run (NULL: absent) */
    size_t file_len;
    unsigned char *target; /* the -out file after the run (NULL: none) */
    size_t target_len;
    size_t key_at; /* where the -p lines were on stdout (lines_first) */
};

static void run_free(struct run *r)
{
    buf_free(&r->out);
    buf_free(&r->err);
    free(r->file);
    free(r->target);
    memset(r, 0, sizeof *r);
}

static const char *rijn_bin, *openssl_bin;
static char dir_r[600], dir_o[600];

static void show_argv(char *buf, size_t cap, char **argv)
{
    size_t k = 0;
    buf[0] = '\0';
    for (int i = 0; argv[i] != NULL && k + 1 < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s'%s'", i ? " " : "",
                              argv[i]);
}

/* One program run: argv (argv[0] is the program), in dir, freshly reset
 * with in.bin = file; stdin: the pipe of stdin_data if set, else a pipe
 * of file (pipe) or in.bin itself. */
struct spec {
    char **argv;
    const char *dir;
    const unsigned char *file;
    size_t file_len;
    const unsigned char *stdin_data;
    size_t stdin_len;
    int pipe;
    int out_exists;
    const char *target; /* -out, if a file */
};

/* Run the n (1 or 2) programs at the same time. */
static void run_specs(const struct spec *s, int n, struct run *r)
{
    struct child c[2];
    char *what[2];
    char shown[2][2048];

    for (int i = 0; i < n; i++) {
        char path[1024];
        int fd;
        memset(&r[i], 0, sizeof r[i]);
        reset_dir(s[i].dir, s[i].file, s[i].file_len, s[i].out_exists);
        if (s[i].stdin_data != NULL) {
            fd = pipe_of(s[i].stdin_data, s[i].stdin_len);
        } else if (s[i].pipe) {
            fd = pipe_of(s[i].file, s[i].file_len);
        } else {
            snprintf(path, sizeof path, "%s/in.bin", s[i].dir);
            fd = open(path, O_RDONLY | O_CLOEXEC);
            FZ_CHECK(fd >= 0, "%s: %s", path, strerror(errno));
        }
        show_argv(shown[i], sizeof shown[i], s[i].argv);
        what[i] = shown[i];
        child_start(&c[i], s[i].argv[0], s[i].argv, s[i].dir, fd);
        close(fd);
    }
    children_wait(c, n, what);
    for (int i = 0; i < n; i++) {
        r[i].status = c[i].status;
        r[i].out = c[i].io[0];
        r[i].err = c[i].io[1];
        r[i].file = read_file(s[i].dir, "out.bin", &r[i].file_len);
        if (s[i].target != NULL)
            r[i].target = read_file(s[i].dir, s[i].target,
                                    &r[i].target_len);
    }
}

/* ---- comparing ----------------------------------------------------------------- */

/* The -p/-P lines at the start of stdout: their length (0 if none). */
static size_t key_lines(const struct buf *out, size_t from)
{
    static const char *const labels[] = {"salt=", "key=", "iv ="};
    size_t at = from;
    for (size_t l = 0; l < 3; l++) {
        size_t n = strlen(labels[l]);
        if (out->len - at < n || memcmp(out->p + at, labels[l], n) != 0)
            continue;
        const unsigned char *nl = memchr(out->p + at, '\n', out->len - at);
        if (nl == NULL)
            break;
        at = (size_t)(nl - out->p) + 1;
    }
    return at - from;
}

/*
 * -p with a Salted__ header on stdout: openssl writes the header (raw: 16
 * bytes; -a -A: its 20 characters of whole base64 groups; -a: nothing yet,
 * its BIO holds it) before the key lines. Moves the lines to the front,
 * so that what follows them is the data stream, and records where they
 * were (r->key_at), which must be the same place in both programs.
 */
static void lines_first(struct run *r)
{
    static const size_t at[] = {0, 16, 20};
    struct buf *o = &r->out;

    r->key_at = 0;
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        size_t k = at[i], n;
        if (o->p == NULL || o->len < k + 4 ||
            (memcmp(o->p + k, "salt=", 5) != 0 &&
             memcmp(o->p + k, "key=", 4) != 0))
            continue;
        n = key_lines(o, k);
        if (k > 0 && n > 0) {
            unsigned char head[20];
            memcpy(head, o->p, k);
            memmove(o->p, o->p + k, n);
            memcpy(o->p + n, head, k);
        }
        r->key_at = k;
        return;
    }
}

static void fail_show(const char *why, char **argv_r, const struct run *rr,
                      const struct run *ro)
{
    char shown[2048];
    show_argv(shown, sizeof shown, argv_r);
    fprintf(stderr, "enc_args: %s\n  argv: %s\n", why, shown);
    fprintf(stderr, "  rijn: status %d, stdout %zu bytes, out.bin %s%zu "
            "bytes; stderr:\n%s\n", rr->status, rr->out.len,
            rr->file ? "" : "absent ", rr->file_len,
            rr->err.p ? (char *)rr->err.p : "");
    if (ro != NULL)
        fprintf(stderr, "  openssl: status %d, stdout %zu bytes, out.bin "
                "%s%zu bytes; stderr:\n%s\n", ro->status, ro->out.len,
                ro->file ? "" : "absent ", ro->file_len,
                ro->err.p ? (char *)ro->err.p : "");
    FZ_CHECK(0, "enc_args: %s", why);
}

#define EXPECT(cond, why)                                                   \
    do {                                                                    \
        if (!(cond))                                                        \
            fail_show(why, argv_r, rr, ro);                                 \
    } while (0)

/* What every rijn run must satisfy. */
static void check_rijn_alone(char **argv_r, const struct run *rr,
                             const struct model *m, int out_exists)
{
    const struct run *ro = NULL;
    const char *stray = stray_file(dir_r);

    EXPECT(rr->status == 0 || rr->status == 1,
           "rijn exits with neither 0 nor 1 (crash or sanitizer report)");
    if (stray != NULL) {
        char why[400];
        snprintf(why, sizeof why, "rijn leaves a file behind: %s", stray);
        EXPECT(0, why);
    }
    /* README.md, "Safer than openssl": a failure leaves an existing
     * output file byte-identical; doc/rijn.1 SAFETY: never creates or
     * truncates it; -P "touches no output at all" */
    if (rr->status != 0 || m->printkey == 2) {
        if (out_exists)
            EXPECT(rr->file != NULL && rr->file_len == sizeof prev_out - 1 &&
                       memcmp(rr->file, prev_out, rr->file_len) == 0,
                   "rijn changed the existing output file (failed run, or "
                   "-P)");
        else
            EXPECT(rr->file == NULL, "rijn created the output file (failed "
                                     "run, or -P)");
    }
}

/* ---- building argv ------------------------------------------------------------ */

struct argv_buf {
    char *v[MAX_ARGS + 1];
    int n;
    char pool[8192];
    size_t used;
};

static void arg_add(struct argv_buf *a, const char *s1, const char *s2)
{
    size_t n = strlen(s1) + strlen(s2) + 1;
    FZ_CHECK(a->n < MAX_ARGS && a->used + n <= sizeof a->pool, "argv full");
    char *p = a->pool + a->used;
    snprintf(p, n, "%s%s", s1, s2);
    a->used += n;
    a->v[a->n++] = p;
    a->v[a->n] = NULL;
}

static const char *const commands[8] = {
    "enc", "enc", "enc", "aes-128-ctr", "aes-256-ctr", "aes-192-ctr",
    "enc", "aes-128-cbc"};
static const char *const first_cipher[3] = {"-aes-128-ctr", "-aes-192-ctr",
                                            "-aes-256-ctr"};

/*
 * argv for rijn (for_openssl 0) or openssl (1; after the program name:
 * rijn's dispatch and openssl's are the same words). For openssl, the
 * rijn-only options are left out (doc/rijn.1 marks them "(rijn)"; the
 * output does not depend on them), and with -P so is -out (README:
 * "-P never creates or truncates the output (openssl truncates it)").
 * pass_o, if set, replaces the value of the -pass in effect.
 */
static void build_argv(struct argv_buf *a, const char *prog,
                       const struct model *m, const struct tok *t, size_t n,
                       int for_openssl, const char *pass_o,
                       const char *salt_o)
{
    size_t last_pass = n;

    a->n = 0;
    a->used = 0;
    arg_add(a, prog, "");
    arg_add(a, commands[m->cmd], "");
    if (m->cmd < 3)
        arg_add(a, first_cipher[m->cmd], "");
    for (size_t i = 0; i < n; i++)
        if (t[i].o->kind == K_PASS && t[i].v != NULL)
            last_pass = i;
    for (size_t i = 0; i < n; i++) {
        const struct opt *o = t[i].o;
        const char *dash = t[i].spelling == 1 ? "--" : "-";
        const char *v = t[i].v ? t[i].v->s : NULL;
        char tmp[300];

        if (for_openssl && (o->kind == K_THREADS || o->kind == K_PROGRESS ||
                            o->kind == K_IMPL))
            continue;
        if (for_openssl && m->printkey == 2 && o->kind == K_OUT)
            continue;
        if (i == last_pass && pass_o != NULL)
            v = pass_o;
        if (o->kind == K_EXTRA) {
            arg_add(a, v, "");
        } else if (o->kind == K_CIPHER) {
            arg_add(a, dash, v);
        } else if (o->vals == NULL) {
            arg_add(a, dash, t[i].spelling == 2 ? (snprintf(tmp, sizeof tmp,
                                                            "%s=1", o->name),
                                                   tmp)
                                                : o->name);
        } else if (v == NULL) {
            arg_add(a, dash, o->name); /* the value is missing */
        } else if (t[i].spelling == 2) {
            snprintf(tmp, sizeof tmp, "%s=%s", o->name, v);
            arg_add(a, "-", tmp);
        } else {
            arg_add(a, dash, o->name);
            arg_add(a, v, "");
        }
    }
    if (salt_o != NULL) {
        arg_add(a, "-S", "");
        arg_add(a, salt_o, "");
    }
}

/* ---- the in-process parser ------------------------------------------------------ */

/* enc_parse_args on argv (after the program name), in rijn's directory
 * (for -kfile), stdout to /dev/null (usage text). Returns its rc. */
static int parse_in_process(struct argv_buf *a)
{
    struct enc_opts o;
    char *copy[MAX_ARGS + 1];
    int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    int saved;

    FZ_CHECK(cwd >= 0 && null >= 0, "open: %s", strerror(errno));
    for (int i = 1; i <= a->n; i++)
        copy[i - 1] = a->v[i];
    fflush(stdout);
    saved = dup(STDOUT_FILENO);
    dup2(null, STDOUT_FILENO);
    FZ_CHECK(chdir(dir_r) == 0, "chdir %s", dir_r);
    int rc = enc_parse_args(&o, a->n - 1, copy);
    FZ_CHECK(fchdir(cwd) == 0, "fchdir");
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    close(null);
    close(cwd);
    if (o.pass != NULL) {
        rijn_wipe(o.pass, strlen(o.pass));
        free(o.pass);
    }
    return rc;
}

/* ---- setup ------------------------------------------------------------------------ */

static void skip(const char *why)
{
    printf("enc_args: SKIPPED: %s\n", why);
    fflush(stdout);
    exit(77);
}

static void setup(void)
{
    static int done;
    const char *tmp = getenv("TMPDIR");
    char path[600];

    if (done)
        return;
    done = 1;
#if defined(RIJN_FUZZ_ENC_ARGS_SKIP)
    skip(RIJN_FUZZ_ENC_ARGS_SKIP);
#endif
    rijn_bin = getenv("RIJN_FUZZ_RIJN");
    if (rijn_bin == NULL || *rijn_bin == '\0')
        rijn_bin = RIJN_FUZZ_RIJN_BIN;
    openssl_bin = getenv("RIJN_FUZZ_OPENSSL");
    if (openssl_bin == NULL || *openssl_bin == '\0')
        openssl_bin = RIJN_FUZZ_OPENSSL_BIN;
    if (*rijn_bin == '\0' || access(rijn_bin, X_OK) != 0)
        skip("no rijn program to run (RIJN_FUZZ_RIJN)");
    if (access(openssl_bin, X_OK) != 0)
        skip("no openssl program here (RIJN_FUZZ_OPENSSL)");
    snprintf(base_dir, sizeof base_dir, "%s/rijn-fuzz-enc_args.XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    FZ_CHECK(mkdtemp(base_dir) != NULL, "mkdtemp %s: %s", base_dir,
             strerror(errno));
    atexit(cleanup);
    snprintf(dir_r, sizeof dir_r, "%s/r", base_dir);
    snprintf(dir_o, sizeof dir_o, "%s/o", base_dir);
    FZ_CHECK(mkdir(dir_r, 0755) == 0 && mkdir(dir_o, 0755) == 0, "mkdir");
    /* the openssl binary must run here (not so in a cross build) */
    {
        struct child c;
        char *argv[] = {(char *)openssl_bin, "version", NULL};
        char *what[] = {"openssl version"};
        snprintf(path, sizeof path, "%s", dir_o);
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        child_start(&c, openssl_bin, argv, path, fd);
        close(fd);
        children_wait(&c, 1, what);
        int ok = c.status == 0 && c.io[0].len > 8 &&
                 memcmp(c.io[0].p, "OpenSSL ", 8) == 0;
        buf_free(&c.io[0]);
        buf_free(&c.io[1]);
        if (!ok)
            skip("the openssl program does not run here");
    }
}

/* ---- the oracle --------------------------------------------------------------------- */

/* The data part of a run's output: the -out file, or stdout after the
 * -p/-P lines. */
static const unsigned char *data_of(const struct run *r, const struct model *m,
                                    size_t lines, size_t *len)
{
    static const unsigned char none[1];
    if (!stream_path(m->out)) {
        *len = r->target ? r->target_len : 0;
        return r->target ? r->target : none;
    }
    *len = r->out.len - lines;
    return r->out.p ? r->out.p + lines : none;
}

/* base64 text -> bytes with the model (what an encoder that passes the
 * b64 target wrote); NULL if invalid. */
static unsigned char *unb64(const unsigned char *p, size_t n, size_t *len)
{
    unsigned char *out = malloc(n / 4 * 3 + 3);
    FZ_CHECK(out != NULL, "out of memory");
    if (!b64m_decode(p, n, out, len)) {
        free(out);
        return NULL;
    }
    return out;
}

static int same_bytes(const unsigned char *a, size_t na,
                      const unsigned char *b, size_t nb)
{
    return na == nb && (na == 0 || memcmp(a, b, na) == 0);
}

/* Bytes of the first `lines` lines of p (each up to and including its
 * newline, at most cap - 1 bytes: tool_read_line / openssl's BIO_gets). */
static size_t skip_lines(const unsigned char *p, size_t n, int lines,
                         size_t cap)
{
    size_t at = 0;
    while (lines-- > 0 && at < n) {
        size_t k = 0;
        while (at + k < n && k < cap - 1 && p[at + k] != '\n')
            k++;
        if (at + k < n && k < cap - 1)
            k++;
        at += k;
    }
    return at;
}

/* text as base64 input: if rijn's reading of it (the model) is not
 * openssl's (invalid, or a documented difference), the text as openssl
 * writes it, of the bytes rijn decodes (of the groups before the
 * defect when invalid) into *canon; *invalid set accordingly. */
static void b64_for_openssl(const unsigned char *p, size_t n, int olb64,
                            unsigned char **canon, size_t *canon_len,
                            int *invalid)
{
    unsigned char *dec = malloc(n / 4 * 3 + 3);
    size_t dec_len;
    FZ_CHECK(dec != NULL, "out of memory");
    int valid = b64m_decode(p, n, dec, &dec_len);
    *canon = NULL;
    *invalid = !valid;
    if (!valid || b64m_documented_difference(p, n, olb64) != NULL) {
        /* README.md, Deliberate differences: invalid base64 is an error
         * in rijn (openssl: empty or partial output, status 0); input
         * without a final newline, with newlines under -A, or (doc/rijn.1)
         * with lines of any length is decoded (openssl writes nothing) */
        *canon = malloc(b64m_encoded_len(dec_len) + 1);
        FZ_CHECK(*canon != NULL, "out of memory");
        *canon_len = b64m_encode(dec, dec_len, olb64, *canon);
    }
    free(dec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in in = {data, size};
    struct model mm, *m = &mm;
    struct tok t[16];
    size_t nt;
    unsigned char raw[MAX_DATA], body[MAX_DATA + 8];
    size_t raw_len, body_len, text_len;
    struct argv_buf *ar = calloc(1, sizeof *ar), *ao = calloc(1, sizeof *ao);
    struct run res[2], *rr = &res[0], *ro = &res[1];
    struct spec sp[2];
    unsigned char *text, *text_o, *canon = NULL, *stdin_o = NULL;
    size_t text_o_len, stdin_o_len = 0;

    FZ_CHECK(ar != NULL && ao != NULL, "out of memory");
    setup();
    memset(res, 0, sizeof res);

    /* ---- argv ---- */
    memset(m, 0, sizeof *m);
    unsigned h0 = fz_u8(&in), h1 = fz_u8(&in);
    m->cmd = (int)(h0 & 7);
    m->enc = 1;
    int stdin_pipe = h0 >> 3 & 1, out_exists = h0 >> 4 & 1;
    unsigned shape = h0 >> 5;
    nt = h1 & 15;
    for (size_t i = 0; i < nt; i++) {
        static const int spell[6] = {0, 0, 1, 2, 0, 1};
        unsigned b = fz_u8(&in);
        t[i].o = &opts[b % NOPTS];
        t[i].spelling = spell[(b / NOPTS) % 6];
        if ((t[i].o->kind == K_CIPHER || t[i].o->kind == K_EXTRA) &&
            t[i].spelling == 2)
            t[i].spelling = 0;
        t[i].v = t[i].o->vals ? &t[i].o->vals[fz_u8(&in) % t[i].o->nvals]
                              : NULL;
    }
    if ((h1 & 0x80) && nt > 0 && t[nt - 1].o->vals != NULL &&
        t[nt - 1].o->kind != K_CIPHER && t[nt - 1].o->kind != K_EXTRA) {
        t[nt - 1].v = NULL; /* the last option lacks its value */
        t[nt - 1].spelling = 0;
    }
    raw_len = fz_left(&in) > MAX_DATA ? MAX_DATA : fz_left(&in);
    fz_bytes(&in, raw, raw_len);
    model_argv(m, t, nt);

    /* ---- the input: in.bin, also standard input ---- */
    /* decrypting, shape bit 0: a Salted__ header, the salt from the data */
    body_len = raw_len;
    memcpy(body, raw, raw_len);
    if (!m->enc && (shape & 1)) {
        memcpy(body, "Salted__", 8);
        memcpy(body + 8, raw, raw_len);
        body_len = raw_len + 8;
    }
    /* decrypting with -a: base64 in a layout shape picks: 0 as openssl
     * writes it (64 columns, or one line with -A); 1 64 columns even
     * with -A; 2 76 columns, CR LF; 3 no final newline; 4 one line
     * with a newline; 5 lines of 1100; 6 a byte that is not base64
     * inserted; 7 as 0 */
    int b64_in = !m->enc && m->base64;
    text = malloc(4 * body_len + 64);
    FZ_CHECK(text != NULL, "out of memory");
    if (b64_in) {
        unsigned lay = shape >> 1 | (shape & 1) << 2;
        unsigned char *one = malloc(b64m_encoded_len(body_len) + 1);
        FZ_CHECK(one != NULL, "out of memory");
        size_t one_len = b64m_encode(body, body_len, 1, one);
        size_t w = lay == 1 ? 64 : lay == 2 ? 76 : lay == 4 ? 0
                 : lay == 5 ? 1100 : m->olb64 ? 0 : 64;
        text_len = 0;
        for (size_t i = 0; i < one_len; i++) {
            text[text_len++] = one[i];
            if (w && (i + 1) % w == 0 && i + 1 < one_len) {
                if (lay == 2)
                    text[text_len++] = '\r';
                text[text_len++] = '\n';
            }
        }
        if (one_len > 0 && (w != 0 || lay == 4) && lay != 3) {
            if (lay == 2)
                text[text_len++] = '\r';
            text[text_len++] = '\n';
        }
        if (lay == 6) {
            size_t at = raw_len ? raw[0] % (text_len + 1) : 0;
            memmove(text + at + 1, text + at, text_len - at);
            text[at] = (unsigned char)"*-.!\0\x80_~"[raw_len > 1 ? raw[1] & 7
                                                                 : 0];
            text_len++;
        }
        free(one);
    } else {
        memcpy(text, body, body_len);
        text_len = body_len;
    }

    /* Lines of standard input a password takes before the data (README:
     * the prompt "without a terminal ... reads standard input"; -pass
     * stdin and fd:0 read one line) */
    int pw_arg = m->pw || m->passarg != NULL;
    int stdin_data = stream_path(m->in);
    int pw_lines = 0;
    if (stdin_data && !m->help && !m->list) {
        if (!pw_arg && m->key_hex == NULL)
            pw_lines = m->enc ? 2 : 1;
        else if (!m->pw && m->passarg != NULL &&
                 (!strcmp(m->passarg, "stdin") || !strcmp(m->passarg, "fd:0")))
            pw_lines = 1;
    }
    size_t pre = skip_lines(text, text_len, pw_lines, 1024);
    int prompt_nul = pw_lines > 0 && !pw_arg && memchr(text, '\0', pre);

    /* openssl's input, where rijn reads it differently by its
     * documentation: base64 (b64_for_openssl) */
    text_o = text;
    text_o_len = text_len;
    int b64_invalid = 0, b64_shown = 0; /* canon given to openssl */
    if (b64_in && (stdin_data || !strcmp(m->in, "in.bin"))) {
        size_t canon_len;
        b64_for_openssl(text + pre, text_len - pre, m->olb64, &canon,
                        &canon_len, &b64_invalid);
        if (canon != NULL) {
            unsigned char *o = malloc(pre + canon_len + 1);
            FZ_CHECK(o != NULL, "out of memory");
            memcpy(o, text, pre);
            memcpy(o + pre, canon, canon_len);
            free(canon);
            canon = text_o = o;
            text_o_len = pre + canon_len;
            b64_shown = 1;
        }
    } else if (b64_in && !strcmp(m->in, "out.bin") && out_exists) {
        /* the old output file as base64 input: not base64 */
        unsigned char *c;
        size_t cl;
        b64_for_openssl(prev_out, sizeof prev_out - 1, m->olb64, &c, &cl,
                        &b64_invalid);
        free(c);
    }
    /* README.md, Deliberate differences: "-pass fd:0 leaves the rest of
     * stdin to the data (openssl's buffer may swallow it)": openssl gets
     * the password as pass: and the rest of its input on stdin */
    char pass_o[1100];
    int fd0 = pw_lines == 1 && m->passarg != NULL &&
              !strcmp(m->passarg, "fd:0") && text_len > 0;
    if (fd0) {
        size_t k;
        for (k = 0; k < pre && text[k] != '\n' && text[k] != '\0'; k++)
            ;
        snprintf(pass_o, sizeof pass_o, "pass:%.*s", (int)k,
                 (const char *)text);
        stdin_o = text_o + pre;
        stdin_o_len = text_o_len - pre;
    }

    build_argv(ar, rijn_bin, m, t, nt, 0, NULL, NULL);
    build_argv(ao, openssl_bin, m, t, nt, 1, fd0 ? pass_o : NULL, NULL);
    char **argv_r = ar->v;
    if (getenv("RIJN_FUZZ_VERBOSE") != NULL) {
        char shown[2048];
        show_argv(shown, sizeof shown, ar->v);
        fprintf(stderr, "enc_args: rijn argv %s\n", shown);
        show_argv(shown, sizeof shown, ao->v);
        fprintf(stderr, "enc_args: openssl argv %s\nenc_args: input%s "
                "(%zu bytes): \"", shown, stdin_pipe ? " (pipe)" : "",
                text_len);
        for (size_t i = 0; i < text_len; i++)
            fprintf(stderr, text[i] >= 32 && text[i] < 127 && text[i] != '\\'
                                ? "%c" : "\\x%02x", text[i]);
        fprintf(stderr, "\"\n");
    }

    /* the in-process parser, for coverage (and its verdict) */
    reset_dir(dir_r, text, text_len, out_exists);
    int rc_parse = parse_in_process(ar);

    const char *refusal = m->refusal ? m->refusal : m->refusal_end;

    /* ---- run ---- */
    memset(sp, 0, sizeof sp);
    sp[0].argv = ar->v;
    sp[0].dir = dir_r;
    sp[0].file = text;
    sp[0].file_len = text_len;
    sp[0].pipe = stdin_pipe;
    sp[0].out_exists = out_exists;
    sp[0].target = stream_path(m->out) ? NULL : m->out;
    sp[1] = sp[0];
    sp[1].argv = ao->v;
    sp[1].dir = dir_o;
    sp[1].file = text_o;
    sp[1].file_len = text_o_len;
    sp[1].stdin_data = stdin_o;
    sp[1].stdin_len = stdin_o_len;
    /* a documented refusal decides alone: openssl is not asked */
    run_specs(sp, refusal ? 1 : 2, res);

    check_rijn_alone(argv_r, rr, m, out_exists);
    /* (the aes-128-cbc command never reaches the parser: main.c) */
    if (rc_parse == 1 && m->cmd != 7)
        EXPECT(rr->status == 1, "enc_parse_args refuses argv, rijn exits 0");
    if (rc_parse == 2 && m->cmd != 7)
        EXPECT(rr->status == 0, "enc_parse_args prints help, rijn fails");
    if (rr->status != 0) {
        size_t n;
        unsigned char *now = read_file(dir_r, "in.bin", &n);
        EXPECT(now != NULL && same_bytes(now, n, text, text_len),
               "a failed rijn changed its input file");
        free(now);
    }

    if (refusal != NULL) {
        EXPECT(rr->status == 1, refusal);
        EXPECT(rr->out.len == 0, "a refused argv writes to stdout");
        goto done;
    }
    if (m->help || m->list) {
        /*
         * -help and -list: openssl acts on the first of them when it
         * meets it and never looks at the rest of argv; rijn stops at
         * -help too, but checks what comes before it more eagerly
         * (unknown names: openssl resolves those after parsing), and
         * parses every argument after -list before it lists. So rijn
         * may refuse at parse time an argv openssl answers with exit 0.
         * NOT documented in README.md or doc/rijn.1: reported (issue 19,
         * fuzz target enc_args); encoded narrowly: only a parse-time
         * refusal (enc_parse_args returns 1), with nothing on stdout.
         */
        if ((rr->status == 0) != (ro->status == 0)) {
            EXPECT(ro->status == 0 && rc_parse == 1 && rr->out.len == 0,
                   "-help/-list: exit status differs from openssl's");
            goto done;
        }
        static const char list[] =
            "Supported ciphers:\n-aes-128-ctr -aes-192-ctr -aes-256-ctr\n";
        if (rr->status == 0 && m->list_first) {
            /* (rijn still shows its usage for a -help after -list) */
            EXPECT(m->help || same_bytes(rr->out.p, rr->out.len,
                                         (const unsigned char *)list,
                                         sizeof list - 1),
                   "-list: not the three AES-CTR ciphers");
            EXPECT(ro->out.p != NULL &&
                       strstr((char *)ro->out.p, "-aes-128-ctr") != NULL &&
                       strstr((char *)ro->out.p, "-aes-256-ctr") != NULL,
                   "-list: openssl does not list AES-CTR");
        }
        /* -help: each prints its own usage (rijn on stdout, openssl on
         * stderr): only the status is compared */
        goto done;
    }
    /* README.md, Deliberate differences: "a directory as input
     * (openssl: empty output, status 0) ... and input = output are
     * errors" (doc/rijn.1 SAFETY: "also through a link or standard
     * input/output"); -P touches no output, so there is no clash */
    const char *in_name = stdin_data ? (stdin_pipe ? NULL : "in.bin") : m->in;
    const char *out_name = stream_path(m->out) ? NULL : m->out;
    if (in_name && !strcmp(in_name, "dir")) {
        EXPECT(rr->status == 1, "a directory as input is not refused");
        goto done;
    }
    if (m->printkey != 2 && in_name && out_name &&
        !strcmp(in_name, out_name) &&
        (!strcmp(in_name, "in.bin") || out_exists)) {
        EXPECT(rr->status == 1, "input = output is not refused");
        goto done;
    }

    if (m->printkey) {
        lines_first(rr);
        lines_first(ro);
    }
    size_t lr = m->printkey ? key_lines(&rr->out, 0) : 0;
    size_t lo = m->printkey ? key_lines(&ro->out, 0) : 0;
    size_t dr_len, do_len;
    const unsigned char *dr = data_of(rr, m, lr, &dr_len);
    const unsigned char *dd = data_of(ro, m, lo, &do_len);

    if (b64_invalid && m->printkey != 2) {
        /* README.md: invalid base64 is an error; what rijn wrote to a
         * stream before it failed must be openssl's output for the data
         * before the defect */
        EXPECT(rr->status == 1, "invalid base64 input is not an error");
        if (stream_path(m->out) && b64_shown)
            EXPECT(dr_len <= do_len && memcmp(dr, dd, dr_len) == 0,
                   "invalid base64: what rijn wrote before failing is not "
                   "what openssl writes for the data before the defect");
        goto done;
    }

    if (prompt_nul) {
        /* doc/rijn.1, DIFFERENCES FROM OPENSSL: a password typed at the
         * prompt (here read from standard input) that holds a NUL byte
         * is refused; openssl keeps the part before the NUL and discards
         * the next line, or fails at the end of the input */
        EXPECT(rr->status == 1, "a prompted password with a NUL byte is "
                                "not refused");
        goto done;
    }
    if (m->huge_bufsize && ro->status != 0 && rr->status == 0) {
        /* -bufsize 2097151k: openssl computes its buffer sizes in int
         * and fails ("Could not allocate 18446744072367373012 bytes");
         * rijn accepts the value (doc/rijn.1: "Accepted and checked as
         * openssl does" and rijn "chooses its own I/O sizes"). NOT
         * documented: reported. rijn's output must be openssl's with a
         * -bufsize it can allocate. */
        for (int i = 0; ao->v[i] != NULL; i++)
            if (!strcmp(ao->v[i], "2097151k"))
                ao->v[i] = "1024k";
            else if (!strcmp(ao->v[i], "-bufsize=2097151k"))
                ao->v[i] = "-bufsize=1024k";
        run_free(ro);
        run_specs(&sp[1], 1, ro);
        if (m->printkey)
            lines_first(ro);
        lo = m->printkey ? key_lines(&ro->out, 0) : 0;
        dd = data_of(ro, m, lo, &do_len);
        m->verbose_differs = 1; /* -v shows the other bufsize */
    }
    EXPECT((rr->status == 0) == (ro->status == 0),
           "exit status differs from openssl's");
    if (rr->status != 0) {
        /* doc/rijn.1, DIFFERENCES FROM OPENSSL: "the output is not
         * touched before the run can succeed" (SAFETY: every argument is
         * checked, the input opened, the key derived first); openssl may
         * have written a Salted__ header or -p lines before it failed:
         * rijn's stdout is a prefix of openssl's */
        EXPECT(rr->out.len <= ro->out.len &&
                   (rr->out.len == 0 ||
                    memcmp(rr->out.p, ro->out.p, rr->out.len) == 0),
               "both fail; rijn wrote other bytes to stdout than openssl");
        goto done;
    }

    /* ---- both succeeded ---- */
    /* doc/rijn.1 -debug: "Accepted and ignored" (openssl traces its BIO
     * calls on stderr); -progress is rijn's own line on stderr */
    int cmp_err = !m->debug && !m->progress && !m->verbose_differs;
    int random_salt = m->enc && !m->nosalt && m->salt_hex == NULL &&
                      (pw_arg || m->key_hex == NULL);
    if (random_salt) {
        /* the salt rijn drew; openssl again, with -S set to it (which
         * then writes no Salted__ header: doc/rijn.1 -S) */
        unsigned char salt[8];
        char salt_hex[17];
        if (m->printkey) {
            EXPECT(lr >= 22 && memcmp(rr->out.p, "salt=", 5) == 0,
                   "-p/-P without the salt line");
            for (int i = 0; i < 8; i++) {
                unsigned v;
                EXPECT(sscanf((char *)rr->out.p + 5 + 2 * i, "%2X", &v) == 1,
                       "salt line not hex");
                salt[i] = (unsigned char)v;
            }
        } else {
            size_t n = dr_len;
            unsigned char *bytes = m->base64 ? unb64(dr, dr_len, &n) : NULL;
            const unsigned char *p = m->base64 ? bytes : dr;
            EXPECT(p != NULL && n >= 16 && memcmp(p, "Salted__", 8) == 0,
                   "encryption with a password: no Salted__ header");
            memcpy(salt, p + 8, 8);
            free(bytes);
        }
        for (int i = 0; i < 8; i++)
            snprintf(salt_hex + 2 * i, 3, "%02X", salt[i]);
        build_argv(ao, openssl_bin, m, t, nt, 1, fd0 ? pass_o : NULL,
                   salt_hex);
        /* stderr is compared with the first run (-v counts the header
         * that -S leaves out) */
        struct buf first_err = ro->err;
        memset(&ro->err, 0, sizeof ro->err);
        /* where the -p lines are on stdout (lines_first): after what
         * openssl has written of the Salted__ header by then, in both */
        if (m->printkey == 1 && stream_path(m->out))
            EXPECT(rr->key_at == ro->key_at,
                   "-p: the key lines are not at the same place on stdout "
                   "as openssl's");
        run_free(ro);
        run_specs(&sp[1], 1, ro);
        buf_free(&ro->err);
        ro->err = first_err;
        if (m->printkey)
            lines_first(ro);
        lo = m->printkey ? key_lines(&ro->out, 0) : 0;
        dd = data_of(ro, m, lo, &do_len);
        EXPECT(ro->status == 0, "openssl with rijn's salt as -S fails");
        EXPECT(same_bytes(rr->out.p, lr, ro->out.p, lo),
               "-p/-P lines differ (same salt)");
        if (m->printkey != 2) {
            size_t nr = dr_len, no = do_len;
            unsigned char *br = m->base64 ? unb64(dr, dr_len, &nr) : NULL;
            unsigned char *bo = m->base64 ? unb64(dd, do_len, &no) : NULL;
            const unsigned char *pr = m->base64 ? br : dr;
            const unsigned char *po = m->base64 ? bo : dd;
            EXPECT(pr != NULL && po != NULL, "base64 output does not decode");
            EXPECT(nr == no + 16 && memcmp(pr, "Salted__", 8) == 0 &&
                       memcmp(pr + 8, salt, 8) == 0 &&
                       (no == 0 || memcmp(pr + 16, po, no) == 0),
                   "output differs from openssl's with the same salt");
            if (m->base64) {
                /* laid out as openssl writes base64 */
                unsigned char *lay = malloc(b64m_encoded_len(nr) + 1);
                FZ_CHECK(lay != NULL, "out of memory");
                size_t ll = b64m_encode(pr, nr, m->olb64, lay);
                EXPECT(same_bytes(lay, ll, dr, dr_len),
                       "base64 output not in openssl's layout");
                free(lay);
            }
            free(br);
            free(bo);
        }
        if (cmp_err)
            EXPECT(same_bytes(rr->err.p, rr->err.len, ro->err.p, ro->err.len),
                   "standard error differs (same salt)");
        goto done;
    }

    /* -p/-P lines: README.md, Deliberate differences: "-p/-P with -K
     * print salt=0000000000000000 (openssl prints uninitialised
     * memory)" */
    if (m->printkey && !m->nosalt && !pw_arg && m->key_hex != NULL) {
        static const char zero[] = "salt=0000000000000000\n";
        size_t sr = sizeof zero - 1;
        EXPECT(lr >= sr && memcmp(rr->out.p, zero, sr) == 0,
               "-p/-P with -K: the salt line is not zeros");
        const unsigned char *nl = lo ? memchr(ro->out.p, '\n', lo) : NULL;
        size_t so = nl ? (size_t)(nl - ro->out.p) + 1 : 0;
        EXPECT(same_bytes(rr->out.p + sr, lr - sr, ro->out.p + so, lo - so),
               "-p/-P lines differ");
    } else {
        EXPECT(same_bytes(rr->out.p, lr, ro->out.p, lo), "-p/-P lines differ");
    }
    if (m->printkey != 2)
        EXPECT(same_bytes(dr, dr_len, dd, do_len),
               "output differs from openssl's");
    if (!stream_path(m->out) && m->printkey != 2)
        EXPECT(lr == rr->out.len && lo == ro->out.len,
               "stdout holds more than the -p lines with -out");
    if (cmp_err)
        EXPECT(same_bytes(rr->err.p, rr->err.len, ro->err.p, ro->err.len),
               "standard error differs");
done:
    run_free(rr);
    run_free(ro);
    free(canon);
    free(text);
    free(ar);
    free(ao);
    return 0;
}

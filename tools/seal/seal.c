/*
 * `rijn seal` and `rijn open`: authenticated file encryption (AES-256-GCM
 * in 16 KiB chunks, C2SP chunked encryption as Cobblestone-256, in the
 * rijn envelope: doc/format.md).
 *
 * The flow of `open`: read the rijn header, get the key (key file, or
 * passphrase and Argon2id with the header's parameters, over the limits
 * refused first), read the salt and commitment and check the commitment
 * (which covers the header): only then is the output opened. A regular
 * output file is a temporary file renamed into place after the final
 * chunk authenticated, never written in place; standard output gets each
 * chunk once it authenticated, and nothing after the first bad one.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/output.h"
#include "seal.h"
#include "tool.h"

struct opts {
    int open;
    const char *who;
    const char *in_path, *out_path;
    struct seal_key_opts key;
    int argon2_given;
    rijn_seal_params params;
    int threads;             /* 0: the cores available */
    int progress;            /* -1: when stderr is a terminal */
    int have_offset, have_length;
    uint64_t offset, length;
};

static void usage(FILE *f, int open_cmd)
{
    if (!open_cmd)
        fputs(
"usage: rijn seal [-in file] [-out file] [--key-file file |\n"
"                 --passphrase-file file | --passphrase-env VAR]\n"
"                 [--argon2 t,m,p] [--threads n] [--progress]\n"
"\n"
"Encrypt and authenticate a file (AES-256-GCM in 16 KiB chunks, with key\n"
"commitment; format: doc/format.md). Open it with `rijn open`.\n"
"\n"
"  -in file, -out file    input and output (default: standard input and\n"
"                         output; a regular output file is replaced only\n"
"                         once everything was written)\n"
"  --key-file file        the key: a file of exactly 32 random bytes\n"
"                         (head -c 32 /dev/urandom > file)\n"
"  --passphrase-file file a passphrase: the first line of file\n"
"  --passphrase-env VAR   a passphrase: the value of VAR\n"
"                         (none of the three: asked twice on the terminal)\n"
"  --argon2 t,m,p         Argon2id cost for a passphrase: t passes, m KiB\n"
"                         of memory (or with a suffix: 64M, 1G), p lanes;\n"
"                         default 3,256M,4; at most 10,1G,16\n"
"  --threads n            worker threads (default: the cores available)\n"
"  --progress, --no-progress\n"
"                         progress line on stderr (default: when it is a\n"
"                         terminal)\n",
              f);
    else
        fputs(
"usage: rijn open [-in file] [-out file] [--key-file file |\n"
"                 --passphrase-file file | --passphrase-env VAR]\n"
"                 [--offset n] [--length n] [--threads n] [--progress]\n"
"\n"
"Decrypt a file made by `rijn seal`, checking every byte.\n"
"\n"
"  -in file, -out file    input and output (default: standard input and\n"
"                         output)\n"
"  --key-file file, --passphrase-file file, --passphrase-env VAR\n"
"                         the key or passphrase it was sealed with (a\n"
"                         passphrase is asked on the terminal otherwise)\n"
"  --offset n, --length n only message bytes [n, n + length): reads and\n"
"                         checks only the chunks they are in (n in bytes,\n"
"                         or with a suffix K, M, G, T: 1G = 2^30)\n"
"  --threads n, --progress, --no-progress   as for seal\n"
"\n"
"A regular output file appears (or is replaced) only if the whole file\n"
"authenticated; on any error it is left as it was. Standard output gets\n"
"each 16 KiB chunk once it authenticated: after an error, a reader of the\n"
"pipe has received every chunk before the first bad one, and no more.\n"
"\n"
"exit status: 0 success; 1 usage or I/O error; 2 wrong key or passphrase\n"
"(or a modified header); 3 not a rijn sealed file, unsupported version,\n"
"corrupted header, or key derivation parameters over the limits; 4 the\n"
"data was modified, truncated, reordered or extended.\n",
              f);
}

/* see seal.h */
int seal_exit_status(int err)
{
    switch (err) {
    case RIJN_SEAL_EKEY:
        return SEAL_EXIT_KEY;
    case RIJN_SEAL_EMAGIC:
    case RIJN_SEAL_EVERSION:
    case RIJN_SEAL_EHEADER:
    case RIJN_SEAL_ELIMITS:
        return SEAL_EXIT_FORMAT;
    case RIJN_SEAL_ECHUNK:
    case RIJN_SEAL_ETRUNC:
    case RIJN_SEAL_ETRAIL:
    case RIJN_SEAL_ELAST:
        return SEAL_EXIT_DAMAGED;
    default:
        return SEAL_EXIT_ERROR;
    }
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    unsigned long long x;

    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    x = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *v = x;
    return 0;
}

/* A byte count: digits, optionally followed by K, M, G or T (KiB, MiB,
 * GiB, TiB); -1 if malformed or over 2^64 - 1. */
static int parse_bytes(const char *s, uint64_t *v)
{
    static const char units[] = "KMGT";
    char digits[32];
    size_t n = strlen(s);
    const char *u;
    uint64_t x;
    unsigned shift = 0;

    if (n > 0 && n < sizeof digits &&
        (u = strchr(units, s[n - 1] & ~0x20)) != NULL && *u != '\0') {
        shift = 10 * (unsigned)(u - units + 1);
        memcpy(digits, s, n - 1);
        digits[n - 1] = '\0';
        s = digits;
    }
    if (parse_u64(s, &x) != 0 || (shift > 0 && x > (UINT64_MAX >> shift)))
        return -1;
    *v = x << shift;
    return 0;
}

/* "t,m,p": m in KiB, or with a suffix K, M, G (KiB, MiB, GiB). */
static int parse_argon2(const char *s, rijn_seal_params *p)
{
    char *end;
    unsigned long t, m, lanes, mul = 1;

    errno = 0;
    t = strtoul(s, &end, 10);
    if (end == s || *end != ',')
        return -1;
    s = end + 1;
    m = strtoul(s, &end, 10);
    if (end == s)
        return -1;
    if (*end == 'k' || *end == 'K')
        end++;
    else if (*end == 'm' || *end == 'M')
        mul = 1024, end++;
    else if (*end == 'g' || *end == 'G')
        mul = 1024 * 1024, end++;
    if (*end != ',')
        return -1;
    s = end + 1;
    lanes = strtoul(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0)
        return -1;
    if (t > RIJN_SEAL_ARGON2_MAX_T || lanes > RIJN_SEAL_ARGON2_MAX_P ||
        m > RIJN_SEAL_ARGON2_MAX_M / mul)
        return -2;
    p->t_cost = (uint32_t)t;
    p->m_cost = (uint32_t)(m * mul);
    p->parallelism = (uint32_t)lanes;
    if (t < 1 || lanes < 1 || p->m_cost < 8 * p->parallelism)
        return -2;
    return 0;
}

/* Returns 0 to go on, 1 on error (message printed), 2 after --help. */
static int parse_args(struct opts *o, int argc, char **argv)
{
    o->progress = -1;
    o->params.mode = RIJN_SEAL_PASSPHRASE;
    o->params.t_cost = RIJN_SEAL_ARGON2_T;
    o->params.m_cost = RIJN_SEAL_ARGON2_M;
    o->params.parallelism = RIJN_SEAL_ARGON2_P;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL, *eq;
        char name[32];
        size_t len;

        if (tool_is_help(a)) {
            usage(stdout, o->open);
            return 2;
        }
        if (a[0] != '-' || a[1] == '\0') {
            tool_err("%s: unexpected argument '%s' (the files are given "
                     "with -in and -out; see `rijn %s --help`)", o->who, a,
                     o->who);
            return 1;
        }
        a += a[1] == '-' ? 2 : 1;
        eq = strchr(a, '=');
        len = eq ? (size_t)(eq - a) : strlen(a);
        if (len >= sizeof name) {
            tool_err("%s: unknown option '%s'", o->who, argv[i]);
            return 1;
        }
        memcpy(name, a, len);
        name[len] = '\0';
        if (!strcmp(name, "progress") || !strcmp(name, "no-progress") ||
            !strcmp(name, "noprogress")) {
            if (eq) {
                tool_err("%s: --%s takes no value", o->who, name);
                return 1;
            }
            o->progress = name[0] == 'p';
            continue;
        }
        if (strcmp(name, "in") && strcmp(name, "out") &&
            strcmp(name, "key-file") && strcmp(name, "passphrase-file") &&
            strcmp(name, "passphrase-env") && strcmp(name, "threads") &&
            (o->open || strcmp(name, "argon2")) &&
            (!o->open || (strcmp(name, "offset") && strcmp(name, "length")))) {
            tool_err("%s: unknown option '%s' (see `rijn %s --help`)", o->who,
                     argv[i], o->who);
            return 1;
        }
        if (eq) {
            val = eq + 1;
        } else if (i + 1 < argc) {
            val = argv[++i];
        } else {
            tool_err("%s: option '%s' needs a value", o->who, argv[i]);
            return 1;
        }
        if (!strcmp(name, "in")) {
            o->in_path = val;
        } else if (!strcmp(name, "out")) {
            o->out_path = val;
        } else if (!strcmp(name, "key-file")) {
            o->key.key_file = val;
        } else if (!strcmp(name, "passphrase-file")) {
            o->key.pass_file = val;
        } else if (!strcmp(name, "passphrase-env")) {
            o->key.pass_env = val;
        } else if (!strcmp(name, "threads")) {
            uint64_t n;
            if (parse_u64(val, &n) != 0 || n < 1 || n > 64) {
                tool_err("%s: --threads %s: expected a number from 1 to 64",
                         o->who, val);
                return 1;
            }
            o->threads = (int)n;
        } else if (!strcmp(name, "argon2")) {
            int r = parse_argon2(val, &o->params);
            if (r != 0) {
                tool_err("%s: --argon2 %s: %s", o->who, val,
                         r == -1 ? "expected t,m,p (passes, memory in KiB "
                                   "or with a suffix K, M, G, lanes)"
                                 : "out of range: t 1..10, m 8p KiB .. 1G, "
                                   "p 1..16");
                return 1;
            }
            o->argon2_given = 1;
        } else {
            uint64_t v;
            if (parse_bytes(val, &v) != 0) {
                tool_err("%s: --%s %s: expected a number of bytes (or "
                         "with a suffix K, M, G, T)", o->who, name, val);
                return 1;
            }
            if (name[0] == 'o') {
                o->offset = v;
                o->have_offset = 1;
            } else {
                o->length = v;
                o->have_length = 1;
            }
        }
    }
    if (o->key.key_file && (o->key.pass_file || o->key.pass_env)) {
        tool_err("%s: give a key file or a passphrase, not both", o->who);
        return 1;
    }
    if (o->key.pass_file && o->key.pass_env) {
        tool_err("%s: give one passphrase source, not two", o->who);
        return 1;
    }
    if (o->argon2_given && o->key.key_file) {
        tool_err("%s: --argon2 applies to passphrases, not to a key file",
                 o->who);
        return 1;
    }
    if (o->have_length && o->length > UINT64_MAX - o->offset) {
        tool_err("%s: --offset + --length is too large", o->who);
        return 1;
    }
    return 0;
}

static int default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

struct state {
    struct opts o;
    int in_fd;
    struct stat in_st;
    const char *in_name;
    unsigned char header[RIJN_SEAL_HEADER_MAX];
    size_t header_len;
    unsigned char key[32];
    rijn_chunked c;
    int c_ready;
    struct output out;
    int out_open;
    void *map;              /* seal: the mapped input, or NULL */
    size_t map_len;
};

static int open_input(struct state *s)
{
    s->in_name = s->o.in_path ? s->o.in_path : "standard input";
    if (s->o.in_path != NULL) {
        s->in_fd = open(s->o.in_path, O_RDONLY | O_CLOEXEC);
        if (s->in_fd < 0) {
            tool_err("%s: %s: %s", s->o.who, s->o.in_path, strerror(errno));
            return -1;
        }
    } else {
        s->in_fd = STDIN_FILENO;
    }
    if (fstat(s->in_fd, &s->in_st) != 0) {
        tool_err("%s: %s: %s", s->o.who, s->in_name, strerror(errno));
        return -1;
    }
    if (S_ISDIR(s->in_st.st_mode)) {
        tool_err("%s: %s: is a directory", s->o.who, s->in_name);
        return -1;
    }
    return 0;
}

static int format_error(struct state *s, int err)
{
    tool_err("%s: %s: %s", s->o.who, s->in_name, rijn_seal_strerror(err));
    return seal_exit_status(err);
}

/* The passphrase key for the parameters in p (Argon2id). 0 or an exit
 * status. */
static int passphrase_key(struct state *s, const rijn_seal_params *p,
                          int confirm)
{
    char *pass;
    int r;

    if (!rijn_seal_have_argon2()) {
        tool_err("%s: this rijn was built without libargon2: passphrases "
                 "are not available (use --key-file)", s->o.who);
        return SEAL_EXIT_ERROR;
    }
    pass = seal_get_passphrase(s->o.who, &s->o.key, confirm);
    if (pass == NULL)
        return SEAL_EXIT_ERROR;
    r = rijn_seal_passphrase_key(s->key, p, (const unsigned char *)pass,
                                 strlen(pass));
    rijn_wipe(pass, strlen(pass));
    free(pass);
    if (r != RIJN_SEAL_OK) {
        tool_err("%s: Argon2id (t=%" PRIu32 ", m=%" PRIu32 " KiB, p=%" PRIu32
                 ") failed: out of memory?", s->o.who, p->t_cost, p->m_cost,
                 p->parallelism);
        return SEAL_EXIT_ERROR;
    }
    return 0;
}

/*
 * A regular input is read by the worker threads with pread(), each slot
 * from its own offset, from the current position to the end the file has
 * now (RIJN_SEAL_IO=read: by the reader thread with read(), in order, as
 * a pipe is; for tests). `open` never maps it: a process that can write
 * the file could change a mapped byte between the two reads of it that a
 * GCM decrypt may make (one for GHASH, one for the XOR), and the tag would
 * pass over bytes other than those decrypted. `seal` maps its input (no
 * copy, nothing to wipe; RIJN_SEAL_IO=pread: pread as open does): a
 * plaintext byte changed under it changes the sealed message, which still
 * authenticates as what it is, as with a file changed while read(). If
 * the file shrinks meanwhile, SIGBUS ends the run through
 * signals_install()'s handler, removing the temporary output. Sets
 * r->total for the progress line too.
 */
static void plan_input(struct state *s, struct seal_run *r)
{
    const char *io = getenv("RIJN_SEAL_IO");
    long page = sysconf(_SC_PAGESIZE);
    uint64_t skip;
    off_t pos;

    if (!S_ISREG(s->in_st.st_mode) ||
        (pos = lseek(s->in_fd, 0, SEEK_CUR)) < 0 || s->in_st.st_size < pos)
        return;
    r->total = (uint64_t)(s->in_st.st_size - pos);
    if (io != NULL && strcmp(io, "read") == 0)
        return;
    r->in_off = (uint64_t)pos;
    r->in_len = r->total;
    r->in_pread = 1;
    if (s->o.open || (io != NULL && strcmp(io, "pread") == 0) || page <= 0 ||
        r->in_len == 0)
        return;
    skip = (uint64_t)pos % (uint64_t)page;
    if (r->in_len + skip > SIZE_MAX)
        return; /* a 32-bit host and a file too large to map: pread it */
    s->map = mmap(NULL, (size_t)(r->in_len + skip), PROT_READ, MAP_SHARED,
                  s->in_fd, pos - (off_t)skip);
    if (s->map == MAP_FAILED) {
        s->map = NULL;
        return;
    }
    s->map_len = (size_t)(r->in_len + skip);
    madvise(s->map, s->map_len, MADV_SEQUENTIAL);
    r->in_map = (const unsigned char *)s->map + skip;
    r->in_pread = 0;
}

static int run_data(struct state *s, struct seal_run *r)
{
    struct opts *o = &s->o;

    r->c = &s->c;
    r->open = o->open;
    r->in_fd = s->in_fd;
    r->in_name = s->in_name;
    r->out_fd = s->out.fd;
    r->out_name = s->out.name;
    r->who = o->who;
    r->threads = o->threads > 0 ? o->threads : default_threads();
    r->progress = o->progress >= 0 ? o->progress : isatty(STDERR_FILENO);
    if (seal_run_data(r) == 0)
        return 0;
    if (r->fmt_err == 0)
        return SEAL_EXIT_ERROR;
    if (r->fmt_err == RIJN_SEAL_ETOOBIG) {
        tool_err("%s: %s: too long for the format (at most 2^38 chunks, "
                 "4 PiB)", o->who, s->in_name);
        return SEAL_EXIT_ERROR;
    }
    tool_err("%s: %s: %s (chunk %" PRIu64 ", message bytes from %" PRIu64
             ")", o->who, s->in_name, rijn_seal_strerror(r->fmt_err),
             r->fmt_chunk, r->fmt_chunk * RIJN_CHUNK);
    if (!s->out.is_regular_tmp && r->written > 0)
        tool_err("%s: %s received the first %" PRIu64 " bytes, every one "
                 "authenticated, and nothing after them", o->who,
                 s->out.name, r->written);
    return seal_exit_status(r->fmt_err);
}

static int do_seal(struct state *s)
{
    struct opts *o = &s->o;
    struct seal_run r;
    int rc;

    if (o->out_path == NULL && isatty(STDOUT_FILENO)) {
        tool_err("seal: refusing to write a sealed file to a terminal; give "
                 "-out or redirect standard output");
        return SEAL_EXIT_ERROR;
    }
    if (open_input(s) != 0)
        return SEAL_EXIT_ERROR;
    if (o->key.key_file != NULL) {
        o->params.mode = RIJN_SEAL_KEYFILE;
        if (seal_read_key_file("seal", o->key.key_file, s->key) != 0)
            return SEAL_EXIT_ERROR;
    }
    rc = rijn_seal_header_write(s->header, &o->params, 1);
    if (rc < 0) {
        tool_err("seal: %s", rijn_seal_strerror(rc));
        return SEAL_EXIT_ERROR;
    }
    s->header_len = (size_t)rc;
    if (o->params.mode == RIJN_SEAL_PASSPHRASE &&
        (rc = passphrase_key(s, &o->params, 1)) != 0)
        return rc;
    rc = rijn_chunked_init_seal(&s->c, s->key, s->header, s->header_len,
                                NULL);
    rijn_wipe(s->key, sizeof s->key);
    if (rc != RIJN_SEAL_OK) {
        tool_err("seal: %s", rijn_seal_strerror(rc));
        return SEAL_EXIT_ERROR;
    }
    s->c_ready = 1;

    signals_install("seal");
    if (output_open(&s->out, "seal", o->out_path, &s->in_st,
                    OUTPUT_ATOMIC_ONLY | OUTPUT_SYNC) != 0)
        return SEAL_EXIT_ERROR;
    s->out_open = 1;
    unsigned char head[RIJN_SEAL_HEADER_MAX + RIJN_CHUNKED_HEADER];
    memcpy(head, s->header, s->header_len);
    memcpy(head + s->header_len, s->c.header, RIJN_CHUNKED_HEADER);
    if (seal_write_all(s->out.fd, head,
                       s->header_len + RIJN_CHUNKED_HEADER) != 0) {
        tool_err("seal: write error on %s: %s", s->out.name,
                 strerror(errno));
        return SEAL_EXIT_ERROR;
    }

    memset(&r, 0, sizeof r);
    r.last_chunk = UINT64_MAX;
    r.win_hi = UINT64_MAX;
    plan_input(s, &r);
    return run_data(s, &r);
}

/* Read and check the rijn header, then get the key. 0 or exit status. */
static int open_header(struct state *s, rijn_seal_params *p)
{
    struct opts *o = &s->o;
    ssize_t got = seal_read_full(s->in_fd, s->header, 10);
    int rc;

    if (got < 0) {
        tool_err("open: read error on %s: %s", s->in_name, strerror(errno));
        return SEAL_EXIT_ERROR;
    }
    if (got == 0) {
        tool_err("open: %s: empty input: %s", s->in_name,
                 rijn_seal_strerror(RIJN_SEAL_EMAGIC));
        return SEAL_EXIT_FORMAT;
    }
    rc = rijn_seal_header_read(s->header, (size_t)got, p);
    if (rc == RIJN_SEAL_ETRUNC && got == 10) {
        ssize_t more = seal_read_full(s->in_fd, s->header + 10, 25);
        if (more < 0) {
            tool_err("open: read error on %s: %s", s->in_name,
                     strerror(errno));
            return SEAL_EXIT_ERROR;
        }
        got += more;
        rc = rijn_seal_header_read(s->header, (size_t)got, p);
    }
    if (rc < 0)
        return format_error(s, rc);
    s->header_len = (size_t)rc;

    if (p->mode == RIJN_SEAL_KEYFILE) {
        if (o->key.key_file == NULL) {
            tool_err("open: %s was sealed with a key file: give --key-file",
                     s->in_name);
            return SEAL_EXIT_ERROR;
        }
        return seal_read_key_file("open", o->key.key_file, s->key) == 0
                   ? 0
                   : SEAL_EXIT_ERROR;
    }
    if (o->key.key_file != NULL) {
        tool_err("open: %s was sealed with a passphrase, not a key file: "
                 "give --passphrase-file or --passphrase-env, or type it",
                 s->in_name);
        return SEAL_EXIT_ERROR;
    }
    return passphrase_key(s, p, 0);
}

/* Position the input at the first chunk --offset needs; sets the chunks
 * and the window of r. 0 or an exit status. */
static int open_range(struct state *s, struct seal_run *r)
{
    struct opts *o = &s->o;
    uint64_t c0, skip;
    off_t pos;

    r->first_chunk = 0;
    r->last_chunk = UINT64_MAX;
    r->win_lo = o->offset;
    r->win_hi = o->have_length ? o->offset + o->length : UINT64_MAX;
    if (!o->have_offset && !o->have_length)
        return 0;
    c0 = o->offset / RIJN_CHUNK;
    pos = lseek(s->in_fd, 0, SEEK_CUR);
    if (S_ISREG(s->in_st.st_mode) && pos >= 0) {
        /* Past the end by the file's size: read the final chunk, so that
         * the end is authenticated before it is reported. */
        uint64_t size = (uint64_t)s->in_st.st_size - (uint64_t)pos;
        int64_t m = rijn_chunked_msg_len(size + RIJN_CHUNKED_HEADER);
        if (m >= 0 && o->offset > (uint64_t)m)
            c0 = (uint64_t)m / RIJN_CHUNK;
    }
    if (o->have_length)
        r->last_chunk = o->length == 0 ? c0
                                       : (o->offset + o->length - 1) /
                                             RIJN_CHUNK;
    if (r->last_chunk < c0)
        r->last_chunk = c0;
    r->first_chunk = c0;
    if (c0 == 0)
        return 0;
    if (c0 > INT64_MAX / RIJN_CHUNK_CT) {
        tool_err("open: --offset %" PRIu64 ": past the end of any message",
                 o->offset);
        return SEAL_EXIT_ERROR;
    }
    skip = c0 * RIJN_CHUNK_CT;
    if (pos >= 0 && lseek(s->in_fd, (off_t)skip, SEEK_CUR) >= 0)
        return 0;
    /* not seekable: read the chunks before it and drop them */
    while (skip > 0) {
        unsigned char buf[65536];
        ssize_t k = seal_read_full(s->in_fd, buf, skip < sizeof buf
                                                  ? (size_t)skip
                                                  : sizeof buf);
        if (k < 0) {
            tool_err("open: read error on %s: %s", s->in_name,
                     strerror(errno));
            return SEAL_EXIT_ERROR;
        }
        if (k == 0) {
            tool_err("open: %s: the input ends before --offset %" PRIu64
                     " (it is truncated, or the offset is past the end)",
                     s->in_name, o->offset);
            return SEAL_EXIT_DAMAGED;
        }
        skip -= (uint64_t)k;
    }
    return 0;
}

static int do_open(struct state *s)
{
    struct opts *o = &s->o;
    rijn_seal_params p;
    unsigned char ch[RIJN_CHUNKED_HEADER];
    struct seal_run r;
    ssize_t got;
    int rc;

    if (o->argon2_given) {
        tool_err("open: --argon2 is for seal; open takes the parameters "
                 "from the file");
        return SEAL_EXIT_ERROR;
    }
    if (open_input(s) != 0)
        return SEAL_EXIT_ERROR;
    if ((rc = open_header(s, &p)) != 0)
        return rc;
    got = seal_read_full(s->in_fd, ch, sizeof ch);
    if (got < 0) {
        tool_err("open: read error on %s: %s", s->in_name, strerror(errno));
        return SEAL_EXIT_ERROR;
    }
    if ((size_t)got < sizeof ch)
        return format_error(s, RIJN_SEAL_ETRUNC);
    rc = rijn_chunked_init_open(&s->c, s->key, s->header, s->header_len, ch);
    rijn_wipe(s->key, sizeof s->key);
    if (rc != RIJN_SEAL_OK)
        return format_error(s, rc);
    s->c_ready = 1;

    memset(&r, 0, sizeof r);
    if ((rc = open_range(s, &r)) != 0)
        return rc;
    signals_install("open");
    if (output_open(&s->out, "open", o->out_path, &s->in_st,
                    OUTPUT_ATOMIC_ONLY | OUTPUT_SYNC) != 0)
        return SEAL_EXIT_ERROR;
    s->out_open = 1;
    plan_input(s, &r);
    if ((rc = run_data(s, &r)) != 0)
        return rc;
    if (o->have_offset && r.msg_end != UINT64_MAX && o->offset > r.msg_end) {
        tool_err("open: --offset %" PRIu64 " is past the end of the "
                 "message (%" PRIu64 " bytes)", o->offset, r.msg_end);
        return SEAL_EXIT_ERROR;
    }
    return 0;
}

static int cmd(int argc, char **argv, int open_cmd)
{
    struct state s;
    int rc;

    memset(&s, 0, sizeof s);
    s.in_fd = -1;
    s.o.open = open_cmd;
    s.o.who = open_cmd ? "open" : "seal";
    rc = parse_args(&s.o, argc, argv);
    if (rc != 0)
        return rc == 2 ? 0 : SEAL_EXIT_ERROR;
    if (tool_check_gcm_impl_env(s.o.who) != 0)
        return SEAL_EXIT_ERROR;
    rc = open_cmd ? do_open(&s) : do_seal(&s);
    if (s.out_open && output_close(&s.out, rc == 0) != 0 && rc == 0)
        rc = SEAL_EXIT_ERROR;
    if (s.c_ready)
        rijn_chunked_wipe(&s.c);
    if (s.map != NULL)
        munmap(s.map, s.map_len);
    rijn_wipe(s.key, sizeof s.key);
    if (s.in_fd > STDERR_FILENO)
        close(s.in_fd);
    return rc;
}

int cmd_seal(int argc, char **argv)
{
    return cmd(argc, argv, 0);
}

int cmd_open(int argc, char **argv)
{
    return cmd(argc, argv, 1);
}

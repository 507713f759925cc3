/*
 * `rijn enc` option parsing, following `openssl enc` (OpenSSL 3.0): the
 * same option names, -opt or --opt, -opt=value, the last of a repeated
 * option wins, any unknown -name is tried as a cipher name. Plus the hex
 * rules of openssl's set_hex() and its password sources.
 */
#define _XOPEN_SOURCE 700

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/prompt.h"
#include "enc.h"
#include "tool.h"

void enc_usage(FILE *f)
{
    fputs(
"usage: rijn enc -aes-{128,192,256}-ctr [options]\n"
"       rijn aes-{128,192,256}-ctr [options]\n"
"\n"
"AES-CTR encryption and decryption, byte for byte like `openssl enc`\n"
"(OpenSSL 3.0) with the same options; see rijn(1).\n"
"\n"
"  -e, -d            encrypt (default) / decrypt\n"
"  -in file          input (default: standard input)\n"
"  -out file         output (default: standard output); a regular file is\n"
"                    replaced atomically, and only if all went well\n"
"  -K hex, -iv hex   raw key and IV (openssl's hex rules and warnings)\n"
"  -k pw, -kfile f   password (-kfile: first line of f)\n"
"  -pass src         password from pass:pw, env:VAR, file:path, fd:N, stdin\n"
"  -pbkdf2           PBKDF2 key derivation (default without it:\n"
"                    EVP_BytesToKey, deprecated)\n"
"  -iter n           PBKDF2 iteration count (implies -pbkdf2; default 10000)\n"
"  -md name          digest: md5, sha1, sha224, sha256 (default), sha384,\n"
"                    sha512\n"
"  -S hex            salt (no `Salted__` header is written or read)\n"
"  -salt, -nosalt    use a salt (default) / none\n"
"  -p, -P            print salt/key/iv; -P: and exit without output\n"
"  -a, -base64       base64-encode the output (encrypt) or decode the input\n"
"                    (decrypt); -A: on one line\n"
"  -v                verbose: buffer size and byte counts\n"
"  -bufsize n[k]     accepted (openssl's I/O size; rijn picks its own)\n"
"  -nopad            accepted (CTR has no padding)\n"
"  -list, -ciphers   list the supported ciphers\n"
"rijn extensions:\n"
"  -threads n        worker threads (default: the cores available)\n"
"  -progress, -noprogress\n"
"                    progress line on stderr (default: when it is a terminal)\n"
"  -impl name        AES backend (see `rijn impl`)\n",
        f);
}

/* ---- ciphers ------------------------------------------------------------ */

static int set_cipher(struct enc_opts *o, const char *name)
{
    static const struct {
        const char *name;
        size_t key_len;
    } ciphers[] = {
        {"aes-128-ctr", 16}, {"aes-192-ctr", 24}, {"aes-256-ctr", 32}};

    for (size_t i = 0; i < sizeof ciphers / sizeof ciphers[0]; i++) {
        if (strcasecmp(name, ciphers[i].name) == 0) {
            o->cipher = ciphers[i].name;
            o->key_len = ciphers[i].key_len;
            o->bad_cipher = NULL;
            return 0;
        }
    }
    return -1;
}

/* Names openssl knows as other ciphers: accepted by the parser so the
 * message can say "not supported by rijn" rather than "unknown". */
static int other_cipher(const char *name)
{
    static const char *const prefixes[] = {
        "aes", "aria", "bf", "blowfish", "camellia", "cast", "chacha20",
        "des", "id-aes", "rc2", "rc4", "seed", "sm4", "none"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncasecmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* ---- numbers ------------------------------------------------------------ */

/* openssl's opt_long(): strtol base 0, the whole string. */
static int parse_long(const char *s, long *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 0);
    if (*s == '\0' || *end != '\0' || errno != 0)
        return -1;
    *out = v;
    return 0;
}

/* -bufsize n[k] with openssl's limits (0 .. INT_MAX). */
static int parse_bufsize(const char *arg, long *out)
{
    char tmp[64];
    size_t len = strlen(arg);
    int k = len >= 2 && arg[len - 1] == 'k';
    long n;

    if (len >= sizeof tmp) {
        tool_err("enc: -bufsize %s: not a number", arg);
        return -1;
    }
    memcpy(tmp, arg, len + 1);
    if (k)
        tmp[len - 1] = '\0';
    if (parse_long(tmp, &n) != 0) {
        tool_err("enc: -bufsize: can't parse \"%s\" as a number", tmp);
        return -1;
    }
    if (n < 0 || (k && n >= LONG_MAX / 1024) || (k ? n * 1024 : n) > INT_MAX) {
        tool_err("enc: -bufsize %s: out of range (0 to %d bytes)", arg,
                 INT_MAX);
        return -1;
    }
    *out = k ? n * 1024 : n;
    return 0;
}

/* ---- -kfile -------------------------------------------------------------- */

/* openssl: first line, at most 127 bytes, trailing CR/LF stripped (the
 * first byte never is: a 1-byte password is "zero length"). */
static char *read_kfile(const char *path)
{
    char buf[128];
    FILE *f = fopen(path, "r");
    int i;

    if (f == NULL) {
        tool_err("enc: -kfile %s: %s", path, strerror(errno));
        return NULL;
    }
    if (fgets(buf, sizeof buf, f) == NULL) {
        fclose(f);
        tool_err("enc: Can't read key from %s", path);
        return NULL;
    }
    fclose(f);
    i = (int)strlen(buf);
    while (--i > 0 && (buf[i] == '\r' || buf[i] == '\n'))
        buf[i] = '\0';
    if (i <= 0) {
        rijn_wipe(buf, sizeof buf);
        tool_err("enc: zero length password (-kfile %s)", path);
        return NULL;
    }
    char *p = strdup(buf);
    rijn_wipe(buf, sizeof buf);
    if (p == NULL)
        tool_err("enc: out of memory");
    return p;
}

/* ---- the parser ----------------------------------------------------------- */

enum { A_NONE, A_STR, A_SPECIAL };

int enc_parse_args(struct enc_opts *o, int argc, char **argv)
{
    static const struct {
        const char *name;
        int arg;
    } table[] = {
        {"e", A_NONE},       {"d", A_NONE},        {"p", A_NONE},
        {"P", A_NONE},       {"v", A_NONE},        {"a", A_NONE},
        {"base64", A_NONE},  {"A", A_NONE},        {"nopad", A_NONE},
        {"salt", A_NONE},    {"nosalt", A_NONE},   {"pbkdf2", A_NONE},
        {"debug", A_NONE},   {"list", A_NONE},     {"ciphers", A_NONE},
        {"progress", A_NONE}, {"noprogress", A_NONE},
        {"in", A_STR},       {"out", A_STR},       {"K", A_STR},
        {"iv", A_STR},       {"S", A_STR},         {"k", A_STR},
        {"kfile", A_STR},    {"pass", A_STR},      {"md", A_STR},
        {"iter", A_STR},     {"bufsize", A_STR},   {"threads", A_STR},
        {"impl", A_STR},
        /* openssl options rijn refuses (they change what is computed or
         * load code): */
        {"engine", A_SPECIAL}, {"rand", A_SPECIAL}, {"writerand", A_SPECIAL},
        {"provider", A_SPECIAL}, {"provider-path", A_SPECIAL},
        {"propquery", A_SPECIAL}, {"none", A_SPECIAL}, {"z", A_SPECIAL},
    };
    const char *md_name = NULL;

    memset(o, 0, sizeof *o);
    o->enc = 1;
    o->bufsize = 8192;
    o->progress = -1;
    if (set_cipher(o, argv[0]) != 0)
        o->cipher = NULL;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *opt, *val = NULL;
        char name[64];
        int kind = -1;

        if (tool_is_help(arg)) {
            enc_usage(stdout);
            return 2;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            tool_err("enc: extra argument \"%s\" (see `rijn enc --help`)",
                     arg);
            return 1;
        }
        opt = (arg[1] == '-' && arg[2] != '\0') ? arg + 2 : arg + 1;
        /* -opt=value */
        const char *eq = strchr(opt, '=');
        size_t nlen = eq ? (size_t)(eq - opt) : strlen(opt);
        if (nlen >= sizeof name) {
            tool_err("enc: unknown option '%s'", arg);
            return 1;
        }
        memcpy(name, opt, nlen);
        name[nlen] = '\0';
        for (size_t t = 0; t < sizeof table / sizeof table[0]; t++)
            if (strcmp(name, table[t].name) == 0) {
                kind = table[t].arg;
                break;
            }
        if (kind < 0) {
            if (eq == NULL && set_cipher(o, name) == 0)
                continue;
            if (eq == NULL && other_cipher(name)) {
                o->bad_cipher = arg;
                o->cipher = NULL;
                continue;
            }
            tool_err("enc: unknown option or cipher '%s' (see `rijn enc "
                     "--help`)", arg);
            return 1;
        }
        if (kind == A_SPECIAL) {
            tool_err("enc: option '%s' is not supported by rijn enc", arg);
            return 1;
        }
        if (kind == A_NONE && eq != NULL) {
            tool_err("enc: option -%s takes no value", name);
            return 1;
        }
        if (kind == A_STR) {
            if (eq != NULL) {
                val = eq + 1;
            } else {
                if (i + 1 >= argc) {
                    tool_err("enc: option -%s needs a value", name);
                    return 1;
                }
                val = argv[++i];
            }
        }

        if (!strcmp(name, "e"))
            o->enc = 1;
        else if (!strcmp(name, "d"))
            o->enc = 0;
        else if (!strcmp(name, "p"))
            o->printkey = 1;
        else if (!strcmp(name, "P"))
            o->printkey = 2;
        else if (!strcmp(name, "v"))
            o->verbose = 1;
        else if (!strcmp(name, "a") || !strcmp(name, "base64"))
            o->base64 = 1;
        else if (!strcmp(name, "A"))
            o->olb64 = 1;
        else if (!strcmp(name, "nopad") || !strcmp(name, "debug"))
            ;
        else if (!strcmp(name, "salt"))
            o->nosalt = 0;
        else if (!strcmp(name, "nosalt"))
            o->nosalt = 1;
        else if (!strcmp(name, "pbkdf2")) {
            o->pbkdf2 = 1;
        } else if (!strcmp(name, "list") || !strcmp(name, "ciphers"))
            o->list = 1;
        else if (!strcmp(name, "progress"))
            o->progress = 1;
        else if (!strcmp(name, "noprogress"))
            o->progress = 0;
        else if (!strcmp(name, "in"))
            o->in_path = strcmp(val, "-") == 0 ? NULL : val;
        else if (!strcmp(name, "out"))
            o->out_path = strcmp(val, "-") == 0 ? NULL : val;
        else if (!strcmp(name, "K"))
            o->hkey = val;
        else if (!strcmp(name, "iv"))
            o->hiv = val;
        else if (!strcmp(name, "S"))
            o->hsalt = val;
        else if (!strcmp(name, "k") || !strcmp(name, "kfile")) {
            char *p = !strcmp(name, "k") ? strdup(val) : read_kfile(val);
            if (p == NULL) {
                if (!strcmp(name, "k"))
                    tool_err("enc: out of memory");
                return 1;
            }
            if (o->pass != NULL) {
                rijn_wipe(o->pass, strlen(o->pass));
                free(o->pass);
            }
            o->pass = p;
        } else if (!strcmp(name, "pass"))
            o->passarg = val;
        else if (!strcmp(name, "md"))
            md_name = val; /* the last one counts, looked up after the loop */
        else if (!strcmp(name, "iter")) {
            long n;
            if (parse_long(val, &n) != 0 || n > INT_MAX) {
                tool_err("enc: -iter: can't parse \"%s\" as a number", val);
                return 1;
            }
            if (n <= 0) {
                tool_err("enc: -iter: non-positive number \"%s\"", val);
                return 1;
            }
            o->iter = (unsigned long)n;
            o->pbkdf2 = 1;
        } else if (!strcmp(name, "bufsize")) {
            if (parse_bufsize(val, &o->bufsize) != 0)
                return 1;
        } else if (!strcmp(name, "threads")) {
            long n;
            if (parse_long(val, &n) != 0 || n < 1 || n > 64) {
                tool_err("enc: -threads %s: expected a number from 1 to 64",
                         val);
                return 1;
            }
            o->threads = (int)n;
        } else if (!strcmp(name, "impl"))
            o->impl = val;
    }
    if (o->list)
        return 0;
    if (md_name != NULL) {
        o->md = rijn_hash_find(md_name);
        if (o->md == NULL) {
            tool_err("enc: -md %s: unknown or unsupported digest "
                     "(rijn has %s)", md_name, rijn_hash_names());
            return 1;
        }
    }
    if (o->cipher == NULL) {
        if (o->bad_cipher != NULL)
            tool_err("enc: cipher '%s' is not supported: rijn enc does "
                     "-aes-128-ctr, -aes-192-ctr and -aes-256-ctr",
                     o->bad_cipher);
        else
            tool_err("enc: no cipher given: use -aes-128-ctr, -aes-192-ctr "
                     "or -aes-256-ctr");
        return 1;
    }
    if (o->bufsize == 0) {
        tool_err("enc: -bufsize 0: openssl would silently write no data; "
                 "refusing");
        return 1;
    }
    return 0;
}

/* ---- hex ------------------------------------------------------------------ */

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int enc_set_hex(const char *in, unsigned char *out, size_t size)
{
    size_t n = strlen(in);

    fflush(stdout);
    if (n > 2 * size) {
        fputs("hex string is too long, ignoring excess\n", stderr);
        n = 2 * size;
    } else if (n < 2 * size) {
        fputs("hex string is too short, padding with zero bytes to length\n",
              stderr);
    }
    memset(out, 0, size);
    for (size_t i = 0; i < n; i++) {
        int v = hexval((unsigned char)in[i]);
        if (v < 0) {
            fputs("non-hex digit\n", stderr);
            return -1;
        }
        if (i & 1)
            out[i / 2] |= (unsigned char)v;
        else
            out[i / 2] = (unsigned char)(v << 4);
    }
    return 0;
}

/* ---- passwords ------------------------------------------------------------ */

#define APP_PASS_LEN 1024

/* strlen_read: the source is one openssl reads through a FILE BIO (file:,
 * stdin), whose BIO_gets returns the length of the C string it read, so
 * that a line starting with a NUL byte is an empty read, an error; fd:
 * goes through a buffering BIO, which counts the bytes (an empty
 * password). */
static char *finish_line(char *buf, int n, int strlen_read)
{
    char *nl, *p;

    if (n <= 0 || (strlen_read && buf[0] == '\0')) {
        rijn_wipe(buf, APP_PASS_LEN);
        fputs("Error reading password from BIO\n", stderr);
        return NULL;
    }
    nl = strchr(buf, '\n');
    if (nl != NULL)
        *nl = '\0';
    p = strdup(buf);
    rijn_wipe(buf, APP_PASS_LEN);
    if (p == NULL)
        tool_err("enc: out of memory");
    return p;
}

char *enc_pass_from_source(const char *arg)
{
    char buf[APP_PASS_LEN];
    int fd, n;

    fflush(stdout);
    if (strncmp(arg, "pass:", 5) == 0) {
        char *p = strdup(arg + 5);
        if (p == NULL)
            tool_err("enc: out of memory");
        return p;
    }
    if (strncmp(arg, "env:", 4) == 0) {
        const char *v = getenv(arg + 4);
        if (v == NULL) {
            fprintf(stderr, "No environment variable %s\n", arg + 4);
            return NULL;
        }
        char *p = strdup(v);
        if (p == NULL)
            tool_err("enc: out of memory");
        return p;
    }
    if (strncmp(arg, "file:", 5) == 0) {
        fd = open(arg + 5, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            fprintf(stderr, "Can't open file %s\n", arg + 5);
            tool_err("enc: %s: %s", arg + 5, strerror(errno));
            return NULL;
        }
        n = tool_read_line(fd, buf, sizeof buf);
        close(fd);
        return finish_line(buf, n, 1);
    }
    if (strncmp(arg, "fd:", 3) == 0) {
        fd = atoi(arg + 3);
        if (fd < 0) {
            fprintf(stderr, "Can't access file descriptor %s\n", arg + 3);
            return NULL;
        }
        return finish_line(buf, tool_read_line(fd, buf, sizeof buf), 0);
    }
    if (strcmp(arg, "stdin") == 0)
        return finish_line(buf,
                           tool_read_line(STDIN_FILENO, buf, sizeof buf), 1);
    const char *colon = strchr(arg, ':');
    if (colon == NULL || colon - arg > 5)
        fputs("Invalid password argument, missing ':' within the first 5 "
              "chars\n", stderr);
    else
        fprintf(stderr, "Invalid password argument, starting with \"%.*s\"\n",
                (int)(colon - arg + 1), arg);
    return NULL;
}

#define PW_SIZE 512

char *enc_pass_prompt(const char *cipher_upper, int enc, int *quiet)
{
    char prompt[200], a[PW_SIZE], b[PW_SIZE];
    int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
    int in_fd = fd >= 0 ? fd : STDIN_FILENO;
    int out_fd = fd >= 0 ? fd : STDERR_FILENO;
    char *p = NULL;

    *quiet = 0;
    fflush(stdout);
    snprintf(prompt, sizeof prompt, "enter %s %s password:", cipher_upper,
             enc ? "encryption" : "decryption");
    if (tool_prompt_line(in_fd, out_fd, fd >= 0, prompt, a, PW_SIZE) < 0) {
        fputs("bad password read\n", stderr);
        goto out;
    }
    if (enc) {
        char vprompt[220];
        snprintf(vprompt, sizeof vprompt, "Verifying - %s", prompt);
        if (tool_prompt_line(in_fd, out_fd, fd >= 0, vprompt, b,
                             PW_SIZE) < 0) {
            fputs("bad password read\n", stderr);
            goto out;
        }
        if (strcmp(a, b) != 0) {
            fputs("Verify failure\nbad password read\n", stderr);
            goto out;
        }
    }
    if (a[0] == '\0') {
        *quiet = 1;
        goto out;
    }
    p = strdup(a);
    if (p == NULL)
        tool_err("enc: out of memory");
out:
    rijn_wipe(a, sizeof a);
    rijn_wipe(b, sizeof b);
    if (fd >= 0)
        close(fd);
    return p;
}

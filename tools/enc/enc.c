/*
 * `rijn enc`: AES-CTR file encryption, byte for byte like
 * `openssl enc -aes-{128,192,256}-ctr` (OpenSSL 3.0), raw keys or
 * passwords, with openssl's messages for everything openssl reports.
 *
 * Safety rules, in the order they are applied:
 *   1. every option is parsed and checked,
 *   2. the input is opened (a directory is refused),
 *   3. the password is read, the salt read from the input (decryption)
 *      or made up, the key and IV derived and checked,
 *   4. only then is the output touched: refused if it is the input file;
 *      a regular (or new) output file is written to a temporary file in
 *      the same directory and renamed over the target on success, removed
 *      on failure or on a signal, so a failed run never leaves a truncated
 *      or half-written output behind.
 * Any read or write error (EPIPE, ENOSPC, /dev/full, ...) is reported in
 * one line and the exit status is 1.
 */
#define _XOPEN_SOURCE 700

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "common/output.h"
#include "enc.h"
#include "tool.h"

static const char magic[] = "Salted__";

static int random_bytes(unsigned char *p, size_t n)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    size_t got = 0;

    if (fd < 0)
        return -1;
    while (got < n) {
        ssize_t r = read(fd, p + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            close(fd);
            return -1;
        }
        got += (size_t)r;
    }
    close(fd);
    return 0;
}

static int default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    if (n > 64)
        n = 64;
    return (int)n;
}

static void print_hex_line(const char *label, const unsigned char *p,
                           size_t n)
{
    printf("%s", label);
    for (size_t i = 0; i < n; i++)
        printf("%02X", p[i]);
    printf("\n");
}

struct state {
    struct enc_opts o;
    rijn_aes_ctr_ctx *ctx;
    char *pass;
    unsigned char key[32], iv[16], salt[8];
    int have_salt_value;
    int in_fd;
    struct stat in_st;
    struct enc_src src;
    struct enc_dst dst;
    struct output out;
    int out_open;
};

static int run(struct state *s)
{
    struct enc_opts *o = &s->o;
    const char *in_name = o->in_path ? o->in_path : "standard input";
    int threads = o->threads > 0 ? o->threads : default_threads();
    unsigned char hdr[16];
    size_t hdr_len = 0;
    int ok = 1;

    if (o->verbose)
        fprintf(stderr, "bufsize=%ld\n", o->base64 && o->bufsize < 80
                                             ? 80L : o->bufsize);

    /* 2. The input. */
    if (o->in_path != NULL) {
        s->in_fd = open(o->in_path, O_RDONLY | O_CLOEXEC);
        if (s->in_fd < 0) {
            tool_err("enc: %s: %s", o->in_path, strerror(errno));
            return 1;
        }
    } else {
        s->in_fd = STDIN_FILENO;
    }
    if (fstat(s->in_fd, &s->in_st) != 0) {
        tool_err("enc: %s: %s", in_name, strerror(errno));
        return 1;
    }
    if (S_ISDIR(s->in_st.st_mode)) {
        tool_err("enc: %s: is a directory", in_name);
        return 1;
    }
    s->src.fd = s->in_fd;
    s->src.name = in_name;
    s->dst.name = o->out_path ? o->out_path : "standard output";
    if (o->base64 && enc_b64_setup(&s->src, &s->dst, o->enc, o->olb64)) {
        tool_err("enc: out of memory");
        return 1;
    }

    /* 3. Password, salt, key, IV (openssl's order and messages). */
    s->pass = o->pass;
    o->pass = NULL;
    if (s->pass == NULL && o->passarg != NULL) {
        s->pass = enc_pass_from_source(o->passarg);
        if (s->pass == NULL) {
            fputs("Error getting password\n", stderr);
            return 1;
        }
    }
    if (s->pass == NULL && o->hkey == NULL) {
        char up[16];
        int quiet;
        size_t i;
        for (i = 0; o->cipher[i] != '\0' && i + 1 < sizeof up; i++)
            up[i] = (char)toupper((unsigned char)o->cipher[i]);
        up[i] = '\0';
        s->pass = enc_pass_prompt(up, o->enc, &quiet);
        if (s->pass == NULL)
            return 1;
    }
    if (s->pass != NULL) {
        const rijn_hash_alg *md = o->md ? o->md : rijn_hash_find("sha256");
        size_t plen = strlen(s->pass);
        const unsigned char *sptr = NULL;

        if (!o->nosalt) {
            if (o->hsalt != NULL) {
                if (enc_set_hex(o->hsalt, s->salt, sizeof s->salt) != 0) {
                    fputs("invalid hex salt value\n", stderr);
                    return 1;
                }
            } else if (o->enc) {
                if (random_bytes(s->salt, sizeof s->salt) != 0) {
                    tool_err("enc: cannot read /dev/urandom for the salt");
                    return 1;
                }
                memcpy(hdr, magic, 8);
                memcpy(hdr + 8, s->salt, 8);
                hdr_len = 16;
            } else {
                unsigned char m[8];
                ssize_t n = enc_src_read_full(&s->src, m, 8);
                if (n < 0)
                    return 1;
                if (n != 8) {
                    fputs("error reading input file\n", stderr);
                    return 1;
                }
                if (memcmp(m, magic, 8) != 0) {
                    fputs("bad magic number\n", stderr);
                    return 1;
                }
                n = enc_src_read_full(&s->src, s->salt, 8);
                if (n < 0)
                    return 1;
                if (n != 8) {
                    fputs("error reading input file\n", stderr);
                    return 1;
                }
            }
            s->have_salt_value = 1;
            sptr = s->salt;
        }
        if (o->pbkdf2) {
            unsigned char kiv[48];
            enc_pbkdf2(md, (const unsigned char *)s->pass, plen, sptr,
                       sptr ? 8 : 0, o->iter ? o->iter : 10000, kiv,
                       o->key_len + 16, threads);
            memcpy(s->key, kiv, o->key_len);
            memcpy(s->iv, kiv + o->key_len, 16);
            rijn_wipe(kiv, sizeof kiv);
        } else {
            fflush(stdout);
            fputs("*** WARNING : deprecated key derivation used.\n"
                  "Using -iter or -pbkdf2 would be better.\n", stderr);
            rijn_hash_bytes_to_key(md, (const unsigned char *)s->pass, plen,
                                   sptr, sptr ? 8 : 0, s->key, o->key_len,
                                   s->iv, 16);
        }
        rijn_wipe(s->pass, plen);
    }
    if (o->hiv != NULL) {
        if (enc_set_hex(o->hiv, s->iv, 16) != 0) {
            fputs("invalid hex iv value\n", stderr);
            return 1;
        }
    }
    if (o->hiv == NULL && s->pass == NULL) {
        fflush(stdout);
        fputs("iv undefined\n", stderr);
        return 1;
    }
    if (o->hkey != NULL) {
        if (enc_set_hex(o->hkey, s->key, o->key_len) != 0) {
            fputs("invalid hex key value\n", stderr);
            return 1;
        }
    }
    if (rijn_aes_ctr_init_impl(s->ctx, s->key, o->key_len, s->iv, o->impl) !=
        0) {
        if (o->impl != NULL)
            tool_err("enc: -impl %s: unknown backend or not available on "
                     "this CPU (see `rijn impl`)", o->impl);
        else if (tool_check_rijn_impl_env("enc") == 0)
            tool_err("enc: key setup failed");
        return 1;
    }

    /* 4. The output (never for -P). */
    signals_install("enc");
    if (o->printkey != 2) {
        if (output_open(&s->out, "enc", o->out_path, &s->in_st, 0) != 0)
            return 1;
        s->out_open = 1;
        s->dst.fd = s->out.fd;
    }
    if (o->printkey == 1 && hdr_len > 0) {
        /* openssl writes the Salted__ header before it prints the -p
         * lines (what its base64 BIO holds of it, a partial line or with
         * -A the part after the last whole group, comes after them): the
         * order a shared standard output shows */
        if (enc_dst_write(&s->dst, hdr, hdr_len) != 0 ||
            enc_dst_flush_groups(&s->dst) != 0) {
            tool_err("enc: write error on %s: %s", s->dst.name,
                     strerror(errno));
            ok = 0;
        }
        hdr_len = 0;
    }
    if (o->printkey) {
        /* openssl prints the salt array even when no salt was used with
         * -K (uninitialised memory there); rijn prints zeros then. */
        if (!o->nosalt)
            print_hex_line("salt=", s->salt, sizeof s->salt);
        print_hex_line("key=", s->key, o->key_len);
        print_hex_line("iv =", s->iv, 16);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            tool_err("enc: write error on standard output: %s",
                     strerror(errno));
            return 1;
        }
        if (o->printkey == 2)
            return 0;
    }
    if (hdr_len > 0 && enc_dst_write(&s->dst, hdr, hdr_len) != 0) {
        tool_err("enc: write error on %s: %s", s->dst.name, strerror(errno));
        ok = 0;
    }
    struct enc_run r;
    memset(&r, 0, sizeof r);
    if (ok) {
        r.ctx = s->ctx;
        r.src = &s->src;
        r.dst = &s->dst;
        r.out_is_tmp = s->out.is_regular_tmp;
        r.threads = threads;
        r.progress = o->progress >= 0 ? o->progress : isatty(STDERR_FILENO);
        if (enc_run_data(&r) != 0)
            ok = 0;
    }
    if (output_close(&s->out, ok) != 0)
        ok = 0;
    enc_run_end(&r);
    s->out_open = 0;
    if (ok && o->verbose) {
        fprintf(stderr, "bytes read   : %8" PRIu64 "\n", s->src.raw_read);
        fprintf(stderr, "bytes written: %8" PRIu64 "\n", s->dst.raw_written);
    }
    return ok ? 0 : 1;
}

int cmd_enc(int argc, char **argv)
{
    struct state *s;
    void *mem = NULL;
    int rc;

    s = calloc(1, sizeof *s);
    if (s == NULL || posix_memalign(&mem, 64, sizeof(rijn_aes_ctr_ctx))) {
        tool_err("enc: out of memory");
        free(s);
        return 1;
    }
    s->ctx = mem;
    s->in_fd = -1;
    rc = enc_parse_args(&s->o, argc, argv);
    if (rc == 0 && s->o.list) {
        puts("Supported ciphers:\n-aes-128-ctr -aes-192-ctr -aes-256-ctr");
        rc = 3;
    }
    if (rc == 0)
        rc = run(s);
    else
        rc = rc == 1 ? 1 : 0;
    if (s->out_open)
        output_close(&s->out, 0);
    if (s->in_fd > STDIN_FILENO)
        close(s->in_fd);
    enc_b64_free(&s->src, &s->dst);
    if (s->pass != NULL) {
        rijn_wipe(s->pass, strlen(s->pass));
        free(s->pass);
    }
    if (s->o.pass != NULL) {
        rijn_wipe(s->o.pass, strlen(s->o.pass));
        free(s->o.pass);
    }
    rijn_aes_ctr_wipe(s->ctx);
    rijn_wipe(s, sizeof *s);
    free(mem);
    free(s);
    if (fflush(stdout) != 0 && rc == 0) {
        tool_err("enc: write error on standard output: %s", strerror(errno));
        rc = 1;
    }
    return rc;
}

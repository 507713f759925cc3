/*
 * Fuzz target b64: the base64 codec of `rijn enc -a` (tools/enc/b64.c,
 * through struct enc_src / enc_dst as enc.c uses it) against what
 * `openssl enc -a` does, in process: OpenSSL's BIO_f_base64 over a memory
 * BIO, read in openssl enc's default 8192-byte requests, with
 * BIO_FLAGS_BASE64_NO_NL for -A.
 *
 * Input: two control bytes, then the body.
 *   c0 bit 0     -A (openssl decodes without newlines; rijn's decoder is
 *                the same with or without, doc/rijn.1)
 *   c0 bits 1-2  how the body becomes the base64 text:
 *                0 the body itself;
 *                1 mapped byte by byte to a text biased to the alphabet
 *                  ('=', newlines, CR LF, spaces, tabs, other bytes);
 *                2, 3 the body encoded in lines of a width c1 picks (64,
 *                  76, 1 .. 1100, one line), LF or CR LF, with or without
 *                  a final newline, padding kept or cut, then mutated at
 *                  a position and with a byte from the body's hash.
 *   c0 bits 3-7  and the input's hash seed the read splits.
 * The text is fed to rijn's decoder through a SOCK_SEQPACKET socket in up
 * to 32 packets (each read() returns one, so the decoder's buffer refills
 * at arbitrary points) and read with random capacities, as the engines
 * read it; OpenSSL decodes the same text.
 *
 * Oracle, decoding:
 *  - rijn against the model of cli_fuzz.h (its documentation): success
 *    exactly when the model accepts, the model's bytes; on failure, the
 *    bytes released before the error are a prefix of the complete groups
 *    before the defect.
 *  - rijn against OpenSSL: on text the model accepts, OpenSSL's output
 *    must be the same bytes unless the text falls under a documented
 *    difference (b64m_documented_difference names the document); on text
 *    the model refuses, rijn fails (README: invalid base64 is an error)
 *    and OpenSSL's output is not constrained (README: "openssl: empty or
 *    partial output, status 0").
 * Oracle, encoding (the body as data): rijn's encoder, written to in
 * random splits, must give exactly OpenSSL's encoder's bytes (with and
 * without -A: README, "-a, -base64, -A" compatible), which OpenSSL's
 * decoder (same -A setting) and rijn's decoder turn back into the body.
 *
 * Without OpenSSL (cross builds without a libcrypto, RIJN_FUZZ_OPENSSL
 * unset) the model is the only reference for decoding and
 * b64m_encode (cli_fuzz.h, the layout openssl writes) for encoding.
 */
#define _GNU_SOURCE 1 /* memfd_create */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "enc/enc.h"

#include "cli_fuzz.h"

#if defined(RIJN_FUZZ_OPENSSL)
#include <openssl/bio.h>
#include <openssl/buffer.h>
#include <openssl/evp.h>
#endif

#define MAX_TEXT 65536

/* ---- the text -------------------------------------------------------------- */

/* c0 bits 1-2 = 1: one body byte, one (or two) characters */
static size_t map_text(const unsigned char *b, size_t n, unsigned char *t)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        unsigned c = b[i];
        if (c < 192)
            t[k++] = (unsigned char)alphabet[c & 63];
        else if (c < 208)
            t[k++] = '\n';
        else if (c < 216) {
            t[k++] = '\r';
            t[k++] = '\n';
        } else if (c < 228)
            t[k++] = '=';
        else if (c < 236)
            t[k++] = ' ';
        else if (c < 240)
            t[k++] = "\t\r\v\f"[c & 3];
        else if (c < 248)
            t[k++] = "-_.*:\0\x80\xff"[c & 7];
        else if (i + 1 < n)
            t[k++] = b[++i]; /* any byte */
    }
    return k;
}

/* c0 bits 1-2 = 2, 3: the body encoded with a layout c1 picks */
static size_t layout_text(const unsigned char *b, size_t n, unsigned c1,
                          uint64_t h, unsigned char *t)
{
    static const size_t widths[16] = {64, 64, 76, 4,   1,    8,    60,   63,
                                      65, 100, 200, 1020, 1023, 1024, 1100, 0};
    unsigned char *one = malloc(b64m_encoded_len(n) + 1);
    size_t len, k = 0, col = 0, w = widths[c1 & 15];
    int crlf = c1 >> 4 & 1, final_nl = !(c1 >> 5 & 1), cut_pad = c1 >> 6 & 1;

    FZ_CHECK(one != NULL, "out of memory");
    len = b64m_encode(b, n, 1, one); /* one line, no newline */
    while (cut_pad && len > 0 && one[len - 1] == '=')
        len--;
    for (size_t i = 0; i < len; i++) {
        t[k++] = one[i];
        if (w != 0 && ++col == w && i + 1 < len) {
            if (crlf)
                t[k++] = '\r';
            t[k++] = '\n';
            col = 0;
        }
    }
    if (final_nl && (w != 0 || (c1 & 0x80))) {
        if (crlf)
            t[k++] = '\r';
        t[k++] = '\n';
    }
    free(one);
    /* c1 bit 7 with a width: one mutation, at a place and of a kind the
     * hash picks */
    if ((c1 & 0x80) && w != 0 && k > 0) {
        size_t at = (size_t)(h % k);
        unsigned char c = (unsigned char)(h >> 32);
        switch (h >> 40 & 3) {
        case 0: /* replace */
            t[at] = c;
            break;
        case 1: /* insert */
            memmove(t + at + 1, t + at, k - at);
            t[at] = c;
            k++;
            break;
        case 2: /* delete */
            memmove(t + at, t + at + 1, k - at - 1);
            k--;
            break;
        default: /* insert whitespace */
            memmove(t + at + 1, t + at, k - at);
            t[at] = (unsigned char)" \t\r\n"[c & 3];
            k++;
            break;
        }
    }
    return k;
}

/* ---- rijn's decoder ------------------------------------------------------- */

/* Decode text through enc_src_read; returns 1 or 0 (failed), the bytes in
 * out (those released before a failure too). */
static int rijn_decode(const unsigned char *text, size_t len,
                       struct cli_rng *rng, unsigned char *out,
                       size_t out_cap, size_t *out_len)
{
    int sv[2];
    struct enc_src src;
    struct enc_dst dst;
    size_t sent = 0, n = 0;
    int ok = 1, packets = 0;

    FZ_CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0,
              "socketpair: %s", strerror(errno));
    /* up to 32 packets of random sizes (each read() returns one) */
    while (sent < len) {
        size_t k = len - sent;
        if (++packets < 32 && (cli_rng_next(rng) & 3) != 0) {
            size_t r = cli_rng_next(rng);
            k = 1 + (r & 7 ? r % 8 : r % 4096);
            if (k > len - sent)
                k = len - sent;
        }
        FZ_CHECK(send(sv[0], text + sent, k, 0) == (ssize_t)k,
                  "send: %s", strerror(errno));
        sent += k;
    }
    close(sv[0]);

    memset(&src, 0, sizeof src);
    memset(&dst, 0, sizeof dst);
    src.fd = sv[1];
    src.name = "fuzz input";
    dst.fd = -1;
    FZ_CHECK(enc_b64_setup(&src, &dst, 0, (int)(cli_rng_next(rng) & 1)) ==
                  0, "enc_b64_setup");
    for (;;) {
        size_t cap = 1 + cli_rng_next(rng) % ((cli_rng_next(rng) & 1) ? 7
                                                                      : 5000);
        if (cap > out_cap - n)
            cap = out_cap - n;
        if (cap == 0) {
            /* the model's output fits; rijn's must too: one more byte
             * must not come */
            unsigned char extra;
            ssize_t r = enc_src_read(&src, &extra, 1);
            FZ_CHECK(r <= 0, "rijn decodes more bytes than the text holds");
            ok = r == 0;
            break;
        }
        ssize_t r = enc_src_read(&src, out + n, cap);
        if (r < 0) {
            ok = 0;
            break;
        }
        FZ_CHECK((size_t)r <= cap, "enc_src_read returned %zd > %zu", r,
                  cap);
        if (r == 0) {
            /* the end stays the end */
            FZ_CHECK(enc_src_read(&src, out + n, cap) == 0,
                      "enc_src_read after the end");
            break;
        }
        n += (size_t)r;
    }
    enc_b64_free(&src, &dst);
    close(sv[1]);
    *out_len = n;
    return ok;
}

/* ---- rijn's encoder --------------------------------------------------------- */

static size_t rijn_encode(const unsigned char *in, size_t len, int nonl,
                          struct cli_rng *rng, unsigned char **text)
{
    struct enc_src src;
    struct enc_dst dst;
    int fd = memfd_create("b64", MFD_CLOEXEC);
    size_t done = 0;
    off_t end;

    FZ_CHECK(fd >= 0, "memfd_create: %s", strerror(errno));
    memset(&src, 0, sizeof src);
    memset(&dst, 0, sizeof dst);
    dst.fd = fd;
    dst.name = "fuzz output";
    src.fd = -1;
    FZ_CHECK(enc_b64_setup(&src, &dst, 1, nonl) == 0, "enc_b64_setup");
    while (done < len) {
        size_t r = cli_rng_next(rng), k;
        k = (r & 3) == 0 ? len - done : 1 + (r >> 2) % ((r & 4) ? 5 : 200);
        if (k > len - done)
            k = len - done;
        FZ_CHECK(enc_dst_write(&dst, in + done, k) == 0, "enc_dst_write");
        done += k;
    }
    FZ_CHECK(enc_dst_finish(&dst) == 0, "enc_dst_finish");
    FZ_CHECK((uint64_t)dst.raw_written ==
                  (uint64_t)(end = lseek(fd, 0, SEEK_END)),
              "raw_written %llu, file %lld",
              (unsigned long long)dst.raw_written, (long long)end);
    enc_b64_free(&src, &dst);
    *text = malloc((size_t)end + 1);
    FZ_CHECK(*text != NULL, "out of memory");
    FZ_CHECK(pread(fd, *text, (size_t)end, 0) == end, "pread");
    close(fd);
    return (size_t)end;
}

/* ---- OpenSSL ----------------------------------------------------------------- */

#if defined(RIJN_FUZZ_OPENSSL)
/* openssl enc -d -a [-A]: BIO_f_base64 over the input, read in bsize
 * (8192) requests until a read returns <= 0 (openssl enc stops there;
 * it sees no error from the base64 BIO). */
static size_t ossl_decode(const unsigned char *text, size_t len, int nonl,
                          unsigned char *out, size_t out_cap)
{
    BIO *mem = BIO_new_mem_buf(text, (int)len);
    BIO *b64 = BIO_new(BIO_f_base64());
    size_t n = 0;

    FZ_CHECK(mem != NULL && b64 != NULL, "BIO_new");
    if (nonl)
        BIO_set_flags(b64, BIO_FLAGS_BASE64_NO_NL);
    b64 = BIO_push(b64, mem);
    for (;;) {
        unsigned char buf[8192];
        int r = BIO_read(b64, buf, sizeof buf);
        if (r <= 0)
            break;
        FZ_CHECK(n + (size_t)r <= out_cap,
                  "OpenSSL decodes %zu bytes from %zu characters",
                  n + (size_t)r, len);
        memcpy(out + n, buf, (size_t)r);
        n += (size_t)r;
    }
    BIO_free_all(b64);
    return n;
}

/* openssl enc -a [-A] writing: BIO_f_base64 over the output, flushed at
 * the end. */
static size_t ossl_encode(const unsigned char *in, size_t len, int nonl,
                          unsigned char **text)
{
    BIO *mem = BIO_new(BIO_s_mem());
    BIO *b64 = BIO_new(BIO_f_base64());
    BUF_MEM *bm;

    FZ_CHECK(mem != NULL && b64 != NULL, "BIO_new");
    if (nonl)
        BIO_set_flags(b64, BIO_FLAGS_BASE64_NO_NL);
    b64 = BIO_push(b64, mem);
    FZ_CHECK(len == 0 || BIO_write(b64, in, (int)len) == (int)len,
              "BIO_write");
    FZ_CHECK(BIO_flush(b64) == 1, "BIO_flush");
    BIO_get_mem_ptr(mem, &bm);
    *text = malloc(bm->length + 1);
    FZ_CHECK(*text != NULL, "out of memory");
    if (bm->length > 0)
        memcpy(*text, bm->data, bm->length);
    size_t n = bm->length;
    BIO_free_all(b64);
    return n;
}
#endif

/* ---- the target --------------------------------------------------------------- */

static void check_decode(const unsigned char *text, size_t len, int nonl,
                         struct cli_rng *rng)
{
    size_t cap = len / 4 * 3 + 3;
    unsigned char *model = malloc(cap), *got = malloc(cap);
    size_t model_len, got_len;

    FZ_CHECK(model != NULL && got != NULL, "out of memory");
    if (getenv("RIJN_FUZZ_VERBOSE") != NULL) {
        fprintf(stderr, "b64 text (%zu, %s): \"", len, nonl ? "-A" : "no -A");
        for (size_t i = 0; i < len; i++)
            fprintf(stderr, text[i] >= 32 && text[i] < 127 && text[i] != '\\'
                                ? "%c" : "\\x%02x", text[i]);
        fprintf(stderr, "\"\n");
    }
    int valid = b64m_decode(text, len, model, &model_len);
    int ok = rijn_decode(text, len, rng, got, cap, &got_len);

    FZ_CHECK(ok == valid, "rijn's decoder %s text the documented rules %s",
              ok ? "accepts" : "refuses", valid ? "accept" : "refuse");
    if (valid)
        FZ_CHECK(got_len == model_len && memcmp(got, model, got_len) == 0,
                  "rijn decodes %zu bytes, the rules %zu (or other bytes)",
                  got_len, model_len);
    else
        FZ_CHECK(got_len <= model_len && memcmp(got, model, got_len) == 0,
                  "before failing, rijn released %zu bytes that are not a "
                  "prefix of the %zu bytes before the defect", got_len,
                  model_len);

#if defined(RIJN_FUZZ_OPENSSL)
    unsigned char *ossl = malloc(cap + 1024);
    FZ_CHECK(ossl != NULL, "out of memory");
    size_t ossl_len = ossl_decode(text, len, nonl, ossl, cap + 1024);
    if (valid) {
        if (ossl_len != model_len || memcmp(ossl, model, model_len) != 0) {
            const char *why = b64m_documented_difference(text, len, nonl);
            FZ_CHECK(why != NULL,
                      "valid base64 (%zu characters, %s): rijn decodes %zu "
                      "bytes, openssl enc -d -a%s %zu (or other bytes), "
                      "and no documented difference covers it",
                      len, nonl ? "-A" : "no -A", model_len,
                      nonl ? " -A" : "", ossl_len);
        }
    }
    /* On text the model refuses, rijn fails (checked above) and nothing
     * is asked of OpenSSL: README.md, "Deliberate differences", says only
     * that openssl gives "empty or partial output, status 0" (its output
     * need not even be a prefix: at the start BIO_f_base64 skips lines it
     * cannot decode, and decodes a later one). */
    free(ossl);
#else
    (void)nonl;
#endif
    free(model);
    free(got);
}

static void check_encode(const unsigned char *in, size_t len, int nonl,
                         struct cli_rng *rng)
{
    unsigned char *text, *back, *want;
    size_t text_len = rijn_encode(in, len, nonl, rng, &text), back_len;
    size_t want_len;

#if defined(RIJN_FUZZ_OPENSSL)
    want_len = ossl_encode(in, len, nonl, &want);
#else
    want = malloc(b64m_encoded_len(len) + 1);
    FZ_CHECK(want != NULL, "out of memory");
    want_len = b64m_encode(in, len, nonl, want);
#endif
    FZ_CHECK(text_len == want_len && memcmp(text, want, text_len) == 0,
              "rijn enc -a%s encodes %zu bytes as %zu characters, openssl "
              "as %zu (or other characters)", nonl ? " -A" : "", len,
              text_len, want_len);
    back = malloc(len + 3);
    FZ_CHECK(back != NULL, "out of memory");
#if defined(RIJN_FUZZ_OPENSSL)
    back_len = ossl_decode(text, text_len, nonl, back, len + 3);
    FZ_CHECK(back_len == len && memcmp(back, in, len) == 0,
              "openssl enc -d -a%s does not give back the %zu bytes rijn "
              "encoded (%zu)", nonl ? " -A" : "", len, back_len);
#endif
    FZ_CHECK(rijn_decode(text, text_len, rng, back, len + 3, &back_len) &&
                  back_len == len && memcmp(back, in, len) == 0,
              "rijn's decoder does not give back what its encoder wrote");
    free(back);
    free(text);
    free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size > 8192)
        return 0;
    unsigned c0 = data[0], c1 = data[1];
    const unsigned char *body = data + 2;
    size_t n = size - 2;
    int nonl = c0 & 1;
    uint64_t h = cli_hash(data, size);
    struct cli_rng rng = {h ^ (uint64_t)(c0 >> 3)};
    unsigned char *text = malloc(2 * n + b64m_encoded_len(n) * 2 + 16);
    size_t len;

    FZ_CHECK(text != NULL, "out of memory");
    switch (c0 >> 1 & 3) {
    case 0:
        memcpy(text, body, n);
        len = n;
        break;
    case 1:
        len = map_text(body, n, text);
        break;
    default:
        len = layout_text(body, n, c1, h, text);
        break;
    }
    FZ_CHECK(len <= MAX_TEXT, "text too long");
    check_decode(text, len, nonl, &rng);
    check_encode(body, n, nonl, &rng);
    free(text);
    return 0;
}

/*
 * Shared by the command-line fuzz targets (fuzz_b64.c, fuzz_enc_args.c):
 * the tool's messages kept quiet, and the base64 model: how
 * `rijn enc -d -a` must decode, written from its documentation, and where
 * that documentation says it deliberately differs from `openssl enc -d -a`.
 *
 * Include it in one translation unit per target (it defines functions).
 */
#ifndef RIJN_FUZZ_CLI_FUZZ_H
#define RIJN_FUZZ_CLI_FUZZ_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzutil.h"
#include "tool.h"

/* ---- the tool's messages (tools/common/msg.c, linked in) ---------------- */

/* The messages of the code under test are noise in a fuzzing log: shown
 * only with RIJN_FUZZ_VERBOSE set. Before main(), so before any input. */
__attribute__((constructor)) static void cli_fuzz_quiet(void)
{
    tool_quiet = getenv("RIJN_FUZZ_VERBOSE") == NULL;
}

/* ---- base64: the model of rijn's decoder ------------------------------- */

/*
 * What `rijn enc -d -a` must do with the text in[0..len), from its
 * documentation: doc/rijn.1 (-a: "Decoding accepts any line length and
 * CR LF, with or without -A; invalid base64 is an error"), the README
 * ("invalid base64 ... [is an error]") and the contract at the top of
 * tools/enc/b64.c ("whitespace anywhere is skipped, padding ends the data,
 * and anything else that is not base64 is an error"). So: the characters
 * of RFC 4648's alphabet, in groups of four; a last group of two or three
 * padded with "==" or "="; whitespace (space, \t, \n, \v, \f, \r)
 * anywhere, ignored; after the padding, whitespace only; the text ends
 * on a group boundary. Unused low bits of a padded group are ignored.
 *
 * Returns 1 if valid (out[0..*out_len) the data), 0 if not (out[0..
 * *out_len) then holds the complete groups before the defect: what a
 * decoder may have released before it saw it). out needs len / 4 * 3 + 3
 * bytes.
 */
static inline int b64m_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

static inline int b64m_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
           c == '\r';
}

static inline int b64m_decode(const unsigned char *in, size_t len,
                              unsigned char *out, size_t *out_len)
{
    uint32_t bits = 0;
    int have = 0;     /* digits in the current group */
    int pads = 0;     /* '=' seen (then the data has ended) */
    size_t n = 0;

    for (size_t i = 0; i < len; i++) {
        unsigned char c = in[i];
        if (b64m_space(c))
            continue;
        if (c == '=') {
            /* "xx==" or "xxx=": only after two or three digits */
            if (have + pads < 2 || have + pads >= 4)
                goto bad;
            pads++;
            if (have + pads == 4) {
                /* emit the 1 or 2 bytes of the padded group */
                bits <<= 6 * pads;
                out[n++] = (unsigned char)(bits >> 16);
                if (have == 3)
                    out[n++] = (unsigned char)(bits >> 8);
            }
            continue;
        }
        int v = b64m_value(c);
        if (v < 0 || pads > 0)
            goto bad; /* not base64, or data after (or inside) padding */
        bits = bits << 6 | (uint32_t)v;
        if (++have == 4) {
            out[n++] = (unsigned char)(bits >> 16);
            out[n++] = (unsigned char)(bits >> 8);
            out[n++] = (unsigned char)bits;
            bits = 0;
            have = 0;
        }
    }
    if (have + pads != 0 && have + pads != 4)
        goto bad; /* ends inside a group */
    *out_len = n;
    return 1;
bad:
    /* the complete groups before the defect (a padded group is complete
     * once its padding is) */
    *out_len = n;
    return 0;
}

/*
 * Where rijn's decoding deliberately differs from `openssl enc -d -a`
 * (OpenSSL 3.0's BIO_f_base64) on input the model accepts: returns the
 * documented reason, or NULL if the two must give the same bytes. nonl:
 * openssl with -A (BIO_FLAGS_BASE64_NO_NL); rijn decodes the same either
 * way (doc/rijn.1: "with or without -A").
 */
static inline const char *
b64m_documented_difference(const unsigned char *in, size_t len, int nonl)
{
    size_t line = 0, longest = 0;

    if (!nonl && len > 0 && in[len - 1] != '\n')
        /* README.md, "Deliberate differences": "base64 input without a
         * final newline ... is decoded (openssl silently writes
         * nothing)" */
        return "no final newline (README.md, Deliberate differences)";
    if (nonl && memchr(in, '\n', len) != NULL)
        /* README.md, "Deliberate differences": "or with newlines under
         * -A, is decoded (openssl silently writes nothing)" */
        return "newlines under -A (README.md, Deliberate differences)";
    for (size_t i = 0; i < len; i++) {
        line = in[i] == '\n' ? 0 : line + 1;
        if (line > longest)
            longest = line;
    }
    if (!nonl && longest >= 1024)
        /* doc/rijn.1, DIFFERENCES FROM OPENSSL: "base64 input of any line
         * length is decoded (openssl silently writes nothing for some)".
         * "Some" taken as lines of 1024 characters or more: OpenSSL 3.0's
         * BIO_f_base64 reads 1024-byte blocks (B64_BLOCK_SIZE) and loses
         * or garbles a line that fills one (measured: shorter lines
         * decode, 64 to 1023 characters); so shorter lines must match. */
        return "a line of 1024 characters or more (doc/rijn.1, DIFFERENCES)";
    for (size_t i = 0; i < len; i++) {
        if (in[i] == '\v' || in[i] == '\f')
            /* tools/enc/b64.c (its header: "whitespace anywhere is
             * skipped"; the class table counts \v and \f): rijn skips
             * them, openssl's decoder refuses them and writes nothing or
             * a part. Deliberate in rijn's source, NOT in README.md or
             * doc/rijn.1: reported (issue 19, fuzz target b64). */
            return "\\v or \\f, whitespace to rijn (tools/enc/b64.c)";
        if (nonl && (in[i] == ' ' || in[i] == '\t' || in[i] == '\r'))
            /* tools/enc/b64.c, "whitespace anywhere is skipped", and
             * doc/rijn.1 -a: "Decoding accepts any line length and CR LF,
             * with or without -A"; openssl -A (EVP_DecodeBlock on 4-byte
             * multiples) writes nothing for a space, tab or CR inside the
             * text. README.md names only newlines under -A: reported
             * (issue 19, fuzz target b64). */
            return "space, tab or CR under -A (tools/enc/b64.c; doc/rijn.1 "
                   "-a)";
    }
    return NULL;
}

/* openssl enc -a's layout: 64 characters and a newline per line, the
 * last line ended by a newline unless it is empty; nonl (-A): one line,
 * no newline. out needs b64m_encoded_len(len) bytes. */
static inline size_t b64m_encoded_len(size_t len)
{
    size_t chars = (len + 2) / 3 * 4;
    return chars + (chars + 63) / 64;
}

static inline size_t b64m_encode(const unsigned char *in, size_t len,
                                 int nonl, unsigned char *out)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = 0, col = 0;

    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        size_t k = len - i < 3 ? len - i : 3;
        if (k > 1)
            v |= (uint32_t)in[i + 1] << 8;
        if (k > 2)
            v |= in[i + 2];
        out[n++] = (unsigned char)alphabet[v >> 18 & 63];
        out[n++] = (unsigned char)alphabet[v >> 12 & 63];
        out[n++] = k > 1 ? (unsigned char)alphabet[v >> 6 & 63] : '=';
        out[n++] = k > 2 ? (unsigned char)alphabet[v & 63] : '=';
        if (!nonl && (col += 4) == 64) {
            out[n++] = '\n';
            col = 0;
        }
    }
    if (!nonl && col > 0)
        out[n++] = '\n';
    return n;
}

/* A small deterministic generator for splits and choices. */
struct cli_rng {
    uint64_t s;
};

static inline uint32_t cli_rng_next(struct cli_rng *r)
{
    r->s = r->s * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(r->s >> 33);
}

static inline uint64_t cli_hash(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211u;
    return h;
}

#endif /* RIJN_FUZZ_CLI_FUZZ_H */

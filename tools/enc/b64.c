/*
 * `rijn enc` data source and sink: a file descriptor, raw or through
 * base64 (-a, -A), as openssl enc writes and reads it.
 *
 * Encoding: 64 characters and a newline per line (-A: one line, no
 * newline), the last line ended by a newline unless it is empty.
 * Decoding: whitespace anywhere is skipped, padding ends the data, and
 * anything else that is not base64 is an error with its offset (openssl
 * silently stops there).
 *
 * Both are table-driven and work on whole 3-byte / 4-character groups in
 * their inner loops; the bytes they see are ciphertext, which is public,
 * so the table lookups leak nothing secret.
 */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "enc.h"
#include "tool.h"

#define B64_OUT 65536             /* encoder buffer, flushed when full */
#define B64_IN 65536              /* decoder input buffer */
#define LINE_BYTES 48             /* input bytes per 64-character line */

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

struct enc_b64enc {
    unsigned char carry[3];
    int ncarry;
    int col;                      /* characters on the current line
                                   * (always 0 with -A) */
    int single_line;
    size_t used;
    unsigned char out[B64_OUT + 128];
};

/* Decoder character classes: 0..63 a digit, or one of these. */
enum { B64_SPACE = 0x40, B64_PAD = 0x41, B64_BAD = 0xff };

struct enc_b64dec {
    unsigned char in[B64_IN];
    size_t pos, len;
    int eof;
    unsigned quad[4];             /* digits of a group begun on the slow
                                   * path; 64 stands for '=' */
    int nq;
    int done;                     /* padding seen: only whitespace may
                                   * follow */
    unsigned char pend[3];        /* decoded bytes not yet returned */
    int npend, pendpos;
    uint64_t offset;              /* input characters consumed, for
                                   * messages */
    unsigned char cls[256];       /* character -> class */
};

/* ---- raw I/O ------------------------------------------------------------ */

static ssize_t raw_read(struct enc_src *s, unsigned char *buf, size_t cap)
{
    for (;;) {
        ssize_t n = read(s->fd, buf, cap > (size_t)INT_MAX ? (size_t)INT_MAX
                                                           : cap);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            tool_err("enc: read error on %s: %s", s->name, strerror(errno));
            return -1;
        }
        s->raw_read += (uint64_t)n;
        return n;
    }
}

int enc_write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n > (size_t)INT_MAX ? (size_t)INT_MAX : n);
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

/* ---- encoder ------------------------------------------------------------ */

static int b64_flush(struct enc_dst *d)
{
    struct enc_b64enc *e = d->b64;
    if (e->used == 0)
        return 0;
    if (enc_write_all(d->fd, e->out, e->used) != 0)
        return -1;
    d->raw_written += e->used;
    e->used = 0;
    return 0;
}

/* Four characters for 1..3 bytes (padded with '=' below 3). */
static void b64_group(unsigned char q[4], const unsigned char *g, int n)
{
    unsigned v = (unsigned)g[0] << 16 | (unsigned)(n > 1 ? g[1] : 0) << 8 |
                 (unsigned)(n > 2 ? g[2] : 0);

    q[0] = (unsigned char)b64_alphabet[v >> 18 & 63];
    q[1] = (unsigned char)b64_alphabet[v >> 12 & 63];
    q[2] = n > 1 ? (unsigned char)b64_alphabet[v >> 6 & 63] : '=';
    q[3] = n > 2 ? (unsigned char)b64_alphabet[v & 63] : '=';
}

/* groups whole 3-byte groups from p into q (4 characters each) */
static void b64_groups(unsigned char *q, const unsigned char *p,
                       size_t groups)
{
    for (size_t i = 0; i < groups; i++, p += 3, q += 4) {
        unsigned v = (unsigned)p[0] << 16 | (unsigned)p[1] << 8 | p[2];
        q[0] = (unsigned char)b64_alphabet[v >> 18];
        q[1] = (unsigned char)b64_alphabet[v >> 12 & 63];
        q[2] = (unsigned char)b64_alphabet[v >> 6 & 63];
        q[3] = (unsigned char)b64_alphabet[v & 63];
    }
}

/* One group of n bytes, with the line bookkeeping. */
static int b64_put(struct enc_dst *d, const unsigned char *g, int n)
{
    struct enc_b64enc *e = d->b64;

    b64_group(e->out + e->used, g, n);
    e->used += 4;
    if (!e->single_line && (e->col += 4) == 64) {
        e->out[e->used++] = '\n';
        e->col = 0;
    }
    return e->used >= B64_OUT ? b64_flush(d) : 0;
}

int enc_dst_write(struct enc_dst *d, const unsigned char *p, size_t n)
{
    struct enc_b64enc *e = d->b64;

    if (e == NULL) {
        if (enc_write_all(d->fd, p, n) != 0)
            return -1;
        d->raw_written += n;
        return 0;
    }
    /* complete a group begun by the previous call */
    while (e->ncarry > 0 && n > 0) {
        e->carry[e->ncarry++] = *p++;
        n--;
        if (e->ncarry == 3) {
            e->ncarry = 0;
            if (b64_put(d, e->carry, 3) != 0)
                return -1;
        }
    }
    if (e->ncarry > 0) /* still incomplete: n is 0 */
        return 0;
    while (n >= 3) {
        if (e->col == 0 && n >= LINE_BYTES) { /* col: 0 with -A */
            /* whole lines (with -A: as many groups as fit) */
            if (e->single_line) {
                size_t groups = (B64_OUT - e->used) / 4;
                if (groups > n / 3)
                    groups = n / 3;
                b64_groups(e->out + e->used, p, groups);
                e->used += groups * 4;
                p += groups * 3;
                n -= groups * 3;
            } else {
                size_t lines = (B64_OUT - e->used) / 65;
                if (lines > n / LINE_BYTES)
                    lines = n / LINE_BYTES;
                for (size_t l = 0; l < lines; l++) {
                    b64_groups(e->out + e->used, p, LINE_BYTES / 3);
                    e->out[e->used + 64] = '\n';
                    e->used += 65;
                    p += LINE_BYTES;
                }
                n -= lines * LINE_BYTES;
            }
            if (e->used + 65 > B64_OUT && b64_flush(d) != 0)
                return -1;
            continue;
        }
        if (b64_put(d, p, 3) != 0)
            return -1;
        p += 3;
        n -= 3;
    }
    memcpy(e->carry, p, n);
    e->ncarry = (int)n;
    return 0;
}

int enc_dst_flush_groups(struct enc_dst *d)
{
    if (d->b64 == NULL || !d->b64->single_line)
        return 0;
    return b64_flush(d);
}

int enc_dst_finish(struct enc_dst *d)
{
    struct enc_b64enc *e = d->b64;

    if (e == NULL)
        return 0;
    if (e->ncarry > 0) {
        if (b64_put(d, e->carry, e->ncarry) != 0)
            return -1;
        e->ncarry = 0;
    }
    if (!e->single_line && e->col > 0) {
        e->out[e->used++] = '\n';
        e->col = 0;
    }
    return b64_flush(d);
}

/* ---- decoder ------------------------------------------------------------ */

static void b64_classes(unsigned char cls[256])
{
    memset(cls, B64_BAD, 256);
    for (int i = 0; i < 64; i++)
        cls[(unsigned char)b64_alphabet[i]] = (unsigned char)i;
    cls[' '] = cls['\t'] = cls['\r'] = cls['\n'] = cls['\f'] = cls['\v'] =
        B64_SPACE;
    cls['='] = B64_PAD;
}

/* The slow path, one character at a time: decode one more group into
 * pend, skipping whitespace and handling padding and errors. 1 if a group
 * was decoded, 0 at the end, -1 after a message. */
static int b64_next(struct enc_src *s)
{
    struct enc_b64dec *b = s->b64;

    for (;;) {
        if (b->pos == b->len) {
            if (b->eof)
                break;
            ssize_t n = raw_read(s, b->in, sizeof b->in);
            if (n < 0)
                return -1;
            if (n == 0) {
                b->eof = 1;
                break;
            }
            b->pos = 0;
            b->len = (size_t)n;
        }
        int c = b->in[b->pos++];
        unsigned v = b->cls[c];
        b->offset++;
        if (v == B64_SPACE)
            continue;
        if (b->done) {
            tool_err("enc: invalid base64 input on %s: data after the "
                     "final '=' (offset %llu)", s->name,
                     (unsigned long long)(b->offset - 1));
            return -1;
        }
        if (v == B64_PAD) {
            /* "xx==" or "xxx=" */
            if (b->nq < 2) {
                tool_err("enc: invalid base64 input on %s: misplaced '=' "
                         "(offset %llu)", s->name,
                         (unsigned long long)(b->offset - 1));
                return -1;
            }
            b->quad[b->nq++] = 64;
            if (b->nq == 4) {
                if (b->quad[2] == 64 && b->quad[3] != 64) {
                    tool_err("enc: invalid base64 input on %s", s->name);
                    return -1;
                }
                unsigned w = b->quad[0] << 18 | b->quad[1] << 12 |
                             (b->quad[2] & 63) << 6;
                b->pend[0] = (unsigned char)(w >> 16);
                b->pend[1] = (unsigned char)(w >> 8);
                b->npend = b->quad[2] == 64 ? 1 : 2;
                b->pendpos = 0;
                b->nq = 0;
                b->done = 1;
                return 1;
            }
            continue;
        }
        if (v == B64_BAD || (b->nq > 0 && b->quad[b->nq - 1] == 64)) {
            tool_err("enc: invalid base64 input on %s: unexpected %s0x%02x "
                     "at offset %llu", s->name,
                     v == B64_BAD ? "byte " : "character after '=' ", c,
                     (unsigned long long)(b->offset - 1));
            return -1;
        }
        b->quad[b->nq++] = v;
        if (b->nq == 4) {
            unsigned w = b->quad[0] << 18 | b->quad[1] << 12 |
                         b->quad[2] << 6 | b->quad[3];
            b->pend[0] = (unsigned char)(w >> 16);
            b->pend[1] = (unsigned char)(w >> 8);
            b->pend[2] = (unsigned char)w;
            b->npend = 3;
            b->pendpos = 0;
            b->nq = 0;
            return 1;
        }
    }
    if (b->nq != 0) {
        tool_err("enc: invalid base64 input on %s: it ends in the middle of "
                 "a 4-character group", s->name);
        return -1;
    }
    return 0;
}

/* The fast path: whole groups of four digits from the input buffer
 * straight into out, while nothing else comes. Returns bytes written
 * (a multiple of 3, at most cap). */
static size_t b64_fast(struct enc_b64dec *b, unsigned char *out, size_t cap)
{
    const unsigned char *cls = b->cls;
    size_t n = 0, pos = b->pos;

    if (b->nq != 0 || b->done)
        return 0;
    while (b->len - pos >= 4 && cap - n >= 3) {
        const unsigned char *q = b->in + pos;
        unsigned a = cls[q[0]], c1 = cls[q[1]], c2 = cls[q[2]],
                 c3 = cls[q[3]];
        if ((a | c1 | c2 | c3) > 63)
            break;
        unsigned w = a << 18 | c1 << 12 | c2 << 6 | c3;
        out[n] = (unsigned char)(w >> 16);
        out[n + 1] = (unsigned char)(w >> 8);
        out[n + 2] = (unsigned char)w;
        n += 3;
        pos += 4;
    }
    b->offset += pos - b->pos;
    b->pos = pos;
    return n;
}

ssize_t enc_src_read(struct enc_src *s, unsigned char *buf, size_t cap)
{
    struct enc_b64dec *b = s->b64;
    size_t n = 0;

    if (b == NULL)
        return raw_read(s, buf, cap);
    while (n < cap) {
        if (b->pendpos == b->npend) {
            n += b64_fast(b, buf + n, cap - n);
            if (n == cap)
                break;
            int r = b64_next(s);
            if (r < 0)
                return -1;
            if (r == 0)
                break;
        }
        while (n < cap && b->pendpos < b->npend)
            buf[n++] = b->pend[b->pendpos++];
    }
    return (ssize_t)n;
}

ssize_t enc_src_read_full(struct enc_src *s, unsigned char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = enc_src_read(s, buf + got, n - got);
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

int enc_b64_setup(struct enc_src *s, struct enc_dst *d, int encrypting,
                  int single_line)
{
    if (encrypting) {
        d->b64 = calloc(1, sizeof *d->b64);
        if (d->b64 == NULL)
            return -1;
        d->b64->single_line = single_line;
    } else {
        s->b64 = calloc(1, sizeof *s->b64);
        if (s->b64 == NULL)
            return -1;
        b64_classes(s->b64->cls);
    }
    return 0;
}

void enc_b64_free(struct enc_src *s, struct enc_dst *d)
{
    free(s->b64);
    free(d->b64);
    s->b64 = NULL;
    d->b64 = NULL;
}

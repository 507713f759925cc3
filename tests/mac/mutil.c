/* Helpers of the Poly1305 suites; see mutil.h. */
#define _POSIX_C_SOURCE 200809L
#include "mutil.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

rijn_impl_info mt_begin(const char *suite, const char *engine)
{
    rijn_impl_info info;
    size_t i, n;
    const char *want;
    char name[128];

    snprintf(name, sizeof name, "%s.%s", suite, engine);
    tu_set_name(name);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(engine, "default") != 0)
        setenv("RIJN_POLY1305_IMPL", engine, 1);
    else
        unsetenv("RIJN_POLY1305_IMPL");
    want = strcmp(engine, "default") != 0 ? engine : NULL;
    n = rijn_poly1305_impl_count();
    for (i = 0; i < n; i++) {
        if (rijn_poly1305_impl_get(i, &info) != 0)
            continue;
        if (want ? strcmp(info.name, want) == 0 : info.is_default)
            break;
    }
    if (i == n) {
        printf("%s: FAIL: engine \"%s\" is not compiled into the library "
               "(%zu engines)\n", tu_name(), engine, n);
        exit(1);
    }
    tu_require_available(&info, "engine");
    if (rijn_poly1305_impl_default() == NULL ||
        strcmp(rijn_poly1305_impl_default(), info.name) != 0) {
        printf("%s: FAIL: the library picked %s, not %s\n", tu_name(),
               rijn_poly1305_impl_default() ? rijn_poly1305_impl_default()
                                            : "(none)", info.name);
        exit(1);
    }
    printf("%s: engine %s (AES backend %s)\n", tu_name(), info.name,
           rijn_impl_default() ? rijn_impl_default() : "(none)");
    return info;
}

int mt_eq(const uint8_t *got, const uint8_t *want, size_t n,
          const char *what)
{
    if (memcmp(got, want, n) == 0) {
        mt_pass();
        return 1;
    }
    mt_fail("%s: got %s", what, tu_hex(got, n < 32 ? n : 32));
    mt_note("   expected %s", tu_hex(want, n < 32 ? n : 32));
    return 0;
}

/* ---- MD5, from the description in RFC 1321 ------------------------------ */
static const uint32_t md5_k[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee,
    0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be,
    0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa,
    0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
    0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
    0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05,
    0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039,
    0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1,
    0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};
static const uint8_t md5_s[4][4] = {
    {7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

static uint32_t rol32(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32 - n));
}

static void md5_block(mt_md5 *c, const uint8_t *p)
{
    uint32_t w[16], a = c->a, b = c->b, cc = c->c, d = c->d;
    int i;

    for (i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] | ((uint32_t)p[4 * i + 1] << 8) |
               ((uint32_t)p[4 * i + 2] << 16) | ((uint32_t)p[4 * i + 3] << 24);
    for (i = 0; i < 64; i++) {
        uint32_t f, t;
        int g;
        switch (i / 16) {
        case 0: f = (b & cc) | (~b & d); g = i; break;
        case 1: f = (d & b) | (~d & cc); g = (5 * i + 1) % 16; break;
        case 2: f = b ^ cc ^ d; g = (3 * i + 5) % 16; break;
        default: f = cc ^ (b | ~d); g = (7 * i) % 16; break;
        }
        t = d;
        d = cc;
        cc = b;
        b = b + rol32(a + f + md5_k[i] + w[g], md5_s[i / 16][i % 4]);
        a = t;
    }
    c->a += a;
    c->b += b;
    c->c += cc;
    c->d += d;
}

void mt_md5_init(mt_md5 *c)
{
    c->a = 0x67452301;
    c->b = 0xefcdab89;
    c->c = 0x98badcfe;
    c->d = 0x10325476;
    c->len = 0;
}

void mt_md5_update(mt_md5 *c, const void *data, size_t n)
{
    const uint8_t *p = data;
    size_t used = (size_t)(c->len % 64);

    c->len += n;
    while (n) {
        size_t take = 64 - used < n ? 64 - used : n;
        memcpy(c->buf + used, p, take);
        used += take;
        p += take;
        n -= take;
        if (used == 64) {
            md5_block(c, c->buf);
            used = 0;
        }
    }
}

void mt_md5_final(mt_md5 *c, uint8_t out[16])
{
    uint8_t tail[72];
    uint64_t bits = c->len * 8;
    size_t used = (size_t)(c->len % 64), padlen = used < 56 ? 56 - used
                                                            : 120 - used;
    int i;

    memset(tail, 0, sizeof tail);
    tail[0] = 0x80;
    for (i = 0; i < 8; i++)
        tail[padlen + (size_t)i] = (uint8_t)(bits >> (8 * i));
    mt_md5_update(c, tail, padlen + 8);
    for (i = 0; i < 4; i++) {
        uint32_t v = i == 0 ? c->a : i == 1 ? c->b : i == 2 ? c->c : c->d;
        out[4 * i] = (uint8_t)v;
        out[4 * i + 1] = (uint8_t)(v >> 8);
        out[4 * i + 2] = (uint8_t)(v >> 16);
        out[4 * i + 3] = (uint8_t)(v >> 24);
    }
}

char *mt_read_file(const char *dir, const char *name)
{
    char path[4096];
    FILE *f;
    char *buf;
    long size;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "rb");
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
        printf("%s: FAIL: cannot read %s\n", tu_name(), path);
        exit(1);
    }
    buf = malloc((size_t)size + 1);
    if (buf == NULL || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        printf("%s: FAIL: cannot read %s\n", tu_name(), path);
        exit(1);
    }
    buf[size] = '\0';
    fclose(f);
    return buf;
}

static void rec_flush(const char *file, int line, int have_key, int have_in,
                      int have_mac, long replen, int have_rep)
{
    if (!have_key || !have_mac || (!have_in && !(have_rep && replen >= 0))) {
        printf("%s: FAIL: %s: incomplete record ending at line %d\n",
               tu_name(), file, line);
        exit(1);
    }
}

size_t mt_poly_vectors(const char *dir, const char *file, mt_rec_fn fn,
                       void *arg)
{
    char *text = mt_read_file(dir, file), *p = text;
    uint8_t key[32], mac[16], rep = 0;
    uint8_t *msg = NULL;
    size_t len = 0, count = 0;
    long replen = -1;
    int have_key = 0, have_in = 0, have_mac = 0, have_rep = 0, any = 0;
    int line = 0, start = 0;

    for (;;) {
        char *eol = strchr(p, '\n'), *eq;
        int blank;
        if (eol != NULL)
            *eol = '\0';
        line++;
        if (eol != NULL && eol > p && eol[-1] == '\r')
            eol[-1] = '\0';
        blank = p[0] == '\0';
        if ((blank || eol == NULL) && any) {
            rec_flush(file, line, have_key, have_in, have_mac, replen,
                      have_rep);
            if (!have_in) {
                free(msg);
                len = (size_t)replen;
                msg = malloc(len ? len : 1);
                if (msg == NULL)
                    exit(1);
                memset(msg, rep, len);
            }
            fn(key, msg, len, mac, start, arg);
            count++;
            free(msg);
            msg = NULL;
            len = 0;
            replen = -1;
            have_key = have_in = have_mac = have_rep = any = 0;
        }
        if (!blank && p[0] != '#') {
            char *name = p, *val;
            eq = strstr(p, " = ");
            if (eq == NULL) {
                printf("%s: FAIL: %s:%d: not 'Name = value'\n", tu_name(), file,
                       line);
                exit(1);
            }
            *eq = '\0';
            val = eq + 3;
            if (!any)
                start = line;
            any = 1;
            if (strcmp(name, "Key") == 0) {
                have_key = tu_unhex(key, 32, val) == 32;
            } else if (strcmp(name, "MAC") == 0) {
                have_mac = tu_unhex(mac, 16, val) == 16;
            } else if (strcmp(name, "Input") == 0) {
                size_t vl = strlen(val);
                free(msg);
                msg = malloc(vl + 1);
                if (msg == NULL)
                    exit(1);
                if (val[0] == '"' && vl >= 2 && val[vl - 1] == '"') {
                    len = vl - 2;
                    memcpy(msg, val + 1, len);
                } else {
                    long n = tu_unhex(msg, vl + 1, val);
                    if (n < 0) {
                        printf("%s: FAIL: %s:%d: bad hex\n", tu_name(), file,
                               line);
                        exit(1);
                    }
                    len = (size_t)n;
                }
                have_in = 1;
            } else if (strcmp(name, "Repeat") == 0) {
                have_rep = tu_unhex(&rep, 1, val) == 1;
            } else if (strcmp(name, "Length") == 0) {
                replen = strtol(val, NULL, 10);
            } else {
                printf("%s: FAIL: %s:%d: unknown attribute '%s'\n", tu_name(),
                       file, line, name);
                exit(1);
            }
        }
        if (eol == NULL)
            break;
        p = eol + 1;
    }
    free(msg);
    free(text);
    return count;
}

long mt_json_hex(const char **pos, const char *name, uint8_t *out, size_t cap)
{
    char pat[64], hex[1024];
    const char *p, *q;
    size_t n;

    snprintf(pat, sizeof pat, "\"%s\": \"", name);
    p = strstr(*pos, pat);
    if (p == NULL)
        return -1;
    p += strlen(pat);
    q = strchr(p, '"');
    if (q == NULL || (n = (size_t)(q - p)) >= sizeof hex)
        return -1;
    memcpy(hex, p, n);
    hex[n] = '\0';
    *pos = q + 1;
    return tu_unhex(out, cap, hex);
}

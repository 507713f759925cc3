/*
 * Shared helpers of the provider tests: library context and module
 * loading, provider-checked cipher fetch, the evp_test stanza reader, hex,
 * PRNG, error queue. See provtest.h.
 */
#define _POSIX_C_SOURCE 200809L

#include "provtest.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>

void pt_print_errors(const char *prefix)
{
    unsigned long e;
    const char *file, *func, *data;
    int line, flags;

    while ((e = ERR_get_error_all(&file, &line, &func, &data, &flags)) != 0) {
        char buf[256];

        ERR_error_string_n(e, buf, sizeof buf);
        fprintf(stderr, "%s  %s (%s:%d %s)%s%s\n", prefix, buf, file, line,
                func != NULL ? func : "",
                (flags & ERR_TXT_STRING) && data != NULL ? " " : "",
                (flags & ERR_TXT_STRING) && data != NULL ? data : "");
    }
}

int pt_env_open(pt_env *e, const char *module)
{
    memset(e, 0, sizeof *e);
    e->libctx = OSSL_LIB_CTX_new();
    if (e->libctx == NULL) {
        fprintf(stderr, "OSSL_LIB_CTX_new failed\n");
        return -1;
    }
    e->deflt = OSSL_PROVIDER_load(e->libctx, "default");
    if (e->deflt == NULL) {
        fprintf(stderr, "cannot load OpenSSL's default provider\n");
        pt_print_errors("");
        pt_env_close(e);
        return -1;
    }
    if (module != NULL) {
        if (module[0] != '/') {
            fprintf(stderr, "module path must be absolute: %s\n", module);
            pt_env_close(e);
            return -1;
        }
        e->rijn = OSSL_PROVIDER_load(e->libctx, module);
        if (e->rijn == NULL) {
            fprintf(stderr, "cannot load the provider module %s\n", module);
            pt_print_errors("");
            pt_env_close(e);
            return -1;
        }
    }
    return 0;
}

void pt_env_close(pt_env *e)
{
    if (e->rijn != NULL && !OSSL_PROVIDER_unload(e->rijn))
        fprintf(stderr, "warning: OSSL_PROVIDER_unload(module) failed\n");
    if (e->deflt != NULL && !OSSL_PROVIDER_unload(e->deflt))
        fprintf(stderr, "warning: OSSL_PROVIDER_unload(default) failed\n");
    OSSL_LIB_CTX_free(e->libctx);
    memset(e, 0, sizeof *e);
}

EVP_CIPHER *pt_fetch(pt_env *e, const char *name, int rijn)
{
    OSSL_PROVIDER *want = rijn ? e->rijn : e->deflt;
    const char *props = rijn ? "provider=rijn" : "provider=default";
    EVP_CIPHER *c;

    if (want == NULL) {
        fprintf(stderr, "fetch %s: the module is not loaded\n", name);
        return NULL;
    }
    c = EVP_CIPHER_fetch(e->libctx, name, props);
    if (c == NULL) {
        fprintf(stderr, "EVP_CIPHER_fetch(%s, \"%s\") failed\n", name, props);
        pt_print_errors("");
        return NULL;
    }
    if (EVP_CIPHER_get0_provider(c) != want) {
        fprintf(stderr, "EVP_CIPHER_fetch(%s, \"%s\") came from provider %s,"
                " not the one asked for\n", name, props,
                OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c)));
        EVP_CIPHER_free(c);
        return NULL;
    }
    return c;
}

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

int pt_unhex(const char *hex, unsigned char **out, size_t *len)
{
    size_t n, i;
    unsigned char *b;

    while (isspace((unsigned char)*hex))
        hex++;
    n = strlen(hex);
    while (n > 0 && isspace((unsigned char)hex[n - 1]))
        n--;
    if (n % 2 != 0)
        return -1;
    b = malloc(n / 2 + 1);
    if (b == NULL)
        return -1;
    for (i = 0; i < n / 2; i++) {
        int hi = hexval((unsigned char)hex[2 * i]);
        int lo = hexval((unsigned char)hex[2 * i + 1]);

        if (hi < 0 || lo < 0) {
            free(b);
            return -1;
        }
        b[i] = (unsigned char)(hi << 4 | lo);
    }
    *out = b;
    *len = n / 2;
    return 0;
}

int pt_strcaseeq(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

int pt_reader_open(pt_reader *r, const char *path)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->f = fopen(path, "r");
    if (r->f == NULL) {
        perror(path);
        return -1;
    }
    return 0;
}

static void reader_clear(pt_reader *r)
{
    for (int i = 0; i < r->n; i++) {
        free(r->fld[i].key);
        free(r->fld[i].value);
    }
    r->n = 0;
}

static char *strip(char *s)
{
    char *end;

    while (isspace((unsigned char)*s))
        s++;
    end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

int pt_reader_next(pt_reader *r)
{
    ssize_t got;

    reader_clear(r);
    while ((got = getline(&r->buf, &r->cap, r->f)) >= 0) {
        char *line, *eq, *key, *value;

        r->line++;
        line = strip(r->buf);
        if (*line == '#')
            continue;
        if (*line == '\0') {
            if (r->n > 0)
                return 1;
            continue;
        }
        eq = strchr(line, '=');
        if (eq == NULL) {
            fprintf(stderr, "%s:%d: no '=' in \"%s\"\n", r->path, r->line, line);
            return -1;
        }
        if (r->n == PT_MAX_FIELDS) {
            fprintf(stderr, "%s:%d: too many fields in one stanza\n",
                    r->path, r->line);
            return -1;
        }
        *eq = '\0';
        key = strip(line);
        value = strip(eq + 1);
        if (r->n == 0)
            r->start = r->line;
        r->fld[r->n].key = strdup(key);
        r->fld[r->n].value = strdup(value);
        r->fld[r->n].line = r->line;
        if (r->fld[r->n].key == NULL || r->fld[r->n].value == NULL) {
            fprintf(stderr, "out of memory\n");
            return -1;
        }
        r->n++;
    }
    return r->n > 0 ? 1 : 0;
}

const char *pt_reader_get(const pt_reader *r, const char *key)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->fld[i].key, key) == 0)
            return r->fld[i].value;
    return NULL;
}

void pt_reader_close(pt_reader *r)
{
    reader_clear(r);
    free(r->buf);
    if (r->f != NULL)
        fclose(r->f);
    memset(r, 0, sizeof *r);
}

uint64_t pt_rand64(pt_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint32_t pt_below(pt_rng *r, uint32_t n)
{
    return (uint32_t)(((pt_rand64(r) >> 32) * (uint64_t)n) >> 32);
}

int pt_chance(pt_rng *r, uint32_t num, uint32_t den)
{
    return pt_below(r, den) < num;
}

void pt_fill(pt_rng *r, unsigned char *p, size_t n)
{
    while (n > 0) {
        uint64_t v = pt_rand64(r);
        size_t k = n < 8 ? n : 8;

        memcpy(p, &v, k);
        p += k;
        n -= k;
    }
}

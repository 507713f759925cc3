/* Helpers shared by the test suites; see testutil.h. */
#include "testutil.h"
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char g_name[128] = "test";
static unsigned long g_pass, g_fail;

const char *tu_name(void)
{
    return g_name;
}

void tu_set_name(const char *name)
{
    snprintf(g_name, sizeof g_name, "%s", name);
}

/*
 * Splits `needs` ("aesni,avx2") into the features the CPU lacks and those
 * it has but RIJN_CPU_MASK removed. A name the feature table does not know
 * counts as lacking (it cannot have been detected).
 */
static void lacking_features(const char *needs, char *lacks, size_t nl,
                             char *masked, size_t nm)
{
    const uint32_t have = rijn_cpu_features_get();
    const uint32_t hw = rijn_cpu_detect();
    const char *p = needs;

    lacks[0] = masked[0] = '\0';
    while (*p != '\0') {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        uint32_t bit = 0;
        char *dst;
        size_t cap;

        for (const rijn_cpu_feature_name *f = rijn_cpu_feature_names;
             f->name != NULL; f++)
            if (strlen(f->name) == len && strncmp(f->name, p, len) == 0)
                bit = f->bit;
        if (len > 0 && !(len == 1 && *p == '-') && !(have & bit)) {
            dst = (bit && (hw & bit)) ? masked : lacks;
            cap = dst == masked ? nm : nl;
            snprintf(dst + strlen(dst), cap - strlen(dst), "%s%.*s",
                     dst[0] ? "," : "", (int)len, p);
        }
        p += len + (e != NULL);
    }
}

void tu_require_available(const rijn_impl_info *info, const char *kind)
{
    const char *req = getenv("RIJN_TEST_REQUIRE_ALL");
    char lacks[128], masked[128];

    if (info->available)
        return;
    lacking_features(info->needs, lacks, sizeof lacks, masked, sizeof masked);
    if (lacks[0] == '\0' && masked[0] == '\0') {
        /* Not runnable although every feature it names is there: the
         * needs list and the selection disagree, which is a bug. */
        printf("%s: FAIL: %s %s is not runnable, yet this CPU has every "
               "feature it needs (%s)\n", g_name, kind, info->name,
               info->needs);
        exit(1);
    }
    if (masked[0] && req != NULL && strcmp(req, "1") == 0) {
        /* The hardware could test it: under RIJN_TEST_REQUIRE_ALL=1 a
         * feature the CPU has must not go untested. */
        printf("%s: FAIL: RIJN_TEST_REQUIRE_ALL=1 and this CPU has %s, "
               "which %s %s needs, but RIJN_CPU_MASK removes it\n",
               g_name, masked, kind, info->name);
        exit(1);
    }
    /* The reason, in one line that scripts/test.sh collects. */
    printf("%s: SKIPPED: %s: needs %s; ", g_name, info->name, info->needs);
    if (lacks[0])
        printf("this CPU lacks %s%s", lacks, masked[0] ? "; " : "");
    if (masked[0])
        printf("RIJN_CPU_MASK removes %s", masked);
    putchar('\n');
    exit(TU_SKIP);
}

rijn_impl_info tu_begin(const char *suite, const char *backend)
{
    rijn_impl_info info;
    size_t i, n = rijn_impl_count();

    snprintf(g_name, sizeof g_name, "%s.%s", suite, backend);
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (i = 0; i < n; i++) {
        if (rijn_impl_get(i, &info) == 0 && info.name != NULL &&
            strcmp(info.name, backend) == 0)
            break;
    }
    if (i == n) {
        printf("%s: FAIL: backend \"%s\" is not compiled into the library "
               "(%zu backends)\n", g_name, backend, n);
        exit(1);
    }
    tu_require_available(&info, "backend");
    return info;
}

void tu_pass(void)
{
    g_pass++;
}

void tu_fail(const char *fmt, ...)
{
    va_list ap;

    g_fail++;
    if (g_fail > 30) {
        if (g_fail == 31)
            printf("%s: (further failures not printed)\n", g_name);
        return;
    }
    printf("%s: FAIL: ", g_name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

unsigned long tu_failures(void)
{
    return g_fail;
}

void tu_note(const char *fmt, ...)
{
    va_list ap;

    printf("%s: ", g_name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

int tu_end(void)
{
    printf("%s: %lu passed, %lu failed\n", g_name, g_pass, g_fail);
    /* A suite that checked nothing has not tested anything. */
    return (g_fail == 0 && g_pass > 0) ? 0 : 1;
}

int tu_setkey(rijn_aes_key *k, const uint8_t *key, size_t key_len,
              const char *backend)
{
    const char *got;

    if (rijn_aes_setkey_impl(k, key, key_len, backend) != 0) {
        tu_fail("rijn_aes_setkey_impl(key_len=%zu, \"%s\") returned -1",
                key_len, backend);
        return -1;
    }
    got = rijn_aes_key_impl(k);
    if (got == NULL || strcmp(got, backend) != 0) {
        tu_fail("key set up for \"%s\" reports backend \"%s\"", backend,
                got ? got : "(null)");
        return -1;
    }
    return 0;
}

/* ---- PRNG ------------------------------------------------------------ */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void tu_rng_seed(tu_rng *r, uint64_t seed)
{
    int i;
    for (i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl64(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t tu_rng_next(tu_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl64(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

uint64_t tu_rng_below(tu_rng *r, uint64_t n)
{
    return tu_rng_next(r) % n;
}

void tu_rng_fill(tu_rng *r, uint8_t *p, size_t n)
{
    size_t i;
    uint64_t v = 0;
    for (i = 0; i < n; i++) {
        if ((i & 7) == 0)
            v = tu_rng_next(r);
        p[i] = (uint8_t)v;
        v >>= 8;
    }
}

uint64_t tu_seed_from_args(int *argc, char **argv)
{
    uint64_t seed;
    const char *env = getenv("RIJN_TEST_SEED");
    int i, j;

    for (i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < *argc) {
            seed = strtoull(argv[i + 1], NULL, 0);
            for (j = i; j + 2 <= *argc; j++)
                argv[j] = argv[j + 2];
            *argc -= 2;
            printf("%s: seed=%llu (from --seed)\n", g_name,
                   (unsigned long long)seed);
            return seed;
        }
    }
    if (env != NULL && *env != '\0') {
        seed = strtoull(env, NULL, 0);
        printf("%s: seed=%llu (from RIJN_TEST_SEED)\n", g_name,
               (unsigned long long)seed);
        return seed;
    }
    {
        uint64_t t = (uint64_t)time(NULL);
        uint64_t c = (uint64_t)clock();
        uint64_t x = t * 1000003u ^ c;
        seed = splitmix64(&x) % 1000000000000u;
    }
    printf("%s: seed=%llu (replay with --seed %llu)\n", g_name,
           (unsigned long long)seed, (unsigned long long)seed);
    return seed;
}

/* ---- hex ------------------------------------------------------------- */
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

long tu_unhex(uint8_t *out, size_t cap, const char *hex)
{
    size_t n = strlen(hex), i;

    if (n % 2 != 0 || n / 2 > cap)
        return -1;
    for (i = 0; i < n / 2; i++) {
        int hi = hexval((unsigned char)hex[2 * i]);
        int lo = hexval((unsigned char)hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return (long)(n / 2);
}

const char *tu_hex(const uint8_t *p, size_t n)
{
    static char bufs[4][2 * 64 + 4];
    static unsigned which;
    static const char digits[] = "0123456789abcdef";
    char *b = bufs[which++ & 3];
    size_t i, m = n > 64 ? 64 : n;

    for (i = 0; i < m; i++) {
        b[2 * i] = digits[p[i] >> 4];
        b[2 * i + 1] = digits[p[i] & 15];
    }
    b[2 * m] = '\0';
    if (m < n)
        strcat(b, "..");
    return b;
}

/* ---- counters ---------------------------------------------------------- */
void tu_ctr_add(uint8_t ctr[16], uint64_t n)
{
    int i;
    unsigned carry = 0;

    for (i = 15; i >= 0; i--) {
        unsigned v = ctr[i] + (unsigned)(n & 0xff) + carry;
        ctr[i] = (uint8_t)v;
        carry = v >> 8;
        n >>= 8;
    }
}

/* ---- guarded buffers --------------------------------------------------- */
void tu_buf_init(tu_buf *b, size_t len, size_t align)
{
    size_t total = len + 2 * TU_GUARD + 128;
    uintptr_t a;

    b->mem = malloc(total);
    if (b->mem == NULL) {
        printf("%s: out of memory\n", g_name);
        exit(2);
    }
    a = (uintptr_t)(b->mem + TU_GUARD + 63);
    a = (a & ~(uintptr_t)63) + (align & 63);
    b->p = b->mem + (a - (uintptr_t)b->mem);
    b->len = len;
    b->align = align & 63;
    b->fill = (uint8_t)(0xa5 ^ (len * 7) ^ align);
    memset(b->mem, b->fill, total);
}

void tu_buf_free(tu_buf *b)
{
    free(b->mem);
    b->mem = b->p = NULL;
}

int tu_buf_guards_ok(const tu_buf *b, const char *what)
{
    size_t total = b->len + 2 * TU_GUARD + 128;
    size_t start = (size_t)(b->p - b->mem), end = start + b->len, i;

    for (i = 0; i < start; i++) {
        if (b->mem[i] != b->fill) {
            tu_fail("%s: guard byte %zu before the output buffer "
                    "(len %zu, align %zu) was overwritten",
                    what, start - i, b->len, b->align);
            return 0;
        }
    }
    for (i = end; i < total; i++) {
        if (b->mem[i] != b->fill) {
            tu_fail("%s: guard byte %zu after the output buffer "
                    "(len %zu, align %zu) was overwritten",
                    what, i - end, b->len, b->align);
            return 0;
        }
    }
    return 1;
}

int tu_check_eq(const uint8_t *got, const uint8_t *want, size_t n,
                const char *what)
{
    size_t i;

    if (n == 0 || memcmp(got, want, n) == 0) {
        tu_pass();
        return 1;
    }
    for (i = 0; i < n && got[i] == want[i]; i++)
        ;
    tu_fail("%s: first difference at byte %zu of %zu: got %s want %s", what,
            i, n, tu_hex(got + i, n - i > 16 ? 16 : n - i),
            tu_hex(want + i, n - i > 16 ? 16 : n - i));
    return 0;
}

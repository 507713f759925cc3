/* Shared helpers of the compat test programs; see compat_test.h. */
#include "compat_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned long ct_passed, ct_failed;

int ct_check(int ok, const char *what, const char *detail)
{
    if (ok) {
        ct_passed++;
    } else {
        ct_failed++;
        if (ct_failed <= 50)
            printf("FAIL: %s%s%s\n", what, detail ? " -- " : "",
                   detail ? detail : "");
    }
    return ok;
}

int ct_check_bytes(const unsigned char *got, const unsigned char *want,
                   size_t n, const char *what, const char *detail)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (got[i] != want[i])
            break;
    if (i == n)
        return ct_check(1, what, detail);
    if (ct_failed < 50)
        printf("  first difference at byte %zu of %zu: got %02x want %02x\n",
               i, n, got[i], want[i]);
    return ct_check(0, what, detail);
}

int ct_finish(const char *suite)
{
    printf("%s: %lu passed, %lu failed\n", suite, ct_passed, ct_failed);
    return ct_failed == 0 && ct_passed > 0 ? 0 : 1;
}

const char *ct_backend_gate(const char *suite)
{
    const char *want = getenv("RIJN_IMPL");
    const char *req = getenv("RIJN_TEST_REQUIRE_ALL");
    int require_all = req != NULL && strcmp(req, "1") == 0;
    size_t i, n = rijn_impl_count();
    rijn_impl_info info;

    if (want == NULL || *want == '\0') {
        const char *def = rijn_impl_default();
        printf("%s: RIJN_IMPL not set; default backend %s\n", suite,
               def ? def : "(none)");
        if (def == NULL)
            exit(1);
        return def;
    }
    for (i = 0; i < n; i++) {
        if (rijn_impl_get(i, &info) != 0 || strcmp(info.name, want) != 0)
            continue;
        if (!info.available) {
            printf("%s: backend %s UNAVAILABLE on this CPU (needs %s)\n",
                   suite, want, info.needs[0] ? info.needs : "?");
            exit(require_all ? 1 : 77);
        }
        printf("%s: backend %s\n", suite, want);
        return info.name;
    }
    printf("%s: backend %s is not compiled in\n", suite, want);
    exit(1);
}

static uint64_t ct_state;

void ct_seed(const char *suite)
{
    const char *s = getenv("RIJN_TEST_SEED");
    ct_state = s ? strtoull(s, NULL, 0) : 0x726a6e2d636f6d70ULL;
    printf("%s: seed 0x%llx (set RIJN_TEST_SEED to change)\n", suite,
           (unsigned long long)ct_state);
}

uint64_t ct_rand(void)
{
    /* splitmix64 */
    uint64_t z = (ct_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

size_t ct_rand_below(size_t n)
{
    return (size_t)(ct_rand() % n);
}

void ct_rand_bytes(unsigned char *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        p[i] = (unsigned char)ct_rand();
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

size_t ct_unhex(unsigned char *out, size_t cap, const char *hex, size_t len)
{
    size_t i;
    if (len % 2 != 0 || len / 2 > cap)
        return (size_t)-1;
    for (i = 0; i < len / 2; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return (size_t)-1;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return len / 2;
}

char *ct_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;

    if (f == NULL)
        return NULL;
    for (;;) {
        size_t got;
        if (cap - n < 65536) {
            char *nb = realloc(buf, cap + 65536 + 1);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
            cap += 65536;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

int ct_oracle_key(rijn_aes_key *k, const unsigned char *key, size_t len)
{
    if (rijn_aes_setkey_impl(k, key, len, "ref") == 0)
        return 0;
    return rijn_aes_setkey(k, key, len);
}

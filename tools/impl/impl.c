/*
 * `rijn impl`: the AES backends, Poly1305 engines and GHASH engines
 * compiled in, which ones this CPU can run, which ones are picked (for
 * AES-GCM: the engine each backend pairs with), and the CPU features
 * detected.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash/hash.h"
#include "rijn.h"
#include "tool.h"

static void impl_usage(FILE *f)
{
    fputs("usage: rijn impl\n"
          "\n"
          "Lists every AES backend compiled into librijn: whether this CPU\n"
          "(after RIJN_CPU_MASK) can run it, whether it is constant-time,\n"
          "the CPU features it needs, and which one is picked by default\n"
          "(the best available, or RIJN_IMPL). Then the Poly1305 engines,\n"
          "and the GHASH engines of AES-GCM with the backends each one is\n"
          "paired with at key setup (the engine with a fused AES+GHASH\n"
          "kernel for the backend where there is one, else the best this\n"
          "CPU runs, or RIJN_GHASH_IMPL). Exits 1 if RIJN_IMPL or\n"
          "RIJN_GHASH_IMPL names one that is unknown or that this CPU cannot\n"
          "run. Last, the CPU features detected and whether SHA-1/SHA-256\n"
          "(enc -pbkdf2) use the CPU's SHA extensions, and whether the\n"
          "OpenSSL 3 provider module rijn.so is installed where libcrypto\n"
          "looks for modules (OPENSSL_MODULES, else its modulesdir).\n",
          f);
}

/* Where libcrypto loads provider modules from, and whether rijn.so is
 * there (doc/provider.md). */
static void print_provider(void)
{
#ifdef RIJN_OSSL_MODULESDIR
    const char *env = getenv("OPENSSL_MODULES");
    const char *dir = env != NULL && *env != '\0' ? env : RIJN_OSSL_MODULESDIR;
    char path[4096];
    FILE *f;

    snprintf(path, sizeof path, "%s/rijn.so", dir);
    f = fopen(path, "rb");
    if (f != NULL) {
        fclose(f);
        printf("openssl provider: %s (installed; %s)\n", path,
               env != NULL && *env != '\0' ? "OPENSSL_MODULES"
                                           : "libcrypto's modulesdir");
    } else {
        printf("openssl provider: not installed in %s (%s; `cmake "
               "--install` puts rijn.so there, doc/provider.md)\n",
               dir, env != NULL && *env != '\0' ? "OPENSSL_MODULES"
                                                : "libcrypto's modulesdir");
    }
#else
    puts("openssl provider: not built (no OpenSSL 3 headers and shared "
         "libcrypto at build time)");
#endif
}

/* One row of a table: name, available, constant-time, needs, note. */
static void print_info(const rijn_impl_info *info, const char *note, int w)
{
    char line[512];
    size_t len;
    snprintf(line, sizeof line, "  %-*s %-10s %-14s %-24s%s", w, info->name,
             info->available ? "yes" : "no",
             info->constant_time ? "yes" : "NO",
             info->needs[0] ? info->needs : "-", note);
    len = strlen(line);
    while (len > 0 && line[len - 1] == ' ')
        line[--len] = '\0';
    puts(line);
}

/* The note of a row: " <- default" on the one picked by default. */
static void default_note(const rijn_impl_info *info, char *note, size_t n)
{
    snprintf(note, n, "%s", info->is_default ? " <- default" : "");
}

/*
 * The note of a GHASH engine: the AES backends a key pairs it with ("<- for
 * vaes-avx512 (default), ct64"), found by rijn_gcm_setkey_impl with each
 * backend this CPU runs, as an application's key setup would.
 */
static void pairing_note(const rijn_impl_info *info, char *note, size_t n)
{
    static const unsigned char zero[16];
    const char *aes_default = rijn_impl_default();
    rijn_impl_info aes;
    size_t used = 0;

    note[0] = '\0';
    for (size_t j = 0; rijn_impl_get(j, &aes) == 0 && used < n; j++) {
        rijn_gcm_key k;
        const char *e;
        if (!aes.available ||
            rijn_gcm_setkey_impl(&k, zero, 16, aes.name, NULL) != 0)
            continue;
        e = rijn_gcm_key_ghash(&k);
        rijn_gcm_key_wipe(&k);
        if (e == NULL || strcmp(e, info->name) != 0)
            continue;
        used += (size_t)snprintf(note + used, n - used, "%s%s%s",
                                 used ? ", " : " <- for ", aes.name,
                                 aes_default != NULL &&
                                         strcmp(aes.name, aes_default) == 0
                                     ? " (default)"
                                     : "");
    }
}

/* A table of one registry; returns 1 if one of its entries is not
 * constant-time. */
static int print_table(const char *title, size_t n,
                       int (*get)(size_t, rijn_impl_info *),
                       void (*note_of)(const rijn_impl_info *, char *, size_t))
{
    rijn_impl_info info;
    char note[256];
    int variable_time = 0, w = 14; /* the name column: the longest name */

    for (size_t i = 0; i < n; i++)
        if (get(i, &info) == 0 && (int)strlen(info.name) > w)
            w = (int)strlen(info.name);
    printf("%s compiled in: %zu\n\n", title, n);
    printf("  %-*s %-10s %-14s %s\n", w, "name", "available", "constant-time",
           "needs");
    for (size_t i = 0; i < n; i++) {
        if (get(i, &info) != 0)
            continue;
        note_of(&info, note, sizeof note);
        print_info(&info, note, w);
        if (!info.constant_time)
            variable_time = 1;
    }
    return variable_time;
}

/* Explain why RIJN_GHASH_IMPL is unusable; 0 if it is fine. */
static int check_ghash_env(void)
{
    const char *want = getenv("RIJN_GHASH_IMPL");
    rijn_impl_info info;

    if (rijn_gcm_impl_default() != NULL)
        return 0;
    fflush(stdout);
    if (want == NULL || *want == '\0') {
        tool_err("impl: no GHASH engine can run on this CPU");
        return -1;
    }
    for (size_t i = 0; rijn_gcm_impl_get(i, &info) == 0; i++) {
        if (strcmp(info.name, want) != 0)
            continue;
        if (!info.available)
            tool_err("impl: RIJN_GHASH_IMPL=%s: this CPU cannot run it "
                     "(needs %s)", want, info.needs[0] ? info.needs : "-");
        else
            tool_err("impl: RIJN_GHASH_IMPL=%s: not constant time; the "
                     "environment may select it only with "
                     "RIJN_ALLOW_VARIABLE_TIME=1", want);
        return -1;
    }
    tool_err("impl: RIJN_GHASH_IMPL=%s: unknown GHASH engine (see the "
             "table above)", want);
    return -1;
}

/* The SHA-1/SHA-256 code of `enc -pbkdf2` (src/hash): "hash: sha-ni (...)"
 * or "hash: portable (...)"; the extension's needs where there is one. */
static void print_hash_path(void)
{
    rijn_impl_info h;

    if (rijn_hash_accel_info(&h) != 0) {
        puts("hash: portable (SHA-1/SHA-256 of enc -pbkdf2)");
        return;
    }
    printf("hash: %s (SHA-1/SHA-256 of enc -pbkdf2; %s needs %s)\n",
           h.is_default ? h.name : "portable", h.name, h.needs);
}

int cmd_impl(int argc, char **argv)
{
    char feat[512];
    const char *def, *gdef;
    const char *forced = getenv("RIJN_IMPL");
    const char *gforced = getenv("RIJN_GHASH_IMPL");
    int variable_time;

    for (int i = 1; i < argc; i++) {
        if (tool_is_help(argv[i])) {
            impl_usage(stdout);
            return 0;
        }
        tool_err("impl: unknown option '%s' (see `rijn impl --help`)",
                 argv[i]);
        return 1;
    }

    variable_time = print_table("AES backends", rijn_impl_count(),
                                rijn_impl_get, default_note);
    if (variable_time)
        printf("\nconstant-time NO: timing depends on the key and data; for "
               "tests and comparison only.\n");
    putchar('\n');
    print_table("Poly1305 engines", rijn_poly1305_impl_count(),
                rijn_poly1305_impl_get, default_note);
    putchar('\n');
    print_table("GHASH engines (AES-GCM)", rijn_gcm_impl_count(),
                rijn_gcm_impl_get, pairing_note);
    printf("\ncpu features: %s\n", rijn_cpu_features(feat, sizeof feat));
    print_hash_path();

    def = rijn_impl_default();
    if (def == NULL) {
        putchar('\n');
        tool_check_rijn_impl_env("impl");
        return 1;
    }
    if (forced != NULL && *forced != '\0')
        printf("default: %s (forced by RIJN_IMPL)\n", def);
    else
        printf("default: %s (best backend this CPU runs; "
               "RIJN_IMPL=name overrides)\n", def);
    gdef = rijn_gcm_impl_default();
    if (gdef == NULL) {
        putchar('\n');
        check_ghash_env();
        return 1;
    }
    printf("gcm default: %s with %s (%s)\n", def, gdef,
           gforced != NULL && *gforced != '\0'
               ? "forced by RIJN_GHASH_IMPL"
               : "the engine paired with the default backend; "
                 "RIJN_GHASH_IMPL=name overrides");
    print_provider();
    return 0;
}

/*
 * `rijn speed`: AES-CTR (and with --gcm AES-GCM) benchmark of every
 * backend against OpenSSL's libcrypto and libgcrypt, measured side by side
 * in the same process.
 *
 * Method
 *   - A "cell" is one backend x key size x measure. For each cell every
 *     library (rijn, openssl, gcrypt) gets its own repetition size, chosen
 *     so that one repetition takes about --rep-ms; then the repetitions of
 *     the libraries alternate (rijn, openssl, gcrypt, gcrypt, openssl,
 *     rijn, ...) and each library's median time is kept. On a shared
 *     machine only the ratios measured this way mean much.
 *   - Time is wall time (CLOCK_MONOTONIC), or the thread's CPU time with
 *     --cpu-time; cycles are time x the core clock estimated once at start
 *     (see common/clock.c).
 *   - This file: options, interleaving, report, threads and plot; bench.c:
 *     the engines, the measures and the timing of one cell.
 *   - Measures: messages of 16 .. 16384 bytes and a long memory-resident
 *     buffer, each encrypted one-shot with a fixed expanded key and IV
 *     (rijn_aes_ctr_key; the peers reset their IV per message); then the
 *     eSTREAM measures: a continuing stream, 40/576/1500-byte packets with
 *     IV setup, Imix (7:4:1 mix of 40, 576, 1500-byte packets), agility
 *     (16 contexts with their own keys, 256 bytes each, round robin), and
 *     the cycles of key setup and IV setup.
 *   - --gcm: the same cells for AES-GCM, each AES backend with the GHASH
 *     engine a key picks for it (the fused kernel where there is one) or
 *     with the engines --ghash names: messages of 16 B .. 16 KiB, 1420-byte
 *     packets and the long buffer, each encrypted with a fixed expanded key
 *     and its own 12-byte IV, no AAD, 16-byte tag (rijn_gcm_encrypt; the
 *     peers set the IV per message: EVP_CipherInit_ex, gcry_cipher_setiv);
 *     Imix; decryption with the tag check of 1420 B and long messages;
 *     the cycles of key setup (AES key schedule, H and its powers).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bench.h"
#include "common/clock.h"
#include "common/peers.h"
#include "rijn.h"
#include "speed_mac.h"
#include "tool.h"

extern char **environ;

/* ------------------------------------------------------------------------
 * Options and report
 * --------------------------------------------------------------------- */

#define MAX_IMPLS 32

typedef struct opts {
    const char *impls[MAX_IMPLS];
    const char *ghash[MAX_IMPLS]; /* --gcm: the engine paired with impls[i] */
    int nimpl;
    unsigned bits[3];
    int nbits;
    enum bmode mode;
    int impl_given, nghash;       /* --impl; --ghash names in ghash[] */
    int quick, json, threads, cputime, mac;
    int use_peer[ENG_N];
    const char *plot;
    int reps;
    double rep_seconds;
    size_t long_len;
} opts;

typedef struct result {
    double sec[ENG_N]; /* median seconds per iteration; 0 = not measured */
    double best[ENG_N]; /* fastest repetition, seconds per iteration */
    double per_iter;   /* bytes per iteration, 0 = per operation */
} result;

static double core_hz;
static int json_first = 1;

static void speed_usage(FILE *f)
{
    fputs("usage: rijn speed [options]\n"
          "\n"
          "Benchmarks AES-CTR for every backend this CPU runs and every key\n"
          "size, against OpenSSL's libcrypto (EVP) and libgcrypt measured\n"
          "in the same run, interleaved, median of the repetitions. Cycles\n"
          "are wall time x the core clock estimated at start from a chain\n"
          "of dependent integer adds. ratio = peer time / rijn time, so a\n"
          "ratio above 1 means rijn is faster.\n"
          "\n"
          "  --impl a,b     backends to measure (default: all available)\n"
          "  --bits 128,..  key sizes (default: 128,192,256)\n"
          "  --quick        short run (CI, demos): fewer, shorter repetitions\n"
          "  --json         machine-readable output on stdout\n"
          "  --gcm          AES-GCM instead of AES-CTR: every backend with\n"
          "                 the GHASH engine a key picks for it (see `rijn\n"
          "                 impl`)\n"
          "  --ghash a,b    with --gcm: pair the default backend (or those of\n"
          "                 --impl) with these GHASH engines instead\n"
          "  --mac          Poly1305-AES instead of AES-CTR: every Poly1305\n"
          "                 engine against OpenSSL's EVP_MAC Poly1305 plus\n"
          "                 its AES-128 encryption of the nonce\n"
          "  --threads N    also run N threads, each on its own buffer, and\n"
          "                 report aggregate throughput and scaling vs 1\n"
          "  --plot F.png   write F.dat and F.gp (cycles/byte against message\n"
          "                 length, log-log) and run gnuplot if installed\n"
          "  --no-openssl, --no-gcrypt   leave a peer out\n"
          "  --cpu-time     time with CLOCK_THREAD_CPUTIME_ID instead of\n"
          "                 CLOCK_MONOTONIC: leaves out the time the\n"
          "                 benchmark is descheduled on a busy machine\n"
          "                 (with --threads: each thread's own CPU time)\n"
          "  --reps N       repetitions per cell and library (default 31,\n"
          "                 quick 11)\n"
          "  --rep-ms X     length of one repetition in ms (default 5,\n"
          "                 quick 1)\n"
          "  --long-kib N   size of the long buffer (default 1024 = 1 MiB)\n"
          "\n"
          "Measures (rows): one-shot messages of 16..16384 B and the long\n"
          "buffer with a fixed key and IV; eSTREAM-style: a continuing\n"
          "stream (eS stream), 40/576/1500-byte packets including IV setup,\n"
          "Imix (7:4:1 mix of 40, 576, 1500 B packets), agility (16\n"
          "contexts, 256 B each, round robin), key setup and IV setup in\n"
          "cycles.\n"
          "--gcm rows: messages of 16 B to 16 KiB, 1420 B packets and the\n"
          "long buffer, each with the fixed expanded key and its own 12-byte\n"
          "IV, no AAD, encrypted with a 16-byte tag; Imix; decryption with\n"
          "the tag check (open) of 1420 B and long messages; key setup in\n"
          "cycles (AES key schedule, GHASH key and its powers).\n",
          f);
}

/* Split a comma-separated list; the entries point into *storage, which the
 * caller frees when it no longer needs them. */
static int parse_list(const char *arg, const char *opt, char *out[],
                      int max, int *n, char **storage_out)
{
    char *storage = strdup(arg);
    char *p, *tok, *save = NULL;

    *storage_out = storage;
    if (storage == NULL) {
        tool_err("speed: out of memory");
        return -1;
    }
    *n = 0;
    for (p = storage; (tok = strtok_r(p, ",", &save)) != NULL; p = NULL) {
        if (*n == max) {
            tool_err("speed: %s: too many entries", opt);
            return -1;
        }
        out[(*n)++] = tok;
    }
    if (*n == 0) {
        tool_err("speed: %s: empty list", opt);
        return -1;
    }
    return 0;
}

static int parse_uint(const char *s, const char *opt, long lo, long hi,
                      long *v)
{
    char *end;
    errno = 0;
    *v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || *v < lo || *v > hi) {
        tool_err("speed: %s: expected a number from %ld to %ld, got '%s'",
                 opt, lo, hi, s);
        return -1;
    }
    return 0;
}

/* 1 if `name` is in the list (rijn_impl_get, rijn_gcm_impl_get) and this
 * CPU runs it; otherwise says why (what: "backend", "GHASH engine"). */
static int usable(int (*get)(size_t, rijn_impl_info *), const char *what,
                  const char *name)
{
    rijn_impl_info info;
    for (size_t i = 0; get(i, &info) == 0; i++) {
        if (strcmp(info.name, name) == 0) {
            if (!info.available) {
                tool_err("speed: %s '%s' is not available on this CPU "
                         "(needs %s)", what, name, info.needs);
                return 0;
            }
            return 1;
        }
    }
    tool_err("speed: unknown %s '%s' (see `rijn impl`)", what, name);
    return 0;
}

/* A named list option (--impl, --ghash): out[0..*n) = its entries, each
 * usable; they point into *storage (freed first: the last option wins),
 * which lives until exit. */
static int parse_names(const char *arg, const char *opt,
                       int (*get)(size_t, rijn_impl_info *),
                       const char *what, const char *out[], int *n,
                       char **storage)
{
    char *list[MAX_IMPLS];

    free(*storage);
    if (parse_list(arg, opt, list, MAX_IMPLS, n, storage) != 0)
        return -1;
    for (int j = 0; j < *n; j++) {
        if (!usable(get, what, list[j]))
            return -1;
        out[j] = list[j];
    }
    return 0;
}

/* Returns 0 to go on, 1 on error, 2 if help was printed. */
static int parse_opts(opts *o, int argc, char **argv)
{
    static char *impl_storage, *ghash_storage;
    int rep_ms_given = 0, reps_given = 0;
    long v;

    memset(o, 0, sizeof *o);
    o->use_peer[ENG_OPENSSL] = o->use_peer[ENG_GCRYPT] = 1;
    o->long_len = (size_t)1 << 20;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = strcmp(a, "--impl") == 0 || strcmp(a, "--bits") == 0 ||
                    strcmp(a, "--ghash") == 0 ||
                    strcmp(a, "--threads") == 0 || strcmp(a, "--plot") == 0 ||
                    strcmp(a, "--reps") == 0 || strcmp(a, "--rep-ms") == 0 ||
                    strcmp(a, "--long-kib") == 0;

        if (tool_is_help(a)) {
            speed_usage(stdout);
            return 2;
        }
        if (takes && val == NULL) {
            tool_err("speed: option '%s' needs an argument", a);
            return 1;
        }
        if (strcmp(a, "--quick") == 0) {
            o->quick = 1;
        } else if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(a, "--mac") == 0) {
            o->mac = 1;
        } else if (strcmp(a, "--gcm") == 0) {
            o->mode = MODE_GCM;
        } else if (strcmp(a, "--cpu-time") == 0) {
            o->cputime = 1;
        } else if (strcmp(a, "--no-openssl") == 0) {
            o->use_peer[ENG_OPENSSL] = 0;
        } else if (strcmp(a, "--no-gcrypt") == 0) {
            o->use_peer[ENG_GCRYPT] = 0;
        } else if (strcmp(a, "--impl") == 0 || strcmp(a, "--ghash") == 0) {
            int impl = a[2] == 'i';
            if (impl ? parse_names(val, a, rijn_impl_get, "backend",
                                   o->impls, &o->nimpl, &impl_storage) != 0
                     : parse_names(val, a, rijn_gcm_impl_get, "GHASH engine",
                                   o->ghash, &o->nghash, &ghash_storage) != 0)
                return 1;
            o->impl_given |= impl;
            i++;
        } else if (strcmp(a, "--bits") == 0) {
            char *b[3], *storage;
            int bad = parse_list(val, a, b, 3, &o->nbits, &storage) != 0;
            for (int j = 0; !bad && j < o->nbits; j++) {
                if (parse_uint(b[j], a, 128, 256, &v) != 0) {
                    bad = 1;
                } else if (v != 128 && v != 192 && v != 256) {
                    tool_err("speed: --bits: %ld is not 128, 192 or 256", v);
                    bad = 1;
                }
                o->bits[j] = (unsigned)v;
            }
            free(storage);
            if (bad)
                return 1;
            i++;
        } else if (strcmp(a, "--threads") == 0) {
            if (parse_uint(val, a, 1, 256, &v) != 0)
                return 1;
            o->threads = (int)v;
            i++;
        } else if (strcmp(a, "--plot") == 0) {
            o->plot = val;
            i++;
        } else if (strcmp(a, "--reps") == 0) {
            if (parse_uint(val, a, 1, 1001, &v) != 0)
                return 1;
            o->reps = (int)v;
            reps_given = 1;
            i++;
        } else if (strcmp(a, "--rep-ms") == 0) {
            if (parse_uint(val, a, 1, 10000, &v) != 0)
                return 1;
            o->rep_seconds = (double)v / 1000;
            rep_ms_given = 1;
            i++;
        } else if (strcmp(a, "--long-kib") == 0) {
            if (parse_uint(val, a, 1, 1 << 20, &v) != 0)
                return 1;
            o->long_len = (size_t)v << 10;
            i++;
        } else {
            tool_err("speed: unknown option '%s' (see `rijn speed --help`)",
                     a);
            return 1;
        }
    }
    if (o->nghash > 0 && o->mode != MODE_GCM) {
        tool_err("speed: --ghash goes with --gcm");
        return 1;
    }
    if (o->mac && o->mode == MODE_GCM) {
        tool_err("speed: --mac and --gcm: one table at a time");
        return 1;
    }
    if (!reps_given)
        o->reps = o->quick ? 11 : 31;
    if (!rep_ms_given)
        o->rep_seconds = o->quick ? 0.001 : 0.005;
    if (o->nbits == 0) {
        o->nbits = 3;
        o->bits[0] = 128;
        o->bits[1] = 192;
        o->bits[2] = 256;
    }
    if (o->nimpl == 0 && o->nghash == 0) {
        rijn_impl_info info;
        for (size_t i = 0; rijn_impl_get(i, &info) == 0 && o->nimpl < MAX_IMPLS;
             i++)
            if (info.available)
                o->impls[o->nimpl++] = info.name;
        if (o->nimpl == 0) {
            tool_err("speed: no backend available on this CPU");
            return 1;
        }
    }
    return 0;
}

/*
 * --gcm: the (backend, GHASH engine) rows. Without --ghash every backend
 * gets the engine a key set up for it picks (RIJN_GHASH_IMPL applies);
 * with it, the default backend (or each of --impl) gets each engine named.
 */
static int gcm_pairs(opts *o)
{
    const char *names[MAX_IMPLS], *base[MAX_IMPLS];
    int nbase = o->nimpl, n = 0;

    memcpy(names, o->ghash, sizeof names);
    memcpy(base, o->impls, sizeof base);
    if (o->nghash == 0) {
        for (int b = 0; b < nbase; b++) {
            rijn_gcm_key k;
            if (rijn_gcm_setkey_impl(&k, bench_key, 16, base[b], NULL) != 0) {
                tool_err("speed: no GHASH engine for backend '%s' (see "
                         "`rijn impl`, RIJN_GHASH_IMPL)", base[b]);
                return -1;
            }
            o->ghash[b] = rijn_gcm_key_ghash(&k);
            rijn_gcm_key_wipe(&k);
        }
        return 0;
    }
    if (!o->impl_given) {
        base[0] = rijn_impl_default();
        nbase = 1;
        if (base[0] == NULL) {
            tool_err("speed: no default backend");
            return -1;
        }
    }
    for (int b = 0; b < nbase; b++) {
        for (int g = 0; g < o->nghash; g++, n++) {
            if (n == MAX_IMPLS) {
                tool_err("speed: more than %d backend and GHASH engine "
                         "pairs", MAX_IMPLS);
                return -1;
            }
            o->impls[n] = base[b];
            o->ghash[n] = names[g];
        }
    }
    o->nimpl = n;
    return 0;
}

static void json_string(const char *s)
{
    putchar('"');
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            printf("\\%c", ch);
        else if (ch < 0x20)
            printf("\\u%04x", ch);
        else
            putchar(ch);
    }
    putchar('"');
}

/* Row b (backend, GHASH engine) with the k-th key size. */
static variant row_variant(const opts *o, int b, int k)
{
    variant v = {o->mode, o->impls[b], o->ghash[b], o->bits[k] / 8};
    return v;
}

/* "backend-bits", or with --gcm "backend/engine-bits". */
static void variant_name(const variant *v, char *buf, size_t n)
{
    if (v->mode == MODE_GCM)
        snprintf(buf, n, "%s/%s-%zu", v->impl, v->ghash, v->key_len * 8);
    else
        snprintf(buf, n, "%s-%zu", v->impl, v->key_len * 8);
}

/* The first columns of a text row: the backend, with --gcm its engine. */
static void print_backend(enum bmode mode, const char *impl,
                          const char *ghash)
{
    printf("%-12s ", impl);
    if (mode == MODE_GCM)
        printf("%-15s ", ghash);
}

/* The same as the first members of a JSON object. */
static void json_backend(const variant *v)
{
    printf("{\"impl\": \"%s\", ", v->impl);
    if (v->mode == MODE_GCM)
        printf("\"ghash\": \"%s\", ", v->ghash);
}

static void print_header(const opts *o)
{
    const peer *po = o->use_peer[ENG_OPENSSL] ? peer_openssl() : NULL;
    const peer *pg = o->use_peer[ENG_GCRYPT] ? peer_gcrypt() : NULL;
    char feat[512];

    rijn_cpu_features(feat, sizeof feat);
    if (o->json) {
        printf("{\n  \"tool\": \"rijn speed\",\n  \"mode\": \"aes-%s\",\n"
               "  \"version\": ", o->mode == MODE_GCM ? "gcm" : "ctr");
        json_string(rijn_version());
        printf(",\n  \"cpu_features\": ");
        json_string(feat);
        printf(",\n  \"clock\": {\"core_ghz\": %.4f, \"method\": ",
               core_hz / 1e9);
        json_string(clock_method());
        printf(", \"timer\": \"%s\"},\n", clock_name());
        printf("  \"timing\": {\"reps\": %d, \"rep_seconds\": %g, "
               "\"long_bytes\": %zu, \"statistic\": \"median\", "
               "\"interleaved\": true},\n",
               o->reps, o->rep_seconds, o->long_len);
        if (o->mode == MODE_GCM)
            printf("  \"gcm\": {\"iv_bytes\": 12, \"aad_bytes\": 0, "
                   "\"tag_bytes\": 16, \"iv_per_message\": true},\n");
        printf("  \"peers\": {\"openssl\": ");
        if (po)
            json_string(peer_version(po));
        else
            printf("null");
        printf(", \"gcrypt\": ");
        if (pg)
            json_string(peer_version(pg));
        else
            printf("null");
        printf("},\n  \"results\": [");
        return;
    }
    printf("rijn speed: librijn %s, %s; cpu features: %s\n", rijn_version(),
           o->mode == MODE_GCM ? "AES-GCM (a 12-byte IV set per message, no "
                                 "AAD, 16-byte tag)"
                               : "AES-CTR",
           feat);
    printf("clock: %.2f GHz, %s;\n       times from clock_gettime(%s)%s;"
           " cycles/byte = seconds x core Hz / bytes\n",
           core_hz / 1e9, clock_method(), clock_name(),
           o->cputime ? " (CPU time of the thread)" : "");
    printf("timing: median of %d repetitions of ~%g ms per cell and library,"
           " libraries interleaved; long = %zu KiB\n",
           o->reps, o->rep_seconds * 1e3, o->long_len >> 10);
    if (po)
        printf("openssl: %s (%s via dlopen, EVP)\n", peer_version(po),
               peer_soname(po));
    else if (o->use_peer[ENG_OPENSSL])
        printf("openssl: absent (%s); no openssl column\n",
               peer_openssl_error());
    if (pg)
        printf("gcrypt:  %s (%s via dlopen)\n", peer_version(pg),
               peer_soname(pg));
    else if (o->use_peer[ENG_GCRYPT])
        printf("gcrypt:  absent (%s); no gcrypt column\n",
               peer_gcrypt_error());
    printf("ratio = peer time / rijn time (> 1: rijn is faster); rows "
           "marked [cyc] are cycles per operation\n\n");
    print_backend(o->mode, "backend", "ghash");
    printf("%4s %-16s %10s %7s %12s %7s %11s %7s\n", "bits", "measure",
           "rijn c/B", "GB/s", "openssl c/B", "ratio", "gcrypt c/B",
           "ratio");
}

static double to_cycles(const result *r, int e)
{
    double cyc = r->sec[e] * core_hz;
    return r->per_iter > 0 ? cyc / r->per_iter : cyc;
}

static void print_row(const opts *o, const variant *v, const measure *m,
                      const result *r)
{
    double rc = to_cycles(r, ENG_RIJN);
    unsigned bits = (unsigned)v->key_len * 8;

    if (o->json) {
        printf("%s\n    ", json_first ? "" : ",");
        json_backend(v);
        printf("\"bits\": %u, \"measure\": \"%s\", \"bytes\": %.0f, "
               "\"unit\": \"%s\"", bits, m->id, r->per_iter,
               r->per_iter > 0 ? "cycles/byte" : "cycles");
        json_first = 0;
        for (int e = 0; e < ENG_N; e++) {
            if (r->sec[e] <= 0) {
                printf(", \"%s\": null", eng_names[e]);
                continue;
            }
            printf(", \"%s\": {\"value\": %.4f, \"seconds\": %.6e, "
                   "\"best_seconds\": %.6e",
                   eng_names[e], to_cycles(r, e), r->sec[e], r->best[e]);
            if (r->per_iter > 0)
                printf(", \"gbps\": %.4f", r->per_iter / r->sec[e] / 1e9);
            if (e != ENG_RIJN)
                printf(", \"ratio\": %.4f", r->sec[e] / r->sec[ENG_RIJN]);
            putchar('}');
        }
        putchar('}');
        fflush(stdout);
        return;
    }
    print_backend(v->mode, v->impl, v->ghash);
    printf("%4u %-16s %10.2f ", bits, m->label, rc);
    if (r->per_iter > 0)
        printf("%7.3f ", r->per_iter / r->sec[ENG_RIJN] / 1e9);
    else
        printf("%7s ", "-");
    for (int e = ENG_OPENSSL; e < ENG_N; e++) {
        int w = e == ENG_OPENSSL ? 12 : 11;
        if (r->sec[e] > 0)
            printf("%*.2f %6.2fx", w, to_cycles(r, e),
                   r->sec[e] / r->sec[ENG_RIJN]);
        else
            printf("%*s %7s", w, "-", "-");
        putchar(e + 1 < ENG_N ? ' ' : '\n');
    }
    fflush(stdout);
}

/* ------------------------------------------------------------------------
 * Cross-check: every engine must produce the same bytes
 * --------------------------------------------------------------------- */

static int cross_check(const opts *o, const variant *v)
{
    /* A counter whose low 64 bits wrap after 2 blocks: tests the carry
     * (CTR); GCM takes the first 12 bytes. */
    static const unsigned char iv[16] = {0, 1, 2, 3, 4, 5, 6, 7,
                                         0xff, 0xff, 0xff, 0xff,
                                         0xff, 0xff, 0xff, 0xfe};
    enum { N = 3001 };
    static unsigned char in[N], ref[N], got[N];
    unsigned char tag[16] = {0}, wrong[16];
    int gcm = v->mode == MODE_GCM, bad = 0;
    char name[64];

    variant_name(v, name, sizeof name);
    for (size_t i = 0; i < N; i++)
        in[i] = (unsigned char)(i * 7 + 3);
    for (int e = 0; e < ENG_N; e++) {
        session *s;
        if (e != ENG_RIJN && (!o->use_peer[e] || engine_peer(e) == NULL))
            continue;
        s = sess_open(e, v, bench_key, iv);
        if (s == NULL) {
            tool_err("speed: %s: cannot set up AES-%zu-%s",
                     e == ENG_RIJN ? v->impl : eng_names[e], v->key_len * 8,
                     mode_names[v->mode]);
            return -1;
        }
        if (e == ENG_RIJN) {
            sess_oneshot(s, ref, in, N, iv);
            memcpy(tag, s->tag, 16);
            /* streaming in uneven pieces must match one-shot */
            if (sess_pieces(s, got, in, N, iv) != 0 ||
                memcmp(ref, got, N) != 0 || memcmp(tag, s->tag, 16) != 0) {
                tool_err("speed: %s: streaming output differs from "
                         "one-shot", name);
                bad = 1;
            }
        } else {
            sess_oneshot(s, got, in, N, iv);
            if (sess_failed(s) || memcmp(ref, got, N) != 0 ||
                memcmp(tag, s->tag, 16) != 0) {
                tool_err("speed: MISMATCH: %s output differs from %s", name,
                         eng_names[e]);
                bad = 1;
            }
        }
        /* GCM: every engine opens rijn's message and refuses a wrong tag */
        memcpy(wrong, tag, 16);
        wrong[15] ^= 1;
        if (gcm && (sess_decrypt(s, got, ref, N, iv, tag) != 0 ||
                    memcmp(got, in, N) != 0 ||
                    sess_decrypt(s, got, ref, N, iv, wrong) == 0)) {
            tool_err("speed: MISMATCH: %s does not open %s's message as it "
                     "should", eng_names[e], name);
            bad = 1;
        }
        sess_close(s);
    }
    return bad ? -1 : 0;
}

/* ------------------------------------------------------------------------
 * One cell: all engines, interleaved
 * --------------------------------------------------------------------- */

static int measure_cell(const opts *o, const variant *v, const measure *m,
                        unsigned char *in, unsigned char *out, result *r)
{
    cell cells[ENG_N];
    size_t iters[ENG_N];
    int active[ENG_N], order[ENG_N], na = 0, rc = 0;
    double *samples = calloc((size_t)o->reps * ENG_N, sizeof *samples);

    memset(r, 0, sizeof *r);
    if (samples == NULL) {
        tool_err("speed: out of memory");
        return -1;
    }
    for (int e = 0; e < ENG_N; e++) {
        active[e] = 0;
        if (e != ENG_RIJN && (!o->use_peer[e] || engine_peer(e) == NULL))
            continue;
        if (cell_open(&cells[e], m, e, v, in, out, o->long_len) != 0) {
            cell_close(&cells[e]);
            tool_err("speed: %s: cannot set up AES-%zu-%s", eng_names[e],
                     v->key_len * 8, mode_names[v->mode]);
            if (e == ENG_RIJN) {
                free(samples);
                return -1;
            }
            continue;
        }
        active[e] = 1;
        order[na++] = e;
        r->per_iter = bytes_per_iter(&cells[e]);
        iters[e] = calibrate(&cells[e], o->rep_seconds);
    }
    /* Alternate the order every repetition so no library always goes first. */
    for (int rep = 0; rep < o->reps; rep++) {
        for (int k = 0; k < na; k++) {
            int e = order[rep % 2 ? na - 1 - k : k];
            samples[e * o->reps + rep] =
                time_iters(&cells[e], iters[e]) / (double)iters[e];
        }
    }
    for (int e = 0; e < ENG_N; e++) {
        if (!active[e])
            continue;
        r->sec[e] = median(samples + e * o->reps, o->reps);
        r->best[e] = samples[e * o->reps]; /* sorted by median() */
        if (cell_close(&cells[e]) != 0) {
            tool_err("speed: %s reported an error during %s", eng_names[e],
                     m->id);
            r->sec[e] = 0;
            rc = -1;
        }
    }
    free(samples);
    return rc;
}

static void threads_report(const opts *o)
{
    double seconds = o->quick ? 0.25 : 1.0;
    int first = 1;

    if (o->json) {
        printf("\n  ],\n  \"threads\": [");
    } else {
        printf("\nthreads: %d, each encrypting its own %zu KiB buffer "
               "(%s) for ~%g s;\n         GB/s = the sum over the threads "
               "of bytes / %s\n", o->threads, o->long_len >> 10,
               o->mode == MODE_GCM ? "one message after another, in place, "
                                     "each with its IV and tag"
                                   : "continuing stream",
               seconds, o->cputime ? "the thread's CPU time" : "wall time");
        print_backend(o->mode, "backend", "ghash");
        printf("%4s %-8s %12s %12s %8s %14s\n", "bits", "library",
               "1 thr GB/s", "N thr GB/s", "scaling", "c/B per thread");
    }
    for (int b = 0; b < o->nimpl; b++) {
        for (int k = 0; k < o->nbits; k++) {
            variant v = row_variant(o, b, k);
            for (int e = 0; e < ENG_N; e++) {
                double one, many, cpb;
                if (e != ENG_RIJN && (!o->use_peer[e] || !engine_peer(e)))
                    continue;
                one = run_threads(e, &v, 1, o->long_len, seconds);
                many = run_threads(e, &v, o->threads, o->long_len, seconds);
                if (one <= 0 || many <= 0) {
                    tool_err("speed: thread run failed (%s)", eng_names[e]);
                    continue;
                }
                cpb = core_hz * o->threads / many;
                if (o->json) {
                    printf("%s\n    ", first ? "" : ",");
                    json_backend(&v);
                    printf("\"bits\": %u, \"library\": \"%s\", "
                           "\"threads\": %d, \"gbps_1\": %.4f, "
                           "\"gbps_n\": %.4f, \"scaling\": %.3f, "
                           "\"cycles_per_byte_per_thread\": %.4f}",
                           o->bits[k], eng_names[e], o->threads, one / 1e9,
                           many / 1e9, many / one, cpb);
                    first = 0;
                } else {
                    print_backend(v.mode, v.impl, v.ghash);
                    printf("%4u %-8s %12.3f %12.3f %7.2fx %14.2f\n",
                           o->bits[k], eng_names[e], one / 1e9, many / 1e9,
                           many / one, cpb);
                }
                fflush(stdout);
            }
        }
    }
}

/* ------------------------------------------------------------------------
 * Plot: cycles/byte against message length, log-log
 * --------------------------------------------------------------------- */

typedef struct series {
    char name[48];
    double cpb[N_MEASURES];
} series;

static char plot_dat[4200], plot_gp[4200];

/* F.png -> F.dat, F.gp; checked (created) before the long run starts. */
static int plot_prepare(const char *png)
{
    char base[4096];
    size_t n = strlen(png);
    FILE *f;

    if (n >= sizeof base) {
        tool_err("speed: --plot: path too long");
        return -1;
    }
    memcpy(base, png, n + 1);
    if (n > 4 && strcmp(base + n - 4, ".png") == 0)
        base[n - 4] = '\0';
    snprintf(plot_dat, sizeof plot_dat, "%s.dat", base);
    snprintf(plot_gp, sizeof plot_gp, "%s.gp", base);
    f = fopen(plot_dat, "w");
    if (f == NULL || fclose(f) != 0) {
        tool_err("speed: --plot: %s: %s", plot_dat, strerror(errno));
        return -1;
    }
    return 0;
}

/* What the curve's messages are. */
static const char *plot_what(enum bmode mode)
{
    return mode == MODE_GCM ? "messages with their own 12-byte IV and tag"
                            : "one-shot messages with a fixed key and IV";
}

/* sv holds nrijn backend series first, then the peers'; unnamed = unused */
static int write_plot(const opts *o, const series *sv, int ns)
{
    const char *dat = plot_dat, *gp = plot_gp;
    int nrijn = 0, nall = 0;
    FILE *f;

    for (int s = 0; s < ns; s++) {
        if (sv[s].name[0] == '\0')
            continue;
        nall++;
        if (strncmp(sv[s].name, "openssl-", 8) != 0 &&
            strncmp(sv[s].name, "gcrypt-", 7) != 0)
            nrijn++;
    }
    f = fopen(dat, "w");
    if (f == NULL) {
        tool_err("speed: %s: %s", dat, strerror(errno));
        return -1;
    }
    fprintf(f, "# rijn speed: cycles/byte (core clock %.2f GHz), %s\nlength",
            core_hz / 1e9, plot_what(o->mode));
    for (int s = 0; s < ns; s++)
        if (sv[s].name[0] != '\0')
            fprintf(f, " %s", sv[s].name);
    fputc('\n', f);
    for (size_t m = 0; m < N_MEASURES; m++) {
        if (measures[m].mode != o->mode || !measure_on_curve(&measures[m]))
            continue;
        fprintf(f, "%zu", measures[m].len == LONG_LEN ? o->long_len
                                                      : measures[m].len);
        for (int s = 0; s < ns; s++) {
            if (sv[s].name[0] == '\0')
                continue;
            if (sv[s].cpb[m] > 0)
                fprintf(f, " %.4f", sv[s].cpb[m]);
            else
                fputs(" ?", f);
        }
        fputc('\n', f);
    }
    if (fclose(f) != 0) {
        tool_err("speed: %s: %s", dat, strerror(errno));
        return -1;
    }

    f = fopen(gp, "w");
    if (f == NULL) {
        tool_err("speed: %s: %s", gp, strerror(errno));
        return -1;
    }
    fprintf(f,
            "# gnuplot script written by `rijn speed --plot`; run: gnuplot %s\n"
            "set terminal pngcairo size 1100,700 noenhanced\n"
            "set output '%s'\n"
            "set title 'AES-%s, %s (core clock %.2f GHz estimated)'\n"
            "set logscale xy\n"
            "set xlabel 'message length (bytes)'\n"
            "set ylabel 'cycles per byte'\n"
            "set grid\n"
            "set key outside right\n"
            "set format x '%%.0s%%cB'\n"
            "set datafile missing '?'\n"
            "# rijn backends solid, comparison libraries dashed\n"
            "plot for [i=2:%d] '%s' using 1:i with linespoints lw 2 "
            "title columnheader(i)%s",
            gp, o->plot, mode_names[o->mode], plot_what(o->mode),
            core_hz / 1e9, nrijn + 1, dat,
            nall > nrijn ? ", \\\n" : "\n");
    if (nall > nrijn)
        fprintf(f, "     for [i=%d:%d] '%s' using 1:i with linespoints "
                   "dt 2 title columnheader(i)\n", nrijn + 2, nall + 1, dat);
    if (fclose(f) != 0) {
        tool_err("speed: %s: %s", gp, strerror(errno));
        return -1;
    }

    {
        char arg0[] = "gnuplot";
        char *args[] = {arg0, plot_gp, NULL};
        pid_t pid;
        int st, err = posix_spawnp(&pid, "gnuplot", NULL, NULL, args, environ);
        if (err != 0) {
            fprintf(stderr, "rijn: speed: gnuplot not found (%s); wrote %s and "
                    "%s; install gnuplot-nox and run `gnuplot %s`\n",
                    strerror(err), dat, gp, gp);
            return 0;
        }
        if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
            WEXITSTATUS(st) != 0) {
            tool_err("speed: gnuplot failed on %s", gp);
            return -1;
        }
        fprintf(stderr, "rijn: speed: wrote %s (data %s, script %s)\n",
                o->plot, dat, gp);
    }
    return 0;
}

/* ------------------------------------------------------------------------ */

int cmd_speed(int argc, char **argv)
{
    opts o;
    unsigned char *in, *out;
    size_t buflen;
    series *sv = NULL;
    int ns = 0, status = 0, rc;

    rc = parse_opts(&o, argc, argv);
    if (rc != 0)
        return rc == 2 ? 0 : 1;
    if (tool_check_rijn_impl_env("speed") != 0)
        return 1;
    if (o.cputime && clock_use_cputime(1) != 0) {
        tool_err("speed: --cpu-time: no thread CPU-time clock here");
        return 1;
    }
    if (o.mac)
        return rijn_speed_poly1305(stdout, o.json, o.quick) == 0 ? 0 : 1;
    if (o.mode == MODE_GCM && gcm_pairs(&o) != 0)
        return 1;

    if (o.plot) {
        /* backend x bits series first, then peer x bits */
        ns = (o.nimpl + 2) * o.nbits;
        sv = calloc((size_t)ns, sizeof *sv);
        if (sv == NULL) {
            tool_err("speed: out of memory");
            return 1;
        }
        if (plot_prepare(o.plot) != 0) {
            free(sv);
            return 1;
        }
    }

    buflen = o.long_len > AGILITY_CTX * AGILITY_CHUNK
                 ? o.long_len
                 : AGILITY_CTX * AGILITY_CHUNK;
    in = alloc64(buflen);
    out = alloc64(buflen);
    for (size_t i = 0; i < buflen; i++)
        in[i] = (unsigned char)(i * 131 + 7);
    memset(out, 0, buflen);

    core_hz = clock_estimate_core_hz(o.quick ? 0.1 : 0.4);
    if (core_hz <= 0) {
        tool_err("speed: could not estimate the core clock");
        return 1;
    }
    print_header(&o);

    for (int b = 0; b < o.nimpl; b++) {
        for (int k = 0; k < o.nbits; k++) {
            variant v = row_variant(&o, b, k);
            series *mine = NULL, *peer_sv[ENG_N] = {NULL, NULL, NULL};

            if (cross_check(&o, &v) != 0)
                status = 1;
            if (sv) {
                mine = &sv[b * o.nbits + k];
                variant_name(&v, mine->name, sizeof mine->name);
                /* peers: one series per key size, from the first backend */
                for (int e = ENG_OPENSSL; e < ENG_N && b == 0; e++) {
                    if (!o.use_peer[e] || !engine_peer(e))
                        continue;
                    peer_sv[e] = &sv[(o.nimpl + e - 1) * o.nbits + k];
                    snprintf(peer_sv[e]->name, sizeof peer_sv[e]->name,
                             "%s-%u", eng_names[e], o.bits[k]);
                }
            }
            for (size_t m = 0; m < N_MEASURES; m++) {
                result r;
                if (measures[m].mode != v.mode)
                    continue;
                if (measure_cell(&o, &v, &measures[m], in, out, &r) != 0)
                    status = 1;
                if (r.sec[ENG_RIJN] <= 0)
                    continue;
                print_row(&o, &v, &measures[m], &r);
                if (mine && r.per_iter > 0) {
                    mine->cpb[m] = to_cycles(&r, ENG_RIJN);
                    for (int e = ENG_OPENSSL; e < ENG_N; e++)
                        if (peer_sv[e] && r.sec[e] > 0)
                            peer_sv[e]->cpb[m] = to_cycles(&r, e);
                }
            }
        }
    }

    if (o.threads > 0)
        threads_report(&o);
    if (o.json)
        printf("\n  ],\n  \"status\": %s\n}\n", status ? "\"errors\"" : "\"ok\"");
    if (fflush(stdout) != 0 || ferror(stdout)) {
        tool_err("speed: write error on standard output");
        status = 1;
    }
    if (sv && write_plot(&o, sv, ns) != 0)
        status = 1;

    free(sv);
    free(in);
    free(out);
    return status;
}

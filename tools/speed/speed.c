/*
 * `rijn speed`: AES-CTR benchmark of every backend against OpenSSL's
 * libcrypto and libgcrypt, measured side by side in the same process.
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
    int nimpl;
    unsigned bits[3];
    int nbits;
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
          "cycles.\n",
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

static int impl_usable(const char *name)
{
    rijn_impl_info info;
    for (size_t i = 0; rijn_impl_get(i, &info) == 0; i++) {
        if (strcmp(info.name, name) == 0) {
            if (!info.available) {
                tool_err("speed: backend '%s' is not available on this CPU "
                         "(needs %s)", name, info.needs);
                return 0;
            }
            return 1;
        }
    }
    tool_err("speed: unknown backend '%s' (see `rijn impl`)", name);
    return 0;
}

/* Returns 0 to go on, 1 on error, 2 if help was printed. */
static int parse_opts(opts *o, int argc, char **argv)
{
    static char *impl_list[MAX_IMPLS];
    static char *impl_storage;
    int rep_ms_given = 0, reps_given = 0;
    long v;

    memset(o, 0, sizeof *o);
    o->use_peer[ENG_OPENSSL] = o->use_peer[ENG_GCRYPT] = 1;
    o->long_len = (size_t)1 << 20;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = strcmp(a, "--impl") == 0 || strcmp(a, "--bits") == 0 ||
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
        } else if (strcmp(a, "--cpu-time") == 0) {
            o->cputime = 1;
        } else if (strcmp(a, "--no-openssl") == 0) {
            o->use_peer[ENG_OPENSSL] = 0;
        } else if (strcmp(a, "--no-gcrypt") == 0) {
            o->use_peer[ENG_GCRYPT] = 0;
        } else if (strcmp(a, "--impl") == 0) {
            /* impl_storage lives until exit: o->impls point into it */
            if (parse_list(val, a, impl_list, MAX_IMPLS, &o->nimpl,
                           &impl_storage) != 0)
                return 1;
            for (int j = 0; j < o->nimpl; j++) {
                if (!impl_usable(impl_list[j]))
                    return 1;
                o->impls[j] = impl_list[j];
            }
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
    if (o->nimpl == 0) {
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

static void print_header(const opts *o)
{
    const peer *po = o->use_peer[ENG_OPENSSL] ? peer_openssl() : NULL;
    const peer *pg = o->use_peer[ENG_GCRYPT] ? peer_gcrypt() : NULL;
    char feat[512];

    rijn_cpu_features(feat, sizeof feat);
    if (o->json) {
        printf("{\n  \"tool\": \"rijn speed\",\n  \"version\": ");
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
    printf("rijn speed: librijn %s, AES-CTR; cpu features: %s\n",
           rijn_version(), feat);
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
    printf("%-12s %4s %-16s %10s %7s %12s %7s %11s %7s\n", "backend", "bits",
           "measure", "rijn c/B", "GB/s", "openssl c/B", "ratio",
           "gcrypt c/B", "ratio");
}

static double to_cycles(const result *r, int e)
{
    double cyc = r->sec[e] * core_hz;
    return r->per_iter > 0 ? cyc / r->per_iter : cyc;
}

static void print_row(const opts *o, const char *impl, unsigned bits,
                      const measure *m, const result *r)
{
    double rc = to_cycles(r, ENG_RIJN);

    if (o->json) {
        printf("%s\n    {\"impl\": \"%s\", \"bits\": %u, \"measure\": \"%s\", "
               "\"bytes\": %.0f, \"unit\": \"%s\"",
               json_first ? "" : ",", impl, bits, m->id, r->per_iter,
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
    printf("%-12s %4u %-16s %10.2f ", impl, bits, m->label, rc);
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

static int cross_check(const opts *o, const char *impl, size_t key_len)
{
    /* A counter whose low 64 bits wrap after 2 blocks: tests the carry. */
    static const unsigned char iv[16] = {0, 1, 2, 3, 4, 5, 6, 7,
                                         0xff, 0xff, 0xff, 0xff,
                                         0xff, 0xff, 0xff, 0xfe};
    enum { N = 3001 };
    static unsigned char in[N], ref[N], got[N];
    session *s;
    int bad = 0;

    for (size_t i = 0; i < N; i++)
        in[i] = (unsigned char)(i * 7 + 3);
    s = sess_open(ENG_RIJN, impl, key_len, bench_key, iv);
    if (s == NULL) {
        tool_err("speed: %s: cannot set up AES-%zu-CTR", impl, key_len * 8);
        return -1;
    }
    sess_oneshot(s, ref, in, N, iv);
    /* streaming in uneven pieces must match one-shot */
    for (size_t off = 0, step = 1; off < N; off += step, step = step * 3 + 1) {
        size_t n = N - off < step ? N - off : step;
        sess_stream(s, got + off, in + off, n);
    }
    if (memcmp(ref, got, N) != 0) {
        tool_err("speed: %s-%zu: streaming output differs from one-shot",
                 impl, key_len * 8);
        bad = 1;
    }
    sess_close(s);
    for (int e = ENG_OPENSSL; e < ENG_N; e++) {
        if (!o->use_peer[e] || engine_peer(e) == NULL)
            continue;
        s = sess_open(e, NULL, key_len, bench_key, iv);
        if (s == NULL) {
            tool_err("speed: %s: cannot set up AES-%zu-CTR", eng_names[e],
                     key_len * 8);
            return -1;
        }
        sess_oneshot(s, got, in, N, iv);
        if (sess_failed(s) || memcmp(ref, got, N) != 0) {
            tool_err("speed: MISMATCH: %s-%zu output differs from %s",
                     impl, key_len * 8, eng_names[e]);
            bad = 1;
        }
        sess_close(s);
    }
    return bad ? -1 : 0;
}

/* ------------------------------------------------------------------------
 * One cell: all engines, interleaved
 * --------------------------------------------------------------------- */

static int measure_cell(const opts *o, const char *impl, size_t key_len,
                        const measure *m, unsigned char *in,
                        unsigned char *out, result *r)
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
        if (cell_open(&cells[e], m, e, impl, key_len, in, out,
                      o->long_len) != 0) {
            cell_close(&cells[e]);
            tool_err("speed: %s: cannot set up AES-%zu-CTR", eng_names[e],
                     key_len * 8);
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

    if (o->json)
        printf("\n  ],\n  \"threads\": [");
    else
        printf("\nthreads: %d, each encrypting its own %zu KiB buffer "
               "(continuing stream) for ~%g s\n"
               "%-12s %4s %-8s %12s %12s %8s %14s\n",
               o->threads, o->long_len >> 10, seconds, "backend", "bits",
               "library", "1 thr GB/s", "N thr GB/s", "scaling",
               "c/B per thread");
    for (int b = 0; b < o->nimpl; b++) {
        for (int k = 0; k < o->nbits; k++) {
            size_t key_len = o->bits[k] / 8;
            for (int e = 0; e < ENG_N; e++) {
                double one, many, cpb;
                if (e != ENG_RIJN && (!o->use_peer[e] || !engine_peer(e)))
                    continue;
                one = run_threads(e, o->impls[b], key_len, 1, o->long_len,
                                  seconds);
                many = run_threads(e, o->impls[b], key_len, o->threads,
                                   o->long_len, seconds);
                if (one <= 0 || many <= 0) {
                    tool_err("speed: thread run failed (%s)", eng_names[e]);
                    continue;
                }
                cpb = core_hz * o->threads / many;
                if (o->json) {
                    printf("%s\n    {\"impl\": \"%s\", \"bits\": %u, "
                           "\"library\": \"%s\", \"threads\": %d, "
                           "\"gbps_1\": %.4f, \"gbps_n\": %.4f, "
                           "\"scaling\": %.3f, \"cycles_per_byte_per_thread\""
                           ": %.4f}",
                           first ? "" : ",", o->impls[b], o->bits[k],
                           eng_names[e], o->threads, one / 1e9, many / 1e9,
                           many / one, cpb);
                    first = 0;
                } else {
                    printf("%-12s %4u %-8s %12.3f %12.3f %7.2fx %14.2f\n",
                           o->impls[b], o->bits[k], eng_names[e], one / 1e9,
                           many / 1e9, many / one, cpb);
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
    fprintf(f, "# rijn speed: cycles/byte (core clock %.2f GHz), one-shot "
               "messages with a fixed key and IV\nlength", core_hz / 1e9);
    for (int s = 0; s < ns; s++)
        if (sv[s].name[0] != '\0')
            fprintf(f, " %s", sv[s].name);
    fputc('\n', f);
    for (size_t m = 0; m < N_MEASURES; m++) {
        if (measures[m].kind != M_ONESHOT)
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
            "set title 'AES-CTR, one-shot messages (core clock %.2f GHz "
            "estimated)'\n"
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
            gp, o->plot, core_hz / 1e9, nrijn + 1, dat,
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
            size_t key_len = o.bits[k] / 8;
            series *mine = NULL, *peer_sv[ENG_N] = {NULL, NULL, NULL};

            if (cross_check(&o, o.impls[b], key_len) != 0)
                status = 1;
            if (sv) {
                mine = &sv[b * o.nbits + k];
                snprintf(mine->name, sizeof mine->name, "%s-%u", o.impls[b],
                         o.bits[k]);
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
                if (measure_cell(&o, o.impls[b], key_len, &measures[m], in,
                                 out, &r) != 0)
                    status = 1;
                if (r.sec[ENG_RIJN] <= 0)
                    continue;
                print_row(&o, o.impls[b], o.bits[k], &measures[m], &r);
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

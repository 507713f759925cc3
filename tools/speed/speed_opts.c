/*
 * `rijn speed` options (speed_opts.c): the usage text, the parsing of the
 * command line into an opts, and with --gcm the (AES backend, GHASH
 * engine) pairs that make the rows.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rijn.h"
#include "speed.h"
#include "tool.h"

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
          "The AES limit, measured at start: the bytes/s this CPU's AES\n"
          "round instructions allow at the register width of each backend\n"
          "(aesni xmm, vaes-avx2 ymm, vaes-avx512 zmm; armv8, ppc8 128-bit)\n"
          "with nothing else to do and every round independent; \"of\n"
          "limit\" = rijn bytes/s / that limit for the row's key size (10,\n"
          "12, 14 rounds a block), timed again between the row's\n"
          "repetitions. Counters, loads, stores, the XOR with the data and\n"
          "GHASH are left out, so a row stays below 1.\n"
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
          "  --no-limit     do not measure the AES instruction limit (the\n"
          "                 \"of limit\" column is then \"-\")\n"
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
          "the tag check (open) of 1420 B and long messages; 16 and 1420 B\n"
          "messages through rijn's streaming calls (start, update, finish;\n"
          "the peers' rows there are their EVP sequence, as everywhere);\n"
          "key setup in cycles (AES key schedule, GHASH key and powers).\n",
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
int parse_opts(opts *o, int argc, char **argv)
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
        } else if (strcmp(a, "--no-limit") == 0) {
            o->no_limit = 1;
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
int gcm_pairs(opts *o)
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

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
 *   - This file: the rows, the cross-check and the interleaved timing of
 *     a cell; speed.h lists the other files (options, report, threads,
 *     plot, --mac); bench.c: the engines, the measures and the timing of
 *     one library on one cell.
 *   - Measures: messages of 16 .. 16384 bytes and a long memory-resident
 *     buffer, each encrypted one-shot with a fixed expanded key and IV
 *     (rijn_aes_ctr_key; the peers reset their IV per message); then the
 *     eSTREAM measures: a continuing stream, 40/576/1500-byte packets with
 *     IV setup, Imix (7:4:1 mix of 40, 576, 1500-byte packets), agility
 *     (16 contexts with their own keys, 256 bytes each, round robin), and
 *     the cycles of key setup and IV setup.
 *   - The AES instruction limit (limit.c), measured at start unless
 *     --no-limit: per register width, the bytes/s of AES round
 *     instructions alone; each CTR and GCM row with bytes shows the
 *     fraction of its backend's limit that rijn reaches ("of limit"),
 *     the limit timed again between the row's repetitions.
 *   - --gcm: the same cells for AES-GCM, each AES backend with the GHASH
 *     engine a key picks for it (the fused kernel where there is one) or
 *     with the engines --ghash names: messages of 16 B .. 16 KiB, 1420-byte
 *     packets and the long buffer, each encrypted with a fixed expanded key
 *     and its own 12-byte IV, no AAD, 16-byte tag (rijn_gcm_encrypt; the
 *     peers set the IV per message: EVP_CipherInit_ex, gcry_cipher_setiv);
 *     Imix; decryption with the tag check of 1420 B and long messages;
 *     the cycles of key setup (AES key schedule, H and its powers).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "limit.h"
#include "rijn.h"
#include "speed.h"
#include "speed_mac.h"
#include "tool.h"

double core_hz;

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

/* The limits' runs beside each repetition (the AES limit's, and a GCM
 * row's GCM limit's): long enough to time well, short beside the
 * repetitions (~0.5 ms each; the start's runs are 0.25 ms). */
#define LIMIT_PROBE_SECONDS 0.0005

static int measure_cell(const opts *o, const variant *v, const measure *m,
                        unsigned char *in, unsigned char *out, result *r)
{
    cell cells[ENG_N];
    size_t iters[ENG_N];
    int active[ENG_N], order[ENG_N], na = 0, rc = 0;
    /* ENG_N + 2 rows: the engines', then the AES and the GCM limit's
     * (bytes/s) */
    double *samples = calloc((size_t)o->reps * (ENG_N + 2), sizeof *samples);
    double *lim = samples + (size_t)o->reps * ENG_N;
    double *glim = lim + o->reps;
    const unsigned bits = (unsigned)v->key_len * 8;
    int lw = -1;
    uint64_t lim_iters = 0, glim_iters = 0;

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
    /* rows in bytes of a backend with AES instructions: the limit too */
    if (active[ENG_RIJN] && r->per_iter > 0 && !o->no_limit)
        lw = limit_width_of(v->impl);
    if (lw >= 0) {
        lim_iters = limit_probe_iters(lw, LIMIT_PROBE_SECONDS);
        if (v->mode == MODE_GCM)
            glim_iters = limit_gcm_probe_iters(lw, bits, LIMIT_PROBE_SECONDS);
    }
    /* Alternate the order every repetition so no library always goes
     * first; the limits' runs go first or last in turn. */
    for (int rep = 0; rep < o->reps; rep++) {
        if (rep % 2) {
            lim[rep] = limit_probe(lw, bits, lim_iters);
            glim[rep] = limit_gcm_probe(lw, bits, glim_iters);
        }
        for (int k = 0; k < na; k++) {
            int e = order[rep % 2 ? na - 1 - k : k];
            samples[e * o->reps + rep] =
                time_iters(&cells[e], iters[e]) / (double)iters[e];
        }
        if (rep % 2 == 0) {
            glim[rep] = limit_gcm_probe(lw, bits, glim_iters);
            lim[rep] = limit_probe(lw, bits, lim_iters);
        }
    }
    /* the fastest run: a run is only ever slowed down (limit.c), and a
     * median of 3 (--reps 3) slowed by another job gave fractions > 1.2 */
    for (int rep = 0; rep < o->reps; rep++) {
        if (lim[rep] > r->limit)
            r->limit = lim[rep];
        if (glim[rep] > r->gcm_limit)
            r->gcm_limit = glim[rep];
    }
    /* The GCM loop is the AES loop's rounds and more: a GCM run faster
     * than every AES run met a quieter moment, and the AES limit bounds
     * it (so a row's fraction of the GCM limit is never below its
     * fraction of the AES limit) */
    if (r->limit > 0 && r->gcm_limit > r->limit)
        r->gcm_limit = r->limit;
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
    if (!o.no_limit)
        limit_measure(o.quick, o.mode == MODE_GCM);
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
                mine->impl = v.impl;
                mine->bits = o.bits[k];
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

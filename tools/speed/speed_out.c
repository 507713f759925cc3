/*
 * `rijn speed` report (speed_out.c): the lines above the table and its
 * rows, as text or as the members of one JSON object.
 */
#include <stdio.h>

#include "common/clock.h"
#include "common/peers.h"
#include "limit.h"
#include "rijn.h"
#include "speed.h"

static int json_first = 1;

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
variant row_variant(const opts *o, int b, int k)
{
    variant v = {o->mode, o->impls[b], o->ghash[b], o->bits[k] / 8};
    return v;
}

/* "backend-bits", or with --gcm "backend/engine-bits". */
void variant_name(const variant *v, char *buf, size_t n)
{
    if (v->mode == MODE_GCM)
        snprintf(buf, n, "%s/%s-%zu", v->impl, v->ghash, v->key_len * 8);
    else
        snprintf(buf, n, "%s-%zu", v->impl, v->key_len * 8);
}

/* The first columns of a text row: the backend, with --gcm its engine. */
void print_backend(enum bmode mode, const char *impl, const char *ghash)
{
    printf("%-12s ", impl);
    if (mode == MODE_GCM)
        printf("%-15s ", ghash);
}

/* The same as the first members of a JSON object. */
void json_backend(const variant *v)
{
    printf("{\"impl\": \"%s\", ", v->impl);
    if (v->mode == MODE_GCM)
        printf("\"ghash\": \"%s\", ", v->ghash);
}

void print_header(const opts *o)
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
        printf("  ");
        limit_json(core_hz);
        printf(",\n  \"peers\": {\"openssl\": ");
        if (po)
            json_string(peer_version(po));
        else
            printf("null");
        printf(", \"gcrypt\": ");
        if (pg)
            json_string(peer_version(pg));
        else
            printf("null");
        /* how the peers were kept to RIJN_CPU_MASK's CPU (peers.h) */
        printf(", \"cpu_mask\": ");
        if ((po || pg) && peer_cpu_mask() != NULL)
            json_string(peer_cpu_mask());
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
    if ((po || pg) && peer_cpu_mask() != NULL)
        printf("peers:   as on the CPU rijn sees, %s\n", peer_cpu_mask());
    limit_print(core_hz);
    printf("ratio = peer time / rijn time (> 1: rijn is faster); rows "
           "marked [cyc] are cycles per operation\n\n");
    print_backend(o->mode, "backend", "ghash");
    printf("%4s %-16s %10s %7s %12s %7s %11s %7s %8s", "bits", "measure",
           "rijn c/B", "GB/s", "openssl c/B", "ratio", "gcrypt c/B",
           "ratio", "of limit");
    if (o->mode == MODE_GCM)
        printf(" %8s", "GCM lim");
    putchar('\n');
}

/* rijn's bytes per second in the row, or -1 (a cycles row, or no time) */
static double rijn_bps(const result *r)
{
    if (r->per_iter <= 0 || r->sec[ENG_RIJN] <= 0)
        return -1;
    return r->per_iter / r->sec[ENG_RIJN];
}

/* The row's fraction of the AES limit of its backend's width: against the
 * limit timed between its repetitions (r->limit), or if there is none
 * (a peer-only row) the limit at start; -1 if the row has no limit. */
static double aes_fraction(const variant *v, const result *r)
{
    const double bps = rijn_bps(r);

    if (bps < 0)
        return -1;
    if (r->limit > 0)
        return bps / r->limit;
    return limit_fraction(v->impl, (unsigned)v->key_len * 8, bps);
}

/* The fraction of the GCM limit: against the GCM limit timed between the
 * row's repetitions (r->gcm_limit), as the AES limit is; if there is none,
 * the fraction of the AES limit over the GCM limit's "/AES" at start; -1
 * if either is missing. */
static double gcm_fraction(const variant *v, const result *r)
{
    double f = aes_fraction(v, r);
    double g = limit_gcm_of_aes(limit_width_of(v->impl),
                                (unsigned)v->key_len * 8);

    if (f > 0 && r->gcm_limit > 0)
        return rijn_bps(r) / r->gcm_limit;
    return f > 0 && g > 0 ? f / g : -1;
}

double to_cycles(const result *r, int e)
{
    double cyc = r->sec[e] * core_hz;
    return r->per_iter > 0 ? cyc / r->per_iter : cyc;
}

void print_row(const opts *o, const variant *v, const measure *m,
               const result *r)
{
    double rc = to_cycles(r, ENG_RIJN);
    unsigned bits = (unsigned)v->key_len * 8;
    int lw = limit_width_of(v->impl);
    /* the fraction of the AES limit of the backend's width; -1: none */
    double frac = aes_fraction(v, r);
    /* GCM rows: the fraction of the GCM limit too */
    double gfrac = v->mode == MODE_GCM ? gcm_fraction(v, r) : -1;

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
        if (lw >= 0)
            printf(", \"limit_width\": \"%s\"", limit_width_name(lw));
        else
            printf(", \"limit_width\": null");
        if (r->limit > 0)
            printf(", \"limit_gbps\": %.4f", r->limit / 1e9);
        else
            printf(", \"limit_gbps\": null");
        if (frac > 0)
            printf(", \"limit_fraction\": %.4f", frac);
        else
            printf(", \"limit_fraction\": null");
        if (v->mode == MODE_GCM) {
            if (r->gcm_limit > 0)
                printf(", \"gcm_limit_gbps\": %.4f", r->gcm_limit / 1e9);
            else
                printf(", \"gcm_limit_gbps\": null");
            if (gfrac > 0)
                printf(", \"gcm_limit_fraction\": %.4f", gfrac);
            else
                printf(", \"gcm_limit_fraction\": null");
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
        putchar(' ');
    }
    if (frac > 0)
        printf("%8.3f", frac);
    else
        printf("%8s", "-");
    if (v->mode == MODE_GCM) {
        if (gfrac > 0)
            printf(" %8.3f", gfrac);
        else
            printf(" %8s", "-");
    }
    putchar('\n');
    fflush(stdout);
}

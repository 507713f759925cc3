/*
 * Internals of `rijn speed` shared by its files: the options, one cell's
 * result, and what each file gives the others.
 *
 *   speed.c          cmd_speed: the rows of the table, the cross-check of
 *                    every engine's output, the interleaved timing of a cell
 *   speed_opts.c     options, usage, the --gcm (backend, GHASH engine) pairs
 *   speed_out.c      the report: header and rows, text or JSON
 *   speed_threads.c  --threads: aggregate throughput of N threads
 *   speed_plot.c     --plot: cycles/byte against message length (gnuplot)
 *   speed_mac.c      --mac: the Poly1305-AES table
 *   limit.c          the AES instruction limit and each row's fraction of
 *                    it (limit.h; its kernels in limit_asm.c)
 *   bench.c          sessions, measures, the timing of one library
 */
#ifndef RIJN_SPEED_H
#define RIJN_SPEED_H

#include <stddef.h>

#include "bench.h"

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
    int no_limit;                 /* --no-limit: no AES limit measured */
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
    double limit;      /* the AES limit of the row's width and key size,
                          bytes/s, timed between its repetitions (fastest);
                          0: none (limit.h, limit_probe) */
    double gcm_limit;  /* a GCM row's: the GCM limit likewise (fastest of
                          limit_gcm_probe between its repetitions); 0: none */
} result;

/* The core clock in Hz, estimated once at start (speed.c). */
extern double core_hz;

/* ---- speed_opts.c ------------------------------------------------------ */

/* Returns 0 to go on, 1 on error, 2 if help was printed. */
int parse_opts(opts *o, int argc, char **argv);
/* --gcm: fill o->ghash[] (and with --ghash the (backend, engine) rows in
 * o->impls[]); -1 with a message on error. */
int gcm_pairs(opts *o);

/* ---- speed_out.c ------------------------------------------------------- */

/* Row b (backend, GHASH engine) with the k-th key size. */
variant row_variant(const opts *o, int b, int k);
/* "backend-bits", or with --gcm "backend/engine-bits". */
void variant_name(const variant *v, char *buf, size_t n);
/* The first columns of a text row: the backend, with --gcm its engine. */
void print_backend(enum bmode mode, const char *impl, const char *ghash);
/* The same as the first members of a JSON object. */
void json_backend(const variant *v);
/* The lines above the table, or the JSON object up to its results. */
void print_header(const opts *o);
/* Cycles per byte (per operation if r->per_iter is 0) of engine e. */
double to_cycles(const result *r, int e);
void print_row(const opts *o, const variant *v, const measure *m,
               const result *r);

/* ---- speed_threads.c --------------------------------------------------- */

/* The --threads table (or JSON array), after the main one. */
void threads_report(const opts *o);

/* ---- speed_plot.c ------------------------------------------------------ */

/* One curve of the plot: a rijn backend or a peer at one key size. */
typedef struct series {
    char name[48];
    const char *impl;   /* rijn's backend; NULL for a peer */
    unsigned bits;
    double cpb[N_MEASURES];
} series;

/* F.png -> F.dat, F.gp; checked (created) before the long run starts. */
int plot_prepare(const char *png);
/* sv holds the backend series first, then the peers'; unnamed = unused.
 * Writes F.dat and F.gp and runs gnuplot if installed. */
int write_plot(const opts *o, const series *sv, int ns);

#endif /* RIJN_SPEED_H */

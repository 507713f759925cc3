/*
 * `rijn enc`'s data phase, internal to enc/: what enc_run_data (engine.c)
 * and its three I/O engines share.
 */
#ifndef RIJN_TOOL_ENC_ENGINE_H
#define RIJN_TOOL_ENC_ENGINE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "common/progress.h"
#include "enc.h"

/* Stream engine slot and simple loop buffer; a regular input smaller than
 * this takes the simple loop. */
#define CHUNK ((size_t)1 << 20)

/* ---- engine.c: error bookkeeping shared by engine threads -------------- */

struct shared {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int failed;              /* an error was reported (message printed) */
    uint64_t done;           /* bytes finished (progress) */
    struct progress *pg;     /* updated under mu by add_done, or NULL */
};

/* Fail the run and wake every thread; the first failure prints its
 * message (tool_err's format), later ones print nothing. */
void fail_once(struct shared *sh, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* "enc: <what> error on <name>: <strerror(err)>", once. */
void report(struct shared *sh, const char *what, const char *name, int err);
/* RIJN_ENC_STATS=1: the engines say how the work went (tests, tuning). */
int stats_wanted(void);

/* ---- the engines: out = in XOR keystream; 0, or -1 after a message ----- */

/* file_engine.c: a regular input file of `size` bytes from in_start to our
 * temporary regular file, raw. */
int file_engine(struct enc_run *r, uint64_t in_start, uint64_t size);
/* stream_engine.c: anything else; total = input bytes expected (progress),
 * 0 if unknown. */
int stream_engine(struct enc_run *r, uint64_t total);
/* simple_loop.c: a regular input under CHUNK bytes. */
int simple_loop(struct enc_run *r, uint64_t total);

#endif /* RIJN_TOOL_ENC_ENGINE_H */

/*
 * `rijn enc` data phase: enc_run_data() picks one of three I/O engines,
 * and this file holds the error bookkeeping their threads share.
 *
 * Engines (all compute out = in XOR keystream, the keystream being
 * positioned with rijn_aes_ctr_seek() on a per-thread copy of the keyed
 * context, so any split of the data gives the same bytes):
 *   - file engine: regular input file of 1 MiB or more -> our temporary
 *     regular file, no base64. One thread pwrite()s chunks that the others
 *     read and encrypt into a few buffers; while no buffer is free, the
 *     others encrypt chunks straight into a mapping of the output (see
 *     file_engine).
 *   - stream engine: anything else (any input that is not a regular
 *     file; a regular one of 1 MiB or more through base64 or to another
 *     output than our temporary file). The main thread
 *     reads (and decodes base64) into a ring of 1 MiB slots and a writer
 *     thread writes them in order (and encodes base64), so reading and
 *     writing overlap. The reading thread encrypts too while that is
 *     cheap next to reading (AES instructions); with a slow backend,
 *     worker threads take over (see stream_engine).
 *     Pipes are enlarged to 1 MiB (F_SETPIPE_SZ) to cut system calls.
 *   - simple loop: a regular input under 1 MiB (one thread, one buffer).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "engine.h"
#include "tool.h"

/* ---- error bookkeeping shared by engine threads ------------------------ */

/* Fail the run and wake every thread; the first failure prints its
 * message (tool_err's format), later ones print nothing. */
void fail_once(struct shared *sh, const char *fmt, ...)
{
    va_list ap;

    pthread_mutex_lock(&sh->mu);
    if (!sh->failed) {
        sh->failed = 1;
        va_start(ap, fmt);
        tool_verr(fmt, ap);
        va_end(ap);
    }
    pthread_cond_broadcast(&sh->cv);
    pthread_mutex_unlock(&sh->mu);
}

/* "enc: <what> error on <name>: <strerror(err)>", once. */
void report(struct shared *sh, const char *what, const char *name, int err)
{
    fail_once(sh, "enc: %s error on %s: %s", what, name, strerror(err));
}

/* RIJN_ENC_STATS=1: the engines say how the work went (tests, tuning). */
int stats_wanted(void)
{
    const char *v = getenv("RIJN_ENC_STATS");
    return v != NULL && strcmp(v, "1") == 0;
}

/* ---- which engine ------------------------------------------------------ */

int enc_run_data(struct enc_run *r)
{
    struct stat st;
    uint64_t total = 0;
    int regular = 0;
    off_t pos = -1;

    if (fstat(r->src->fd, &st) == 0 && S_ISREG(st.st_mode)) {
        pos = lseek(r->src->fd, 0, SEEK_CUR);
        if (pos >= 0 && (uint64_t)st.st_size >= (uint64_t)pos) {
            regular = 1;
            total = (uint64_t)st.st_size - (uint64_t)pos;
        }
    }
    /* A regular file to our own file, raw: the parallel file engine. */
    if (regular && total >= CHUNK && r->out_is_tmp && r->src->b64 == NULL &&
        r->dst->b64 == NULL)
        return file_engine(r, (uint64_t)pos, total);

    /* Progress counts input bytes (base64 characters when decoding) from
     * the start, as src->raw_read does. */
    uint64_t progress_total = regular ? total + r->src->raw_read : 0;
    int rc;
    if (regular && total < CHUNK) /* no threads to start for a few bytes */
        rc = simple_loop(r, progress_total);
    else
        rc = stream_engine(r, progress_total);
    if (rc == 0 && enc_dst_finish(r->dst) != 0) { /* the base64 tail */
        tool_err("enc: write error on %s: %s", r->dst->name,
                 strerror(errno));
        rc = -1;
    }
    return rc;
}

/*
 * `rijn enc` simple loop, for a regular input under 1 MiB (CHUNK): one
 * thread and one buffer, as there is nothing to gain from starting
 * threads for a few bytes.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "tool.h"

int simple_loop(struct enc_run *r, uint64_t total)
{
    rijn_aes_ctr_ctx ctx = *r->ctx;
    unsigned char *buf = malloc(CHUNK);
    struct progress pg;
    uint64_t done = 0;
    size_t used = 0; /* most of buf ever filled: what to wipe */
    int rc = 0;

    if (buf == NULL) {
        tool_err("enc: out of memory");
        return -1;
    }
    progress_init(&pg, r->progress, total);
    for (;;) {
        ssize_t n = enc_src_read(r->src, buf, CHUNK);
        if (n < 0) {
            rc = -1;
            break;
        }
        if (n == 0)
            break;
        if (used < (size_t)n)
            used = (size_t)n;
        rijn_aes_ctr_xor(&ctx, buf, buf, (size_t)n);
        if (enc_dst_write(r->dst, buf, (size_t)n) != 0) {
            tool_err("enc: write error on %s: %s", r->dst->name,
                     strerror(errno));
            rc = -1;
            break;
        }
        done = r->src->raw_read;
        progress_show(&pg, done, 0);
    }
    progress_show(&pg, done, 1);
    rijn_wipe(buf, used);
    free(buf);
    rijn_aes_ctr_wipe(&ctx);
    return rc;
}

/*
 * The progress line of the commands that move data (progress.c).
 */
#ifndef RIJN_TOOL_PROGRESS_H
#define RIJN_TOOL_PROGRESS_H

#include <stdint.h>

struct progress {
    int on;
    int shown;
    uint64_t total;          /* 0: unknown */
    double t0, last;
    double first, every;     /* seconds: first line, then refreshes */
};

/* on: 0/1; total: bytes expected, 0 if unknown. RIJN_ENC_PROGRESS_EVERY=s
 * (tests) changes the refresh times. */
void progress_init(struct progress *p, int on, uint64_t total);
/* Print when due (every 0.25 s, from 0.5 s on) or when final. */
void progress_show(struct progress *p, uint64_t done, int final);

#endif /* RIJN_TOOL_PROGRESS_H */

/*
 * The progress line on stderr of `rijn enc`, `seal` and `open` (--progress,
 * or by default when stderr is a terminal): bytes done, of how many when
 * known, rate and time left, refreshed by the data engines.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "progress.h"

static void human(char *buf, size_t n, double v)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

/* RIJN_ENC_PROGRESS_EVERY=s (tests): a line from s seconds on and every s
 * seconds, instead of from 0.5 s on and every 0.25 s; 0 shows every
 * update. */
void progress_init(struct progress *p, int on, uint64_t total)
{
    const char *every = getenv("RIJN_ENC_PROGRESS_EVERY");
    char *end;

    p->on = on;
    p->shown = 0;
    p->total = total;
    p->t0 = p->last = clock_wall();
    p->first = 0.5;
    p->every = 0.25;
    if (every != NULL && *every != '\0') {
        double v = strtod(every, &end);
        if (*end == '\0' && v >= 0 && v <= 3600)
            p->first = p->every = v;
    }
}

/* Print when due (every 0.25 s, from 0.5 s on) or when final. */
void progress_show(struct progress *p, uint64_t done, int final)
{
    char a[32], b[32], r[32], line[160];
    double t, el;

    if (!p->on)
        return;
    t = clock_wall();
    el = t - p->t0;
    if (!final && (el < p->first || t - p->last < p->every))
        return;
    if (final && !p->shown)
        return;
    p->last = t;
    human(a, sizeof a, (double)done);
    human(r, sizeof r, el > 0 ? (double)done / el : 0);
    if (p->total > 0) {
        double rate = el > 0 ? (double)done / el : 0;
        long eta = rate > 0 && done < p->total
                       ? (long)((double)(p->total - done) / rate + 0.5) : 0;
        human(b, sizeof b, (double)p->total);
        snprintf(line, sizeof line,
                 "\r%s / %s (%3d%%)  %s/s  ETA %ld:%02ld   ", a, b,
                 (int)((double)done * 100 / (double)p->total), r,
                 eta / 60, eta % 60);
    } else {
        snprintf(line, sizeof line, "\r%s  %s/s   ", a, r);
    }
    fputs(line, stderr);
    if (final)
        fputc('\n', stderr);
    fflush(stderr);
    p->shown = 1;
}

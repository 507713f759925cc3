/*
 * `rijn speed --plot F.png` (speed_plot.c): cycles/byte against message
 * length, log-log, one curve per backend and key size and per peer; the
 * data (F.dat) and a gnuplot script (F.gp), then gnuplot if installed.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "limit.h"
#include "speed.h"
#include "tool.h"

extern char **environ;

static char plot_dat[4200], plot_gp[4200];

/* F.png -> F.dat, F.gp; checked (created) before the long run starts. */
int plot_prepare(const char *png)
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

/* What the curve's messages are. */
static const char *plot_what(enum bmode mode)
{
    return mode == MODE_GCM ? "messages with their own 12-byte IV and tag"
                            : "one-shot messages with a fixed key and IV";
}

/* sv holds nrijn backend series first, then the peers'; unnamed = unused */
int write_plot(const opts *o, const series *sv, int ns)
{
    const char *dat = plot_dat, *gp = plot_gp;
    int nrijn = 0, nall = 0, nlim = 0;
    /* the AES limit (cycles/byte) of each width and key size a rijn
     * curve has; 0: none */
    double lim[LIM_NWIDTH][3] = {{0}};
    char labels[LIM_NWIDTH * 3 * 100] = "";
    FILE *f;

    for (int s = 0; s < ns; s++) {
        if (sv[s].name[0] == '\0')
            continue;
        nall++;
        if (strncmp(sv[s].name, "openssl-", 8) != 0 &&
            strncmp(sv[s].name, "gcrypt-", 7) != 0)
            nrijn++;
        if (sv[s].impl != NULL) {
            int w = limit_width_of(sv[s].impl);
            double bps = limit_bytes_per_sec(w, sv[s].bits);
            if (bps > 0 && lim[w][(sv[s].bits - 128) / 64] == 0) {
                lim[w][(sv[s].bits - 128) / 64] = core_hz / bps;
                nlim++;
            }
        }
    }
    f = fopen(dat, "w");
    if (f == NULL) {
        tool_err("speed: %s: %s", dat, strerror(errno));
        return -1;
    }
    fprintf(f, "# rijn speed: cycles/byte (core clock %.2f GHz), %s\n",
            core_hz / 1e9, plot_what(o->mode));
    if (nlim > 0) {
        fputs("# AES limit in cycles/byte (AES round instructions alone, "
              "doc/speed.md):\n#", f);
        for (int w = 0; w < LIM_NWIDTH; w++)
            for (int k = 0; k < 3; k++)
                if (lim[w][k] > 0)
                    fprintf(f, " %s-%d %.4f", limit_width_name(w),
                            128 + 64 * k, lim[w][k]);
        fputc('\n', f);
    }
    fputs("length", f);
    for (int s = 0; s < ns; s++)
        if (sv[s].name[0] != '\0')
            fprintf(f, " %s", sv[s].name);
    fputc('\n', f);
    for (size_t m = 0; m < N_MEASURES; m++) {
        if (measures[m].mode != o->mode || !measure_on_curve(&measures[m]))
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

    for (int w = 0; w < LIM_NWIDTH; w++) {
        for (int k = 0; k < 3; k++) {
            size_t used = strlen(labels);
            if (lim[w][k] > 0)
                snprintf(labels + used, sizeof labels - used,
                         "set label '%s AES-%d' at graph 0.01, first %.4f "
                         "left offset 0,0.6 tc rgb '#404040'\n",
                         limit_width_name(w), 128 + 64 * k, lim[w][k]);
        }
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
            "set title 'AES-%s, %s (core clock %.2f GHz estimated)'\n"
            "set logscale xy\n"
            "set xlabel 'message length (bytes)'\n"
            "set ylabel 'cycles per byte'\n"
            "set grid\n"
            "set key outside right\n"
            "set format x '%%.0s%%cB'\n"
            "set datafile missing '?'\n"
            "# rijn backends solid, comparison libraries dashed%s\n"
            "%s"
            "plot for [i=2:%d] '%s' using 1:i with linespoints lw 2 "
            "title columnheader(i)",
            gp, o->plot, mode_names[o->mode], plot_what(o->mode),
            core_hz / 1e9,
            nlim > 0 ? ", AES limits dotted" : "", labels, nrijn + 1, dat);
    if (nall > nrijn)
        fprintf(f, ", \\\n     for [i=%d:%d] '%s' using 1:i with linespoints "
                   "dt 2 title columnheader(i)", nrijn + 2, nall + 1, dat);
    /* the limits: dotted, one key entry, each line labelled */
    for (int w = 0, first = 1; w < LIM_NWIDTH; w++) {
        for (int k = 0; k < 3; k++) {
            if (lim[w][k] <= 0)
                continue;
            fprintf(f, ", \\\n     %.4f with lines dt 3 lw 2 lc rgb '#606060' "
                       "%s", lim[w][k],
                    first ? "title 'AES instruction limit'" : "notitle");
            first = 0;
        }
    }
    fputc('\n', f);
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

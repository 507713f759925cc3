/*
 * `rijn speed --threads N` (speed_threads.c): every backend and key size
 * (and each peer) run on 1 and on N threads, each thread encrypting its
 * own long buffer; aggregate throughput and the scaling between the two.
 */
#include <stdio.h>

#include "speed.h"

void threads_report(const opts *o)
{
    double seconds = o->quick ? 0.25 : 1.0;
    int first = 1;

    if (o->json) {
        printf("\n  ],\n  \"threads\": [");
    } else {
        printf("\nthreads: %d, each encrypting its own %zu KiB buffer "
               "(%s) for ~%g s;\n         GB/s = the sum over the threads "
               "of bytes / %s\n", o->threads, o->long_len >> 10,
               o->mode == MODE_GCM ? "one message after another, in place, "
                                     "each with its IV and tag"
                                   : "continuing stream",
               seconds, o->cputime ? "the thread's CPU time" : "wall time");
        print_backend(o->mode, "backend", "ghash");
        printf("%4s %-8s %12s %12s %8s %14s\n", "bits", "library",
               "1 thr GB/s", "N thr GB/s", "scaling", "c/B per thread");
    }
    for (int b = 0; b < o->nimpl; b++) {
        for (int k = 0; k < o->nbits; k++) {
            variant v = row_variant(o, b, k);
            for (int e = 0; e < ENG_N; e++) {
                double one, many, cpb;
                if (e != ENG_RIJN && (!o->use_peer[e] || !engine_peer(e)))
                    continue;
                one = run_threads(e, &v, 1, o->long_len, seconds);
                many = run_threads(e, &v, o->threads, o->long_len, seconds);
                if (one <= 0 || many <= 0) {
                    tool_err("speed: thread run failed (%s)", eng_names[e]);
                    continue;
                }
                cpb = core_hz * o->threads / many;
                if (o->json) {
                    printf("%s\n    ", first ? "" : ",");
                    json_backend(&v);
                    printf("\"bits\": %u, \"library\": \"%s\", "
                           "\"threads\": %d, \"gbps_1\": %.4f, "
                           "\"gbps_n\": %.4f, \"scaling\": %.3f, "
                           "\"cycles_per_byte_per_thread\": %.4f}",
                           o->bits[k], eng_names[e], o->threads, one / 1e9,
                           many / 1e9, many / one, cpb);
                    first = 0;
                } else {
                    print_backend(v.mode, v.impl, v.ghash);
                    printf("%4u %-8s %12.3f %12.3f %7.2fx %14.2f\n",
                           o->bits[k], eng_names[e], one / 1e9, many / 1e9,
                           many / one, cpb);
                }
                fflush(stdout);
            }
        }
    }
}

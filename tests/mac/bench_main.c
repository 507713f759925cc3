/* bench_poly1305 [--json] [--quick] [--cpu-time]: tools/speed_mac.c on its
 * own (--cpu-time: time with CLOCK_THREAD_CPUTIME_ID). */
#include <stdio.h>
#include <string.h>

#include "speed_mac.h"
#include "tool.h"

int main(int argc, char **argv)
{
    int json = 0, quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--cpu-time") == 0)
            clock_use_cputime(1);
        else {
            fprintf(stderr, "usage: %s [--json] [--quick] [--cpu-time]\n",
                    argv[0]);
            return 2;
        }
    }
    return rijn_speed_poly1305(stdout, json, quick) == 0 ? 0 : 1;
}

/*
 * `rijn impl`: the AES backends compiled in, which ones this CPU can run,
 * which one is picked, and the CPU features detected.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rijn.h"
#include "tool.h"

static void impl_usage(FILE *f)
{
    fputs("usage: rijn impl\n"
          "\n"
          "Lists every AES backend compiled into librijn: whether this CPU\n"
          "(after RIJN_CPU_MASK) can run it, whether it is constant-time,\n"
          "the CPU features it needs, and which one is picked by default\n"
          "(the best available, or RIJN_IMPL). Exits 1 if RIJN_IMPL names a\n"
          "backend that is unknown or that this CPU cannot run.\n",
          f);
}

/* One row of the table: name, available, constant-time, needs, default. */
static void print_info(const rijn_impl_info *info)
{
    char line[256];
    size_t len;
    snprintf(line, sizeof line, "  %-14s %-10s %-14s %-24s%s", info->name,
             info->available ? "yes" : "no",
             info->constant_time ? "yes" : "NO",
             info->needs[0] ? info->needs : "-",
             info->is_default ? " <- default" : "");
    len = strlen(line);
    while (len > 0 && line[len - 1] == ' ')
        line[--len] = '\0';
    puts(line);
}

int cmd_impl(int argc, char **argv)
{
    rijn_impl_info info;
    char feat[512];
    const char *def;
    const char *forced = getenv("RIJN_IMPL");
    size_t n = rijn_impl_count();
    int variable_time = 0;

    for (int i = 1; i < argc; i++) {
        if (tool_is_help(argv[i])) {
            impl_usage(stdout);
            return 0;
        }
        tool_err("impl: unknown option '%s' (see `rijn impl --help`)",
                 argv[i]);
        return 1;
    }

    printf("AES backends compiled in: %zu\n\n", n);
    printf("  %-14s %-10s %-14s %s\n", "name", "available", "constant-time",
           "needs");
    for (size_t i = 0; i < n; i++) {
        if (rijn_impl_get(i, &info) != 0)
            continue;
        print_info(&info);
        if (!info.constant_time)
            variable_time = 1;
    }
    if (variable_time)
        printf("\nconstant-time NO: timing depends on the key and data; for "
               "tests and comparison only.\n");
    printf("\nPoly1305 engines compiled in: %zu\n\n",
           rijn_poly1305_impl_count());
    printf("  %-14s %-10s %-14s %s\n", "name", "available", "constant-time",
           "needs");
    for (size_t i = 0; i < rijn_poly1305_impl_count(); i++) {
        if (rijn_poly1305_impl_get(i, &info) != 0)
            continue;
        print_info(&info);
    }
    printf("\ncpu features: %s\n", rijn_cpu_features(feat, sizeof feat));

    def = rijn_impl_default();
    if (def == NULL) {
        putchar('\n');
        tool_check_rijn_impl_env("impl");
        return 1;
    }
    if (forced != NULL && *forced != '\0')
        printf("default: %s (forced by RIJN_IMPL)\n", def);
    else
        printf("default: %s (best backend this CPU runs; "
               "RIJN_IMPL=name overrides)\n", def);
    return 0;
}

/*
 * Replay driver of the fuzz targets, built by every compiler (no libFuzzer
 * needed): feeds each regular file of the given directories (and each file
 * given by name) to the target's LLVMFuzzerTestOneInput, in name order,
 * in a buffer of exactly the file's size (so that ASan sees an over-read
 * as libFuzzer would).
 *
 *   fuzz_replay_<target> DIR_OR_FILE...
 *
 * A target reports an oracle failure by aborting (fuzzutil.h, FZ_CHECK),
 * which fails the test; each input's name is printed before it runs, so
 * the last name printed is the one that failed. A missing directory, or
 * no input at all, is an error: a replay of nothing could not fail.
 */
#define _POSIX_C_SOURCE 200809L
/* 64-bit inode numbers and offsets on 32-bit hosts too: without it,
 * readdir fails with EOVERFLOW under qemu-user (ppc, armhf) on a host
 * filesystem with large inode numbers */
#define _FILE_OFFSET_BITS 64

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long n_inputs;

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        fprintf(stderr, "fuzz replay: out of memory\n");
        return -1;
    }
    for (;;) {
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                fclose(f);
                fprintf(stderr, "fuzz replay: out of memory\n");
                return -1;
            }
            buf = nb;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        fprintf(stderr, "fuzz replay: %s: read error\n", path);
        return -1;
    }
    /* exactly len bytes, like libFuzzer's copy of the input */
    uint8_t *in = malloc(len ? len : 1);
    if (!in) {
        free(buf);
        fprintf(stderr, "fuzz replay: out of memory\n");
        return -1;
    }
    memcpy(in, buf, len);
    free(buf);
    printf("replay %s (%zu bytes)\n", path, len);
    fflush(stdout);
    LLVMFuzzerTestOneInput(in, len);
    free(in);
    n_inputs++;
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "fuzz replay: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    for (;;) {
        errno = 0;
        if ((e = readdir(d)) == NULL) {
            if (errno != 0) {
                fprintf(stderr, "fuzz replay: %s: %s\n", dir, strerror(errno));
                rc = -1;
            }
            break;
        }
        if (e->d_name[0] == '.')
            continue; /* ., .., and hidden files (.gitkeep) */
        if (n == cap) {
            char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
            if (!nn) {
                rc = -1;
                break;
            }
            names = nn;
        }
        size_t l = strlen(dir) + 1 + strlen(e->d_name) + 1;
        if (!(names[n] = malloc(l))) {
            rc = -1;
            break;
        }
        snprintf(names[n++], l, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (rc == 0 && n > 1)
        qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) != 0) {
            fprintf(stderr, "fuzz replay: %s: %s\n", names[i], strerror(errno));
            rc = -1;
        } else if (S_ISREG(st.st_mode)) {
            rc = run_file(names[i]);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (rc != 0)
        fprintf(stderr, "fuzz replay: %s: failed\n", dir);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "fuzz replay: %s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        if ((S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i])) != 0)
            return 1;
    }
    if (n_inputs == 0) {
        fprintf(stderr, "fuzz replay: no input found\n");
        return 1;
    }
    printf("fuzz replay: %lu inputs, all passed\n", n_inputs);
    return 0;
}

/*
 * PBKDF2 for `rijn enc -pbkdf2` on several threads: the output blocks of
 * PBKDF2 are independent (RFC 8018, 5.2), so each thread computes every
 * n-th one with the library's rijn_hash_pbkdf2_part. With many iterations
 * (OpenSSL's default is 10,000, users ask for 10^5-10^6) and AES-256's 48
 * bytes of key and IV from SHA-1 (3 blocks), this divides the wait.
 */
#include <pthread.h>

#include "enc.h"

struct kdf_job {
    const rijn_hash_alg *alg;
    const unsigned char *pass, *salt;
    size_t pass_len, salt_len, out_len;
    unsigned long iter;
    unsigned char *out;
    uint32_t first, step;
};

static void *kdf_run(void *arg)
{
    const struct kdf_job *j = arg;

    rijn_hash_pbkdf2_part(j->alg, j->pass, j->pass_len, j->salt, j->salt_len,
                          j->iter, j->out, j->out_len, j->first, j->step);
    return NULL;
}

void enc_pbkdf2(const rijn_hash_alg *alg, const unsigned char *pass,
                size_t pass_len, const unsigned char *salt, size_t salt_len,
                unsigned long iter, unsigned char *out, size_t out_len,
                int threads)
{
    struct kdf_job job[8];
    pthread_t tid[8];
    size_t blocks = (out_len + alg->out_len - 1) / alg->out_len;
    int n = threads < 1 ? 1 : threads, started = 1;

    if ((size_t)n > blocks)
        n = (int)blocks;
    if (n > 8)
        n = 8;
    if (iter < 1000) /* not worth a thread */
        n = 1;
    for (int i = 0; i < n; i++)
        job[i] = (struct kdf_job){alg, pass, salt, pass_len, salt_len,
                                  out_len, iter, out, (uint32_t)i + 1,
                                  (uint32_t)n};
    while (started < n &&
           pthread_create(&tid[started], NULL, kdf_run, &job[started]) == 0)
        started++;
    /* this thread: job 0, and those of threads that did not start */
    for (int i = 0; i < n; i++)
        if (i == 0 || i >= started)
            kdf_run(&job[i]);
    for (int i = 1; i < started; i++)
        pthread_join(tid[i], NULL);
}

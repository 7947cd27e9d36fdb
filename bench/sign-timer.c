/*
 * bench/sign-timer.c: what libcrypto's signature call costs inside a running hosted, as a
 * benchmark's measuring tool (bench/results.sh with BENCH_SIGN_TIMER=1).
 *
 * Built as a shared object and loaded into `hosted serve` with LD_PRELOAD, it stands in front of
 * EVP_PKEY_sign(3): each call is passed on to libcrypto's own, unchanged, and the calling
 * thread's CPU time around it (CLOCK_THREAD_CPUTIME_ID) is added to two counters, the calls and
 * the nanoseconds. The counters live in a 16-byte file, SIGN_TIMER_DIR/PID, mapped shared, so the
 * bench reads them at any moment (two little-endian 64-bit integers: calls, then nanoseconds)
 * without stopping the server. Only calls that produce a signature are counted (a call with a
 * NULL output buffer only asks for the size).
 *
 * It measures the one libcrypto call and nothing around it: the figure is the floor under what
 * signing a result can cost in that server, whatever hosted's own code around the call does. The
 * clock's two reads (system calls) are inside the figure, well under a microsecond each here.
 *
 * Without SIGN_TIMER_DIR in the environment it only passes the calls on.
 *
 * Build: gcc -O2 -shared -fPIC bench/sign-timer.c -o sign-timer.so -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

typedef int (*sign_function)(EVP_PKEY_CTX *, unsigned char *, size_t *, const unsigned char *, size_t);

static sign_function real_sign;
static _Atomic uint64_t *counters; /* [0] calls, [1] nanoseconds; NULL: not counting */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void set_up(void) {
    real_sign = (sign_function)dlsym(RTLD_NEXT, "EVP_PKEY_sign");
    const char *dir = getenv("SIGN_TIMER_DIR");
    if (dir == NULL) return;
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%ld", dir, (long)getpid()) >= (int)sizeof path) return;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return;
    if (ftruncate(fd, 2 * sizeof(uint64_t)) == 0) {
        void *map = mmap(NULL, 2 * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (map != MAP_FAILED) counters = map;
    }
    close(fd);
}

static uint64_t thread_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int EVP_PKEY_sign(EVP_PKEY_CTX *context, unsigned char *signature, size_t *length,
                  const unsigned char *digest, size_t digest_length) {
    pthread_once(&once, set_up);
    if (real_sign == NULL) return -1;
    if (counters == NULL || signature == NULL) return real_sign(context, signature, length, digest, digest_length);
    uint64_t before = thread_ns();
    int result = real_sign(context, signature, length, digest, digest_length);
    uint64_t spent = thread_ns() - before;
    counters[0]++;
    counters[1] += spent;
    return result;
}

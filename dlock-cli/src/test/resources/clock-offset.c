/*
 * Preloaded into a test's redis-server (LD_PRELOAD) to put its wall clock DLOCK_CLOCK_OFFSET_MS
 * milliseconds off, as an unsynchronised host's would be. Only the wall clock (CLOCK_REALTIME,
 * gettimeofday, time) moves: the monotonic clock that drives the server's timers stays true.
 * It calls the kernel directly rather than the next definition (dlsym): the allocator (jemalloc)
 * asks for the time while it starts, which makes libfaketime recurse and the server not start.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long long offset_ns(void) {
    static long long offset = -1;
    if (offset == -1) {
        const char *ms = getenv("DLOCK_CLOCK_OFFSET_MS");
        offset = ms ? atoll(ms) * 1000000LL : 0;
    }
    return offset;
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
    long result = syscall(SYS_clock_gettime, clock, ts);
    if (result == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) {
        long long ns = ts->tv_sec * 1000000000LL + ts->tv_nsec + offset_ns();
        ts->tv_sec = ns / 1000000000LL;
        ts->tv_nsec = ns % 1000000000LL;
    }
    return (int) result;
}

int gettimeofday(struct timeval *tv, void *zone) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
    return 0;
}

time_t time(time_t *out) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out) {
        *out = ts.tv_sec;
    }
    return ts.tv_sec;
}

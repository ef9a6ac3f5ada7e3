/*
 * Preloaded (LD_PRELOAD) into a process (a fault campaign's client JVM, a test's redis-server) to
 * give it the wall clock of a host whose clock is off and runs at the wrong rate: from the moment
 * the library is loaded, CLOCK_REALTIME (and gettimeofday, time) reads DLOCK_CLOCK_OFFSET_MS
 * milliseconds off and advances DLOCK_CLOCK_RATE times as fast as the true one (1.5 fast, 0.5
 * slow; 1 when unset: only off).
 *
 * Only the wall clock moves. The monotonic and CPU clocks stay true, and so do the timeouts of
 * every wait (nanosleep, poll, epoll_wait, condition variables): a host whose clock NTP has lost
 * still waits real time. libfaketime's rate also shortens or stretches those waits, which turned a
 * client's network thread into a busy loop; this library does nothing to them.
 * It calls the kernel directly rather than the next definition (dlsym), so that it works before the
 * dynamic linker has finished and cannot recurse (redis-server's allocator asks for the time while
 * it starts, which makes libfaketime recurse and the server not start).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long long offset_ns;
static long long anchor_ns; /* the true wall clock when the library was loaded */
static double rate = 1.0;

static long long true_realtime_ns(clockid_t clock) {
    struct timespec ts;
    syscall(SYS_clock_gettime, clock, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((constructor)) static void skewed_clock_init(void) {
    const char *ms = getenv("DLOCK_CLOCK_OFFSET_MS");
    const char *r = getenv("DLOCK_CLOCK_RATE");
    offset_ns = ms ? atoll(ms) * 1000000LL : 0;
    rate = r ? atof(r) : 1.0;
    if (rate <= 0) {
        rate = 1.0;
    }
    anchor_ns = true_realtime_ns(CLOCK_REALTIME);
}

static void skew(struct timespec *ts) {
    long long now = ts->tv_sec * 1000000000LL + ts->tv_nsec;
    long long ns = anchor_ns + offset_ns + (long long) ((double) (now - anchor_ns) * rate);
    ts->tv_sec = ns / 1000000000LL;
    ts->tv_nsec = ns % 1000000000LL;
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
    long result = syscall(SYS_clock_gettime, clock, ts);
    if (result == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) {
        skew(ts);
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

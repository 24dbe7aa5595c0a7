/* The wall clock of one process moved by TRELLIS_CLOCK_SKEW seconds (scripts/faults start HOST
 * --skew S), loaded with LD_PRELOAD: clock_gettime of CLOCK_REALTIME (and its coarse form),
 * gettimeofday and time answer the skewed time; every other clock, and every timer, is the
 * kernel's. (libfaketime also moves the absolute deadlines a process gives timerfd_settime, even
 * for the monotonic clock: a replica behind then never saw its timers fire, one ahead saw them
 * fire at once.) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long long skew_nanoseconds(void) {
    static long long skew = -1;
    if (skew == -1) {
        const char *text = getenv("TRELLIS_CLOCK_SKEW");
        skew = text ? (long long)(strtod(text, NULL) * 1e9) : 0;
    }
    return skew;
}

static void add_skew(struct timespec *ts) {
    long long total = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + skew_nanoseconds();
    ts->tv_sec = total / 1000000000LL;
    ts->tv_nsec = total % 1000000000LL;
    if (ts->tv_nsec < 0) { ts->tv_nsec += 1000000000LL; ts->tv_sec -= 1; }
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int result = real(clock, ts);
    if (result == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) add_skew(ts);
    return result;
}

int gettimeofday(struct timeval *tv, void *tz) {
    struct timespec ts;
    int result = clock_gettime(CLOCK_REALTIME, &ts);
    (void)tz;
    if (result == 0) { tv->tv_sec = ts.tv_sec; tv->tv_usec = ts.tv_nsec / 1000; }  /* glibc: tv is never null */
    return result;
}

time_t time(time_t *out) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out) *out = ts.tv_sec;
    return ts.tv_sec;
}

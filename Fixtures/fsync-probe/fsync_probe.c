// fsync_probe: an LD_PRELOAD shim that records every fsync and fdatasync a process makes.
//
// The durability tests compile it at run time (cc -shared -fPIC) and load it into the real
// `trellis serve` binary, or into a test process re-executed for one test. Each call is passed on
// to the C library unchanged; once it has returned, one line is appended to the file named by
// TRELLIS_FSYNC_LOG:
//
//     <sequence> <CLOCK_MONOTONIC nanoseconds> <fsync|fdatasync> <return value> <path of the fd>
//
// The time is taken after the call returned, so a line stamped before a client read its answer is
// a sync that had finished before the answer was sent. CLOCK_MONOTONIC is one clock for every
// process on the machine: the test compares it with the times it sent each request and read each
// answer. Lines are written with one write(2) each on an O_APPEND descriptor, so threads do not
// interleave them. Without TRELLIS_FSYNC_LOG the shim only passes the calls on.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int log_fd = -1;
static atomic_long sequence;
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);

__attribute__((constructor)) static void fsync_probe_open(void) {
    real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    const char *path = getenv("TRELLIS_FSYNC_LOG");
    if (path && *path) log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

static void fsync_probe_record(const char *call, int fd, int rc) {
    if (log_fd < 0) return;
    int saved = errno;
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    target[n < 0 ? 0 : n] = 0;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long number = atomic_fetch_add(&sequence, 1) + 1;
    char line[4200];
    int length = snprintf(line, sizeof line, "%ld %lld %s %d %s\n", number,
                          (long long)now.tv_sec * 1000000000LL + now.tv_nsec, call, rc, target);
    if (length > 0) {
        ssize_t ignored = write(log_fd, line, (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
        (void)ignored;
    }
    errno = saved;
}

int fsync(int fd) {
    if (!real_fsync) real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    int rc = real_fsync(fd);
    fsync_probe_record("fsync", fd, rc);
    return rc;
}

int fdatasync(int fd) {
    if (!real_fdatasync) real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    int rc = real_fdatasync(fd);
    fsync_probe_record("fdatasync", fd, rc);
    return rc;
}

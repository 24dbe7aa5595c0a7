#ifndef TRELLIS_LINUX_H
#define TRELLIS_LINUX_H
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <fcntl.h>

/// epoll_data is a union; these keep Swift code away from its layout.
static inline int trellis_epoll_ctl(int epfd, int op, int fd, unsigned int events) {
    struct epoll_event ev;
    ev.events = events;
    ev.data.u64 = 0;
    ev.data.fd = fd;
    return epoll_ctl(epfd, op, fd, &ev);
}

static inline int trellis_event_fd(const struct epoll_event *events, int i) { return events[i].data.fd; }
static inline unsigned int trellis_event_flags(const struct epoll_event *events, int i) { return events[i].events; }

/// Accepts a connection already non-blocking and close-on-exec (accept4 needs _GNU_SOURCE,
/// which Swift's Glibc module is not built with; the flags are set with fcntl instead).
static inline int trellis_accept(int fd, struct sockaddr *addr, socklen_t *len) {
    int c = accept(fd, addr, len);
    if (c >= 0) {
        fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK);
        fcntl(c, F_SETFD, FD_CLOEXEC);
    }
    return c;
}

static const unsigned int TRELLIS_EPOLLIN = EPOLLIN;
static const unsigned int TRELLIS_EPOLLOUT = EPOLLOUT;
static const unsigned int TRELLIS_EPOLLERR = EPOLLERR;
static const unsigned int TRELLIS_EPOLLHUP = EPOLLHUP;
static const unsigned int TRELLIS_EPOLLEXCLUSIVE = EPOLLEXCLUSIVE;
#endif
#endif

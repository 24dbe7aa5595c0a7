#ifndef TRELLIS_LINUX_H
#define TRELLIS_LINUX_H
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
// malloc_trim and mallopt: giving memory freed by a reload back to the system, and fewer arenas keeping it (TrellisServer).
#include <malloc.h>

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

static const unsigned int TRELLIS_EPOLLIN = EPOLLIN;
static const unsigned int TRELLIS_EPOLLOUT = EPOLLOUT;
static const unsigned int TRELLIS_EPOLLERR = EPOLLERR;
static const unsigned int TRELLIS_EPOLLHUP = EPOLLHUP;
static const unsigned int TRELLIS_EPOLLEXCLUSIVE = EPOLLEXCLUSIVE;
#endif
#endif

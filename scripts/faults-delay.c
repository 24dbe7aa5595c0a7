/* scripts/faults-delay.c: delay without netem. Holds every packet of one NFQUEUE queue DELAY ms
 * (± a uniform JITTER) and then accepts it; a packet's verdict comes when its time has come,
 * whatever its id, so with jitter later packets may overtake earlier ones (as with netem).
 *
 *   faults-delay QUEUE DELAY_MS [JITTER_MS]
 *
 * scripts/faults compiles it into its state directory (cc … -lnetfilter_queue -lnfnetlink, Debian's
 * libnetfilter-queue-dev) and runs one inside a host's network namespace for each delayed peer,
 * fed by `iptables -A OUTPUT -d PEER -j NFQUEUE --queue-num QUEUE` there. On SIGTERM or SIGINT
 * it accepts every packet it holds at once and exits 0, so a heal strands nothing.
 *
 * Limits: packets wait in the kernel's queue (up to 65,536 of them; more are dropped), and a
 * verdict is one netlink message each way, so it suits a few thousand packets a second, not a
 * bulk transfer; the delay is added to the sender's output only.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

struct held { uint64_t due; uint32_t id; };

/* A binary min-heap of held packets by due time. */
static struct held *heap;
static size_t count, capacity;
static uint64_t delay_ns, jitter_ns;
static volatile sig_atomic_t stopping;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void push(struct held h) {
    if (count == capacity) {
        capacity = capacity ? capacity * 2 : 1024;
        heap = realloc(heap, capacity * sizeof *heap);
        if (!heap) { perror("faults-delay: realloc"); exit(1); }
    }
    size_t i = count++;
    while (i > 0 && heap[(i - 1) / 2].due > h.due) { heap[i] = heap[(i - 1) / 2]; i = (i - 1) / 2; }
    heap[i] = h;
}

static struct held pop(void) {
    struct held top = heap[0], last = heap[--count];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= count) break;
        if (child + 1 < count && heap[child + 1].due < heap[child].due) child++;
        if (heap[child].due >= last.due) break;
        heap[i] = heap[child];
        i = child;
    }
    if (count > 0) heap[i] = last;
    return top;
}

/* Each queued packet: when to let it go. */
static int queued(struct nfq_q_handle *queue, struct nfgenmsg *message, struct nfq_data *packet, void *context) {
    (void)queue; (void)message; (void)context;
    struct nfqnl_msg_packet_hdr *header = nfq_get_msg_packet_hdr(packet);
    if (!header) return 0;
    int64_t wait = (int64_t)delay_ns;
    if (jitter_ns) wait += (int64_t)(((double)random() / RAND_MAX * 2 - 1) * (double)jitter_ns);
    if (wait < 0) wait = 0;
    push((struct held){ now_ns() + (uint64_t)wait, ntohl(header->packet_id) });
    return 0;
}

static void stop(int signal) { (void)signal; stopping = 1; }

static long milliseconds(const char *text, const char *what) {
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || *end || end == text || value < 0 || value > 60000) {
        fprintf(stderr, "faults-delay: %s must be 0–60000 (ms), not \"%s\"\n", what, text);
        exit(2);
    }
    return value;
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: faults-delay QUEUE DELAY_MS [JITTER_MS]\n");
        return 2;
    }
    long number = milliseconds(argv[1], "QUEUE");
    delay_ns = (uint64_t)milliseconds(argv[2], "DELAY_MS") * 1000000u;
    jitter_ns = argc > 3 ? (uint64_t)milliseconds(argv[3], "JITTER_MS") * 1000000u : 0;
    if (jitter_ns > delay_ns) { fprintf(stderr, "faults-delay: JITTER_MS must not exceed DELAY_MS\n"); return 2; }
    srandom((unsigned)now_ns());

    struct nfq_handle *handle = nfq_open();
    if (!handle) { perror("faults-delay: nfq_open"); return 1; }
    struct nfq_q_handle *queue = nfq_create_queue(handle, (uint16_t)number, queued, NULL);
    if (!queue) { fprintf(stderr, "faults-delay: cannot bind queue %ld (another listener?)\n", number); return 1; }
    /* Only the packet's id is needed, never its bytes. */
    if (nfq_set_mode(queue, NFQNL_COPY_META, 0) < 0) { perror("faults-delay: nfq_set_mode"); return 1; }
    nfq_set_queue_maxlen(queue, 65536);
    /* GSO packets whole: one verdict for a TSO burst instead of one per segment. */
    nfq_set_queue_flags(queue, NFQA_CFG_F_GSO, NFQA_CFG_F_GSO);
    int fd = nfq_fd(handle);
    nfnl_rcvbufsiz(nfq_nfnlh(handle), 16 << 20);

    sigset_t blocked, during_wait;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGTERM);
    sigaddset(&blocked, SIGINT);
    sigprocmask(SIG_BLOCK, &blocked, &during_wait);
    struct sigaction action = { .sa_handler = stop };
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);

    char buffer[65536] __attribute__((aligned));
    while (!stopping) {
        struct timespec timeout, *wait = NULL;
        if (count > 0) {
            uint64_t now = now_ns(), left = heap[0].due > now ? heap[0].due - now : 0;
            timeout = (struct timespec){ (time_t)(left / 1000000000u), (long)(left % 1000000000u) };
            wait = &timeout;
        }
        struct pollfd readable = { .fd = fd, .events = POLLIN };
        int ready = ppoll(&readable, 1, wait, &during_wait);  /* signals only arrive in here */
        if (ready < 0 && errno != EINTR) { perror("faults-delay: ppoll"); return 1; }
        if (ready > 0) {
            for (;;) {
                ssize_t length = recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
                if (length < 0) {
                    if (errno == EAGAIN || errno == EWOULDBLOCK) break;
                    /* The kernel dropped messages it could not deliver: those packets wait
                     * until the queue is gone. Say so and go on. */
                    if (errno == ENOBUFS) { fprintf(stderr, "faults-delay: receive buffer overrun\n"); continue; }
                    perror("faults-delay: recv");
                    return 1;
                }
                nfq_handle_packet(handle, buffer, (int)length);
            }
        }
        for (uint64_t now = now_ns(); count > 0 && heap[0].due <= now;)
            nfq_set_verdict(queue, pop().id, NF_ACCEPT, 0, NULL);
    }
    while (count > 0) nfq_set_verdict(queue, pop().id, NF_ACCEPT, 0, NULL);
    nfq_destroy_queue(queue);
    nfq_close(handle);
    return 0;
}

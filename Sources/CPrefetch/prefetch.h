#ifndef TRELLIS_PREFETCH_H
#define TRELLIS_PREFETCH_H

/// Asks for the line at `address`, to be read, without waiting for it.
static inline void trellis_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

/// Asks for every line of the `count` bytes at `address`, to be read, without waiting for them.
static inline void trellis_prefetch_bytes(const void *address, long count) {
    const char *first = (const char *)((unsigned long)address & ~63UL);
    const char *end = (const char *)address + count;
    for (const char *line = first; line < end; line += 64) __builtin_prefetch(line, 0, 3);
}

#endif

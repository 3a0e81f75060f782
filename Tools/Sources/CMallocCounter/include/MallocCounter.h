// Counts heap allocations per thread, for haptic-bench's "no allocation on the tick thread" figure.
//
// Linked into haptic-bench only: it defines malloc, calloc, realloc, posix_memalign,
// aligned_alloc and memalign, which the dynamic linker then uses for the whole process
// (the Swift runtime and Foundation included). Each one counts the call on the calling thread
// and forwards to glibc's own allocator (__libc_malloc and friends).
#ifndef HAPTICS_MALLOC_COUNTER_H
#define HAPTICS_MALLOC_COUNTER_H

/// Allocations made by the calling thread since it started.
unsigned long haptics_thread_allocations(void);

#endif

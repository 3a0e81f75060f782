// Counts heap allocations and bytes per thread: haptic-bench's "no allocation on the tick thread"
// figure, and the studio tests' bound on the memory a request takes.
//
// Linked into haptic-bench and the HapticsStudio tests only: it defines malloc, calloc, realloc,
// free, posix_memalign, aligned_alloc and memalign, which the dynamic linker then uses for the
// whole process (the Swift runtime and Foundation included). Each one counts the call on the
// calling thread and forwards to glibc's own allocator (__libc_malloc and friends).
#ifndef HAPTICS_MALLOC_COUNTER_H
#define HAPTICS_MALLOC_COUNTER_H

/// Allocations made by the calling thread since it started.
unsigned long haptics_thread_allocations(void);

/// Bytes the calling thread has allocated (usable sizes) less those it has freed, since it
/// started; memory freed here that another thread allocated counts against it.
long haptics_thread_live_bytes(void);

/// The most `haptics_thread_live_bytes` has been since the last reset.
long haptics_thread_peak_bytes(void);

/// Starts a new peak at the current live bytes.
void haptics_thread_reset_peak(void);

#endif

// See include/MallocCounter.h. glibc exports __libc_* for exactly this use (interposing the
// allocator without dlsym, which may itself allocate).
#include "MallocCounter.h"

#include <errno.h>
#include <malloc.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static __thread unsigned long allocations;
// Bytes (as the allocator hands them out: malloc_usable_size) allocated by this thread minus
// those it freed, and the most that difference has been since the last reset.
static __thread long live;
static __thread long peak;

unsigned long haptics_thread_allocations(void) { return allocations; }

long haptics_thread_live_bytes(void) { return live; }

long haptics_thread_peak_bytes(void) { return peak; }

void haptics_thread_reset_peak(void) { peak = live; }

static void *counted(void *pointer) {
    if (pointer != NULL) {
        live += (long)malloc_usable_size(pointer);
        if (live > peak) peak = live;
    }
    return pointer;
}

void *malloc(size_t size) {
    allocations++;
    return counted(__libc_malloc(size));
}

void *calloc(size_t count, size_t size) {
    allocations++;
    return counted(__libc_calloc(count, size));
}

void *realloc(void *pointer, size_t size) {
    allocations++;
    long old = pointer != NULL ? (long)malloc_usable_size(pointer) : 0;
    void *moved = __libc_realloc(pointer, size);
    if (moved != NULL) {
        // A move holds both blocks for a moment.
        if (moved != pointer && live + old + (long)malloc_usable_size(moved) > peak)
            peak = live + old + (long)malloc_usable_size(moved);
        live += (long)malloc_usable_size(moved) - old;
        if (live > peak) peak = live;
    } else if (size == 0) {
        live -= old;
    }
    return moved;
}

void free(void *pointer) {
    if (pointer != NULL) live -= (long)malloc_usable_size(pointer);
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    allocations++;
    return counted(__libc_memalign(alignment, size));
}

void *aligned_alloc(size_t alignment, size_t size) {
    allocations++;
    return counted(__libc_memalign(alignment, size));
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    allocations++;
    void *pointer = counted(__libc_memalign(alignment, size));
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

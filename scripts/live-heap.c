/* Live heap by size, for the waiting-memory investigation (docs/benchmarks.md, issue 16).
 *
 * Preloaded into `retryflow-bench __park KIND N`, it counts every live allocation by its usable
 * size; the benchmark snapshots the counts before starting its tasks and prints, once they are all
 * parked, what each parked task holds: e.g. `usable 1016: +3.00 per task` is three task-allocator
 * slabs (the async frames' memory, kept until the task ends), `904` a run's driver (`RunDriver`). valgrind cannot
 * run the bench's many threads here; this needs nothing but gcc.
 *
 *   gcc -O2 -shared -fPIC scripts/live-heap.c -o /tmp/live-heap.so
 *   LD_PRELOAD=/tmp/live-heap.so .build/release/retryflow-bench __park run 10000
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

#define LARGEST 8192 /* sizes above share the last bucket */
static _Atomic long live[LARGEST + 1];
static long snapshot[LARGEST + 1];

static inline int bucket(void *p) {
    size_t usable = malloc_usable_size(p);
    return usable > LARGEST ? LARGEST : (int)usable;
}
static inline void *counted(void *p) {
    if (p) atomic_fetch_add(&live[bucket(p)], 1);
    return p;
}
void *malloc(size_t n) { return counted(__libc_malloc(n)); }
void *calloc(size_t a, size_t b) { return counted(__libc_calloc(a, b)); }
void *memalign(size_t a, size_t n) { return counted(__libc_memalign(a, n)); }
void *aligned_alloc(size_t a, size_t n) { return counted(__libc_memalign(a, n)); }
int posix_memalign(void **out, size_t a, size_t n) {
    void *p = counted(__libc_memalign(a, n));
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}
void free(void *p) {
    if (!p) return;
    atomic_fetch_sub(&live[bucket(p)], 1);
    __libc_free(p);
}
void *realloc(void *old, size_t n) {
    if (old) atomic_fetch_sub(&live[bucket(old)], 1);
    void *p = __libc_realloc(old, n);
    if (p) atomic_fetch_add(&live[bucket(p)], 1);
    else if (old) atomic_fetch_add(&live[bucket(old)], 1);
    return p;
}

/* Called by the benchmark (found with dlsym) before its tasks start, and once they have parked. */
void live_heap_snapshot(void) {
    for (int i = 0; i <= LARGEST; i++) snapshot[i] = live[i];
}
void live_heap_report(long tasks) {
    double total = 0;
    for (int i = 0; i <= LARGEST; i++) {
        long added = live[i] - snapshot[i];
        if (added > tasks / 2 || added < -tasks / 2) {
            fprintf(stderr, "usable %5d: %+.2f per task = %6.0f B\n", i, (double)added / tasks, (double)added * i / tasks);
            total += (double)added * i;
        }
    }
    fprintf(stderr, "live heap per task: %.0f B\n", total / tasks);
}

/*
 * malloc-counting preload shim.
 *
 *   LD_PRELOAD=malloc_count.so MALLOC_COUNT_FILE=out.txt prog ...
 *
 * Counts every heap allocation (malloc, calloc, realloc, posix_memalign,
 * aligned_alloc, memalign, valloc) made by the process and writes the total
 * to MALLOC_COUNT_FILE at exit. Programs can read the running count with
 * malloc_count_get(), found with dlsym(RTLD_DEFAULT, ...).
 *
 * With MALLOC_COUNT_THREAD=PREFIX only allocations made by threads whose
 * name starts with PREFIX count (the ffmpeg CLI names its filtergraph
 * threads "vf#0:0" and so on).
 *
 * For out-of-memory tests, malloc_count_fail_after(n) makes the n-th
 * allocation from then on fail (0 disarms), and malloc_count_live() tells
 * how many allocations are live (made and not yet freed).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *ptr, size_t size);
void *__libc_memalign(size_t align, size_t size);
void __libc_free(void *ptr);

static atomic_uint_fast64_t nb_allocs;
static atomic_int_fast64_t nb_live;
static atomic_int_fast64_t fail_countdown;
static char thread_prefix[16];
static size_t thread_prefix_len;

__attribute__((constructor)) static void malloc_count_init(void)
{
    const char *p = getenv("MALLOC_COUNT_THREAD");

    if (p && *p) {
        strncpy(thread_prefix, p, sizeof(thread_prefix) - 1);
        thread_prefix_len = strlen(thread_prefix);
    }
}

int64_t malloc_count_live(void);
int64_t malloc_count_live(void)
{
    return atomic_load(&nb_live);
}

void malloc_count_fail_after(int64_t n);
void malloc_count_fail_after(int64_t n)
{
    atomic_store(&fail_countdown, n);
}

/* returns 1 if this allocation is to fail */
static int count_one(void)
{
    if (thread_prefix_len) {
        char name[17] = { 0 };
        if (prctl(PR_GET_NAME, name) < 0 || strncmp(name, thread_prefix, thread_prefix_len))
            return 0;
    }
    atomic_fetch_add(&nb_allocs, 1);
    if (atomic_load(&fail_countdown) > 0 && atomic_fetch_sub(&fail_countdown, 1) == 1) {
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

static void *live(void *p)
{
    if (p)
        atomic_fetch_add(&nb_live, 1);
    return p;
}

void free(void *ptr)
{
    if (ptr)
        atomic_fetch_sub(&nb_live, 1);
    __libc_free(ptr);
}

uint64_t malloc_count_get(void);
uint64_t malloc_count_get(void)
{
    return atomic_load(&nb_allocs);
}

void *malloc(size_t size)
{
    return count_one() ? NULL : live(__libc_malloc(size));
}

void *calloc(size_t n, size_t size)
{
    return count_one() ? NULL : live(__libc_calloc(n, size));
}

void *realloc(void *ptr, size_t size)
{
    void *p;

    if (count_one())
        return NULL;
    p = __libc_realloc(ptr, size);
    if (!ptr && p)
        atomic_fetch_add(&nb_live, 1);
    else if (ptr && !size)
        atomic_fetch_sub(&nb_live, 1);
    return p;
}

int posix_memalign(void **ptr, size_t align, size_t size)
{
    void *p;

    if (!align || (align & (align - 1)) || align % sizeof(void *))
        return EINVAL;
    if (count_one())
        return ENOMEM;
    p = __libc_memalign(align, size);
    if (!p)
        return ENOMEM;
    atomic_fetch_add(&nb_live, 1);
    *ptr = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t size)
{
    return count_one() ? NULL : live(__libc_memalign(align, size));
}

void *memalign(size_t align, size_t size)
{
    return count_one() ? NULL : live(__libc_memalign(align, size));
}

void *valloc(size_t size)
{
    return count_one() ? NULL : live(__libc_memalign(4096, size));
}

__attribute__((destructor)) static void malloc_count_report(void)
{
    const char *path = getenv("MALLOC_COUNT_FILE");
    FILE *f;

    if (!path || !(f = fopen(path, "w")))
        return;
    fprintf(f, "%llu\n", (unsigned long long)atomic_load(&nb_allocs));
    fclose(f);
}

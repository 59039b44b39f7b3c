/*
 * malloc-counting preload shim.
 *
 *   LD_PRELOAD=malloc_count.so MALLOC_COUNT_FILE=out.txt prog ...
 *
 * Counts every heap allocation (malloc, calloc, realloc, posix_memalign,
 * aligned_alloc, memalign, valloc) made by the process and writes the total
 * to MALLOC_COUNT_FILE at exit. Programs can read the running count with
 * malloc_count_get(), found with dlsym(RTLD_DEFAULT, ...).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *ptr, size_t size);
void *__libc_memalign(size_t align, size_t size);

static atomic_uint_fast64_t nb_allocs;

uint64_t malloc_count_get(void);
uint64_t malloc_count_get(void)
{
    return atomic_load(&nb_allocs);
}

void *malloc(size_t size)
{
    atomic_fetch_add(&nb_allocs, 1);
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    atomic_fetch_add(&nb_allocs, 1);
    return __libc_calloc(n, size);
}

void *realloc(void *ptr, size_t size)
{
    atomic_fetch_add(&nb_allocs, 1);
    return __libc_realloc(ptr, size);
}

int posix_memalign(void **ptr, size_t align, size_t size)
{
    void *p;

    if (!align || (align & (align - 1)) || align % sizeof(void *))
        return EINVAL;
    atomic_fetch_add(&nb_allocs, 1);
    p = __libc_memalign(align, size);
    if (!p)
        return ENOMEM;
    *ptr = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t size)
{
    atomic_fetch_add(&nb_allocs, 1);
    return __libc_memalign(align, size);
}

void *memalign(size_t align, size_t size)
{
    atomic_fetch_add(&nb_allocs, 1);
    return __libc_memalign(align, size);
}

void *valloc(size_t size)
{
    atomic_fetch_add(&nb_allocs, 1);
    return __libc_memalign(4096, size);
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

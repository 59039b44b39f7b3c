/*
 * Shared by the RTCP benchmarks (rtcp_bench.c, gst_rtcp_bench.c): a
 * monotonic clock in nanoseconds and a comparison for qsort()ing timings.
 */
#ifndef TESTS_BENCH_NSTIME_H
#define TESTS_BENCH_NSTIME_H

#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif /* TESTS_BENCH_NSTIME_H */

/*
 * This file is part of FFmpeg.
 *
 * FFmpeg is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * FFmpeg is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Lesser General Public License for more details.
 *
 * You should have received a copy of the GNU Lesser General Public
 * License along with FFmpeg; if not, write to the Free Software
 * Foundation, Inc., 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301 USA
 */

/*
 * AVBufferPool tests: references handed out and returned in every order,
 * pools uninitialised with buffers outstanding, references replaced, made
 * writable and reallocated, and several threads sharing one pool. Each
 * buffer the pool allocates is tracked here, so the test fails on a double
 * free, a leak, or two owners of one buffer at once.
 */

#include <stdio.h>
#include <string.h>

#include "config.h"
#if HAVE_PTHREADS
#include <pthread.h>
#endif

#include "libavutil/buffer.h"
#include "libavutil/mem.h"

#define MAX_BUFS 256

typedef struct Tracker {
    int allocated, freed;
    uint8_t *data[MAX_BUFS];
    int live[MAX_BUFS];
#if HAVE_PTHREADS
    pthread_mutex_t lock;
#endif
} Tracker;

static int failures;

#define CHECK(cond) do {                                                    \
    if (!(cond)) {                                                          \
        printf("FAIL line %d: %s\n", __LINE__, #cond);                      \
        failures++;                                                         \
    }                                                                       \
} while (0)

static void tracker_lock(Tracker *t)
{
#if HAVE_PTHREADS
    pthread_mutex_lock(&t->lock);
#endif
}

static void tracker_unlock(Tracker *t)
{
#if HAVE_PTHREADS
    pthread_mutex_unlock(&t->lock);
#endif
}

static void track_free(void *opaque, uint8_t *data)
{
    Tracker *t = opaque;
    int found = 0;

    tracker_lock(t);
    for (int i = 0; i < t->allocated; i++) {
        if (t->data[i] == data) {
            if (!t->live[i])
                printf("FAIL: buffer %d freed twice\n", i), failures++;
            t->live[i] = 0;
            found = 1;
        }
    }
    if (!found)
        printf("FAIL: unknown buffer freed\n"), failures++;
    t->freed++;
    tracker_unlock(t);
    av_free(data);
}

static AVBufferRef *track_alloc(void *opaque, size_t size)
{
    Tracker *t = opaque;
    uint8_t *data;
    AVBufferRef *ref;

    tracker_lock(t);
    if (t->allocated >= MAX_BUFS) {
        tracker_unlock(t);
        return NULL;
    }
    data = av_malloc(size);
    ref  = data ? av_buffer_create(data, size, track_free, t, 0) : NULL;
    if (!ref) {
        av_free(data);
        tracker_unlock(t);
        return NULL;
    }
    t->data[t->allocated] = data;
    t->live[t->allocated] = 1;
    t->allocated++;
    tracker_unlock(t);
    return ref;
}

static void tracker_init(Tracker *t)
{
    memset(t, 0, sizeof(*t));
#if HAVE_PTHREADS
    pthread_mutex_init(&t->lock, NULL);
#endif
}

static void tracker_done(Tracker *t, const char *name)
{
    int live = 0;

    for (int i = 0; i < t->allocated; i++)
        live += t->live[i];
    printf("%s: %d buffers allocated, %d freed, %d live\n",
           name, t->allocated, t->freed, live);
    CHECK(t->freed == t->allocated && !live);
#if HAVE_PTHREADS
    pthread_mutex_destroy(&t->lock);
#endif
}

/* Get, unref, get again: the same buffer comes back, in the steady state
 * with the same (recycled) reference. */
static void test_recycle(void)
{
    Tracker t;
    AVBufferPool *pool;
    AVBufferRef *a, *b, *c, *b_ref;

    tracker_init(&t);
    pool = av_buffer_pool_init2(1024, &t, track_alloc, NULL);
    CHECK(pool);

    a = av_buffer_pool_get(pool);
    CHECK(a && a->size == 1024);
    memset(a->data, 0xaa, a->size);
    av_buffer_unref(&a);
    CHECK(!a);

    b = av_buffer_pool_get(pool);
    CHECK(b && t.allocated == 1 && b->data == t.data[0]);
    b_ref = b;
    av_buffer_unref(&b);
    CHECK(!b);
    c = av_buffer_pool_get(pool);
    /* the reference of a reused entry is the entry's own, handed out again */
    CHECK(c && c == b_ref);
    CHECK(c->buffer && c->data == t.data[0] && c->size == 1024);
    CHECK(av_buffer_is_writable(c));
    av_buffer_unref(&c);

    av_buffer_pool_uninit(&pool);
    CHECK(!pool);
    tracker_done(&t, "recycle");
}

/* Several buffers out, extra references to them, the pool uninitialised
 * first: buffers are freed when their last reference goes, once. */
static void test_uninit_outstanding(void)
{
    Tracker t;
    AVBufferPool *pool;
    AVBufferRef *r[8], *extra[8];

    tracker_init(&t);
    pool = av_buffer_pool_init2(64, &t, track_alloc, NULL);
    /* warm up so that the next gets reuse entries */
    for (int i = 0; i < 8; i++)
        r[i] = av_buffer_pool_get(pool);
    for (int i = 0; i < 8; i++)
        av_buffer_unref(&r[i]);
    for (int i = 0; i < 8; i++) {
        r[i] = av_buffer_pool_get(pool);
        CHECK(r[i]);
        r[i]->data[0] = i;
        extra[i] = av_buffer_ref(r[i]);
        CHECK(extra[i] && !av_buffer_is_writable(r[i]));
    }
    CHECK(t.allocated == 8);

    av_buffer_pool_uninit(&pool);
    CHECK(t.freed == 0);

    /* drop the pool's own references first for even i, the copies first
     * for odd i */
    for (int i = 0; i < 8; i++) {
        if (i & 1) {
            av_buffer_unref(&extra[i]);
            CHECK(r[i]->data[0] == i && av_buffer_is_writable(r[i]));
            av_buffer_unref(&r[i]);
        } else {
            av_buffer_unref(&r[i]);
            CHECK(extra[i]->data[0] == i && av_buffer_is_writable(extra[i]));
            av_buffer_unref(&extra[i]);
        }
    }
    tracker_done(&t, "uninit with buffers outstanding");
}

/* av_buffer_replace(), av_buffer_make_writable() and av_buffer_realloc()
 * on a recycled pool reference: the reference must end up owning the new
 * buffer without the pool's entry being corrupted. */
static void test_replace(void)
{
    Tracker t;
    AVBufferPool *pool;
    AVBufferRef *a, *b, *other, *copy, *held;

    tracker_init(&t);
    pool = av_buffer_pool_init2(256, &t, track_alloc, NULL);
    a = av_buffer_pool_get(pool);
    av_buffer_unref(&a);

    /* replace a pool reference with a plain buffer */
    a = av_buffer_pool_get(pool);
    other = av_buffer_alloc(32);
    CHECK(a && other);
    memset(other->data, 7, 32);
    CHECK(av_buffer_replace(&a, other) >= 0);
    CHECK(a && a->size == 32 && a->data == other->data);
    av_buffer_unref(&other);
    CHECK(a->data[31] == 7);

    /* the entry went back: the next get must be fine and independent */
    b = av_buffer_pool_get(pool);
    CHECK(b && b->data == t.data[0] && b->size == 256);
    memset(b->data, 1, 256);
    CHECK(a->data[0] == 7);
    av_buffer_unref(&a);

    /* make a shared pool reference writable: it gets its own copy */
    copy = av_buffer_ref(b);
    CHECK(av_buffer_make_writable(&b) >= 0);
    CHECK(b->data != copy->data && b->data[255] == 1);
    b->data[0] = 2;
    CHECK(copy->data[0] == 1);
    av_buffer_unref(&copy);

    /* realloc a pool reference: it cannot grow in place, so it moves */
    held = av_buffer_pool_get(pool);
    CHECK(held && held->data == t.data[0]);
    held->data[0] = 9;
    CHECK(av_buffer_realloc(&held, 4096) >= 0);
    CHECK(held->size == 4096 && held->data[0] == 9);
    av_buffer_unref(&held);
    av_buffer_unref(&b);

    av_buffer_pool_uninit(&pool);
    tracker_done(&t, "replace/make_writable/realloc");
}

#if HAVE_PTHREADS
#define NB_THREADS 4
#define NB_ITER    20000

typedef struct ThreadArg {
    AVBufferPool *pool;
    int id;
    int errors;
} ThreadArg;

/* Each thread stamps the buffers it holds with its id and checks that
 * nobody else wrote to them while it held them. */
static void *worker(void *opaque)
{
    ThreadArg *arg = opaque;
    AVBufferRef *held[3] = { NULL };

    for (int i = 0; i < NB_ITER; i++) {
        int slot = i % 3;
        AVBufferRef *copy;

        if (held[slot]) {
            if (held[slot]->data[0] != arg->id || held[slot]->data[63] != (uint8_t)i)
                arg->errors++;
            av_buffer_unref(&held[slot]);
        }
        held[slot] = av_buffer_pool_get(arg->pool);
        if (!held[slot]) {
            arg->errors++;
            continue;
        }
        held[slot]->data[0]  = arg->id;
        held[slot]->data[63] = (uint8_t)(i + 3);
        /* an extra reference dropped right away, from the other end */
        copy = av_buffer_ref(held[slot]);
        if (!copy)
            arg->errors++;
        av_buffer_unref(&copy);
    }
    for (int i = 0; i < 3; i++)
        av_buffer_unref(&held[i]);
    return NULL;
}

static void test_threads(void)
{
    Tracker t;
    AVBufferPool *pool;
    pthread_t tid[NB_THREADS];
    ThreadArg arg[NB_THREADS];
    AVBufferRef *kept;
    int errors = 0;

    tracker_init(&t);
    pool = av_buffer_pool_init2(64, &t, track_alloc, NULL);
    for (int i = 0; i < NB_THREADS; i++) {
        arg[i] = (ThreadArg){ .pool = pool, .id = i + 1 };
        CHECK(!pthread_create(&tid[i], NULL, worker, &arg[i]));
    }
    for (int i = 0; i < NB_THREADS; i++) {
        pthread_join(tid[i], NULL);
        errors += arg[i].errors;
    }
    /* uninit with one recycled reference still out */
    kept = av_buffer_pool_get(pool);
    CHECK(kept);
    av_buffer_pool_uninit(&pool);
    CHECK(t.freed < t.allocated);
    av_buffer_unref(&kept);
    printf("threads: %d threads x %d gets, %d ownership errors\n",
           NB_THREADS, NB_ITER, errors);
    CHECK(!errors);
    CHECK(t.allocated <= NB_THREADS * 3);
    tracker_done(&t, "threads");
}
#endif

int main(void)
{
    test_recycle();
    test_uninit_outstanding();
    test_replace();
#if HAVE_PTHREADS
    test_threads();
#endif
    if (failures)
        printf("%d check(s) failed\n", failures);
    return !!failures;
}

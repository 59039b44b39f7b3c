/*
 * toi420 benchmark: median microseconds per frame, single thread, for the
 * toi420 filter (through the libavfilter API, pool included), libswscale
 * with the flags of stock FFmpeg's auto-inserted scale (bicubic), libyuv,
 * and a memcpy of the input frame's bytes, all measured in the same run.
 * Planar inputs (yuv444p, yuv422p, nv12, gray) are also run through
 * toi420=copy_luma=1: by default the output references the input's luma
 * plane, with copy_luma it is copied as libyuv and libswscale do.
 *
 *   toi420_bench [iterations] [cold]
 *   toi420_bench MILLISECONDS threads
 *
 * "cold" cycles through enough input frames to exceed the last-level cache.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libyuv.h>

#include "libavutil/frame.h"
#include "libavutil/imgutils.h"
#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/buffersink.h"
#include "libavfilter/buffersrc.h"
#include "libswscale/swscale.h"

#define MAX_RUNS 101
#define COLD_BYTES (256u << 20)

typedef struct Bench {
    enum AVPixelFormat fmt;
    const char *libyuv_name;
} Bench;

static const Bench benches[] = {
    { AV_PIX_FMT_YUV420P, "I420Copy"    },
    { AV_PIX_FMT_YUV422P, "I422ToI420"  },
    { AV_PIX_FMT_YUV444P, "I444ToI420"  },
    { AV_PIX_FMT_NV12,    "NV12ToI420"  },
    { AV_PIX_FMT_NV21,    "NV21ToI420"  },
    { AV_PIX_FMT_YUYV422, "YUY2ToI420"  },
    { AV_PIX_FMT_UYVY422, "UYVYToI420"  },
    { AV_PIX_FMT_RGBA,    "ABGRToI420"  },
    { AV_PIX_FMT_BGRA,    "ARGBToI420"  },
    { AV_PIX_FMT_ARGB,    "BGRAToI420"  },
    { AV_PIX_FMT_ABGR,    "RGBAToI420"  },
    { AV_PIX_FMT_RGB24,   "RAWToI420"   },
    { AV_PIX_FMT_BGR24,   "RGB24ToI420" },
    { AV_PIX_FMT_GRAY8,   "I400ToI420"  },
};

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return v[n / 2];
}

static int run_libyuv(enum AVPixelFormat fmt, const AVFrame *in, uint8_t *const dst[3],
                      const int dls[3])
{
    const uint8_t *s0 = in->data[0], *s1 = in->data[1], *s2 = in->data[2];
    const int l0 = in->linesize[0], l1 = in->linesize[1], l2 = in->linesize[2];
    const int w = in->width, h = in->height;
#define D dst[0], dls[0], dst[1], dls[1], dst[2], dls[2], w, h
    switch (fmt) {
    case AV_PIX_FMT_YUV420P: return I420Copy(s0, l0, s1, l1, s2, l2, D);
    case AV_PIX_FMT_YUV422P: return I422ToI420(s0, l0, s1, l1, s2, l2, D);
    case AV_PIX_FMT_YUV444P: return I444ToI420(s0, l0, s1, l1, s2, l2, D);
    case AV_PIX_FMT_NV12:    return NV12ToI420(s0, l0, s1, l1, D);
    case AV_PIX_FMT_NV21:    return NV21ToI420(s0, l0, s1, l1, D);
    case AV_PIX_FMT_YUYV422: return YUY2ToI420(s0, l0, D);
    case AV_PIX_FMT_UYVY422: return UYVYToI420(s0, l0, D);
    case AV_PIX_FMT_RGBA:    return ABGRToI420(s0, l0, D);
    case AV_PIX_FMT_BGRA:    return ARGBToI420(s0, l0, D);
    case AV_PIX_FMT_ARGB:    return BGRAToI420(s0, l0, D);
    case AV_PIX_FMT_ABGR:    return RGBAToI420(s0, l0, D);
    case AV_PIX_FMT_RGB24:   return RAWToI420(s0, l0, D);
    case AV_PIX_FMT_BGR24:   return RGB24ToI420(s0, l0, D);
    case AV_PIX_FMT_GRAY8:   return I400ToI420(s0, l0, D);
    default:                 return -1;
    }
#undef D
}

static AVFilterGraph *make_graph(enum AVPixelFormat fmt, int w, int h, int threads,
                                 const char *opts, AVFilterContext **src, AVFilterContext **sink)
{
    AVFilterGraph *g = avfilter_graph_alloc();
    AVFilterContext *f;
    char args[128];

    if (!g)
        return NULL;
    g->nb_threads = threads;
    snprintf(args, sizeof(args), "video_size=%dx%d:pix_fmt=%d:time_base=1/25", w, h, fmt);
    if (avfilter_graph_create_filter(src, avfilter_get_by_name("buffer"), "in", args, NULL, g) < 0 ||
        avfilter_graph_create_filter(&f, avfilter_get_by_name("toi420"), "toi420", opts, NULL, g) < 0 ||
        avfilter_graph_create_filter(sink, avfilter_get_by_name("buffersink"), "out", NULL, NULL, g) < 0 ||
        avfilter_link(*src, 0, f, 0) < 0 || avfilter_link(f, 0, *sink, 0) < 0 ||
        avfilter_graph_config(g, NULL) < 0)
        avfilter_graph_free(&g);
    return g;
}

static int is_planar(enum AVPixelFormat fmt)
{
    return fmt == AV_PIX_FMT_YUV444P || fmt == AV_PIX_FMT_YUV422P ||
           fmt == AV_PIX_FMT_NV12 || fmt == AV_PIX_FMT_NV21 || fmt == AV_PIX_FMT_GRAY8;
}

/* one conversion by method k: 0 toi420, 1 libswscale, 2 libyuv, 3 memcpy,
 * 4 toi420=copy_luma=1 (src[1], sink[1]) */
static int run_method(int k, enum AVPixelFormat fmt, AVFrame *f, AVFilterContext **src,
                      AVFilterContext **sink, AVFrame *out, struct SwsContext *sws,
                      uint8_t *const dst[3], const int dls[3], uint8_t *cpy,
                      int in_bytes, int h)
{
    switch (k) {
    case 0:
    case 4:
        if (av_buffersrc_add_frame_flags(src[k == 4], f, AV_BUFFERSRC_FLAG_KEEP_REF) < 0 ||
            av_buffersink_get_frame(sink[k == 4], out) < 0)
            return AVERROR_BUG;
        av_frame_unref(out);
        return 0;
    case 1:
        sws_scale(sws, (const uint8_t * const *)f->data, f->linesize, 0, h, dst, dls);
        return 0;
    case 2:
        return run_libyuv(fmt, f, dst, dls);
    case 3:
        for (int p = 0; p < 4 && f->buf[p]; p++)
            memcpy(cpy + (p ? in_bytes / 2 : 0), f->data[p], f->buf[p]->size);
        return 0;
    }
    return AVERROR_BUG;
}

static int bench_one(const Bench *b, int w, int h, int runs, int cold)
{
    const int nb_in = cold ? FFMAX(8, (int)(COLD_BYTES / (unsigned)av_image_get_buffer_size(b->fmt, w, h, 1))) : 1;
    AVFrame **in = av_calloc(nb_in, sizeof(*in));
    AVFrame *out = av_frame_alloc();
    uint8_t *dst[3], *cpy;
    int dls[3] = { FFALIGN(w, 64), FFALIGN((w + 1) / 2, 64), FFALIGN((w + 1) / 2, 64) };
    int in_bytes = av_image_get_buffer_size(b->fmt, w, h, 1);
    double t[5][MAX_RUNS];
    const int nb_methods = is_planar(b->fmt) ? 5 : 4;
    struct SwsContext *sws;
    AVFilterContext *src[2], *sink[2];
    AVFilterGraph *g, *gc = NULL;

    if (!in || !out)
        return AVERROR(ENOMEM);
    for (int i = 0; i < nb_in; i++) {
        in[i] = av_frame_alloc();
        in[i]->format = b->fmt;
        in[i]->width  = w;
        in[i]->height = h;
        if (av_frame_get_buffer(in[i], 64) < 0)
            return AVERROR(ENOMEM);
        for (int p = 0; p < 4 && in[i]->buf[p]; p++)
            for (size_t k = 0; k < in[i]->buf[p]->size; k++)
                in[i]->buf[p]->data[k] = (k * 7 + i * 13 + (k >> 9)) & 0xff;
    }
    dst[0] = av_malloc(dls[0] * h + 2 * dls[1] * ((h + 1) / 2) + 64);
    dst[1] = dst[0] + dls[0] * h;
    dst[2] = dst[1] + dls[1] * ((h + 1) / 2);
    cpy = av_malloc(in_bytes * 2 + 64);
    sws = sws_getContext(w, h, b->fmt, w, h, AV_PIX_FMT_YUV420P, SWS_BICUBIC, NULL, NULL, NULL);
    g = make_graph(b->fmt, w, h, 1, NULL, &src[0], &sink[0]);
    if (nb_methods > 4)
        gc = make_graph(b->fmt, w, h, 1, "copy_luma=1", &src[1], &sink[1]);
    if (!dst[0] || !cpy || !sws || !g || (nb_methods > 4 && !gc)) {
        fprintf(stderr, "setup failed for %s\n", av_get_pix_fmt_name(b->fmt));
        return AVERROR(EINVAL);
    }

    for (int r = -2; r < runs; r++) {   /* two warm-up runs */
        /* cold: each method reads an input frame no other one touched
         * recently, and writes an output the others evicted; warm: all
         * use the same frame, and each method runs once untimed right
         * before its timed run, so that its own output buffer is as warm
         * as its input (toi420 writes to its pool's buffer, the others
         * to buffers of this program) */
        for (int k = 0; k < nb_methods; k++) {
            AVFrame *f = in[(nb_methods * (r + 2) + k) % nb_in];
            for (int pass = !cold; pass >= 0; pass--) {
                const double t0 = now_us();
                if (run_method(k, b->fmt, f, src, sink, out, sws, dst, dls, cpy, in_bytes, h) < 0)
                    return AVERROR_BUG;
                if (!pass && r >= 0)
                    t[k][r] = now_us() - t0;
            }
        }
    }
    {
        double m[5];
        char copy[64] = "| - | - | -";
        for (int k = 0; k < nb_methods; k++)
            m[k] = median(t[k], runs);
        if (nb_methods > 4)
            snprintf(copy, sizeof(copy), "| %8.1f | %5.2fx | %5.2fx", m[4], m[4] / m[2], m[4] / m[3]);
        printf("| %-8s | %4dx%-4d | %8.1f | %8.1f | %8.1f | %8.1f | %6.1fx | %5.2fx | %5.2fx %s | %-11s |\n",
               av_get_pix_fmt_name(b->fmt), w, h, m[0], m[1], m[2], m[3],
               m[1] / m[0], m[0] / m[2], m[0] / m[3], copy, b->libyuv_name);
        fflush(stdout);
    }

    avfilter_graph_free(&g);
    avfilter_graph_free(&gc);
    sws_freeContext(sws);
    av_free(dst[0]);
    av_free(cpy);
    for (int i = 0; i < nb_in; i++)
        av_frame_free(&in[i]);
    av_free(in);
    av_frame_free(&out);
    return 0;
}

/* slice threading: median us per 1080p frame with 1 and 2 filter threads */
/* slice threading: median us per 1080p frame with 1 and 2 filter threads,
 * over every frame of ms milliseconds per configuration (frames of a few
 * milliseconds showed the state of the shared machine more than the code) */
#define THREAD_FRAMES_MAX 400000
static int bench_threads(enum AVPixelFormat fmt, int ms)
{
    double *t[2] = { av_malloc_array(THREAD_FRAMES_MAX, sizeof(double)),
                     av_malloc_array(THREAD_FRAMES_MAX, sizeof(double)) };
    int n[2] = { 0 };
    AVFrame *in = av_frame_alloc(), *out = av_frame_alloc();

    if (!t[0] || !t[1] || !in || !out)
        return AVERROR(ENOMEM);
    in->format = fmt;
    in->width  = 1920;
    in->height = 1080;
    if (av_frame_get_buffer(in, 64) < 0)
        return AVERROR(ENOMEM);
    for (int p = 0; p < 4 && in->buf[p]; p++)
        memset(in->buf[p]->data, 0x55 + p, in->buf[p]->size);
    for (int k = 0; k < 2; k++) {
        AVFilterContext *src, *sink;
        AVFilterGraph *g = make_graph(fmt, 1920, 1080, k + 1, NULL, &src, &sink);
        if (!g)
            return AVERROR(EINVAL);
        /* 200 ms of untimed frames first: the scheduler needs a few ticks
         * to spread a new graph's threads over the CPUs (a worker woken
         * for the first time may start on the caller's CPU) */
        for (double start = now_us(), t0 = start; t0 - start < 200000; t0 = now_us()) {
            if (av_buffersrc_add_frame_flags(src, in, AV_BUFFERSRC_FLAG_KEEP_REF) < 0 ||
                av_buffersink_get_frame(sink, out) < 0)
                return AVERROR_BUG;
            av_frame_unref(out);
        }
        for (double start = now_us(), t0 = start; t0 - start < ms * 1000.0 &&
             n[k] < THREAD_FRAMES_MAX; t0 = now_us()) {
            if (av_buffersrc_add_frame_flags(src, in, AV_BUFFERSRC_FLAG_KEEP_REF) < 0 ||
                av_buffersink_get_frame(sink, out) < 0)
                return AVERROR_BUG;
            av_frame_unref(out);
            t[k][n[k]++] = now_us() - t0;
        }
        avfilter_graph_free(&g);
    }
    {
        double a = median(t[0], n[0]), b = median(t[1], n[1]);
        printf("| %-8s | %8.1f | %8.1f | %5.2fx | %d, %d |\n", av_get_pix_fmt_name(fmt), a, b,
               a / b, n[0], n[1]);
    }
    av_freep(&t[0]);
    av_freep(&t[1]);
    av_frame_free(&in);
    av_frame_free(&out);
    return 0;
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 31;
    int cold = argc > 2 && !strcmp(argv[2], "cold");
    static const int sizes[][2] = { { 640, 480 }, { 1920, 1080 } };

    if (argc > 2 && !strcmp(argv[2], "threads")) {
        static const enum AVPixelFormat fmts[] = { AV_PIX_FMT_RGBA, AV_PIX_FMT_RGB24,
            AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUYV422, AV_PIX_FMT_NV12 };
        /* in this mode the number is milliseconds per configuration */
        runs = FFMAX(1, runs);
        printf("toi420 slice threading, 1920x1080, median of every frame of %d ms per "
               "configuration (after 200 ms untimed), us per frame\n\n", runs);
        printf("| input    | 1 thread | 2 threads | speed-up | frames |\n|---|--:|--:|--:|--:|\n");
        for (int i = 0; i < FF_ARRAY_ELEMS(fmts); i++)
            if (bench_threads(fmts[i], runs) < 0)
                return 1;
        return 0;
    }

    runs = FFMAX(1, FFMIN(runs, MAX_RUNS));
    printf("toi420 benchmark: median of %d runs, single thread, %s cache, us per frame\n\n",
           runs, cold ? "cold (inputs cycled through 256 MiB)" : "warm");
    printf("| input    | size      |   toi420 | swscale  |   libyuv |   memcpy | sws/toi | toi/yuv | toi/cpy "
           "| copy_luma | copy/yuv | copy/cpy | libyuv      |\n");
    printf("|----------|-----------|---------:|---------:|---------:|---------:|--------:|--------:|--------:"
           "|---------:|--------:|--------:|-------------|\n");
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < FF_ARRAY_ELEMS(benches); i++)
            if (bench_one(&benches[i], sizes[s][0], sizes[s][1], runs, cold) < 0)
                return 1;
    return 0;
}

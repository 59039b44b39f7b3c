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

/**
 * @file
 * Convert to yuv420p from the formats cameras, screen grabbers and decoders
 * deliver, with output pixels from a buffer pool and the input AVFrame
 * reused as the output frame, so that the steady state allocates nothing.
 * yuv420p and yuvj420p pass through untouched.
 */

#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "libavutil/avassert.h"
#include "libavutil/bprint.h"
#include "libavutil/buffer.h"
#include "libavutil/mem.h"
#include "libavutil/opt.h"
#include "libavutil/pixdesc.h"
#include "libavutil/time.h"
#include "libavutil/lcv_compat.h"

#include "avfilter.h"
#include "filters.h"
#include "formats.h"
#include "video.h"
#include "vf_toi420_init.h"

#if HAVE_CLOCK_GETTIME
#include <time.h>
#endif

/** CPU time of the calling thread in µs, -1 where the system has no clock for it. */
static int64_t thread_cpu_us(void)
{
#if HAVE_CLOCK_GETTIME && defined(CLOCK_THREAD_CPUTIME_ID)
    struct timespec ts;
    if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
        return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
#endif
    return -1;
}

/* what the pooled buffer is aligned to, and its linesizes a multiple of */
#define TOI420_ALIGN 64
/* slices per filter thread when there is more than one (see filter_frame) */
#define TOI420_SLICES_PER_THREAD 2
/* bytes of luma copied per memcpy() call (see convert_slice) */
#define TOI420_COPY_CHUNK (512 * 1024)

enum ToI420Kind {
    KIND_PASS,      ///< already yuv420p: hand the frame on
    KIND_RGB,       ///< packed RGB, sub = enum ToI420RGBLayout
    KIND_444,       ///< planar 4:4:4
    KIND_422,       ///< planar 4:2:2
    KIND_NV,        ///< semi-planar 4:2:0, sub = 1 for Cr first
    KIND_PACKED,    ///< packed 4:2:2, sub = 0 YUYV, 1 UYVY
    KIND_GRAY,      ///< luma only
};

typedef struct ToI420Format {
    enum AVPixelFormat fmt;
    uint8_t kind, sub;
    uint8_t full_range;         ///< a yuvj* format
} ToI420Format;

static const ToI420Format toi420_formats[] = {
    { AV_PIX_FMT_YUV420P,  KIND_PASS                 },
    { AV_PIX_FMT_YUVJ420P, KIND_PASS,   0,         1 },
    { AV_PIX_FMT_YUV422P,  KIND_422                  },
    { AV_PIX_FMT_YUVJ422P, KIND_422,    0,         1 },
    { AV_PIX_FMT_YUV444P,  KIND_444                  },
    { AV_PIX_FMT_YUVJ444P, KIND_444,    0,         1 },
    { AV_PIX_FMT_NV12,     KIND_NV,     0            },
    { AV_PIX_FMT_NV21,     KIND_NV,     1            },
    { AV_PIX_FMT_YUYV422,  KIND_PACKED, 0            },
    { AV_PIX_FMT_UYVY422,  KIND_PACKED, 1            },
    { AV_PIX_FMT_RGBA,     KIND_RGB,    TOI420_RGBA  },
    { AV_PIX_FMT_BGRA,     KIND_RGB,    TOI420_BGRA  },
    { AV_PIX_FMT_ARGB,     KIND_RGB,    TOI420_ARGB  },
    { AV_PIX_FMT_ABGR,     KIND_RGB,    TOI420_ABGR  },
    { AV_PIX_FMT_RGB0,     KIND_RGB,    TOI420_RGBA  },
    { AV_PIX_FMT_BGR0,     KIND_RGB,    TOI420_BGRA  },
    { AV_PIX_FMT_0RGB,     KIND_RGB,    TOI420_ARGB  },
    { AV_PIX_FMT_0BGR,     KIND_RGB,    TOI420_ABGR  },
    { AV_PIX_FMT_RGB24,    KIND_RGB,    TOI420_RGB24 },
    { AV_PIX_FMT_BGR24,    KIND_RGB,    TOI420_BGR24 },
    { AV_PIX_FMT_GRAY8,    KIND_GRAY                 },
};

typedef struct ToI420Context {
    const AVClass *class;

    int matrix;                 ///< option: AVColorSpace, or -1 for auto
    int range;                  ///< option: AVColorRange, or -1 for auto
    int copy_luma;              ///< option: copy planar luma instead of referencing it

    ToI420DSPContext dsp;

    AVBufferPool *pool;
    int pool_w, pool_h;         ///< frame size the pool is for
    int linesize[3];
    size_t offset[3];           ///< of each plane in a pooled buffer

    ToI420Coeffs coeffs;
    int coeffs_matrix, coeffs_range;    ///< what coeffs were made for

    /* statistics, logged at uninit */
    uint64_t nb_converted, nb_passed;
    uint64_t nb_luma_ref;       ///< converted frames whose luma was referenced
    unsigned nb_pools;
    unsigned nb_buffers;        ///< buffers created, all pools
    unsigned pool_buffers;      ///< buffers created by the current pool
    unsigned max_outstanding;   ///< most buffers of one pool out at once
    int64_t  convert_us;        ///< time spent converting (wall clock)
    int64_t  convert_cpu_us;    ///< CPU time of the filter's thread while converting, -1: unknown
} ToI420Context;

typedef struct ThreadData {
    const AVFrame *in;
    const ToI420Format *f;
    uint8_t *dst[3];            ///< the output planes
    int dst_linesize[3];
    int luma_ref;               ///< dst[0] is the input's luma: nothing to copy
} ThreadData;

static const ToI420Format *find_format(enum AVPixelFormat fmt)
{
    for (int i = 0; i < FF_ARRAY_ELEMS(toi420_formats); i++)
        if (toi420_formats[i].fmt == fmt)
            return &toi420_formats[i];
    return NULL;
}

static void log_unsupported(void *log_ctx, enum AVPixelFormat fmt)
{
    AVBPrint bp;

    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_AUTOMATIC);
    for (int i = 0; i < FF_ARRAY_ELEMS(toi420_formats); i++)
        av_bprintf(&bp, "%s%s", i ? ", " : "",
                   av_get_pix_fmt_name(toi420_formats[i].fmt));
    av_log(log_ctx, AV_LOG_ERROR,
           "Unsupported input pixel format '%s'; toi420 converts: %s\n",
           av_get_pix_fmt_name(fmt) ? av_get_pix_fmt_name(fmt) : "none", bp.str);
    av_bprint_finalize(&bp, NULL);
}

/* Map a frame's colorspace tag to one of the three matrices, or -1. */
static int canonical_matrix(enum AVColorSpace spc)
{
    switch (spc) {
    case AVCOL_SPC_BT470BG:
    case AVCOL_SPC_SMPTE170M:
        return AVCOL_SPC_SMPTE170M;
    case AVCOL_SPC_BT709:
        return AVCOL_SPC_BT709;
    case AVCOL_SPC_BT2020_NCL:
        return AVCOL_SPC_BT2020_NCL;
    default:
        return -1;
    }
}

static void make_coeffs(ToI420Coeffs *c, int matrix, int range)
{
    double kr, kb, ys, cs;
    int yr, yb, ysum, ur, ub, vr, vb;

    switch (matrix) {
    case AVCOL_SPC_BT709:      kr = 0.2126; kb = 0.0722; break;
    case AVCOL_SPC_BT2020_NCL: kr = 0.2627; kb = 0.0593; break;
    default:                   kr = 0.299;  kb = 0.114;  break;
    }
    /* scale of Y' and of Cb/Cr in 8-bit code values per unit of R'G'B' */
    ys = (range == AVCOL_RANGE_JPEG ? 255.0 : 219.0) / 255.0;
    cs = (range == AVCOL_RANGE_JPEG ? 255.0 : 224.0) / 255.0;

    /* G takes what R and B leave so that gray stays exactly neutral and
     * white reaches exactly 235 (tv) or 255 (pc) */
    yr   = lrint(kr * ys * 32768);
    yb   = lrint(kb * ys * 32768);
    ysum = lrint(ys * 32768);
    c->y[0] = yr;
    c->y[1] = ysum - yr - yb;
    c->y[2] = yb;

    ur = lrint(-kr / (2 * (1 - kb)) * cs * 32768);
    ub = lrint(0.5 * cs * 32768);
    c->u[0] = ur;
    c->u[1] = -ur - ub;
    c->u[2] = ub;

    vr = lrint(0.5 * cs * 32768);
    vb = lrint(-kb / (2 * (1 - kr)) * cs * 32768);
    c->v[0] = vr;
    c->v[1] = -vr - vb;
    c->v[2] = vb;

    c->y_add = (range == AVCOL_RANGE_JPEG ? 0 : 16 << 15) + (1 << 14);
    c->c_add = (128 << 17) + (1 << 16);
    ff_toi420_coeffs_layouts(c);
}

static AVBufferRef *pool_alloc(void *opaque, size_t size)
{
    ToI420Context *s = opaque;
    AVBufferRef *buf = av_buffer_alloc(size);

    if (buf) {
        s->nb_buffers++;
        s->pool_buffers++;
        /* a pool only creates a buffer when all of its buffers are out */
        s->max_outstanding = FFMAX(s->max_outstanding, s->pool_buffers);
    }
    return buf;
}

static int init_pool(AVFilterContext *ctx, int w, int h)
{
    ToI420Context *s = ctx->priv;
    const int cw = (w + 1) >> 1, ch = (h + 1) >> 1;
    size_t size;

    av_buffer_pool_uninit(&s->pool);   /* buffers still out live on */
    s->pool_w = s->pool_h = 0;

    s->linesize[0] = FFALIGN(w,  TOI420_ALIGN);
    s->linesize[1] = FFALIGN(cw, TOI420_ALIGN);
    s->linesize[2] = s->linesize[1];
    s->offset[0]   = 0;
    s->offset[1]   = (size_t)s->linesize[0] * h;
    s->offset[2]   = s->offset[1] + (size_t)s->linesize[1] * ch;
    size           = s->offset[2] + (size_t)s->linesize[2] * ch + TOI420_ALIGN;

    s->pool_buffers = 0;
    s->pool = av_buffer_pool_init2(size, s, pool_alloc, NULL);
    if (!s->pool)
        return AVERROR(ENOMEM);
    s->pool_w = w;
    s->pool_h = h;
    s->nb_pools++;
    av_log(ctx, AV_LOG_DEBUG, "pool for %dx%d: %zu bytes per frame\n", w, h, size);
    return 0;
}

static int convert_slice(AVFilterContext *ctx, void *arg, int jobnr, int nb_jobs)
{
    ToI420Context *s = ctx->priv;
    const ThreadData *td = arg;
    const AVFrame *in = td->in;
    const ToI420DSPContext *dsp = &s->dsp;
    const int w = in->width, h = in->height, ch = (h + 1) >> 1;
    const int start = (ch *  jobnr)      / nb_jobs;
    const int end   = (ch * (jobnr + 1)) / nb_jobs;
    const ptrdiff_t ls0 = in->linesize[0], ls1 = in->linesize[1];

    if (td->f->kind != KIND_RGB && td->f->kind != KIND_PACKED && !td->luma_ref) {
        /* planar luma is copied apart from the chroma, plane after plane:
         * fewer concurrent memory streams than row pair after row pair */
        const int ystart = 2 * start, yend = FFMIN(2 * end, h);
        uint8_t *dy = td->dst[0] + (ptrdiff_t)td->dst_linesize[0] * ystart;
        const uint8_t *sy = in->data[0] + ls0 * ystart;

        if (ls0 == td->dst_linesize[0] && ls0 > 0) {
            /* one block, in pieces of TOI420_COPY_CHUNK: glibc's memcpy
             * leaves "rep movsb" for a vector loop above 1 MiB, which
             * made the whole cold 1080p gray conversion 94 us instead of
             * about 72 here (toi420_bench 11 cold) */
            const size_t size = ls0 * (yend - ystart - 1) + w;
            for (size_t o = 0; o < size; o += TOI420_COPY_CHUNK)
                memcpy(dy + o, sy + o, FFMIN(TOI420_COPY_CHUNK, size - o));
        } else
            for (int y = ystart; y < yend; y++, dy += td->dst_linesize[0], sy += ls0)
                memcpy(dy, sy, w);
    }
    if (td->f->kind == KIND_444 || td->f->kind == KIND_422) {
        /* one chroma plane after the other, as for luma */
        for (int p = 1; p < 3; p++) {
            const ptrdiff_t ls = in->linesize[p];
            uint8_t *d = td->dst[p] + (ptrdiff_t)td->dst_linesize[p] * start;
            for (int cy = start; cy < end; cy++, d += td->dst_linesize[p]) {
                const uint8_t *c0 = in->data[p] + ls * (2 * cy);
                const uint8_t *c1 = in->data[p] + ls * FFMIN(2 * cy + 1, h - 1);
                if (td->f->kind == KIND_444)
                    dsp->chroma_h2v2(d, c0, c1, w);
                else
                    dsp->chroma_v2(d, c0, c1, w);
            }
        }
        return 0;
    }
    if (td->f->kind == KIND_NV) {
        uint8_t *u = td->dst[1 + td->f->sub] + (ptrdiff_t)td->dst_linesize[1] * start;
        uint8_t *v = td->dst[2 - td->f->sub] + (ptrdiff_t)td->dst_linesize[1] * start;
        for (int cy = start; cy < end; cy++) {
            dsp->chroma_nv(u, v, in->data[1] + ls1 * cy, w);
            u += td->dst_linesize[1];
            v += td->dst_linesize[1];
        }
        return 0;
    }
    if (td->f->kind == KIND_GRAY) {
        /* the pool's chroma rows, padding included, are ours to fill */
        for (int p = 1; p < 3; p++)
            memset(td->dst[p] + (ptrdiff_t)td->dst_linesize[p] * start, 128,
                   (size_t)td->dst_linesize[p] * (end - start));
        return 0;
    }

    for (int cy = start; cy < end; cy++) {
        const int r0 = 2 * cy, r1 = FFMIN(2 * cy + 1, h - 1);
        uint8_t *y0 = td->dst[0] + (ptrdiff_t)td->dst_linesize[0] * r0;
        uint8_t *y1 = td->dst[0] + (ptrdiff_t)td->dst_linesize[0] * r1;
        uint8_t *u  = td->dst[1] + (ptrdiff_t)td->dst_linesize[1] * cy;
        uint8_t *v  = td->dst[2] + (ptrdiff_t)td->dst_linesize[2] * cy;
        const uint8_t *s0 = in->data[0] + ls0 * r0;
        const uint8_t *s1 = in->data[0] + ls0 * r1;

        switch (td->f->kind) {
        case KIND_RGB:
            dsp->rgb[td->f->sub](y0, y1, u, v, s0, s1, w, &s->coeffs);
            break;
        case KIND_PACKED:
            dsp->packed_yuv[td->f->sub](y0, y1, u, v, s0, s1, w);
            break;
        }
    }
    return 0;
}

static int config_input(AVFilterLink *inlink)
{
    if (!find_format(inlink->format)) {
        log_unsupported(inlink->dst, inlink->format);
        return AVERROR(EINVAL);
    }
    return 0;
}

static int filter_frame(AVFilterLink *inlink, AVFrame *in)
{
    AVFilterContext *ctx  = inlink->dst;
    ToI420Context *s      = ctx->priv;
    AVFilterLink *outlink = ctx->outputs[0];
    const ToI420Format *f = find_format(in->format);
    int in_matrix, out_matrix, out_range, nb_threads, ret;
    enum AVChromaLocation loc;
    AVBufferRef *buf, *luma = NULL;
    ThreadData td;
    int64_t t0, cpu0;
    int keep = -1;

    if (!f) {
        log_unsupported(ctx, in->format);
        av_frame_free(&in);
        return AVERROR(EINVAL);
    }

    /* the frame's own tags win over the options, the options over the
     * defaults (bt601, tv) */
    in_matrix  = canonical_matrix(in->colorspace);
    out_matrix = in_matrix >= 0 ? in_matrix :
                 s->matrix >= 0 ? s->matrix : AVCOL_SPC_SMPTE170M;
    if (f->full_range)
        out_range = AVCOL_RANGE_JPEG;
    else if (f->kind != KIND_RGB && in->color_range != AVCOL_RANGE_UNSPECIFIED)
        out_range = in->color_range;
    else
        out_range = s->range >= 0 ? s->range : AVCOL_RANGE_MPEG;

    if (f->kind == KIND_PASS) {
        in->format      = AV_PIX_FMT_YUV420P;
        in->color_range = out_range;
        if (in->colorspace == AVCOL_SPC_UNSPECIFIED)
            in->colorspace = out_matrix;
        s->nb_passed++;
        return ff_filter_frame(outlink, in);
    }

    if (!s->pool || in->width != s->pool_w || in->height != s->pool_h) {
        if (s->pool)
            av_log(ctx, AV_LOG_VERBOSE, "frame size changed from %dx%d to %dx%d\n",
                   s->pool_w, s->pool_h, in->width, in->height);
        ret = init_pool(ctx, in->width, in->height);
        if (ret < 0) {
            av_frame_free(&in);
            return ret;
        }
    }
    if (f->kind == KIND_RGB &&
        (out_matrix != s->coeffs_matrix || out_range != s->coeffs_range)) {
        make_coeffs(&s->coeffs, out_matrix, out_range);
        s->coeffs_matrix = out_matrix;
        s->coeffs_range  = out_range;
    }

    buf = av_buffer_pool_get(s->pool);
    if (!buf) {
        av_frame_free(&in);
        return AVERROR(ENOMEM);
    }

    /* Planar input already holds the output's luma plane: the output
     * frame references it (the input's reference to its buffer moves over,
     * no allocation) instead of copying it, as yuv420p input is passed on
     * whole. The pooled buffer then provides the chroma planes only. */
    if (!s->copy_luma && f->kind != KIND_RGB && f->kind != KIND_PACKED) {
        const AVBufferRef *plane = av_frame_get_plane_buffer(in, 0);
        for (int i = 0; i < FF_ARRAY_ELEMS(in->buf); i++)
            if (plane && in->buf[i] == plane)
                keep = i;
    }

    t0 = av_gettime_relative();
    cpu0 = thread_cpu_us();
    td.in = in;
    td.f  = f;
    for (int i = 0; i < 3; i++) {
        td.dst[i]          = buf->data + s->offset[i];
        td.dst_linesize[i] = s->linesize[i];
    }
    td.luma_ref = keep >= 0;
    if (td.luma_ref) {
        td.dst[0]          = in->data[0];
        td.dst_linesize[0] = in->linesize[0];
    }
    /* Two slices per thread: the calling thread can take a slice from a
     * worker that is slow to start. More, smaller slices made each core's
     * stream jump from slice to slice, and the two cores touch each other's
     * slice edges more often: with 8 per thread, 2 threads at 1080p rgba
     * took 62-79 us per frame over runs of the same command, with 2 per
     * thread 60-64 us (a program running the filter graph alone). */
    nb_threads = ff_filter_get_nb_threads(ctx);
    ff_filter_execute(ctx, convert_slice, &td, NULL,
                      FFMIN((in->height + 1) >> 1,
                            nb_threads > 1 ? TOI420_SLICES_PER_THREAD * nb_threads : 1));
    s->convert_us += av_gettime_relative() - t0;
    /* the thread's CPU time is the conversion's only when no slice ran
     * elsewhere; in a busy pipeline the wall clock also counts the time
     * the thread was not scheduled */
    if (nb_threads > 1 || cpu0 < 0 || s->convert_cpu_us < 0)
        s->convert_cpu_us = -1;
    else
        s->convert_cpu_us += thread_cpu_us() - cpu0;
    s->nb_converted++;

    /* The input AVFrame becomes the output: its props and side data stay,
     * only the pixels change. This saves an av_frame_alloc() and the deep
     * copy of av_frame_copy_props() on every frame. */
    if (td.luma_ref) {
        luma = in->buf[keep];
        in->buf[keep] = NULL;
        s->nb_luma_ref++;
    }
    for (int i = 0; i < FF_ARRAY_ELEMS(in->buf); i++)
        av_buffer_unref(&in->buf[i]);
    for (int i = 0; i < in->nb_extended_buf; i++)
        av_buffer_unref(&in->extended_buf[i]);
    av_freep(&in->extended_buf);
    in->nb_extended_buf = 0;
    memset(in->data,     0, sizeof(in->data));
    memset(in->linesize, 0, sizeof(in->linesize));
    in->extended_data = in->data;

    in->buf[0] = buf;
    in->buf[1] = luma;
    for (int i = 0; i < 3; i++) {
        in->data[i]     = td.dst[i];
        in->linesize[i] = td.dst_linesize[i];
    }
    switch (f->kind) {
    case KIND_422:
    case KIND_PACKED: loc = AVCHROMA_LOC_LEFT;   break;
    case KIND_NV:     loc = in->chroma_location != AVCHROMA_LOC_UNSPECIFIED ?
                            in->chroma_location : AVCHROMA_LOC_LEFT; break;
    default:          loc = AVCHROMA_LOC_CENTER; break;
    }
    in->format          = AV_PIX_FMT_YUV420P;
    in->color_range     = out_range;
    in->chroma_location = loc;
    if (f->kind == KIND_RGB || in->colorspace == AVCOL_SPC_UNSPECIFIED)
        in->colorspace = out_matrix;

    return ff_filter_frame(outlink, in);
}

static av_cold int init(AVFilterContext *ctx)
{
    ToI420Context *s = ctx->priv;

    if (s->matrix != -1 && canonical_matrix(s->matrix) != s->matrix &&
        s->matrix != AVCOL_SPC_BT470BG) {
        av_log(ctx, AV_LOG_ERROR, "Invalid value %d for option 'matrix': "
               "valid values are auto (-1), bt601 (%d), bt709 (%d), bt2020 (%d)\n",
               s->matrix, AVCOL_SPC_SMPTE170M, AVCOL_SPC_BT709, AVCOL_SPC_BT2020_NCL);
        return AVERROR(EINVAL);
    }
    if (s->matrix == AVCOL_SPC_BT470BG)
        s->matrix = AVCOL_SPC_SMPTE170M;
    if (s->range != -1 && s->range != AVCOL_RANGE_MPEG && s->range != AVCOL_RANGE_JPEG) {
        av_log(ctx, AV_LOG_ERROR, "Invalid value %d for option 'range': "
               "valid values are auto (-1), tv (%d), pc (%d)\n",
               s->range, AVCOL_RANGE_MPEG, AVCOL_RANGE_JPEG);
        return AVERROR(EINVAL);
    }
    s->coeffs_matrix = s->coeffs_range = -1;
    ff_toi420dsp_init(&s->dsp);
    return 0;
}

static av_cold void uninit(AVFilterContext *ctx)
{
    ToI420Context *s = ctx->priv;

    av_buffer_pool_uninit(&s->pool);
    if (!s->nb_converted && !s->nb_passed)
        return;     /* a graph that was only configured, never run */
    av_log(ctx, AV_LOG_VERBOSE,
           "%"PRIu64" frames converted (luma referenced in %"PRIu64"), %"PRIu64" passed through; "
           "%u pool buffers created in %u pool(s), at most %u outstanding at once; "
           "%.1f us per converted frame",
           s->nb_converted, s->nb_luma_ref, s->nb_passed, s->nb_buffers, s->nb_pools,
           s->max_outstanding,
           s->nb_converted ? (double)s->convert_us / s->nb_converted : 0.0);
    if (s->nb_converted && s->convert_cpu_us >= 0)
        av_log(ctx, AV_LOG_VERBOSE, " (wall clock), %.1f us of CPU per converted frame (the filter's thread)",
               (double)s->convert_cpu_us / s->nb_converted);
    av_log(ctx, AV_LOG_VERBOSE, "\n");
}

static int query_formats(const AVFilterContext *ctx,
                         AVFilterFormatsConfig **cfg_in,
                         AVFilterFormatsConfig **cfg_out)
{
    static const enum AVPixelFormat out_fmts[] = { AV_PIX_FMT_YUV420P, AV_PIX_FMT_NONE };
    AVFilterFormats *in;
    int ret;

    /* Offer every software format on the input, so that an unsupported one
     * is refused in config_input() with the list of supported formats
     * instead of silently getting a libswscale conversion in front. */
    in = ff_formats_pixdesc_filter(0, AV_PIX_FMT_FLAG_HWACCEL |
                                      AV_PIX_FMT_FLAG_BITSTREAM);
    if ((ret = ff_formats_ref(in, &cfg_in[0]->formats)) < 0)
        return ret;
    return ff_formats_ref(ff_make_format_list(out_fmts), &cfg_out[0]->formats);
}

#define OFFSET(x) offsetof(ToI420Context, x)
#define FLAGS (AV_OPT_FLAG_VIDEO_PARAM | AV_OPT_FLAG_FILTERING_PARAM)

/* matrix and range take any int, so that init() refuses an unsupported
 * value with EINVAL and the list of valid ones (a narrower range would
 * make av_opt refuse it first, with ERANGE and no list) */
static const AVOption toi420_options[] = {
    { "matrix", "YCbCr matrix for RGB input that carries none", OFFSET(matrix),
      AV_OPT_TYPE_INT, { .i64 = -1 }, -1, AVCOL_SPC_BT2020_NCL, FLAGS, .unit = "matrix" },
        { "auto",   "the frame's own, else bt601", 0, AV_OPT_TYPE_CONST, { .i64 = -1 },                   0, 0, FLAGS, .unit = "matrix" },
        { "bt601",  "ITU-R BT.601",               0, AV_OPT_TYPE_CONST, { .i64 = AVCOL_SPC_SMPTE170M },  0, 0, FLAGS, .unit = "matrix" },
        { "bt709",  "ITU-R BT.709",               0, AV_OPT_TYPE_CONST, { .i64 = AVCOL_SPC_BT709 },      0, 0, FLAGS, .unit = "matrix" },
        { "bt2020", "ITU-R BT.2020 non-constant luminance", 0, AV_OPT_TYPE_CONST, { .i64 = AVCOL_SPC_BT2020_NCL }, 0, 0, FLAGS, .unit = "matrix" },
    { "range", "output range for input that carries none", OFFSET(range),
      AV_OPT_TYPE_INT, { .i64 = -1 }, -1, AVCOL_RANGE_JPEG, FLAGS, .unit = "range" },
        { "auto",    "the frame's own, else tv", 0, AV_OPT_TYPE_CONST, { .i64 = -1 },               0, 0, FLAGS, .unit = "range" },
        { "tv",      "limited range (16-235)",   0, AV_OPT_TYPE_CONST, { .i64 = AVCOL_RANGE_MPEG }, 0, 0, FLAGS, .unit = "range" },
        { "limited", "limited range (16-235)",   0, AV_OPT_TYPE_CONST, { .i64 = AVCOL_RANGE_MPEG }, 0, 0, FLAGS, .unit = "range" },
        { "pc",      "full range (0-255)",       0, AV_OPT_TYPE_CONST, { .i64 = AVCOL_RANGE_JPEG }, 0, 0, FLAGS, .unit = "range" },
        { "full",    "full range (0-255)",       0, AV_OPT_TYPE_CONST, { .i64 = AVCOL_RANGE_JPEG }, 0, 0, FLAGS, .unit = "range" },
    { "copy_luma", "copy the luma plane of planar input instead of referencing the input's",
      OFFSET(copy_luma), AV_OPT_TYPE_BOOL, { .i64 = 0 }, 0, 1, FLAGS },
    { NULL }
};

AVFILTER_DEFINE_CLASS(toi420);

static const AVFilterPad toi420_inputs[] = {
    {
        .name         = "default",
        .type         = AVMEDIA_TYPE_VIDEO,
        .filter_frame = filter_frame,
        .config_props = config_input,
    },
};

const FF_FILTER ff_vf_toi420 = {
    FF_FILTER_PUB(name)        = "toi420",
    FF_FILTER_PUB(description) = NULL_IF_CONFIG_SMALL("Convert to yuv420p from pooled buffers, without allocations."),
    FF_FILTER_PUB(priv_class)  = &toi420_class,
    FF_FILTER_PUB(flags)       = AVFILTER_FLAG_SLICE_THREADS |
                                 AVFILTER_FLAG_SUPPORT_TIMELINE_INTERNAL,
    .priv_size     = sizeof(ToI420Context),
    .init          = init,
    .uninit        = uninit,
    FILTER_INPUTS(toi420_inputs),
    FILTER_OUTPUTS(ff_video_default_filterpad),
    FILTER_QUERY_FUNC2(query_formats),
};

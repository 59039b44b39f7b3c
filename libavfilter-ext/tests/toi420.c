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
 * Checks the toi420 filter through the public libavfilter API against a
 * plain reference conversion written here, pixel by pixel from the
 * documented formulas (not the filter's row kernels), and against
 * libswscale within a stated tolerance on smooth content.
 *
 *   toi420            run every check, print one line per case
 *   toi420 alloc N    allocations for N frames through toi420 and through
 *                     null (needs the malloc-counting preload shim)
 *   toi420 refmd5 FMT WxH MATRIX RANGE FLIP < frames.raw
 *                     the MD5 of the reference conversion of each raw input
 *                     frame, to check FATE references independently
 */

#include <dlfcn.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/buffer.h"
#include "libavutil/frame.h"
#include "libavutil/imgutils.h"
#include "libavutil/md5.h"
#include "libavutil/mem.h"
#include "libavutil/opt.h"
#include "libavutil/pixdesc.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/buffersink.h"
#include "libavfilter/buffersrc.h"
#include "libswscale/swscale.h"

static int failures;

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); failures++; } while (0)

/* ------------------------------------------------------------------------
 * input frames */

static uint32_t lcg(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 24;
}

enum Pattern { SMOOTH, RANDOM };

/* Fill every byte of every plane: noise, or a smooth function of the pixel
 * position, the component within the pixel and the plane. */
static void fill_frame(AVFrame *f, enum Pattern pat, uint32_t seed)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f->format);
    int bytes[4] = { 0 };
    uint32_t st = seed;

    av_image_fill_linesizes(bytes, f->format, f->width);
    for (int p = 0; p < 4 && f->data[p]; p++) {
        int h = f->height;
        if (p == 1 || p == 2)
            h = AV_CEIL_RSHIFT(f->height, d->log2_chroma_h);
        for (int y = 0; y < h; y++) {
            uint8_t *row = f->data[p] + (ptrdiff_t)y * f->linesize[p];
            const int bpp = FFMAX(1, bytes[p] / f->width);
            for (int x = 0; x < bytes[p]; x++) {
                if (pat == RANDOM)
                    row[x] = lcg(&st);
                else
                    row[x] = 128 + 100 * sin((x / bpp) * 0.02 + y * 0.03 +
                                             (x % bpp) * 0.7 + p * 0.5 + seed);
            }
        }
    }
}

static AVFrame *make_frame(enum AVPixelFormat fmt, int w, int h, enum Pattern pat,
                           uint32_t seed)
{
    AVFrame *f = av_frame_alloc();

    if (!f)
        return NULL;
    f->format = fmt;
    f->width  = w;
    f->height = h;
    if (av_frame_get_buffer(f, 0) < 0) {
        av_frame_free(&f);
        return NULL;
    }
    fill_frame(f, pat, seed);
    f->pts = seed;
    return f;
}

/* ------------------------------------------------------------------------
 * the reference conversion */

typedef struct Planes {
    int w, h, cw, ch;
    uint8_t *p[3];      /* Y, Cb, Cr, tightly packed */
} Planes;

static void planes_free(Planes *pl)
{
    for (int i = 0; i < 3; i++)
        av_freep(&pl->p[i]);
}

static int planes_alloc(Planes *pl, int w, int h)
{
    pl->w = w;  pl->cw = (w + 1) / 2;
    pl->h = h;  pl->ch = (h + 1) / 2;
    pl->p[0] = av_malloc(w * h);
    pl->p[1] = av_malloc(pl->cw * pl->ch);
    pl->p[2] = av_malloc(pl->cw * pl->ch);
    if (!pl->p[0] || !pl->p[1] || !pl->p[2]) {
        planes_free(pl);
        return AVERROR(ENOMEM);
    }
    return 0;
}

static int clip8(int v)
{
    return v < 0 ? 0 : v > 255 ? 255 : v;
}

/* the byte at (x, y) of plane p, rows counted from the top of the image */
static int at(const AVFrame *f, int p, int x, int y)
{
    return f->data[p][(ptrdiff_t)y * f->linesize[p] + x];
}

/* R, G, B of pixel (x, y) of a packed RGB frame */
static void rgb_at(const AVFrame *f, int x, int y, int rgb[3])
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f->format);
    for (int c = 0; c < 3; c++)
        rgb[c] = at(f, 0, x * d->comp[c].step + d->comp[c].offset, y);
}

/* Q15 coefficients from the matrix definition: Y' = Kr R + Kg G + Kb B,
 * Cb = (B - Y') / (2 (1 - Kb)), Cr = (R - Y') / (2 (1 - Kr)), scaled to
 * 219/224 (tv) or 255/255 (pc) code values; the G coefficients take the
 * rest so that the rows sum to exactly the scale (Y) or 0 (Cb, Cr). */
static void ref_coeffs(int matrix, int full, int cy[3], int cu[3], int cv[3])
{
    static const struct { int spc; double kr, kb; } m[] = {
        { AVCOL_SPC_SMPTE170M,  0.299,  0.114  },
        { AVCOL_SPC_BT709,      0.2126, 0.0722 },
        { AVCOL_SPC_BT2020_NCL, 0.2627, 0.0593 },
    };
    double kr = 0, kb = 0, ys = full ? 1.0 : 219.0 / 255, cs = full ? 1.0 : 224.0 / 255;

    for (int i = 0; i < 3; i++)
        if (m[i].spc == matrix)
            kr = m[i].kr, kb = m[i].kb;
    cy[0] = lrint(32768 * ys * kr);
    cy[2] = lrint(32768 * ys * kb);
    cy[1] = lrint(32768 * ys) - cy[0] - cy[2];
    cu[0] = lrint(32768 * cs * -kr / (2 - 2 * kb));
    cu[2] = lrint(32768 * cs * 0.5);
    cu[1] = -cu[0] - cu[2];
    cv[0] = lrint(32768 * cs * 0.5);
    cv[2] = lrint(32768 * cs * -kb / (2 - 2 * kr));
    cv[1] = -cv[0] - cv[2];
}

static int ref_convert(const AVFrame *in, int matrix, int full, Planes *out)
{
    const enum AVPixelFormat fmt = in->format;
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(fmt);
    const int w = in->width, h = in->height;
    int cy[3], cu[3], cv[3], ret;

    if ((ret = planes_alloc(out, w, h)) < 0)
        return ret;
    ref_coeffs(matrix, full, cy, cu, cv);

    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            int *Y = NULL, v;
            uint8_t *dst = &out->p[0][y * w + x];
            (void)Y;
            if ((d->flags & AV_PIX_FMT_FLAG_RGB)) {
                int c[3];
                rgb_at(in, x, y, c);
                v = clip8((cy[0] * c[0] + cy[1] * c[1] + cy[2] * c[2] +
                           (full ? 0 : 16 << 15) + (1 << 14)) >> 15);
            } else if (fmt == AV_PIX_FMT_YUYV422) {
                v = at(in, 0, 2 * x, y);
            } else if (fmt == AV_PIX_FMT_UYVY422) {
                v = at(in, 0, 2 * x + 1, y);
            } else {
                v = at(in, 0, x, y);
            }
            *dst = v;
        }
    }

    for (int y = 0; y < out->ch; y++) {
        for (int x = 0; x < out->cw; x++) {
            /* the 2x2 block, edge pixels repeated */
            const int xs[2] = { 2 * x, FFMIN(2 * x + 1, w - 1) };
            const int ys[2] = { 2 * y, FFMIN(2 * y + 1, h - 1) };
            int u, v;

            if (d->flags & AV_PIX_FMT_FLAG_RGB) {
                int s[3] = { 0 }, c[3];
                for (int j = 0; j < 2; j++)
                    for (int i = 0; i < 2; i++) {
                        rgb_at(in, xs[i], ys[j], c);
                        for (int k = 0; k < 3; k++)
                            s[k] += c[k];
                    }
                u = clip8((cu[0] * s[0] + cu[1] * s[1] + cu[2] * s[2] + (128 << 17) + (1 << 16)) >> 17);
                v = clip8((cv[0] * s[0] + cv[1] * s[1] + cv[2] * s[2] + (128 << 17) + (1 << 16)) >> 17);
            } else switch (fmt) {
            case AV_PIX_FMT_YUV420P:
            case AV_PIX_FMT_YUVJ420P:
                u = at(in, 1, x, y);
                v = at(in, 2, x, y);
                break;
            case AV_PIX_FMT_YUV444P:
            case AV_PIX_FMT_YUVJ444P:
                u = (at(in, 1, xs[0], ys[0]) + at(in, 1, xs[1], ys[0]) +
                     at(in, 1, xs[0], ys[1]) + at(in, 1, xs[1], ys[1]) + 2) >> 2;
                v = (at(in, 2, xs[0], ys[0]) + at(in, 2, xs[1], ys[0]) +
                     at(in, 2, xs[0], ys[1]) + at(in, 2, xs[1], ys[1]) + 2) >> 2;
                break;
            case AV_PIX_FMT_YUV422P:
            case AV_PIX_FMT_YUVJ422P:
                u = (at(in, 1, x, ys[0]) + at(in, 1, x, ys[1]) + 1) >> 1;
                v = (at(in, 2, x, ys[0]) + at(in, 2, x, ys[1]) + 1) >> 1;
                break;
            case AV_PIX_FMT_NV12:
                u = at(in, 1, 2 * x, y);
                v = at(in, 1, 2 * x + 1, y);
                break;
            case AV_PIX_FMT_NV21:
                v = at(in, 1, 2 * x, y);
                u = at(in, 1, 2 * x + 1, y);
                break;
            case AV_PIX_FMT_YUYV422:
                u = (at(in, 0, 4 * x + 1, ys[0]) + at(in, 0, 4 * x + 1, ys[1]) + 1) >> 1;
                v = (at(in, 0, 4 * x + 3, ys[0]) + at(in, 0, 4 * x + 3, ys[1]) + 1) >> 1;
                break;
            case AV_PIX_FMT_UYVY422:
                u = (at(in, 0, 4 * x,     ys[0]) + at(in, 0, 4 * x,     ys[1]) + 1) >> 1;
                v = (at(in, 0, 4 * x + 2, ys[0]) + at(in, 0, 4 * x + 2, ys[1]) + 1) >> 1;
                break;
            case AV_PIX_FMT_GRAY8:
                u = v = 128;
                break;
            default:
                planes_free(out);
                return AVERROR_BUG;
            }
            out->p[1][y * out->cw + x] = u;
            out->p[2][y * out->cw + x] = v;
        }
    }
    return 0;
}

/* largest absolute difference between a yuv420p frame and planes */
static int max_diff(const AVFrame *f, const Planes *pl, int *mismatches)
{
    int md = 0, n = 0;

    for (int p = 0; p < 3; p++) {
        int w = p ? pl->cw : pl->w, h = p ? pl->ch : pl->h;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                int d = abs(f->data[p][(ptrdiff_t)y * f->linesize[p] + x] - pl->p[p][y * w + x]);
                md = FFMAX(md, d);
                n += !!d;
            }
    }
    if (mismatches)
        *mismatches = n;
    return md;
}

/* ------------------------------------------------------------------------
 * graphs */

typedef struct Graph {
    AVFilterGraph *graph;
    AVFilterContext *src, *sink;
} Graph;

static void graph_free(Graph *g)
{
    avfilter_graph_free(&g->graph);
}

/* buffer -> chain -> buffersink */
static int graph_init(Graph *g, enum AVPixelFormat fmt, int w, int h,
                      const char *chain, int threads)
{
    AVFilterInOut *outputs = NULL, *inputs = NULL;
    char args[256];
    int ret;

    memset(g, 0, sizeof(*g));
    g->graph = avfilter_graph_alloc();
    if (!g->graph)
        return AVERROR(ENOMEM);
    g->graph->nb_threads = threads;

    snprintf(args, sizeof(args), "video_size=%dx%d:pix_fmt=%d:time_base=1/25:pixel_aspect=1/1",
             w, h, fmt);
    ret = avfilter_graph_create_filter(&g->src, avfilter_get_by_name("buffer"), "in",
                                       args, NULL, g->graph);
    if (ret < 0)
        goto fail;
    ret = avfilter_graph_create_filter(&g->sink, avfilter_get_by_name("buffersink"), "out",
                                       NULL, NULL, g->graph);
    if (ret < 0)
        goto fail;

    outputs = avfilter_inout_alloc();
    inputs  = avfilter_inout_alloc();
    if (!outputs || !inputs) {
        ret = AVERROR(ENOMEM);
        goto fail;
    }
    outputs->name       = av_strdup("in");
    outputs->filter_ctx = g->src;
    inputs->name        = av_strdup("out");
    inputs->filter_ctx  = g->sink;
    ret = avfilter_graph_parse_ptr(g->graph, chain, &inputs, &outputs, NULL);
    if (ret < 0)
        goto fail;
    ret = avfilter_graph_config(g->graph, NULL);
    if (ret < 0)
        goto fail;
    avfilter_inout_free(&inputs);
    avfilter_inout_free(&outputs);
    return 0;
fail:
    avfilter_inout_free(&inputs);
    avfilter_inout_free(&outputs);
    graph_free(g);
    return ret;
}

/* push one frame (a new reference to it), pull one frame */
static int graph_run(Graph *g, const AVFrame *in, AVFrame *out)
{
    int ret = av_buffersrc_add_frame_flags(g->src, (AVFrame *)in, AV_BUFFERSRC_FLAG_KEEP_REF);
    if (ret < 0)
        return ret;
    return av_buffersink_get_frame(g->sink, out);
}

/* ------------------------------------------------------------------------
 * checks */

static const enum AVPixelFormat all_formats[] = {
    AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUVJ422P,
    AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_NV12,    AV_PIX_FMT_NV21,
    AV_PIX_FMT_YUYV422, AV_PIX_FMT_UYVY422,  AV_PIX_FMT_RGBA,    AV_PIX_FMT_BGRA,
    AV_PIX_FMT_ARGB,    AV_PIX_FMT_ABGR,     AV_PIX_FMT_RGB0,    AV_PIX_FMT_BGR0,
    AV_PIX_FMT_0RGB,    AV_PIX_FMT_0BGR,     AV_PIX_FMT_RGB24,   AV_PIX_FMT_BGR24,
    AV_PIX_FMT_GRAY8,
};

static int is_rgb(enum AVPixelFormat fmt)
{
    return !!(av_pix_fmt_desc_get(fmt)->flags & AV_PIX_FMT_FLAG_RGB);
}

/* formats whose frames libavfilter tags full range (gray: buffersrc tags it
 * with the link's negotiated range, pc), which toi420 keeps */
static int is_full_range_fmt(enum AVPixelFormat fmt)
{
    return fmt == AV_PIX_FMT_YUVJ420P || fmt == AV_PIX_FMT_YUVJ422P ||
           fmt == AV_PIX_FMT_YUVJ444P || fmt == AV_PIX_FMT_GRAY8;
}

static const char *matrix_name(int m)
{
    return m == AVCOL_SPC_BT709 ? "bt709" : m == AVCOL_SPC_BT2020_NCL ? "bt2020" : "bt601";
}

/* Convert frames through "chain" and compare with the reference. */
static void check_exact(enum AVPixelFormat fmt, int w, int h, int matrix, int full,
                        const char *chain, int threads, int flip, enum Pattern pat)
{
    const char *name = av_get_pix_fmt_name(fmt);
    AVFrame *in = make_frame(fmt, w, h, pat, w * 7 + h), *out = av_frame_alloc();
    Graph g;
    Planes ref = { 0 };
    int ret, md, n, expect_range;

    if (!in || !out) {
        FAIL("out of memory\n");
        goto end;
    }
    if ((ret = graph_init(&g, fmt, w, h, chain, threads)) < 0) {
        FAIL("%s %dx%d: graph '%s': %s\n", name, w, h, chain, av_err2str(ret));
        goto end;
    }
    /* two frames, so that the second comes from a recycled pool buffer */
    for (int i = 0; i < 2; i++) {
        av_frame_unref(out);
        fill_frame(in, pat, w * 7 + h + i);
        if ((ret = graph_run(&g, in, out)) < 0) {
            FAIL("%s %dx%d: %s\n", name, w, h, av_err2str(ret));
            break;
        }
        if (out->format != AV_PIX_FMT_YUV420P || out->width != w || out->height != h) {
            FAIL("%s %dx%d: output is %s %dx%d\n", name, w, h,
                 av_get_pix_fmt_name(out->format), out->width, out->height);
            break;
        }
        if (flip) {
            /* the reference sees the picture the way vflip shows it */
            for (int p = 0; p < 4 && in->data[p]; p++) {
                int ph = (p == 1 || p == 2) ? AV_CEIL_RSHIFT(h, av_pix_fmt_desc_get(fmt)->log2_chroma_h) : h;
                in->data[p] += (ptrdiff_t)in->linesize[p] * (ph - 1);
                in->linesize[p] = -in->linesize[p];
            }
        }
        ret = ref_convert(in, matrix, full, &ref);
        if (flip) {
            for (int p = 0; p < 4 && in->data[p]; p++) {
                int ph = (p == 1 || p == 2) ? AV_CEIL_RSHIFT(h, av_pix_fmt_desc_get(fmt)->log2_chroma_h) : h;
                in->linesize[p] = -in->linesize[p];
                in->data[p] -= (ptrdiff_t)in->linesize[p] * (ph - 1);
            }
        }
        if (ret < 0) {
            FAIL("reference: %s\n", av_err2str(ret));
            break;
        }
        md = max_diff(out, &ref, &n);
        planes_free(&ref);
        if (md) {
            FAIL("%s %dx%d %s/%s '%s' threads=%d: %d samples differ from the reference, by up to %d\n",
                 name, w, h, matrix_name(matrix), full ? "pc" : "tv", chain, threads, n, md);
            break;
        }
        expect_range = full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG;
        if (out->color_range != expect_range ||
            (is_rgb(fmt) && out->colorspace != matrix)) {
            FAIL("%s: output tagged range %s colorspace %s\n", name,
                 av_color_range_name(out->color_range), av_color_space_name(out->colorspace));
            break;
        }
        if (i == 1)
            printf("%-8s %4dx%-4d %-6s %s %-16s threads=%d %s: exact\n", name, w, h,
                   is_rgb(fmt) ? matrix_name(matrix) : "-", full ? "pc" : "tv", chain,
                   threads, pat == RANDOM ? "noise " : "smooth");
    }
    graph_free(&g);
end:
    av_frame_free(&in);
    av_frame_free(&out);
}

static void check_all_exact(void)
{
    static const int sizes[][2] = {
        { 352, 288 }, { 353, 287 }, { 1, 1 }, { 2, 2 }, { 3, 5 }, { 17, 9 }, { 66, 3 },
    };
    for (int f = 0; f < FF_ARRAY_ELEMS(all_formats); f++) {
        enum AVPixelFormat fmt = all_formats[f];
        int full = is_full_range_fmt(fmt);
        for (int s = 0; s < FF_ARRAY_ELEMS(sizes); s++)
            check_exact(fmt, sizes[s][0], sizes[s][1], AVCOL_SPC_SMPTE170M, full,
                        "toi420", 1, 0, RANDOM);
        /* threads and negative linesizes */
        check_exact(fmt, 353, 287, AVCOL_SPC_SMPTE170M, full, "toi420", 4, 0, RANDOM);
        check_exact(fmt, 353, 287, AVCOL_SPC_SMPTE170M, full, "vflip,toi420", 1, 1, RANDOM);
        check_exact(fmt, 352, 288, AVCOL_SPC_SMPTE170M, full, "vflip,toi420", 3, 1, SMOOTH);
        /* planar luma copied instead of referenced */
        check_exact(fmt, 353, 287, AVCOL_SPC_SMPTE170M, full, "toi420=copy_luma=1", 1, 0, RANDOM);
        check_exact(fmt, 353, 287, AVCOL_SPC_SMPTE170M, full, "vflip,toi420=copy_luma=1", 2, 1, RANDOM);
    }
    /* matrices and ranges of RGB input */
    for (int f = 0; f < FF_ARRAY_ELEMS(all_formats); f++) {
        static const struct { const char *opt; int matrix, full; } m[] = {
            { "toi420=matrix=bt601:range=pc",  AVCOL_SPC_SMPTE170M,  1 },
            { "toi420=matrix=bt709",           AVCOL_SPC_BT709,      0 },
            { "toi420=matrix=bt709:range=pc",  AVCOL_SPC_BT709,      1 },
            { "toi420=matrix=bt2020",          AVCOL_SPC_BT2020_NCL, 0 },
            { "toi420=matrix=bt2020:range=pc", AVCOL_SPC_BT2020_NCL, 1 },
        };
        if (!is_rgb(all_formats[f]))
            continue;
        for (int i = 0; i < FF_ARRAY_ELEMS(m); i++)
            check_exact(all_formats[f], 353, 287, m[i].matrix, m[i].full, m[i].opt, 1, 0, RANDOM);
    }
}

/* libswscale at the same matrix and range, smooth content: within +-2. */
static void check_swscale(void)
{
    static const struct { int matrix, sws_cs; } mats[] = {
        { AVCOL_SPC_SMPTE170M, SWS_CS_ITU601 }, { AVCOL_SPC_BT709, SWS_CS_ITU709 },
        { AVCOL_SPC_BT2020_NCL, SWS_CS_BT2020 },
    };
    const int w = 352, h = 288, tolerance = 2;

    av_log_set_level(AV_LOG_ERROR);   /* swscale warns about yuvj formats */
    for (int f = 0; f < FF_ARRAY_ELEMS(all_formats); f++) {
        enum AVPixelFormat fmt = all_formats[f];
        int nb_cases = is_rgb(fmt) ? 6 : 1;
        for (int c = 0; c < nb_cases; c++) {
            int matrix = mats[c / 2].matrix, full = is_rgb(fmt) ? c & 1 : is_full_range_fmt(fmt);
            AVFrame *in = make_frame(fmt, w, h, SMOOTH, 5), *out = av_frame_alloc();
            struct SwsContext *sws = NULL;
            Planes sp = { 0 };
            char chain[64];
            Graph g;
            int ret, md;

            if (!in || !out || planes_alloc(&sp, w, h) < 0) {
                FAIL("out of memory\n");
                goto next;
            }
            snprintf(chain, sizeof(chain), "toi420=matrix=%s:range=%s",
                     matrix_name(matrix), full ? "pc" : "tv");
            if ((ret = graph_init(&g, fmt, w, h, chain, 1)) < 0 ||
                (ret = graph_run(&g, in, out)) < 0) {
                FAIL("%s: %s\n", chain, av_err2str(ret));
                goto next;
            }
            graph_free(&g);

            sws = sws_getContext(w, h, fmt, w, h, AV_PIX_FMT_YUV420P,
                                 SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INP,
                                 NULL, NULL, NULL);
            if (!sws) {
                FAIL("sws_getContext %s\n", av_get_pix_fmt_name(fmt));
                goto next;
            }
            {
                const int *tab = sws_getCoefficients(mats[c / 2].sws_cs);
                sws_setColorspaceDetails(sws, tab, is_rgb(fmt) ? 1 : full, tab, full, 0, 1 << 16, 1 << 16);
            }
            {
                uint8_t *dst[4] = { sp.p[0], sp.p[1], sp.p[2] };
                int dls[4] = { sp.w, sp.cw, sp.cw };
                sws_scale(sws, (const uint8_t * const *)in->data, in->linesize, 0, h, dst, dls);
            }
            md = max_diff(out, &sp, NULL);
            printf("%-8s %s/%s vs libswscale: max difference %d (tolerance %d)\n",
                   av_get_pix_fmt_name(fmt), is_rgb(fmt) ? matrix_name(matrix) : "-",
                   full ? "pc" : "tv", md, tolerance);
            if (md > tolerance)
                FAIL("%s differs from libswscale by %d\n", av_get_pix_fmt_name(fmt), md);
next:
            sws_freeContext(sws);
            planes_free(&sp);
            av_frame_free(&in);
            av_frame_free(&out);
        }
    }
    av_log_set_level(AV_LOG_INFO);
}

/* yuv420p and yuvj420p come out as the very same buffers */
static void check_passthrough(void)
{
    const enum AVPixelFormat fmts[] = { AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P };

    for (int i = 0; i < 2; i++) {
        AVFrame *in = make_frame(fmts[i], 320, 240, RANDOM, 1), *out = av_frame_alloc();
        Graph g;
        int ret;

        if (!in || !out || (ret = graph_init(&g, fmts[i], 320, 240, "toi420", 1)) < 0) {
            FAIL("passthrough setup\n");
            av_frame_free(&in);
            av_frame_free(&out);
            continue;
        }
        ret = graph_run(&g, in, out);
        if (ret < 0 || out->data[0] != in->data[0] || out->data[1] != in->data[1] ||
            out->data[2] != in->data[2] || out->buf[0]->buffer != in->buf[0]->buffer)
            FAIL("%s was copied, not passed through\n", av_get_pix_fmt_name(fmts[i]));
        else
            printf("%s passthrough: same data pointers, same buffer, output %s range %s\n",
                   av_get_pix_fmt_name(fmts[i]), av_get_pix_fmt_name(out->format),
                   av_color_range_name(out->color_range));
        if (out->format != AV_PIX_FMT_YUV420P ||
            out->color_range != (i ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG))
            FAIL("passthrough tags\n");
        graph_free(&g);
        av_frame_free(&in);
        av_frame_free(&out);
    }
}

/* Planar input: the output references the input's luma plane (same
 * pointer, linesize and buffer) unless copy_luma is set; packed input
 * never does. Chroma always comes from the filter's pool. */
static void check_luma_ref(void)
{
    static const enum AVPixelFormat fmts[] = {
        AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_NV12, AV_PIX_FMT_NV21,
        AV_PIX_FMT_GRAY8, AV_PIX_FMT_YUYV422, AV_PIX_FMT_RGBA,
    };

    for (int i = 0; i < FF_ARRAY_ELEMS(fmts); i++) {
        const int planar = fmts[i] != AV_PIX_FMT_YUYV422 && fmts[i] != AV_PIX_FMT_RGBA;
        for (int copy = 0; copy < 2; copy++) {
            AVFrame *in = make_frame(fmts[i], 320, 240, RANDOM, 3), *out = av_frame_alloc();
            AVBufferRef *luma;
            Graph g;
            int ret, shared, chroma_shared = 0;

            if (!in || !out || (ret = graph_init(&g, fmts[i], 320, 240,
                                                 copy ? "toi420=copy_luma=1" : "toi420", 1)) < 0) {
                FAIL("luma reference setup\n");
                av_frame_free(&in);
                av_frame_free(&out);
                continue;
            }
            ret = graph_run(&g, in, out);
            luma = ret < 0 ? NULL : av_frame_get_plane_buffer(out, 0);
            shared = luma && out->data[0] == in->data[0] && out->linesize[0] == in->linesize[0] &&
                     luma->buffer == av_frame_get_plane_buffer(in, 0)->buffer;
            for (int p = 1; p < 3 && ret >= 0; p++)
                for (int q = 0; q < 4 && in->buf[q]; q++)
                    chroma_shared |= av_frame_get_plane_buffer(out, p)->buffer == in->buf[q]->buffer;
            if (ret < 0 || shared != (planar && !copy) || chroma_shared)
                FAIL("%s copy_luma=%d: luma %s, chroma %s\n", av_get_pix_fmt_name(fmts[i]), copy,
                     shared ? "referenced" : "copied", chroma_shared ? "from the input" : "pooled");
            else
                printf("%-8s copy_luma=%d: luma %s, chroma from the pool\n",
                       av_get_pix_fmt_name(fmts[i]), copy, shared ? "referenced" : "written");
            graph_free(&g);
            av_frame_free(&in);
            av_frame_free(&out);
        }
    }
}

/* one graph, frames whose size and format change mid-stream */
static void check_changes(void)
{
    static const struct { enum AVPixelFormat fmt; int w, h; } seq[] = {
        { AV_PIX_FMT_RGBA, 352, 288 }, { AV_PIX_FMT_RGBA, 352, 288 },
        { AV_PIX_FMT_NV12, 353, 287 }, { AV_PIX_FMT_YUYV422, 64, 48 },
        { AV_PIX_FMT_YUV420P, 64, 48 }, { AV_PIX_FMT_BGR24, 17, 9 },
        { AV_PIX_FMT_RGBA, 352, 288 },
    };
    AVFrame *out = av_frame_alloc();
    Graph g;
    int ret;

    av_log_set_level(AV_LOG_ERROR);   /* buffersrc warns about the changes */
    if (!out || (ret = graph_init(&g, seq[0].fmt, seq[0].w, seq[0].h, "toi420", 2)) < 0) {
        FAIL("changes setup\n");
        av_frame_free(&out);
        return;
    }
    for (int i = 0; i < FF_ARRAY_ELEMS(seq); i++) {
        AVFrame *in = make_frame(seq[i].fmt, seq[i].w, seq[i].h, RANDOM, 40 + i);
        Planes ref = { 0 };

        av_frame_unref(out);
        if (!in || (ret = graph_run(&g, in, out)) < 0 ||
            ref_convert(in, AVCOL_SPC_SMPTE170M, 0, &ref) < 0) {
            FAIL("change %d\n", i);
        } else if (out->width != seq[i].w || out->height != seq[i].h ||
                   max_diff(out, &ref, NULL)) {
            FAIL("change %d: %s %dx%d converted wrongly\n", i,
                 av_get_pix_fmt_name(seq[i].fmt), seq[i].w, seq[i].h);
        } else {
            printf("mid-stream change %d: %s %dx%d: exact\n", i,
                   av_get_pix_fmt_name(seq[i].fmt), seq[i].w, seq[i].h);
        }
        planes_free(&ref);
        av_frame_free(&in);
    }
    graph_free(&g);
    av_frame_free(&out);
    av_log_set_level(AV_LOG_INFO);
}

/* 1 and 4 threads give identical output on a 1080p frame */
static void check_threads(void)
{
    AVFrame *in = make_frame(AV_PIX_FMT_BGR0, 1920, 1080, RANDOM, 9);
    AVFrame *out[2] = { av_frame_alloc(), av_frame_alloc() };
    Planes ref = { 0 };
    Graph g;

    for (int t = 0; t < 2; t++) {
        if (!in || !out[t] || graph_init(&g, in->format, 1920, 1080, "toi420", t ? 4 : 1) < 0 ||
            graph_run(&g, in, out[t]) < 0) {
            FAIL("threads setup\n");
            goto end;
        }
        graph_free(&g);
    }
    if (ref_convert(out[0], AVCOL_SPC_SMPTE170M, 0, &ref) >= 0) {
        /* the yuv420p output converts to itself: compare 4 threads against it */
        int md = max_diff(out[1], &ref, NULL);
        printf("bgr0 1920x1080: 1 and 4 threads %s\n", md ? "differ" : "identical");
        if (md)
            FAIL("threads differ by %d\n", md);
    }
end:
    planes_free(&ref);
    av_frame_free(&in);
    av_frame_free(&out[0]);
    av_frame_free(&out[1]);
}

static char log_buf[4096];

static void log_capture(void *avcl, int level, const char *fmt, va_list vl)
{
    size_t len = strlen(log_buf);
    if (level <= AV_LOG_VERBOSE && len < sizeof(log_buf) - 1)
        vsnprintf(log_buf + len, sizeof(log_buf) - len, fmt, vl);
}

/* bad options and formats fail with EINVAL and a message naming them */
static void check_errors(void)
{
    /* err: EINVAL from the filter (an unknown name also AVERROR_OPTION_NOT_FOUND),
     * ERANGE from AVOption for a number outside the range -h shows */
    static const struct { enum AVPixelFormat fmt; const char *chain; const char *msg; int err; } bad[] = {
        { AV_PIX_FMT_RGBA,    "toi420=matrix=bt999", "matrix",                        AVERROR(EINVAL) },
        { AV_PIX_FMT_RGBA,    "toi420=matrix=4",     "'matrix'",                      AVERROR(EINVAL) },
        { AV_PIX_FMT_RGBA,    "toi420=matrix=99",    "'matrix' out of range [-1 - 9]", AVERROR(ERANGE) },
        { AV_PIX_FMT_RGBA,    "toi420=range=0",      "'range'",                       AVERROR(EINVAL) },
        { AV_PIX_FMT_RGBA,    "toi420=range=7",      "'range' out of range [-1 - 2]", AVERROR(ERANGE) },
        { AV_PIX_FMT_RGBA,    "toi420=nosuch=1",     "nosuch",                        AVERROR(EINVAL) },
        { AV_PIX_FMT_YUV410P, "toi420",              "yuv410p",                       AVERROR(EINVAL) },
        { AV_PIX_FMT_RGB48LE, "toi420",              "toi420 converts: yuv420p",      AVERROR(EINVAL) },
    };
    av_log_set_callback(log_capture);
    for (int i = 0; i < FF_ARRAY_ELEMS(bad); i++) {
        Graph g;
        int ret;

        log_buf[0] = 0;
        ret = graph_init(&g, bad[i].fmt, 64, 64, bad[i].chain, 1);
        if (ret >= 0) {
            FAIL("'%s' on %s was accepted\n", bad[i].chain, av_get_pix_fmt_name(bad[i].fmt));
            graph_free(&g);
        } else if (ret != bad[i].err && !(bad[i].err == AVERROR(EINVAL) && ret == AVERROR_OPTION_NOT_FOUND)) {
            FAIL("'%s': %s instead of %s\n", bad[i].chain, av_err2str(ret), av_err2str(bad[i].err));
        } else if (!strstr(log_buf, bad[i].msg)) {
            FAIL("'%s': message does not name '%s': %s\n", bad[i].chain, bad[i].msg, log_buf);
        } else {
            printf("refused %-20s on %-8s: %s\n", bad[i].chain,
                   av_get_pix_fmt_name(bad[i].fmt), av_err2str(ret));
        }
    }
    av_log_set_callback(av_log_default_callback);
}

/* 50 frames through one graph: the pool holds at most a few buffers */
static void check_pool(void)
{
    AVFrame *in = make_frame(AV_PIX_FMT_NV12, 64, 64, RANDOM, 3), *out = av_frame_alloc();
    unsigned created = 0, outstanding = 0;
    const char *p;
    Graph g;

    if (!in || !out || graph_init(&g, AV_PIX_FMT_NV12, 64, 64, "toi420", 1) < 0) {
        FAIL("pool setup\n");
        goto end;
    }
    for (int i = 0; i < 50; i++) {
        av_frame_unref(out);
        if (graph_run(&g, in, out) < 0)
            FAIL("pool run\n");
    }
    av_frame_unref(out);
    av_log_set_callback(log_capture);
    av_log_set_level(AV_LOG_VERBOSE);
    log_buf[0] = 0;
    graph_free(&g);
    av_log_set_callback(av_log_default_callback);
    av_log_set_level(AV_LOG_INFO);
    p = strstr(log_buf, "frames converted");
    if (!p || sscanf(strstr(log_buf, "passed through; ") + 16,
                     "%u pool buffers created in %*u pool(s), at most %u", &created, &outstanding) != 2)
        FAIL("no pool statistics logged: %s\n", log_buf);
    else if (created < 1 || created > 2 || outstanding != created)
        FAIL("pool made %u buffers for 50 frames held one at a time\n", created);
    else
        printf("pool: 50 frames, %u buffer(s) created, at most %u outstanding\n",
               created, outstanding);
end:
    av_frame_free(&in);
    av_frame_free(&out);
}

/* ------------------------------------------------------------------------
 * allocation counting (with the preload shim) */

static int alloc_run(const char *chain, int n, uint64_t *allocs)
{
    uint64_t (*count)(void) = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "malloc_count_get");
    AVBufferPool *pool;
    AVFrame *out = av_frame_alloc();
    Graph g;
    uint64_t start = 0;
    int ret;

    if (!count) {
        fprintf(stderr, "alloc: run with LD_PRELOAD=malloc_count.so\n");
        return AVERROR(EINVAL);
    }
    if ((ret = graph_init(&g, AV_PIX_FMT_YUYV422, 640, 480, chain, 1)) < 0)
        return ret;
    pool = av_buffer_pool_init(640 * 2 * 480, NULL);
    for (int i = 0; i < n + 10; i++) {
        AVFrame *in = av_frame_alloc();
        if (i == 10)
            start = count();   /* after warm-up */
        in->format = AV_PIX_FMT_YUYV422;
        in->width  = 640;
        in->height = 480;
        in->buf[0] = av_buffer_pool_get(pool);
        in->data[0] = in->buf[0]->data;
        in->linesize[0] = 640 * 2;
        in->pts = i;
        if ((ret = av_buffersrc_add_frame_flags(g.src, in, 0)) < 0 ||
            (ret = av_buffersink_get_frame(g.sink, out)) < 0)
            break;
        av_frame_free(&in);
        av_frame_unref(out);
    }
    *allocs = count() - start;
    graph_free(&g);
    av_buffer_pool_uninit(&pool);
    av_frame_free(&out);
    return ret;
}

static int alloc_main(int n)
{
    uint64_t a[2][2];
    const char *chains[2] = { "toi420", "null" };

    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 2; k++)
            if (alloc_run(chains[c], n << k, &a[c][k]) < 0)
                return 1;
    for (int c = 0; c < 2; c++)
        printf("%-7s %d frames: %"PRIu64" allocations, %d frames: %"PRIu64" -> %.3f per frame\n",
               chains[c], n, a[c][0], 2 * n, a[c][1], (double)(a[c][1] - a[c][0]) / n);
    printf("toi420 over null: %.3f allocations per frame\n",
           ((double)(a[0][1] - a[0][0]) - (double)(a[1][1] - a[1][0])) / n);
    return (a[0][1] - a[0][0]) != (a[1][1] - a[1][0]);
}

static int refmd5_main(char **argv)
{
    enum AVPixelFormat fmt = av_get_pix_fmt(argv[0]);
    int w, h, full = !strcmp(argv[3], "pc"), flip = atoi(argv[4]);
    int matrix = !strcmp(argv[2], "bt709")  ? AVCOL_SPC_BT709 :
                 !strcmp(argv[2], "bt2020") ? AVCOL_SPC_BT2020_NCL : AVCOL_SPC_SMPTE170M;
    AVFrame *f = av_frame_alloc();
    uint8_t *raw;
    int size;

    if (fmt == AV_PIX_FMT_NONE || sscanf(argv[1], "%dx%d", &w, &h) != 2 || !f)
        return 2;
    size = av_image_get_buffer_size(fmt, w, h, 1);
    raw  = av_malloc(size);
    if (!raw)
        return 2;
    f->format = fmt;
    f->width  = w;
    f->height = h;
    while (fread(raw, 1, size, stdin) == size) {
        Planes ref = { 0 };
        uint8_t digest[16];
        struct AVMD5 *md5 = av_md5_alloc();

        av_image_fill_arrays(f->data, f->linesize, raw, fmt, w, h, 1);
        if (flip) {
            const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(fmt);
            for (int p = 0; p < 4 && f->data[p]; p++) {
                int ph = (p == 1 || p == 2) ? AV_CEIL_RSHIFT(h, d->log2_chroma_h) : h;
                f->data[p] += (ptrdiff_t)f->linesize[p] * (ph - 1);
                f->linesize[p] = -f->linesize[p];
            }
        }
        if (!md5 || ref_convert(f, matrix, full, &ref) < 0)
            return 2;
        av_md5_init(md5);
        av_md5_update(md5, ref.p[0], ref.w * ref.h);
        av_md5_update(md5, ref.p[1], ref.cw * ref.ch);
        av_md5_update(md5, ref.p[2], ref.cw * ref.ch);
        av_md5_final(md5, digest);
        for (int i = 0; i < 16; i++)
            printf("%02x", digest[i]);
        printf("\n");
        av_free(md5);
        planes_free(&ref);
    }
    av_free(raw);
    av_frame_free(&f);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 6 && !strcmp(argv[1], "refmd5"))
        return refmd5_main(argv + 2);
    if (argc > 2 && !strcmp(argv[1], "alloc"))
        return alloc_main(atoi(argv[2]) > 0 ? atoi(argv[2]) : 100);

    check_all_exact();
    check_passthrough();
    check_luma_ref();
    check_changes();
    check_threads();
    check_swscale();
    check_errors();
    check_pool();

    if (failures)
        printf("%d check(s) failed\n", failures);
    else
        printf("all checks passed\n");
    return !!failures;
}

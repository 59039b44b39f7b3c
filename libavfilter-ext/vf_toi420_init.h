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
 * C reference kernels of the toi420 filter and their dispatch. Kept in a
 * header so that checkasm can compare SIMD versions against them.
 */

#ifndef AVFILTER_TOI420_INIT_H
#define AVFILTER_TOI420_INIT_H

#include <stdint.h>

#include "config.h"
#include "libavutil/attributes.h"
#include "libavutil/common.h"
#include "toi420dsp.h"

/* 2x2 box of one packed RGB pixel pair per row; x1 is the right pixel,
 * equal to x0 at the end of an odd row */
#define DEF_RGB_KERNEL(name, step, ro, go, bo)                                 \
static void rgb_##name##_c(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,  \
                           const uint8_t *src0, const uint8_t *src1,          \
                           int width, const ToI420Coeffs *c)                  \
{                                                                             \
    const int yr = c->y[0], yg = c->y[1], yb = c->y[2];                       \
    const int ur = c->u[0], ug = c->u[1], ub = c->u[2];                       \
    const int vr = c->v[0], vg = c->v[1], vb = c->v[2];                       \
    const int y_add = c->y_add, c_add = c->c_add;                             \
    const int pairs = width >> 1;                                             \
                                                                              \
    for (int x = 0; x < width; x++) {                                         \
        const uint8_t *p = src0 + x * step;                                   \
        y0[x] = av_clip_uint8((yr * p[ro] + yg * p[go] + yb * p[bo] +         \
                               y_add) >> 15);                                 \
    }                                                                         \
    for (int x = 0; x < width; x++) {                                         \
        const uint8_t *p = src1 + x * step;                                   \
        y1[x] = av_clip_uint8((yr * p[ro] + yg * p[go] + yb * p[bo] +         \
                               y_add) >> 15);                                 \
    }                                                                         \
    for (int x = 0; x < pairs; x++) {                                         \
        const uint8_t *a = src0 + 2 * x * step, *b = src1 + 2 * x * step;     \
        int sr = a[ro] + a[ro + step] + b[ro] + b[ro + step];                 \
        int sg = a[go] + a[go + step] + b[go] + b[go + step];                 \
        int sb = a[bo] + a[bo + step] + b[bo] + b[bo + step];                 \
        u[x] = av_clip_uint8((ur * sr + ug * sg + ub * sb + c_add) >> 17);    \
        v[x] = av_clip_uint8((vr * sr + vg * sg + vb * sb + c_add) >> 17);    \
    }                                                                         \
    if (width & 1) {                                                          \
        const uint8_t *a = src0 + (width - 1) * step;                         \
        const uint8_t *b = src1 + (width - 1) * step;                         \
        int sr = 2 * (a[ro] + b[ro]);                                         \
        int sg = 2 * (a[go] + b[go]);                                         \
        int sb = 2 * (a[bo] + b[bo]);                                         \
        u[pairs] = av_clip_uint8((ur * sr + ug * sg + ub * sb + c_add) >> 17);\
        v[pairs] = av_clip_uint8((vr * sr + vg * sg + vb * sb + c_add) >> 17);\
    }                                                                         \
}

DEF_RGB_KERNEL(rgba,  4, 0, 1, 2)
DEF_RGB_KERNEL(bgra,  4, 2, 1, 0)
DEF_RGB_KERNEL(argb,  4, 1, 2, 3)
DEF_RGB_KERNEL(abgr,  4, 3, 2, 1)
DEF_RGB_KERNEL(rgb24, 3, 0, 1, 2)
DEF_RGB_KERNEL(bgr24, 3, 2, 1, 0)

static void chroma_h2v2_c(uint8_t *dst, const uint8_t *src0,
                          const uint8_t *src1, int width)
{
    const int pairs = width >> 1;

    for (int x = 0; x < pairs; x++)
        dst[x] = (src0[2 * x] + src0[2 * x + 1] +
                  src1[2 * x] + src1[2 * x + 1] + 2) >> 2;
    if (width & 1)
        dst[pairs] = (src0[width - 1] + src1[width - 1] + 1) >> 1;
}

static void chroma_v2_c(uint8_t *dst, const uint8_t *src0,
                        const uint8_t *src1, int width)
{
    const int cw = (width + 1) >> 1;

    for (int x = 0; x < cw; x++)
        dst[x] = (src0[x] + src1[x] + 1) >> 1;
}

static void chroma_nv_c(uint8_t *u, uint8_t *v, const uint8_t *src, int width)
{
    const int cw = (width + 1) >> 1;

    for (int x = 0; x < cw; x++) {
        u[x] = src[2 * x];
        v[x] = src[2 * x + 1];
    }
}

/* yo: offset of the first luma byte in a 4-byte macropixel, co: of Cb */
#define DEF_PACKED_YUV_KERNEL(name, yo, co)                                   \
static void name##_c(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,       \
                     const uint8_t *src0, const uint8_t *src1, int width)    \
{                                                                            \
    const int cw = (width + 1) >> 1;                                         \
                                                                             \
    for (int x = 0; x < width; x++) {                                        \
        y0[x] = src0[2 * x + yo];                                            \
        y1[x] = src1[2 * x + yo];                                            \
    }                                                                        \
    for (int x = 0; x < cw; x++) {                                           \
        u[x] = (src0[4 * x + co]     + src1[4 * x + co]     + 1) >> 1;       \
        v[x] = (src0[4 * x + co + 2] + src1[4 * x + co + 2] + 1) >> 1;       \
    }                                                                        \
}

DEF_PACKED_YUV_KERNEL(yuyv, 0, 1)
DEF_PACKED_YUV_KERNEL(uyvy, 1, 0)

static av_unused void ff_toi420dsp_init(ToI420DSPContext *dsp)
{
    dsp->rgb[TOI420_RGBA]  = rgb_rgba_c;
    dsp->rgb[TOI420_BGRA]  = rgb_bgra_c;
    dsp->rgb[TOI420_ARGB]  = rgb_argb_c;
    dsp->rgb[TOI420_ABGR]  = rgb_abgr_c;
    dsp->rgb[TOI420_RGB24] = rgb_rgb24_c;
    dsp->rgb[TOI420_BGR24] = rgb_bgr24_c;
    dsp->chroma_h2v2       = chroma_h2v2_c;
    dsp->chroma_v2         = chroma_v2_c;
    dsp->chroma_nv         = chroma_nv_c;
    dsp->packed_yuv[0]     = yuyv_c;
    dsp->packed_yuv[1]     = uyvy_c;
    /* SIMD kernels hook in here: ff_toi420dsp_init_<arch>(dsp) */
}

#endif /* AVFILTER_TOI420_INIT_H */

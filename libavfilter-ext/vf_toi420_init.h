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

/* Fill c->layout[] from c->y/u/v and the offsets. */
static av_unused void ff_toi420_coeffs_layouts(ToI420Coeffs *c)
{
    /* byte offsets of R, G and B in each layout, 24-bit ones widened */
    static const uint8_t pos[TOI420_NB_RGB][3] = {
        { 0, 1, 2 }, { 2, 1, 0 }, { 1, 2, 3 }, { 3, 2, 1 }, { 0, 1, 2 }, { 2, 1, 0 },
    };

    for (int l = 0; l < TOI420_NB_RGB; l++) {
        ToI420PixelCoeffs *k = &c->layout[l];
        for (int i = 0; i < 16; i++) {
            int ch = -1;
            for (int j = 0; j < 3; j++)
                if (pos[l][j] == (i & 3))
                    ch = j;
            k->y[i] = ch < 0 ? 0 : c->y[ch];
            k->u[i] = ch < 0 ? 0 : c->u[ch];
            k->v[i] = ch < 0 ? 0 : c->v[ch];
        }
        for (int i = 0; i < 8; i++) {
            k->y_add[i] = c->y_add;
            k->c_add[i] = c->c_add;
        }
        for (int i = 0; i < 2; i++) {
            k->ye[i]     = k->y[2 * i];
            k->yo[i]     = k->y[2 * i + 1];
            k->ce[i]     = k->u[2 * i];
            k->ce[i + 2] = k->v[2 * i];
            k->co[i]     = k->u[2 * i + 1];
            k->co[i + 2] = k->v[2 * i + 1];
        }
    }
}

/* pixels of packed RGB converted per block: the block is split into
 * 16-bit R, G and B arrays first, so that the arithmetic vectorizes */
#define TOI420_RGB_BLOCK 256

static av_always_inline int toi420_clip8(int v)
{
    return FFMIN(FFMAX(v, 0), 255);
}

static av_always_inline void rgb_block(uint8_t *y0, uint8_t *y1, uint8_t *u,
                                       uint8_t *v, const uint8_t *src0,
                                       const uint8_t *src1, int n,
                                       const ToI420Coeffs *c, int step,
                                       int ro, int go, int bo)
{
    int16_t r0[TOI420_RGB_BLOCK + 1], g0[TOI420_RGB_BLOCK + 1], b0[TOI420_RGB_BLOCK + 1];
    int16_t r1[TOI420_RGB_BLOCK + 1], g1[TOI420_RGB_BLOCK + 1], b1[TOI420_RGB_BLOCK + 1];
    /* 16-bit operands, so that the products map to widening multiplies */
    const int16_t yr = c->y[0], yg = c->y[1], yb = c->y[2];
    const int16_t ur = c->u[0], ug = c->u[1], ub = c->u[2];
    const int16_t vr = c->v[0], vg = c->v[1], vb = c->v[2];
    const int y_add = c->y_add, c_add = c->c_add;
    const int pairs = (n + 1) >> 1;

    for (int x = 0; x < n; x++) {
        r0[x] = src0[x * step + ro];
        g0[x] = src0[x * step + go];
        b0[x] = src0[x * step + bo];
        r1[x] = src1[x * step + ro];
        g1[x] = src1[x * step + go];
        b1[x] = src1[x * step + bo];
    }
    if (n & 1) {    /* odd width: the last pixel stands in for its neighbour */
        r0[n] = r0[n - 1]; g0[n] = g0[n - 1]; b0[n] = b0[n - 1];
        r1[n] = r1[n - 1]; g1[n] = g1[n - 1]; b1[n] = b1[n - 1];
    }
    for (int x = 0; x < n; x++)
        y0[x] = toi420_clip8((yr * r0[x] + yg * g0[x] + yb * b0[x] + y_add) >> 15);
    for (int x = 0; x < n; x++)
        y1[x] = toi420_clip8((yr * r1[x] + yg * g1[x] + yb * b1[x] + y_add) >> 15);
    for (int x = 0; x < pairs; x++) {
        const int16_t sr = r0[2 * x] + r0[2 * x + 1] + r1[2 * x] + r1[2 * x + 1];
        const int16_t sg = g0[2 * x] + g0[2 * x + 1] + g1[2 * x] + g1[2 * x + 1];
        const int16_t sb = b0[2 * x] + b0[2 * x + 1] + b1[2 * x] + b1[2 * x + 1];
        u[x] = toi420_clip8((ur * sr + ug * sg + ub * sb + c_add) >> 17);
        v[x] = toi420_clip8((vr * sr + vg * sg + vb * sb + c_add) >> 17);
    }
}

/* step: bytes per pixel; ro, go, bo: offsets of R, G and B in a pixel */
#define DEF_RGB_KERNEL(name, step, ro, go, bo)                                 \
static void rgb_##name##_c(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,  \
                           const uint8_t *src0, const uint8_t *src1,          \
                           int width, const ToI420Coeffs *c)                  \
{                                                                             \
    for (int x = 0; x < width; x += TOI420_RGB_BLOCK) {                       \
        const int n = FFMIN(TOI420_RGB_BLOCK, width - x);                     \
        rgb_block(y0 + x, y1 + x, u + x / 2, v + x / 2,                       \
                  src0 + x * step, src1 + x * step, n, c, step, ro, go, bo);  \
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
#if ARCH_X86 && !defined(TOI420_NO_ARCH_INIT)
    ff_toi420dsp_init_x86(dsp);
#elif ARCH_AARCH64 && !defined(TOI420_NO_ARCH_INIT)
    ff_toi420dsp_init_aarch64(dsp);
#endif
}

#endif /* AVFILTER_TOI420_INIT_H */

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

#ifndef AVFILTER_TOI420DSP_H
#define AVFILTER_TOI420DSP_H

#include <stdint.h>

#include "libavutil/mem_internal.h"

/**
 * Packed RGB layouts, in the order of ToI420DSPContext.rgb[].
 */
enum ToI420RGBLayout {
    TOI420_RGBA,
    TOI420_BGRA,
    TOI420_ARGB,
    TOI420_ABGR,
    TOI420_RGB24,
    TOI420_BGR24,
    TOI420_NB_RGB,
};

/**
 * Fixed-point RGB to YCbCr coefficients, Q15, in R, G, B order.
 *
 * Y  = clip((y[0]*R + y[1]*G + y[2]*B + y_add) >> 15)
 * Cb = clip((u[0]*sR + u[1]*sG + u[2]*sB + c_add) >> 17)
 * Cr = clip((v[0]*sR + v[1]*sG + v[2]*sB + c_add) >> 17)
 *
 * where sR, sG, sB are the sums of the 2x2 block of pixels that share one
 * chroma sample (edge pixels repeated for odd sizes), so the box average
 * and the matrix are done with a single rounding.
 * y_add = (16 << 15) + (1 << 14) for tv range, 1 << 14 for pc range;
 * c_add = (128 << 17) + (1 << 16).
 */
/**
 * The same coefficients for the bytes of a 4-byte pixel of one layout (0 for
 * the byte that is not R, G or B; 24-bit pixels are widened to 4 bytes),
 * repeated over 256 bits, with the offsets repeated too: what the SIMD
 * kernels multiply the pixels with.
 */
typedef struct ToI420PixelCoeffs {
    DECLARE_ALIGNED(32, int16_t, y)[16];
    int16_t u[16], v[16];
    int32_t y_add[8], c_add[8];
    /**
     * For kernels that split the 16-bit words of a 4-byte pixel into its
     * even bytes (0 and 2) and its odd bytes (1 and 3): the Y coefficients
     * of bytes 0, 2 (ye) and 1, 3 (yo); Cb then Cr coefficients of bytes
     * 0, 2 (ce) and of bytes 1, 3 (co).
     */
    int16_t ye[2], yo[2];
    int16_t ce[4], co[4];
} ToI420PixelCoeffs;

typedef struct ToI420Coeffs {
    int16_t y[3];
    int16_t u[3];
    int16_t v[3];
    int32_t y_add;
    int32_t c_add;
    /** filled from the above by ff_toi420_coeffs_layouts(), once per change */
    ToI420PixelCoeffs layout[TOI420_NB_RGB];
} ToI420Coeffs;

/**
 * Row kernels. "width" is always the luma width (>= 1); chroma rows hold
 * (width + 1) / 2 samples. For the last row of an odd height, src1 == src0
 * and y1 == y0. Kernels may read up to the end of the last whole pixel of a
 * row and no further; they write exactly the samples of the row.
 */
typedef struct ToI420DSPContext {
    /** packed RGB: two rows in, two luma rows and one Cb and Cr row out */
    void (*rgb[TOI420_NB_RGB])(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                               const uint8_t *src0, const uint8_t *src1,
                               int width, const ToI420Coeffs *c);
    /** 4:4:4 chroma: 2x2 box average of two rows of width samples */
    void (*chroma_h2v2)(uint8_t *dst, const uint8_t *src0,
                        const uint8_t *src1, int width);
    /** 4:2:2 chroma: vertical average of two rows of (width + 1) / 2 samples */
    void (*chroma_v2)(uint8_t *dst, const uint8_t *src0,
                      const uint8_t *src1, int width);
    /** NV12 chroma (NV21 with u and v swapped): split one interleaved row */
    void (*chroma_nv)(uint8_t *u, uint8_t *v, const uint8_t *src, int width);
    /** YUYV422 (index 0) and UYVY422 (index 1): two rows to Y, Cb, Cr */
    void (*packed_yuv[2])(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                          const uint8_t *src0, const uint8_t *src1, int width);
} ToI420DSPContext;

void ff_toi420dsp_init_x86(ToI420DSPContext *dsp);
void ff_toi420dsp_init_aarch64(ToI420DSPContext *dsp);

#endif /* AVFILTER_TOI420DSP_H */

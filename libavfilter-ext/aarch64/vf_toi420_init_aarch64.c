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
 * aarch64 dispatch of the toi420 kernels, on av_get_cpu_flags() (so
 * -cpuflags 0 selects the plain C kernels): the NEON kernels of
 * vf_toi420_neon.S do whole iterations of a row, the C kernels of
 * vf_toi420_init.h the rest.
 */

#include <stddef.h>

#include "config.h"
#include "libavutil/attributes.h"
#include "libavutil/cpu.h"
#include "libavutil/aarch64/cpu.h"
#include "libavfilter/toi420dsp.h"

#define TOI420_NO_ARCH_INIT
#define ff_toi420dsp_init toi420dsp_init_aarch64_c
#include "libavfilter/vf_toi420_init.h"
#undef ff_toi420dsp_init

#if HAVE_NEON
/* the RGB kernels load y[], u[], v[], y_add and c_add from these offsets */
_Static_assert(offsetof(ToI420Coeffs, y) == 0 && offsetof(ToI420Coeffs, u) == 6 &&
               offsetof(ToI420Coeffs, v) == 12 && offsetof(ToI420Coeffs, y_add) == 20 &&
               offsetof(ToI420Coeffs, c_add) == 24, "ToI420Coeffs layout of vf_toi420_neon.S");

#define RGB_NEON(name, bits)                                                      \
void ff_toi420_rgb_##name##_neon(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v, \
                                 const uint8_t *src0, const uint8_t *src1,      \
                                 int n, const ToI420Coeffs *c);                 \
static void rgb_##name##_neon(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,  \
                              const uint8_t *src0, const uint8_t *src1,         \
                              int width, const ToI420Coeffs *c)                 \
{                                                                               \
    const int n = width & ~15;                                                  \
    if (n)                                                                      \
        ff_toi420_rgb_##name##_neon(y0, y1, u, v, src0, src1, n, c);            \
    if (width > n)                                                              \
        rgb_##name##_c(y0 + n, y1 + n, u + n / 2, v + n / 2,                    \
                       src0 + bits / 8 * n, src1 + bits / 8 * n, width - n, c); \
}

RGB_NEON(rgba,  32)
RGB_NEON(bgra,  32)
RGB_NEON(argb,  32)
RGB_NEON(abgr,  32)
RGB_NEON(rgb24, 24)
RGB_NEON(bgr24, 24)

void ff_toi420_chroma_h2v2_neon(uint8_t *dst, const uint8_t *src0,
                                const uint8_t *src1, int n);
void ff_toi420_chroma_v2_neon(uint8_t *dst, const uint8_t *src0,
                              const uint8_t *src1, int n);
void ff_toi420_chroma_nv_neon(uint8_t *u, uint8_t *v, const uint8_t *src, int n);
void ff_toi420_yuyv_neon(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                         const uint8_t *src0, const uint8_t *src1, int n);
void ff_toi420_uyvy_neon(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                         const uint8_t *src0, const uint8_t *src1, int n);

/* 16 outputs (32 input samples) an iteration */
static void chroma_h2v2_neon(uint8_t *dst, const uint8_t *src0,
                             const uint8_t *src1, int width)
{
    const int n = (width >> 1) & ~15;
    if (n)
        ff_toi420_chroma_h2v2_neon(dst, src0, src1, n);
    if (width > 2 * n)
        chroma_h2v2_c(dst + n, src0 + 2 * n, src1 + 2 * n, width - 2 * n);
}

/* 32 samples an iteration */
static void chroma_v2_neon(uint8_t *dst, const uint8_t *src0,
                           const uint8_t *src1, int width)
{
    const int n = ((width + 1) >> 1) & ~31;
    if (n)
        ff_toi420_chroma_v2_neon(dst, src0, src1, n);
    if (width > 2 * n)
        chroma_v2_c(dst + n, src0 + n, src1 + n, width - 2 * n);
}

/* 32 Cb and 32 Cr samples an iteration */
static void chroma_nv_neon(uint8_t *u, uint8_t *v, const uint8_t *src, int width)
{
    const int n = ((width + 1) >> 1) & ~31;
    if (n)
        ff_toi420_chroma_nv_neon(u, v, src, n);
    if (width > 2 * n)
        chroma_nv_c(u + n, v + n, src + 2 * n, width - 2 * n);
}

/* 32 pixels an iteration */
#define PACKED_YUV_NEON(name)                                                  \
static void name##_neon(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,    \
                        const uint8_t *src0, const uint8_t *src1, int width) \
{                                                                            \
    const int n = width & ~31;                                               \
    if (n)                                                                   \
        ff_toi420_##name##_neon(y0, y1, u, v, src0, src1, n);                \
    if (width > n)                                                           \
        name##_c(y0 + n, y1 + n, u + n / 2, v + n / 2,                       \
                 src0 + 2 * n, src1 + 2 * n, width - n);                     \
}

PACKED_YUV_NEON(yuyv)
PACKED_YUV_NEON(uyvy)
#endif /* HAVE_NEON */

av_cold void ff_toi420dsp_init_aarch64(ToI420DSPContext *dsp)
{
#if HAVE_NEON
    int cpu_flags = av_get_cpu_flags();

    if (have_neon(cpu_flags)) {
        dsp->rgb[TOI420_RGBA]  = rgb_rgba_neon;
        dsp->rgb[TOI420_BGRA]  = rgb_bgra_neon;
        dsp->rgb[TOI420_ARGB]  = rgb_argb_neon;
        dsp->rgb[TOI420_ABGR]  = rgb_abgr_neon;
        dsp->rgb[TOI420_RGB24] = rgb_rgb24_neon;
        dsp->rgb[TOI420_BGR24] = rgb_bgr24_neon;
        dsp->chroma_h2v2       = chroma_h2v2_neon;
        dsp->chroma_v2         = chroma_v2_neon;
        dsp->chroma_nv         = chroma_nv_neon;
        dsp->packed_yuv[0]     = yuyv_neon;
        dsp->packed_yuv[1]     = uyvy_neon;
    }
#endif
}

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
 * x86 dispatch of the toi420 kernels, on av_get_cpu_flags() (so -cpuflags 0
 * selects the plain C kernels):
 * - the portable C kernels compiled again for AVX2 (vf_toi420_c_avx2.c),
 *   only when the CPU has AVX2;
 * - NASM SSE2/SSSE3 and AVX2 kernels (vf_toi420.asm) for every conversion
 *   but gray, the baseline C kernels of this file doing the last pixels of
 *   a row;
 * - AVX-512 kernels: packed RGB, YUYV/UYVY and NV12/NV21 chroma with the
 *   Ice Lake set (AV_CPU_FLAG_AVX512ICL: VBMI, VNNI), 4:4:4 and 4:2:2 chroma with
 *   AV_CPU_FLAG_AVX512; the AVX2 ones doing the last pixels of a row.
 * Nothing in this file is compiled for more than the build's baseline, so
 * that the tails run on every CPU the SIMD kernel in front of them runs on.
 * The NASM kernels are x86-64 only (8 general-purpose or 16 vector
 * registers, zmm16-31); 32-bit x86 builds use C.
 */

#include "config.h"
#include "libavutil/attributes.h"
#include "libavutil/cpu.h"
#include "libavutil/mem_internal.h"
#include "libavutil/x86/cpu.h"
#include "libavfilter/toi420dsp.h"

/* GCC and clang can compile a file's functions for another target; the
 * others build no such kernels (the NASM ones still dispatch) */
#if HAVE_AVX2 && (defined(__clang__) || defined(__GNUC__))
#define TOI420_C_AVX2 1
void ff_toi420dsp_init_x86_c_avx2(ToI420DSPContext *dsp);
#else
#define TOI420_C_AVX2 0
#endif
#define TOI420_NO_ARCH_INIT
#define ff_toi420dsp_init toi420dsp_init_x86_c
#include "libavfilter/vf_toi420_init.h"
#undef ff_toi420dsp_init

#if HAVE_X86ASM && ARCH_X86_64
#define RGB_PROTO(bits, isa)                                                    \
void ff_toi420_rgb##bits##_##isa(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v, \
                                 const uint8_t *src0, const uint8_t *src1,      \
                                 int width, const ToI420PixelCoeffs *coeffs);
/* the 24-bit kernels read up to 4 bytes past the last of their pixels */
RGB_PROTO(32, ssse3)
RGB_PROTO(24, ssse3)
RGB_PROTO(32, avx2)
RGB_PROTO(24, avx2)

/* The kernels take multiples of 16 pixels; the C kernel does the rest.
 * 24-bit: keep 2 pixels (6 bytes) for C, so that the kernel's 4-byte
 * overread stays inside the row. */
#define RGB_ASM(name, bits, idx, isa)                                            \
static void rgb_##name##_##isa(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v, \
                               const uint8_t *src0, const uint8_t *src1,        \
                               int width, const ToI420Coeffs *c)                \
{                                                                               \
    const int n = (bits == 24 ? FFMAX(width - 2, 0) : width) & ~15;             \
    if (n)                                                                      \
        ff_toi420_rgb##bits##_##isa(y0, y1, u, v, src0, src1, n,               \
                                    &c->layout[idx]);                           \
    if (width > n)                                                              \
        rgb_##name##_c(y0 + n, y1 + n, u + n / 2, v + n / 2,                    \
                       src0 + bits / 8 * n, src1 + bits / 8 * n, width - n, c); \
}

#define RGB_ASM_ALL(isa)                  \
    RGB_ASM(rgba,  32, TOI420_RGBA,  isa) \
    RGB_ASM(bgra,  32, TOI420_BGRA,  isa) \
    RGB_ASM(argb,  32, TOI420_ARGB,  isa) \
    RGB_ASM(abgr,  32, TOI420_ABGR,  isa) \
    RGB_ASM(rgb24, 24, TOI420_RGB24, isa) \
    RGB_ASM(bgr24, 24, TOI420_BGR24, isa)

RGB_ASM_ALL(ssse3)
#if HAVE_AVX2_EXTERNAL
RGB_ASM_ALL(avx2)
#endif

#if HAVE_AVX512ICL_EXTERNAL && HAVE_AVX2_EXTERNAL
RGB_PROTO(32, avx512icl)
RGB_PROTO(24, avx512icl)

/* Multiples of 32 pixels, the rest through the AVX2 version. 24-bit: keep
 * 6 pixels (18 bytes) for it, so that the kernel's 16-byte overread stays
 * inside the row. */
#define RGB_ASM512(name, bits, idx)                                              \
static void rgb_##name##_avx512icl(uint8_t *y0, uint8_t *y1, uint8_t *u,        \
                                   uint8_t *v, const uint8_t *src0,             \
                                   const uint8_t *src1, int width,              \
                                   const ToI420Coeffs *c)                       \
{                                                                               \
    const int n = (bits == 24 ? FFMAX(width - 6, 0) : width) & ~31;             \
    if (n)                                                                      \
        ff_toi420_rgb##bits##_avx512icl(y0, y1, u, v, src0, src1, n,           \
                                        &c->layout[idx]);                       \
    if (width > n)                                                              \
        rgb_##name##_avx2(y0 + n, y1 + n, u + n / 2, v + n / 2,                 \
                          src0 + bits / 8 * n, src1 + bits / 8 * n, width - n, c); \
}
RGB_ASM512(rgba,  32, TOI420_RGBA)
RGB_ASM512(bgra,  32, TOI420_BGRA)
RGB_ASM512(argb,  32, TOI420_ARGB)
RGB_ASM512(abgr,  32, TOI420_ABGR)
RGB_ASM512(rgb24, 24, TOI420_RGB24)
RGB_ASM512(bgr24, 24, TOI420_BGR24)
#define HAVE_RGB_AVX512 1
#endif

/* The planar and packed-YUV kernels make multiples of 32 chroma samples
 * (32 pixels for YUYV/UYVY); C does the rest. */
#define PLANAR_PROTOS(isa)                                                         \
void ff_toi420_chroma_h2v2_##isa(uint8_t *dst, const uint8_t *src0,               \
                                 const uint8_t *src1, int n);                      \
void ff_toi420_chroma_nv_##isa(uint8_t *u, uint8_t *v, const uint8_t *src, int n); \
void ff_toi420_yuyv_##isa(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,        \
                          const uint8_t *src0, const uint8_t *src1, int n);        \
void ff_toi420_uyvy_##isa(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,        \
                          const uint8_t *src0, const uint8_t *src1, int n);
void ff_toi420_chroma_v2_sse2(uint8_t *dst, const uint8_t *src0, const uint8_t *src1, int n);
void ff_toi420_chroma_v2_avx2(uint8_t *dst, const uint8_t *src0, const uint8_t *src1, int n);

/* Wrappers: the kernel of an ISA does the multiple of "mult" outputs of
 * a row, "tail" (C or a narrower ISA) the rest. */
#define H2V2_WRAPPER(isa, mult, tail)                                              \
static void chroma_h2v2_##isa(uint8_t *dst, const uint8_t *src0,                  \
                              const uint8_t *src1, int width)                     \
{                                                                                 \
    const int n = (width >> 1) & ~(mult - 1);                                     \
    if (n)                                                                        \
        ff_toi420_chroma_h2v2_##isa(dst, src0, src1, n);                          \
    if (width > 2 * n)                                                            \
        tail(dst + n, src0 + 2 * n, src1 + 2 * n, width - 2 * n);                 \
}

#define V2_WRAPPER(isa, mult, tail)                                                \
static void chroma_v2_##isa(uint8_t *dst, const uint8_t *src0,                    \
                            const uint8_t *src1, int width)                       \
{                                                                                 \
    const int n = ((width + 1) >> 1) & ~(mult - 1);                               \
    if (n)                                                                        \
        ff_toi420_chroma_v2_##isa(dst, src0, src1, n);                            \
    if (width > 2 * n)                                                            \
        tail(dst + n, src0 + n, src1 + n, width - 2 * n);                         \
}

#define NV_WRAPPER(isa, mult, tail)                                                \
static void chroma_nv_##isa(uint8_t *u, uint8_t *v, const uint8_t *src, int width) \
{                                                                                 \
    const int n = ((width + 1) >> 1) & ~(mult - 1);                               \
    if (n)                                                                        \
        ff_toi420_chroma_nv_##isa(u, v, src, n);                                  \
    if (width > 2 * n)                                                            \
        tail(u + n, v + n, src + 2 * n, width - 2 * n);                           \
}

#define PACKED_YUV_WRAPPER(name, isa, mult, tail)                                  \
static void name##_##isa(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,        \
                         const uint8_t *src0, const uint8_t *src1, int width)     \
{                                                                                 \
    const int n = width & ~(mult - 1);                                            \
    if (n)                                                                        \
        ff_toi420_##name##_##isa(y0, y1, u, v, src0, src1, n);                    \
    if (width > n)                                                                \
        tail(y0 + n, y1 + n, u + n / 2, v + n / 2,                                \
             src0 + 2 * n, src1 + 2 * n, width - n);                              \
}

#define PLANAR_WRAPPERS(isa)                   \
    H2V2_WRAPPER(isa, 32, chroma_h2v2_c)       \
    NV_WRAPPER(isa, 32, chroma_nv_c)           \
    PACKED_YUV_WRAPPER(yuyv, isa, 32, yuyv_c)  \
    PACKED_YUV_WRAPPER(uyvy, isa, 32, uyvy_c)

PLANAR_PROTOS(ssse3)
PLANAR_WRAPPERS(ssse3)
V2_WRAPPER(sse2, 32, chroma_v2_c)
#if HAVE_AVX2_EXTERNAL
PLANAR_PROTOS(avx2)
PLANAR_WRAPPERS(avx2)
V2_WRAPPER(avx2, 32, chroma_v2_c)
#endif

#if HAVE_AVX512_EXTERNAL && HAVE_AVX2_EXTERNAL
void ff_toi420_chroma_h2v2_avx512(uint8_t *dst, const uint8_t *src0,
                                  const uint8_t *src1, int n);
void ff_toi420_chroma_v2_avx512(uint8_t *dst, const uint8_t *src0,
                                const uint8_t *src1, int n);
H2V2_WRAPPER(avx512, 64, chroma_h2v2_avx2)
V2_WRAPPER(avx512, 64, chroma_v2_avx2)
#define HAVE_PLANAR_AVX512 1
#endif

#if HAVE_AVX512ICL_EXTERNAL && HAVE_AVX2_EXTERNAL
void ff_toi420_chroma_nv_avx512icl(uint8_t *u, uint8_t *v, const uint8_t *src, int n);
void ff_toi420_yuyv_avx512icl(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                              const uint8_t *src0, const uint8_t *src1, int n);
void ff_toi420_uyvy_avx512icl(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                              const uint8_t *src0, const uint8_t *src1, int n);
NV_WRAPPER(avx512icl, 64, chroma_nv_avx2)
PACKED_YUV_WRAPPER(yuyv, avx512icl, 64, yuyv_avx2)
PACKED_YUV_WRAPPER(uyvy, avx512icl, 64, uyvy_avx2)
#endif

#define SET_PLANAR(isa)                                 \
    do {                                                \
        dsp->chroma_h2v2   = chroma_h2v2_##isa;         \
        dsp->chroma_nv     = chroma_nv_##isa;           \
        dsp->packed_yuv[0] = yuyv_##isa;                \
        dsp->packed_yuv[1] = uyvy_##isa;                \
    } while (0)

#define SET_RGB(isa)                                \
    do {                                            \
        dsp->rgb[TOI420_RGBA]  = rgb_rgba_##isa;    \
        dsp->rgb[TOI420_BGRA]  = rgb_bgra_##isa;    \
        dsp->rgb[TOI420_ARGB]  = rgb_argb_##isa;    \
        dsp->rgb[TOI420_ABGR]  = rgb_abgr_##isa;    \
        dsp->rgb[TOI420_RGB24] = rgb_rgb24_##isa;   \
        dsp->rgb[TOI420_BGR24] = rgb_bgr24_##isa;   \
    } while (0)
#endif

av_cold void ff_toi420dsp_init_x86(ToI420DSPContext *dsp)
{
    int cpu_flags = av_get_cpu_flags();

#if TOI420_C_AVX2
    if (X86_AVX2(cpu_flags))
        ff_toi420dsp_init_x86_c_avx2(dsp);
#endif
#if HAVE_X86ASM && ARCH_X86_64
    if (EXTERNAL_SSE2(cpu_flags))
        dsp->chroma_v2 = chroma_v2_sse2;
    if (EXTERNAL_SSSE3(cpu_flags)) {
        SET_RGB(ssse3);
        SET_PLANAR(ssse3);
    }
#endif
#if HAVE_AVX2_EXTERNAL && ARCH_X86_64
    if (EXTERNAL_AVX2_FAST(cpu_flags)) {
        SET_RGB(avx2);
        SET_PLANAR(avx2);
        dsp->chroma_v2 = chroma_v2_avx2;
    }
#endif
#ifdef HAVE_PLANAR_AVX512
    if (EXTERNAL_AVX512(cpu_flags)) {
        dsp->chroma_h2v2 = chroma_h2v2_avx512;
        dsp->chroma_v2   = chroma_v2_avx512;
    }
#endif
#ifdef HAVE_RGB_AVX512
    if (EXTERNAL_AVX512ICL(cpu_flags)) {
        SET_RGB(avx512icl);
        dsp->chroma_nv     = chroma_nv_avx512icl;
        dsp->packed_yuv[0] = yuyv_avx512icl;
        dsp->packed_yuv[1] = uyvy_avx512icl;
    }
#endif
    (void)cpu_flags;
}

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
 * The portable C kernels of toi420 compiled again for AVX2, which the
 * auto-vectorizer turns into 256-bit code with byte shuffles (the baseline
 * x86-64 build only has SSE2).
 *
 * Everything in this file is AVX2 code: it is a file of its own so that no
 * function compiled for AVX2 can be reached but through
 * ff_toi420dsp_init_x86_c_avx2(), which vf_toi420_init.c calls only when
 * av_get_cpu_flags() has AV_CPU_FLAG_AVX2. The row tails of the SSE2/SSSE3
 * kernels call the baseline C kernels of vf_toi420_init.c.
 *
 * GCC compiles the file for AVX2 with its target pragma, clang with a
 * target attribute on every function of the file; other compilers build
 * none of it (vf_toi420_init.c checks the same condition).
 */

#include "config.h"

#if HAVE_AVX2 && (defined(__clang__) || defined(__GNUC__))
#if defined(__clang__)
#pragma clang attribute push (__attribute__((target("avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
#define TOI420_NO_ARCH_INIT
#define ff_toi420dsp_init toi420dsp_init_c_avx2
#include "libavfilter/vf_toi420_init.h"
#undef ff_toi420dsp_init

void ff_toi420dsp_init_x86_c_avx2(ToI420DSPContext *dsp);

void ff_toi420dsp_init_x86_c_avx2(ToI420DSPContext *dsp)
{
    toi420dsp_init_c_avx2(dsp);
}
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

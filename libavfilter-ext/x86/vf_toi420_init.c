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
 * x86 dispatch of the toi420 kernels. Until hand-written kernels land, the
 * portable C kernels are compiled a second time here for AVX2, which the
 * auto-vectorizer turns into 256-bit code with byte shuffles (the baseline
 * x86-64 build only has SSE2). Selected by av_get_cpu_flags(), so that
 * -cpuflags 0 gets the plain C kernels.
 */

#include "config.h"
#include "libavutil/attributes.h"
#include "libavutil/cpu.h"
#include "libavutil/x86/cpu.h"
#include "libavfilter/toi420dsp.h"

#if HAVE_AVX2 && defined(__GNUC__) && !defined(__clang__)
#define TOI420_C_AVX2 1
#pragma GCC push_options
#pragma GCC target("avx2")
#define TOI420_NO_ARCH_INIT
#define ff_toi420dsp_init toi420dsp_init_c_avx2
#include "libavfilter/vf_toi420_init.h"
#undef ff_toi420dsp_init
#pragma GCC pop_options
#endif

av_cold void ff_toi420dsp_init_x86(ToI420DSPContext *dsp)
{
#if TOI420_C_AVX2
    int cpu_flags = av_get_cpu_flags();

    if (X86_AVX2(cpu_flags))
        toi420dsp_init_c_avx2(dsp);
#endif
}

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
 * toi420 kernels against the C reference, bit for bit: every width from 1
 * to 67 and 1920, the last row of an odd height (src1 == src0, y1 == y0),
 * limited and full range, with guard bytes after every output row.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "libavfilter/vf_toi420_init.h"
#include "libavutil/cpu.h"
#include "libavutil/mem_internal.h"

/*
 * With TOI420_CHECKASM_LIST set in the environment, each kernel version
 * that is compared with C is named on stderr, with the highest CPU flag of
 * the set checkasm tests it under ("toi420 kernel: ssse3 rgba"): the list
 * tests/cpu/checkasm.sh checks against the versions a CPU model must have.
 * (checkasm's own list comes from --bench, which needs a cycle counter
 * qemu-aarch64 does not give.)
 */
static int toi420_check_func(void *func, const char *name)
{
    static const struct { int flag; const char *name; } isa[] = {
#if ARCH_X86
        { AV_CPU_FLAG_AVX512ICL, "avx512icl" }, { AV_CPU_FLAG_AVX512, "avx512" },
        { AV_CPU_FLAG_AVX2, "avx2" }, { AV_CPU_FLAG_AVX, "avx" },
        { AV_CPU_FLAG_SSE42, "sse42" }, { AV_CPU_FLAG_SSE4, "sse4" },
        { AV_CPU_FLAG_SSSE3, "ssse3" }, { AV_CPU_FLAG_SSE3, "sse3" },
        { AV_CPU_FLAG_SSE2, "sse2" }, { AV_CPU_FLAG_MMX, "mmx" },
#elif ARCH_AARCH64
        { AV_CPU_FLAG_I8MM, "i8mm" }, { AV_CPU_FLAG_DOTPROD, "dotprod" },
        { AV_CPU_FLAG_NEON, "neon" },
#endif
        { 0, "c" },
    };
    const int flags = av_get_cpu_flags();
    int i = 0;

    if (!func)
        return 0;
    if (getenv("TOI420_CHECKASM_LIST")) {
        while (isa[i].flag && !(flags & isa[i].flag))
            i++;
        fprintf(stderr, "toi420 kernel: %s %s\n", isa[i].name, name);
    }
    return 1;
}

#define MAX_W   1920
#define GUARD   64
#define ROW     (MAX_W + GUARD)
/* Unaligned rows: the sources and destinations of call i start this many
 * bytes into their (aligned) buffers. Negative linesizes do not reach the
 * kernels, which take one row pointer each (the filter's FATE tests run
 * vflip,toi420). */
#define SRC_OFF(i) (((i) * 3) % 16)
#define DST_OFF(i) (((i) * 5) % 16)

/* four output rows: Y0, Y1, Cb, Cr (or two Cb, Cr for NV) */
#define OUTPUT_ROWS(name)                                           \
    LOCAL_ALIGNED_32(uint8_t, name##_buf, [4 * ROW]);               \
    uint8_t *name[4] = { name##_buf, name##_buf + ROW,              \
                         name##_buf + 2 * ROW, name##_buf + 3 * ROW }

#define randomize(buf, size)                \
    do {                                    \
        for (int j = 0; j < (size); j++)    \
            (buf)[j] = rnd() & 0xff;        \
    } while (0)

/* BT.601 and BT.709 coefficients as vf_toi420.c makes them */
static ToI420Coeffs coeffs[2] = {
    { { 8414, 16519, 3208 }, { -4856, -9535, 14392 }, { 14392, -12051, -2341 },
      (16 << 15) + (1 << 14), (128 << 17) + (1 << 16) },
    { { 6966, 23436, 2366 }, { -3754, -12630, 16384 }, { 16384, -14881, -1503 },
      1 << 14, (128 << 17) + (1 << 16) },
};

static int widths(int i)
{
    return i < 67 ? i + 1 : MAX_W;
}

static void check_rgb(void)
{
    static const char *const names[TOI420_NB_RGB] = { "rgba", "bgra", "argb", "abgr", "rgb24", "bgr24" };
    LOCAL_ALIGNED_32(uint8_t, src0, [MAX_W * 4 + GUARD]);
    LOCAL_ALIGNED_32(uint8_t, src1, [MAX_W * 4 + GUARD]);
    OUTPUT_ROWS(ref);
    OUTPUT_ROWS(new);
    ToI420DSPContext dsp;

    declare_func(void, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                 const uint8_t *src0, const uint8_t *src1, int width,
                 const ToI420Coeffs *c);

    ff_toi420dsp_init(&dsp);
    ff_toi420_coeffs_layouts(&coeffs[0]);
    ff_toi420_coeffs_layouts(&coeffs[1]);
    for (int f = 0; f < TOI420_NB_RGB; f++) {
        if (!toi420_check_func(check_func(dsp.rgb[f], "toi420_%s", names[f]), names[f]))
            continue;
        for (int i = 0; i < 68; i++) {
            const int w = widths(i), last_row = i & 1, so = SRC_OFF(i), d = DST_OFF(i);
            const ToI420Coeffs *c = &coeffs[(i >> 1) & 1];
            const uint8_t *s1 = (last_row ? src0 : src1) + so;

            randomize(src0, MAX_W * 4 + GUARD);
            randomize(src1, MAX_W * 4 + GUARD);
            memset(ref_buf, 0xaa, 4 * ROW);
            memset(new_buf, 0xaa, 4 * ROW);
            /* on the last row of an odd height, y1 == y0 */
            call_ref(ref[0] + d, (last_row ? ref[0] : ref[1]) + d, ref[2] + d, ref[3] + d, src0 + so, s1, w, c);
            call_new(new[0] + d, (last_row ? new[0] : new[1]) + d, new[2] + d, new[3] + d, src0 + so, s1, w, c);
            for (int p = 0; p < 4; p++)
                if (memcmp(ref[p], new[p], ROW))
                    fail();
        }
        bench_new(new[0], new[1], new[2], new[3], src0, src1, MAX_W, &coeffs[0]);
    }
    report("rgb");
}

static void check_planar(void)
{
    LOCAL_ALIGNED_32(uint8_t, src0, [MAX_W * 2 + GUARD]);
    LOCAL_ALIGNED_32(uint8_t, src1, [MAX_W * 2 + GUARD]);
    OUTPUT_ROWS(ref);
    OUTPUT_ROWS(new);
    ToI420DSPContext dsp;

    ff_toi420dsp_init(&dsp);
    {
        declare_func(void, uint8_t *dst, const uint8_t *src0, const uint8_t *src1, int width);
        if (toi420_check_func(check_func(dsp.chroma_h2v2, "toi420_chroma_h2v2"), "chroma_h2v2")) {
            for (int i = 0; i < 68; i++) {
                const int w = widths(i);
                randomize(src0, MAX_W * 2 + GUARD);
                randomize(src1, MAX_W * 2 + GUARD);
                memset(ref[0], 0xaa, ROW);
                memset(new[0], 0xaa, ROW);
                call_ref(ref[0] + DST_OFF(i), src0 + SRC_OFF(i), (i & 1 ? src0 : src1) + SRC_OFF(i), w);
                call_new(new[0] + DST_OFF(i), src0 + SRC_OFF(i), (i & 1 ? src0 : src1) + SRC_OFF(i), w);
                if (memcmp(ref[0], new[0], ROW))
                    fail();
            }
            bench_new(new[0], src0, src1, MAX_W);
        }
        if (toi420_check_func(check_func(dsp.chroma_v2, "toi420_chroma_v2"), "chroma_v2")) {
            for (int i = 0; i < 68; i++) {
                const int w = widths(i);
                randomize(src0, MAX_W * 2 + GUARD);
                randomize(src1, MAX_W * 2 + GUARD);
                memset(ref[0], 0xaa, ROW);
                memset(new[0], 0xaa, ROW);
                call_ref(ref[0] + DST_OFF(i), src0 + SRC_OFF(i), src1 + SRC_OFF(i), w);
                call_new(new[0] + DST_OFF(i), src0 + SRC_OFF(i), src1 + SRC_OFF(i), w);
                if (memcmp(ref[0], new[0], ROW))
                    fail();
            }
            bench_new(new[0], src0, src1, MAX_W);
        }
    }
    {
        declare_func(void, uint8_t *u, uint8_t *v, const uint8_t *src, int width);
        if (toi420_check_func(check_func(dsp.chroma_nv, "toi420_chroma_nv"), "chroma_nv")) {
            for (int i = 0; i < 68; i++) {
                const int w = widths(i);
                randomize(src0, MAX_W * 2 + GUARD);
                memset(ref_buf, 0xaa, 2 * ROW);
                memset(new_buf, 0xaa, 2 * ROW);
                call_ref(ref[0] + DST_OFF(i), ref[1] + DST_OFF(i), src0 + SRC_OFF(i), w);
                call_new(new[0] + DST_OFF(i), new[1] + DST_OFF(i), src0 + SRC_OFF(i), w);
                if (memcmp(ref_buf, new_buf, 2 * ROW))
                    fail();
            }
            bench_new(new[0], new[1], src0, MAX_W);
        }
    }
    {
        static const char *const names[2] = { "yuyv", "uyvy" };
        declare_func(void, uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
                     const uint8_t *src0, const uint8_t *src1, int width);
        for (int f = 0; f < 2; f++) {
            if (!toi420_check_func(check_func(dsp.packed_yuv[f], "toi420_%s", names[f]), names[f]))
                continue;
            for (int i = 0; i < 68; i++) {
                const int w = widths(i), last_row = i & 1, so = SRC_OFF(i), d = DST_OFF(i);
                randomize(src0, MAX_W * 2 + GUARD);
                randomize(src1, MAX_W * 2 + GUARD);
                memset(ref_buf, 0xaa, 4 * ROW);
                memset(new_buf, 0xaa, 4 * ROW);
                call_ref(ref[0] + d, (last_row ? ref[0] : ref[1]) + d, ref[2] + d, ref[3] + d,
                         src0 + so, (last_row ? src0 : src1) + so, w);
                call_new(new[0] + d, (last_row ? new[0] : new[1]) + d, new[2] + d, new[3] + d,
                         src0 + so, (last_row ? src0 : src1) + so, w);
                for (int p = 0; p < 4; p++)
                    if (memcmp(ref[p], new[p], ROW))
                        fail();
            }
            bench_new(new[0], new[1], new[2], new[3], src0, src1, MAX_W);
        }
    }
    report("planar_packed");
}

void checkasm_check_vf_toi420(void)
{
    check_rgb();
    check_planar();
}

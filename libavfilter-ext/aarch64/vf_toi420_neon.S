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
 * NEON row kernels of the toi420 filter, bit-exact with the C kernels of
 * vf_toi420_init.h. Each takes a whole number of iterations (n > 0, a
 * multiple of the step given above the function); the C wrappers in
 * vf_toi420_init_aarch64.c do the rest of a row. They read exactly the
 * pixels they convert (deinterleaving loads, no overread) and use only
 * v0-v7 and v16-v31 (v8-v15 are callee-saved).
 */

#include "libavutil/aarch64/asm.S"

/*
 * Packed RGB, 16 pixels of two rows an iteration.
 *   x0 y0, x1 y1, x2 u, x3 v, x4 src0, x5 src1, w6 n (multiple of 16),
 *   x7 const ToI420Coeffs *: int16 y[3], u[3], v[3] at bytes 0-17,
 *   int32 y_add at 20, c_add at 24 (checked in the init file).
 * Y  = clip((y0 R + y1 G + y2 B + y_add) >> 15)          per pixel
 * Cb = clip((u0 sR + u1 sG + u2 sB + c_add) >> 17)       per 2x2 block
 * with 16-bit operands and 32-bit widening multiply-accumulates; sR is the
 * sum of the block's four R values (at most 1020), made by pairwise adds.
 */

// \dst.16b = Y of the 16 pixels in the byte planes \r, \g, \b
// (v0.h[0-2]: coefficients, v2.4s: y_add; clobbers v4-v7, v24-v29)
.macro luma16 dst, r, g, b
        uxtl            v24.8h, \r\().8b
        uxtl2           v25.8h, \r\().16b
        uxtl            v26.8h, \g\().8b
        uxtl2           v27.8h, \g\().16b
        uxtl            v28.8h, \b\().8b
        uxtl2           v29.8h, \b\().16b
        mov             v4.16b, v2.16b
        mov             v5.16b, v2.16b
        mov             v6.16b, v2.16b
        mov             v7.16b, v2.16b
        smlal           v4.4s, v24.4h, v0.h[0]
        smlal2          v5.4s, v24.8h, v0.h[0]
        smlal           v6.4s, v25.4h, v0.h[0]
        smlal2          v7.4s, v25.8h, v0.h[0]
        smlal           v4.4s, v26.4h, v0.h[1]
        smlal2          v5.4s, v26.8h, v0.h[1]
        smlal           v6.4s, v27.4h, v0.h[1]
        smlal2          v7.4s, v27.8h, v0.h[1]
        smlal           v4.4s, v28.4h, v0.h[2]
        smlal2          v5.4s, v28.8h, v0.h[2]
        smlal           v6.4s, v29.4h, v0.h[2]
        smlal2          v7.4s, v29.8h, v0.h[2]
        // (x >> 15) clipped to 0..65535, then to 0..255
        sqshrun         v4.4h, v4.4s, #15
        sqshrun2        v4.8h, v5.4s, #15
        sqshrun         v6.4h, v6.4s, #15
        sqshrun2        v6.8h, v7.4s, #15
        uqxtn           \dst\().8b, v4.8h
        uqxtn2          \dst\().16b, v6.8h
.endm

// \dst.8b = 8 chroma samples from the block sums v24 (R), v25 (G), v26 (B)
// and the coefficient elements \kr, \kg, \kb (v3.4s: c_add; clobbers v4, v5)
.macro chroma8 dst, kr, kg, kb
        mov             v4.16b, v3.16b
        mov             v5.16b, v3.16b
        smlal           v4.4s, v24.4h, \kr
        smlal2          v5.4s, v24.8h, \kr
        smlal           v4.4s, v25.4h, \kg
        smlal2          v5.4s, v25.8h, \kg
        smlal           v4.4s, v26.4h, \kb
        smlal2          v5.4s, v26.8h, \kb
        // (x >> 16) clipped to 0..65535, then >> 1 clipped to 0..255:
        // the same as (x >> 17) clipped to 0..255
        sqshrun         v4.4h, v4.4s, #16
        sqshrun2        v4.8h, v5.4s, #16
        uqshrn          \dst\().8b, v4.8h, #1
.endm

// name; bytes per pixel; the planes of R, G and B of row 0, then of row 1
.macro rgb_func name, bpp, r0, g0, b0, r1, g1, b1
function ff_toi420_rgb_\name\()_neon, export=1
        ld1             {v0.8h, v1.8h}, [x7]
        dup             v2.4s, v1.s[1]
        dup             v3.4s, v1.s[2]
1:
.if \bpp == 4
        ld4             {v16.16b, v17.16b, v18.16b, v19.16b}, [x4], #64
        ld4             {v20.16b, v21.16b, v22.16b, v23.16b}, [x5], #64
.else
        ld3             {v16.16b, v17.16b, v18.16b}, [x4], #48
        ld3             {v20.16b, v21.16b, v22.16b}, [x5], #48
.endif
        subs            w6, w6, #16
        uaddlp          v24.8h, \r0\().16b
        uaddlp          v25.8h, \g0\().16b
        uaddlp          v26.8h, \b0\().16b
        uadalp          v24.8h, \r1\().16b
        uadalp          v25.8h, \g1\().16b
        uadalp          v26.8h, \b1\().16b
        chroma8         v30, v0.h[3], v0.h[4], v0.h[5]
        chroma8         v31, v0.h[6], v0.h[7], v1.h[0]
        st1             {v30.8b}, [x2], #8
        st1             {v31.8b}, [x3], #8
        luma16          v30, \r0, \g0, \b0
        st1             {v30.16b}, [x0], #16
        luma16          v31, \r1, \g1, \b1
        st1             {v31.16b}, [x1], #16
        b.gt            1b
        ret
endfunc
.endm

rgb_func rgba,  4, v16, v17, v18, v20, v21, v22
rgb_func bgra,  4, v18, v17, v16, v22, v21, v20
rgb_func argb,  4, v17, v18, v19, v21, v22, v23
rgb_func abgr,  4, v19, v18, v17, v23, v22, v21
rgb_func rgb24, 3, v16, v17, v18, v20, v21, v22
rgb_func bgr24, 3, v18, v17, v16, v22, v21, v20

/*
 * YUYV / UYVY, 32 pixels of two rows an iteration.
 *   x0 y0, x1 y1, x2 u, x3 v, x4 src0, x5 src1, w6 n (multiple of 32)
 * ld4 splits 32 pixels into even luma, Cb, odd luma and Cr (YUYV order);
 * the chroma of the two rows is averaged with rounding.
 */
// name; the planes of even Y, Cb, odd Y and Cr of row 0, then of row 1
.macro packed_yuv_func name, ya0, cb0, yb0, cr0, ya1, cb1, yb1, cr1
function ff_toi420_\name\()_neon, export=1
1:
        ld4             {v16.16b, v17.16b, v18.16b, v19.16b}, [x4], #64
        ld4             {v20.16b, v21.16b, v22.16b, v23.16b}, [x5], #64
        subs            w6, w6, #32
        urhadd          v24.16b, \cb0\().16b, \cb1\().16b
        urhadd          v25.16b, \cr0\().16b, \cr1\().16b
        mov             v26.16b, \ya0\().16b
        mov             v27.16b, \yb0\().16b
        mov             v28.16b, \ya1\().16b
        mov             v29.16b, \yb1\().16b
        st1             {v24.16b}, [x2], #16
        st1             {v25.16b}, [x3], #16
        st2             {v26.16b, v27.16b}, [x0], #32
        st2             {v28.16b, v29.16b}, [x1], #32
        b.gt            1b
        ret
endfunc
.endm

packed_yuv_func yuyv, v16, v17, v18, v19, v20, v21, v22, v23
packed_yuv_func uyvy, v17, v16, v19, v18, v21, v20, v23, v22

/*
 * 4:4:4 chroma: dst[x] = 2x2 box average with rounding.
 *   x0 dst, x1 src0, x2 src1, w3 n (outputs, multiple of 16)
 */
function ff_toi420_chroma_h2v2_neon, export=1
1:
        ld1             {v0.16b, v1.16b}, [x1], #32
        ld1             {v2.16b, v3.16b}, [x2], #32
        subs            w3, w3, #16
        uaddlp          v4.8h, v0.16b
        uaddlp          v5.8h, v1.16b
        uadalp          v4.8h, v2.16b
        uadalp          v5.8h, v3.16b
        rshrn           v6.8b, v4.8h, #2
        rshrn2          v6.16b, v5.8h, #2
        st1             {v6.16b}, [x0], #16
        b.gt            1b
        ret
endfunc

/*
 * 4:2:2 chroma: dst[x] = (src0[x] + src1[x] + 1) >> 1.
 *   x0 dst, x1 src0, x2 src1, w3 n (multiple of 32)
 */
function ff_toi420_chroma_v2_neon, export=1
1:
        ld1             {v0.16b, v1.16b}, [x1], #32
        ld1             {v2.16b, v3.16b}, [x2], #32
        subs            w3, w3, #32
        urhadd          v0.16b, v0.16b, v2.16b
        urhadd          v1.16b, v1.16b, v3.16b
        st1             {v0.16b, v1.16b}, [x0], #32
        b.gt            1b
        ret
endfunc

/*
 * NV12 chroma: split interleaved Cb/Cr.
 *   x0 u, x1 v, x2 src, w3 n (samples of each plane, multiple of 32)
 */
function ff_toi420_chroma_nv_neon, export=1
1:
        ld2             {v0.16b, v1.16b}, [x2], #32
        ld2             {v2.16b, v3.16b}, [x2], #32
        subs            w3, w3, #32
        st1             {v0.16b}, [x0], #16
        st1             {v1.16b}, [x1], #16
        st1             {v2.16b}, [x0], #16
        st1             {v3.16b}, [x1], #16
        b.gt            1b
        ret
endfunc

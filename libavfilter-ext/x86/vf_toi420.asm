;*****************************************************************************
;* x86 kernels of the toi420 filter
;*
;* This file is part of FFmpeg.
;*
;* FFmpeg is free software; you can redistribute it and/or
;* modify it under the terms of the GNU Lesser General Public
;* License as published by the Free Software Foundation; either
;* version 2.1 of the License, or (at your option) any later version.
;*
;* FFmpeg is distributed in the hope that it will be useful,
;* but WITHOUT ANY WARRANTY; without even the implied warranty of
;* MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
;* Lesser General Public License for more details.
;*
;* You should have received a copy of the GNU Lesser General Public
;* License along with FFmpeg; if not, write to the Free Software
;* Foundation, Inc., 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301 USA
;*****************************************************************************

%include "libavutil/x86/x86util.asm"

; the RGB kernels take 8 general-purpose and 16 vector registers, the
; AVX-512 ones zmm16-31: the kernels are x86-64 only, as is their dispatch
; in vf_toi420_init.c (32-bit x86 builds use the C kernels)
%if ARCH_X86_64

SECTION_RODATA 64

; AVX-512 RGB kernels. After packssdw of the luma dwords of pixels 0-15 (A)
; and 16-31 (B) of row 0, the same (C, D) of row 1, and packuswb of the two,
; 128-bit lane i holds A, B, C, D [4i .. 4i + 3]: put each row in order.
perm_y512: db  0,  1,  2,  3, 16, 17, 18, 19, 32, 33, 34, 35, 48, 49, 50, 51
           db  4,  5,  6,  7, 20, 21, 22, 23, 36, 37, 38, 39, 52, 53, 54, 55
           db  8,  9, 10, 11, 24, 25, 26, 27, 40, 41, 42, 43, 56, 57, 58, 59
           db 12, 13, 14, 15, 28, 29, 30, 31, 44, 45, 46, 47, 60, 61, 62, 63
; the same for Cb, Cr interleaved as dwords of pairs 0-7 and 8-15, packed
; with packssdw and packuswb: Cb 0-15, then Cr 0-15
perm_c512: db  0,  2, 16, 18, 32, 34, 48, 50,  4,  6, 20, 22, 36, 38, 52, 54
           db  1,  3, 17, 19, 33, 35, 49, 51,  5,  7, 21, 23, 37, 39, 53, 55
           times 32 db 0
; 16 packed 24-bit pixels: bytes 0 and 2 of each to words (even), byte 1 to
; a word (odd); the other bytes are zeroed by the masks below
perm_e24: db  0, 0,  2, 0,  3, 0,  5, 0,  6, 0,  8, 0,  9, 0, 11, 0
          db 12, 0, 14, 0, 15, 0, 17, 0, 18, 0, 20, 0, 21, 0, 23, 0
          db 24, 0, 26, 0, 27, 0, 29, 0, 30, 0, 32, 0, 33, 0, 35, 0
          db 36, 0, 38, 0, 39, 0, 41, 0, 42, 0, 44, 0, 45, 0, 47, 0
perm_o24: db  1, 0, 0, 0,  4, 0, 0, 0,  7, 0, 0, 0, 10, 0, 0, 0
          db 13, 0, 0, 0, 16, 0, 0, 0, 19, 0, 0, 0, 22, 0, 0, 0
          db 25, 0, 0, 0, 28, 0, 0, 0, 31, 0, 0, 0, 34, 0, 0, 0
          db 37, 0, 0, 0, 40, 0, 0, 0, 43, 0, 0, 0, 46, 0, 0, 0
; chroma_nv_avx512icl: the even bytes of two registers, then the odd ones
perm_nv_e:
%assign i 0
%rep 64
           db i
%assign i i + 2
%endrep
perm_nv_o:
%assign i 1
%rep 64
           db i
%assign i i + 2
%endrep
; packed YUV, AVX-512: the even bytes of 64 (Cb, Cr) pairs, then the odd ones
perm_uv_split:
%assign i 0
%rep 32
           db i
%assign i i + 2
%endrep
%assign i 1
%rep 32
           db i
%assign i i + 2
%endrep
; chroma_h2v2_avx512: after packuswb, qword j holds outputs 8 * (j / 2) + 32 * (j & 1)
perm_q512: dq 0, 2, 4, 6, 1, 3, 5, 7
kmask_e24: dq 0x5555555555555555
kmask_o24: dq 0x1111111111111111
pw_255:   times 8 dw 255

; after packing, the dwords hold pixels {0,1,4,5} {8,9,12,13} (lane 0) and
; {2,3,6,7} {10,11,14,15} (lane 1): gather them into the low lane, then
; put the bytes in order
perm_d:  dd 0, 4, 1, 5, 2, 6, 3, 7
shuf_y:  db 0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15
shuf_uv: db 0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15
; 4 packed 24-bit pixels to 4 32-bit ones, the 4th byte 0
shuf_24: db 0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1
; deinterleave the bytes of each 128-bit lane: even ones first
shuf_nv: db 0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15
; the same with the odd bytes first (UYVY: luma at odd bytes)
shuf_odd: db 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12, 14
pb_1:    times 32 db 1
pw_2:    times 16 dw 2
; 2 pixels to 8 words (SSSE3 kernels), 32-bit and 24-bit
wide_32: db 0, -1, 1, -1, 2, -1, 3, -1, 4, -1, 5, -1, 6, -1, 7, -1
wide_24: db 0, -1, 1, -1, 2, -1, -1, -1, 3, -1, 4, -1, 5, -1, -1, -1

SECTION .text

; Software prefetch, PF_DIST bytes ahead of what a round reads: with frames
; that are not in the cache, it took the AVX-512 RGB kernels from 1.1-1.5x
; libyuv's time to 0.7-0.9x (make bench, cold table).
%define PF_DIST 1024
; The kernels that read a row pair also prefetch the same place in the next
; row pair (two rows down): from cold memory at 640x480 that took the AVX-512
; YUYV kernels from 1.06-1.11x libyuv's time to 0.86-0.90x and 24-bit RGB
; from 1.08-1.09x to 0.75-0.82x (make bench, cold table).
; prefetch the %2 bytes a round reads from %1 in the row two rows down;
; strideq holds src1 - src0
%macro PREFETCH_NEXT_PAIR 2
%assign %%i 0
%rep (%2 + 63) / 64
    prefetcht0    [%1 + strideq*2 + %%i]
%assign %%i %%i + 64
%endrep
%endmacro
; prefetch the %2 bytes a round reads from %1, PF_DIST ahead
%macro PREFETCH_AHEAD 2
%assign %%i 0
%rep (%2 + 63) / 64
    prefetcht0    [%1 + PF_DIST + %%i]
%assign %%i %%i + 64
%endrep
%endmacro

; void ff_toi420_chroma_h2v2_<isa>(uint8_t *dst, const uint8_t *src0,
;                                  const uint8_t *src1, int n)
; n outputs, a multiple of 32 (64 for AVX-512): (a + b + c + d + 2) >> 2 of
; each 2x2 block, mmsize outputs a round
%macro CHROMA_H2V2 0
cglobal toi420_chroma_h2v2, 4, 4, 7, dst, s0, s1, n
%if mmsize == 64
    vpbroadcastd   m4, [pb_1]
    vpbroadcastd   m5, [pw_2]
    mova           m6, [perm_q512]
%else
    movu           m4, [pb_1]
    movu           m5, [pw_2]
%endif
    movsxdifnidn   nq, nd
.loop:
%if mmsize == 64
    PREFETCH_AHEAD s0q, 2 * mmsize
    PREFETCH_AHEAD s1q, 2 * mmsize
%endif
    movu           m0, [s0q]
    movu           m1, [s0q + mmsize]
    movu           m2, [s1q]
    movu           m3, [s1q + mmsize]
    pmaddubsw      m0, m4           ; pixels unsigned, times 1, pairs summed
    pmaddubsw      m1, m4
    pmaddubsw      m2, m4
    pmaddubsw      m3, m4
    paddw          m0, m2
    paddw          m1, m3
    paddw          m0, m5
    paddw          m1, m5
    psrlw          m0, 2
    psrlw          m1, 2
    packuswb       m0, m1           ; per 128-bit lane: 8 from m0, 8 from m1
%if mmsize == 64
    vpermq         m0, m6, m0
%elif mmsize == 32
    vpermq         m0, m0, q3120
%endif
    movu       [dstq], m0
    add          dstq, mmsize
    add           s0q, 2 * mmsize
    add           s1q, 2 * mmsize
    sub            nq, mmsize
    jg .loop
    RET
%endmacro

; void ff_toi420_chroma_v2_<isa>(uint8_t *dst, const uint8_t *src0,
;                                const uint8_t *src1, int n)
; n outputs, a multiple of 32 (64 for AVX-512): (a + b + 1) >> 1, which is
; pavgb
%macro CHROMA_V2 0
cglobal toi420_chroma_v2, 4, 4, 2, dst, s0, s1, n
    movsxdifnidn   nq, nd
.loop:
%if mmsize == 64
    PREFETCH_AHEAD s0q, mmsize
    PREFETCH_AHEAD s1q, mmsize
%endif
    movu           m0, [s0q]
    movu           m1, [s1q]
    pavgb          m0, m1
    movu       [dstq], m0
    add          dstq, mmsize
    add           s0q, mmsize
    add           s1q, mmsize
    sub            nq, mmsize
    jg .loop
    RET
%endmacro


; Same arithmetic as the C kernels (vf_toi420_init.h), bit for bit:
; Y = (cy . RGB + y_add) >> 15, Cb/Cr = (c . sum of the 2x2 RGB + c_add) >> 17,
; with pmaddwd on 16-bit pixels against 16-bit Q15 coefficients.
;
; void ff_toi420_rgb32_avx2(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
;                           const uint8_t *src0, const uint8_t *src1,
;                           int width, const void *coeffs)
; (and ff_toi420_rgb24_avx2, which reads 4 bytes past the last pixel)
; width: a multiple of 16, > 0. coeffs (32-byte aligned): 16 words of Y
; coefficients for the 4 bytes of a pixel, repeated; the same for Cb and
; Cr; 8 dwords y_add; 8 dwords c_add.

; load the 4 pixels that start at byte %3 of row %2 as 16 words into %1
%macro LOAD4 3
%if BPP == 4
    pmovzxbw       %1, [%2 + %3]
%else
    movu         xm10, [%2 + %3]
    pshufb       xm10, [shuf_24]
    pmovzxbw       %1, xm10
%endif
%endmacro

; luma of 16 pixels of a row: pixel registers %1-%4, destination %5
%macro LUMA 5
    pmaddwd        m8, %1, m12
    pmaddwd        m9, %2, m12
    phaddd         m8, m9
    pmaddwd        m9, %3, m12
    pmaddwd       m10, %4, m12
    phaddd         m9, m10
    paddd          m8, m15
    paddd          m9, m15
    psrad          m8, 15
    psrad          m9, 15
    packssdw       m8, m9
    packuswb       m8, m8
    vpermd         m8, m11, m8
    pshufb        xm8, [shuf_y]
    movu         [%5], xm8
%endmacro

; Cb or Cr of 8 pixel pairs: coefficients %1, destination %2
%macro CHROMA 2
    pmaddwd        %2, m0, %1
    pmaddwd       m10, m2, %1
    phaddd         %2, m10          ; pairs 0 2 4 6 | 1 3 5 7
    paddd          %2, [cq + 128]
    psrad          %2, 17
%endmacro

%macro RGB_KERNEL 2 ; bytes per pixel, name
%assign BPP %1
cglobal toi420_%2, 8, 8, 16, y0, y1, u, v, s0, s1, w, c
    mova          m12, [cq]
    mova          m13, [cq + 32]
    mova          m14, [cq + 64]
    mova          m15, [cq + 96]
    mova          m11, [perm_d]
    movsxdifnidn   wq, wd
.loop:
    LOAD4          m0, s0q, 0
    LOAD4          m1, s0q, 4 * BPP
    LOAD4          m2, s0q, 8 * BPP
    LOAD4          m3, s0q, 12 * BPP
    LOAD4          m4, s1q, 0
    LOAD4          m5, s1q, 4 * BPP
    LOAD4          m6, s1q, 8 * BPP
    LOAD4          m7, s1q, 12 * BPP
    LUMA           m0, m1, m2, m3, y0q
    LUMA           m4, m5, m6, m7, y1q

    ; 2x2 sums: the two rows, then each pixel with its right neighbour
    ; (the qword unpacks pair pixel 0 with 1, 4 with 5, 2 with 3, ...)
    paddw          m0, m4
    paddw          m1, m5
    paddw          m2, m6
    paddw          m3, m7
    punpcklqdq     m4, m0, m1
    punpckhqdq     m0, m1
    paddw          m0, m4           ; pairs 0 2 | 1 3
    punpcklqdq     m4, m2, m3
    punpckhqdq     m2, m3
    paddw          m2, m4           ; pairs 4 6 | 5 7
    CHROMA        m13, m8
    CHROMA        m14, m9
    packssdw       m8, m9
    packuswb       m8, m8
    vpermd         m8, m11, m8
    pshufb        xm8, [shuf_uv]
    movq         [uq], xm8
    movhps       [vq], xm8

    add           y0q, 16
    add           y1q, 16
    add            uq, 8
    add            vq, 8
    add           s0q, 16 * BPP
    add           s1q, 16 * BPP
    sub            wq, 16
    jg .loop
    RET
%endmacro

; The same with 128-bit registers, 8 pixels a round, for SSSE3: no lane
; crossing, so the results come out in pixel order.
; load the 2 pixels at byte %3 of row %2 as 8 words into %1
%macro LOAD2 3
    movq           %1, [%2 + %3]
%if BPP == 4
    pshufb         %1, [wide_32]
%else
    pshufb         %1, [wide_24]
%endif
%endmacro

; luma of 8 pixels: pixel registers %1-%4, destination %5
%macro LUMA8 5
    pmaddwd       m12, %1, m8
    pmaddwd       m13, %2, m8
    phaddd        m12, m13
    pmaddwd       m13, %3, m8
    pmaddwd       m14, %4, m8
    phaddd        m13, m14
    paddd         m12, m11
    paddd         m13, m11
    psrad         m12, 15
    psrad         m13, 15
    packssdw      m12, m13
    packuswb      m12, m12
    movq         [%5], m12
%endmacro

; Cb or Cr of 4 pixel pairs (in m0, m2): coefficients %1, destination %2
%macro CHROMA4 2
    pmaddwd        %2, m0, %1
    pmaddwd       m14, m2, %1
    phaddd         %2, m14
    paddd          %2, [cq + 128]
    psrad          %2, 17
%endmacro

%macro RGB_KERNEL_SSE 2 ; bytes per pixel, name
%assign BPP %1
cglobal toi420_%2, 8, 8, 16, y0, y1, u, v, s0, s1, w, c
    mova           m8, [cq]
    mova           m9, [cq + 32]
    mova          m10, [cq + 64]
    mova          m11, [cq + 96]
    movsxdifnidn   wq, wd
.loop:
    LOAD2          m0, s0q, 0
    LOAD2          m1, s0q, 2 * BPP
    LOAD2          m2, s0q, 4 * BPP
    LOAD2          m3, s0q, 6 * BPP
    LOAD2          m4, s1q, 0
    LOAD2          m5, s1q, 2 * BPP
    LOAD2          m6, s1q, 4 * BPP
    LOAD2          m7, s1q, 6 * BPP
    LUMA8          m0, m1, m2, m3, y0q
    LUMA8          m4, m5, m6, m7, y1q

    paddw          m0, m4
    paddw          m1, m5
    paddw          m2, m6
    paddw          m3, m7
    punpcklqdq     m4, m0, m1
    punpckhqdq     m0, m1
    paddw          m0, m4           ; pairs 0 1
    punpcklqdq     m4, m2, m3
    punpckhqdq     m2, m3
    paddw          m2, m4           ; pairs 2 3
    CHROMA4        m9, m12
    CHROMA4       m10, m13
    packssdw      m12, m13
    packuswb      m12, m12
    movd         [uq], m12
    psrlq         m12, 32
    movd         [vq], m12

    add           y0q, 8
    add           y1q, 8
    add            uq, 4
    add            vq, 4
    add           s0q, 8 * BPP
    add           s1q, 8 * BPP
    sub            wq, 8
    jg .loop
    RET
%endmacro

INIT_XMM ssse3
RGB_KERNEL_SSE 4, rgb32
RGB_KERNEL_SSE 3, rgb24

; SSE2/SSSE3 versions of the planar and packed-YUV kernels below, 16
; outputs a round, same contracts (n a multiple of 32)
CHROMA_H2V2

cglobal toi420_chroma_nv, 4, 4, 3, u, v, src, n
    movsxdifnidn   nq, nd
    mova           m2, [shuf_nv]
.loop:
    movu           m0, [srcq]
    movu           m1, [srcq + 16]
    pshufb         m0, m2           ; u 0-7 | v 0-7
    pshufb         m1, m2           ; u 8-15 | v 8-15
    punpckhqdq     m3, m0, m1
    punpcklqdq     m0, m1
    movu         [uq], m0
    movu         [vq], m3
    add            uq, 16
    add            vq, 16
    add          srcq, 32
    sub            nq, 16
    jg .loop
    RET

%macro PACKED_YUV_SSE 2
cglobal toi420_%1, 7, 7, 8, y0, y1, u, v, s0, s1, n
    movsxdifnidn   nq, nd
    mova           m6, [%2]
    mova           m7, [shuf_nv]
.loop:
    movu           m0, [s0q]
    movu           m1, [s0q + 16]
    movu           m2, [s1q]
    movu           m3, [s1q + 16]
    pshufb         m0, m6           ; Y 0-7 | CbCr 0-3
    pshufb         m1, m6
    pshufb         m2, m6
    pshufb         m3, m6
    punpcklqdq     m4, m0, m1
    movu        [y0q], m4
    punpcklqdq     m4, m2, m3
    movu        [y1q], m4
    punpckhqdq     m0, m1           ; CbCr 0-7, row 0
    punpckhqdq     m2, m3
    pavgb          m0, m2
    pshufb         m0, m7           ; Cb 0-7 | Cr 0-7
    movq         [uq], m0
    movhps       [vq], m0
    add           y0q, 16
    add           y1q, 16
    add            uq, 8
    add            vq, 8
    add           s0q, 32
    add           s1q, 32
    sub            nq, 16
    jg .loop
    RET
%endmacro
PACKED_YUV_SSE yuyv, shuf_nv
PACKED_YUV_SSE uyvy, shuf_odd

INIT_XMM sse2
CHROMA_V2

%if HAVE_AVX2_EXTERNAL
INIT_YMM avx2
RGB_KERNEL 4, rgb32
RGB_KERNEL 3, rgb24

CHROMA_H2V2
CHROMA_V2

; void ff_toi420_yuyv_avx2(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
;                          const uint8_t *src0, const uint8_t *src1, int n)
; n pixels, a multiple of 32; luma copied, chroma (a + b + 1) >> 1 = pavgb
; of the two rows. %1: name, %2: the shuffle that puts luma first in a lane
%macro PACKED_YUV 2
cglobal toi420_%1, 7, 7, 8, y0, y1, u, v, s0, s1, n
    movsxdifnidn   nq, nd
    VBROADCASTI128 m6, [%2]
    VBROADCASTI128 m7, [shuf_nv]
.loop:
    movu           m0, [s0q]
    movu           m1, [s0q + 32]
    movu           m2, [s1q]
    movu           m3, [s1q + 32]
    pshufb         m0, m6           ; Y x8 | CbCr x4 per lane
    pshufb         m1, m6
    pshufb         m2, m6
    pshufb         m3, m6
    vpermq         m0, m0, q3120    ; Y 0-15 | CbCr 0-7
    vpermq         m1, m1, q3120    ; Y 16-31 | CbCr 8-15
    vpermq         m2, m2, q3120
    vpermq         m3, m3, q3120
    vperm2i128     m4, m0, m1, 0x20
    movu        [y0q], m4
    vperm2i128     m4, m2, m3, 0x20
    movu        [y1q], m4
    vperm2i128     m0, m0, m1, 0x31 ; CbCr 0-15, row 0
    vperm2i128     m2, m2, m3, 0x31 ; CbCr 0-15, row 1
    pavgb          m0, m2
    pshufb         m0, m7           ; Cb x8 | Cr x8 per lane
    vpermq         m0, m0, q3120    ; Cb 0-15 | Cr 0-15
    movu         [uq], xm0
    vextracti128 [vq], m0, 1
    add           y0q, 32
    add           y1q, 32
    add            uq, 16
    add            vq, 16
    add           s0q, 64
    add           s1q, 64
    sub            nq, 32
    jg .loop
    RET
%endmacro
PACKED_YUV yuyv, shuf_nv
PACKED_YUV uyvy, shuf_odd

; void ff_toi420_chroma_nv_avx2(uint8_t *u, uint8_t *v, const uint8_t *src, int n)
; n outputs of each plane, a multiple of 32
cglobal toi420_chroma_nv, 4, 4, 4, u, v, src, n
    movsxdifnidn   nq, nd
    VBROADCASTI128 m2, [shuf_nv]
.loop:
    movu           m0, [srcq]
    movu           m1, [srcq + 32]
    pshufb         m0, m2
    pshufb         m1, m2
    vpermq         m0, m0, q3120    ; u 0-15 | v 0-15
    vpermq         m1, m1, q3120    ; u 16-31 | v 16-31
    vperm2i128     m3, m0, m1, 0x20
    movu         [uq], m3
    vperm2i128     m0, m0, m1, 0x31
    movu         [vq], m0
    add            uq, 32
    add            vq, 32
    add          srcq, 64
    sub            nq, 32
    jg .loop
    RET
%endif

%if HAVE_AVX512ICL_EXTERNAL
; AVX-512 (Ice Lake set: VBMI's vpermb, VNNI's vpdpwssd): 32 pixels a round.
; Each 4-byte pixel (24-bit ones widened by vpermb) is split into the words
; of its even bytes (0, 2) and of its odd bytes (1, 3); vpdpwssd multiplies
; and adds both words of a dword at once. Same arithmetic as C, bit for bit.
;
; void ff_toi420_rgb32_avx512icl(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
;                                const uint8_t *src0, const uint8_t *src1,
;                                int width, const ToI420PixelCoeffs *coeffs)
; (and ff_toi420_rgb24_avx512icl, which reads 16 bytes past the last pixel:
; a masked load would not, but masked loads of cold memory were 2x slower
; here) width: a multiple of 32, > 0.
%define OFF_YADD 96
%define OFF_CADD 128
%define OFF_YE   160
%define OFF_YO   164
%define OFF_CE   168
%define OFF_CO   176

; even and odd words of the 16 pixels at %3: into %1, %2
%macro SPLIT16 3
%if BPP == 4
    movu           %1, [%3]
    psrlw          %2, %1, 8
    vpandd         %1, %1, m16
%else
    movu           %1, [%3]         ; 64 bytes, 48 of them used
    vpermb     %2{k2}{z}, m25, %1
    vpermb     %1{k1}{z}, m16, %1
%endif
%endmacro

; luma dwords of 16 pixels: destination %1, even words %2, odd words %3
%macro LUMA16 3
    mova           %1, m21
    vpdpwssd       %1, %2, m17
    vpdpwssd       %1, %3, m18
    psrad          %1, 15
%endmacro

; Cb, Cr dwords of 8 pixel pairs: destination %1, even and odd words of
; the two rows summed %2, %3 (clobbered), temporary %4
%macro CHROMA16 4
    pshufd         %4, %2, q2301
    paddw          %2, %4           ; each pair's sums, in both its dwords
    pshufd         %4, %3, q2301
    paddw          %3, %4
    mova           %1, m22
    vpdpwssd       %1, %2, m19      ; Cb in even dwords, Cr in odd ones
    vpdpwssd       %1, %3, m20
    psrad          %1, 17
%endmacro

%macro RGB_KERNEL_512 2 ; bytes per pixel, name
%assign BPP %1
cglobal toi420_%2, 8, 9, 26, y0, y1, u, v, s0, s1, w, c, stride
    mov       strideq, s1q
    sub       strideq, s0q
%if BPP == 4
    vpbroadcastd  m16, [pw_255]
%else
    mova          m16, [perm_e24]
    mova          m25, [perm_o24]
    kmovq          k1, [kmask_e24]
    kmovq          k2, [kmask_o24]
%endif
    vpbroadcastd  m17, [cq + OFF_YE]
    vpbroadcastd  m18, [cq + OFF_YO]
    vpbroadcastq  m19, [cq + OFF_CE]
    vpbroadcastq  m20, [cq + OFF_CO]
    vpbroadcastd  m21, [cq + OFF_YADD]
    vpbroadcastd  m22, [cq + OFF_CADD]
    mova          m23, [perm_y512]
    mova          m24, [perm_c512]
    movsxdifnidn   wq, wd
.loop:
    PREFETCH_AHEAD s0q, 32 * BPP
    PREFETCH_AHEAD s1q, 32 * BPP
    PREFETCH_NEXT_PAIR s0q, 32 * BPP
    PREFETCH_NEXT_PAIR s1q, 32 * BPP
    SPLIT16        m0, m1, s0q
    SPLIT16        m2, m3, s0q + 16 * BPP
    SPLIT16        m4, m5, s1q
    SPLIT16        m6, m7, s1q + 16 * BPP
    LUMA16         m8, m0, m1
    LUMA16         m9, m2, m3
    LUMA16        m10, m4, m5
    LUMA16        m11, m6, m7
    packssdw       m8, m9
    packssdw      m10, m11
    packuswb       m8, m10
    vpermb         m8, m23, m8
    movu        [y0q], ym8
    vextracti64x4 [y1q], m8, 1

    paddw          m0, m4           ; the two rows
    paddw          m1, m5
    paddw          m2, m6
    paddw          m3, m7
    CHROMA16      m12, m0, m1, m13
    CHROMA16      m14, m2, m3, m15
    packssdw      m12, m14
    packuswb      m12, m12
    vpermb        m12, m24, m12
    movu         [uq], xm12
    vextracti32x4 [vq], ym12, 1

    add           y0q, 32
    add           y1q, 32
    add            uq, 16
    add            vq, 16
    add           s0q, 32 * BPP
    add           s1q, 32 * BPP
    sub            wq, 32
    jg .loop
    RET
%endmacro

INIT_ZMM avx512icl
RGB_KERNEL_512 4, rgb32
RGB_KERNEL_512 3, rgb24
%endif

%if HAVE_AVX512_EXTERNAL
; AVX-512 versions of the planar kernels: 64 outputs a round, n a multiple
; of 64, same results as C.
INIT_ZMM avx512
CHROMA_H2V2
CHROMA_V2
%endif

%if HAVE_AVX512ICL_EXTERNAL
INIT_ZMM avx512icl
; void ff_toi420_chroma_nv_avx512icl(uint8_t *u, uint8_t *v, const uint8_t *src, int n)
; n outputs of each plane, a multiple of 64
cglobal toi420_chroma_nv, 4, 4, 6, u, v, src, n
    movsxdifnidn   nq, nd
    mova           m4, [perm_nv_e]
    mova           m5, [perm_nv_o]
.loop:
    PREFETCH_AHEAD srcq, 128
    movu           m0, [srcq]
    movu           m1, [srcq + 64]
    mova           m2, m4
    mova           m3, m5
    vpermi2b       m2, m0, m1
    vpermi2b       m3, m0, m1
    movu         [uq], m2
    movu         [vq], m3
    add            uq, 64
    add            vq, 64
    add          srcq, 128
    sub            nq, 64
    jg .loop
    RET
%endif

%if HAVE_AVX512ICL_EXTERNAL
; void ff_toi420_yuyv_avx512icl(uint8_t *y0, uint8_t *y1, uint8_t *u, uint8_t *v,
;                               const uint8_t *src0, const uint8_t *src1, int n)
; n pixels, a multiple of 64. %1: name, %2 and %3: the tables that gather
; the luma bytes and the chroma bytes of two registers
%macro PACKED_YUV_512 3
cglobal toi420_%1, 7, 8, 11, y0, y1, u, v, s0, s1, n, stride
    movsxdifnidn   nq, nd
    mov       strideq, s1q
    sub       strideq, s0q
    mova           m8, [%2]
    mova           m9, [%3]
    mova          m10, [perm_uv_split]
.loop:
    PREFETCH_AHEAD s0q, 128
    PREFETCH_AHEAD s1q, 128
    PREFETCH_NEXT_PAIR s0q, 128
    PREFETCH_NEXT_PAIR s1q, 128
    movu           m0, [s0q]
    movu           m1, [s0q + 64]
    movu           m2, [s1q]
    movu           m3, [s1q + 64]
    mova           m4, m8
    vpermi2b       m4, m0, m1       ; luma 0-63, row 0
    mova           m5, m8
    vpermi2b       m5, m2, m3
    mova           m6, m9
    vpermi2b       m6, m0, m1       ; Cb Cr 0-31, row 0
    mova           m7, m9
    vpermi2b       m7, m2, m3
    movu        [y0q], m4
    movu        [y1q], m5
    pavgb          m6, m7
    vpermb         m6, m10, m6      ; Cb 0-31 | Cr 0-31
    movu         [uq], ym6
    vextracti64x4 [vq], m6, 1
    add           y0q, 64
    add           y1q, 64
    add            uq, 32
    add            vq, 32
    add           s0q, 128
    add           s1q, 128
    sub            nq, 64
    jg .loop
    RET
%endmacro

INIT_ZMM avx512icl
PACKED_YUV_512 yuyv, perm_nv_e, perm_nv_o
PACKED_YUV_512 uyvy, perm_nv_o, perm_nv_e
%endif

%endif ; ARCH_X86_64

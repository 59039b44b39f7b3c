# toi420: conversion to yuv420p from pooled buffers.
#
# framemd5 of every input format at 352x288 and at an odd size, from lavfi
# sources only. The conversions in front of toi420 are explicit (FATE runs
# ffmpeg with -noauto_conversion_filters) and bitexact.

TOI420_FMTS = yuv420p yuvj420p yuv422p yuvj422p yuv444p yuvj444p nv12 nv21 \
              yuyv422 uyvy422 rgba bgra argb abgr rgb0 bgr0 0rgb 0bgr      \
              rgb24 bgr24 gray
TOI420_SWS  = scale=sws_flags=+accurate_rnd+bitexact+full_chroma_int

# yuyv422 and uyvy422 are made from yuv422p, so that their frames are the
# same on every CPU: libswscale's aarch64 NEON path from rgba straight to
# packed 4:2:2 gives other bytes than its C and x86 ones, while rgba to
# yuv422p is bit-exact everywhere and the packing after it moves bytes only
TOI420_IN_yuyv422 = format=yuv422p,$(TOI420_SWS),
TOI420_IN_uyvy422 = format=yuv422p,$(TOI420_SWS),

define FATE_TOI420_TEST
FATE_TOI420 += fate-toi420-$(1)-$(2)
fate-toi420-$(1)-$(2): CMD = framemd5 -filter_complex_threads 1 -lavfi testsrc2=s=$(2):r=5:d=1,format=rgba,$(TOI420_SWS),$(TOI420_IN_$(1))format=$(1),toi420
endef
$(foreach F,$(TOI420_FMTS),$(foreach S,352x288 353x287,$(eval $(call FATE_TOI420_TEST,$(F),$(S)))))

# The same at 353x287 with 4 filter threads: identical to the 1-thread
# reference. -lavfi is a complex graph: its thread count is
# -filter_complex_threads (-filter_threads sets simple graphs' only), and
# the tests above set 1, so that the two differ whatever the machine has.
define FATE_TOI420_MT_TEST
FATE_TOI420 += fate-toi420-mt-$(1)
fate-toi420-mt-$(1): CMD = framemd5 -filter_complex_threads 4 -lavfi testsrc2=s=353x287:r=5:d=1,format=rgba,$(TOI420_SWS),$(TOI420_IN_$(1))format=$(1),toi420
fate-toi420-mt-$(1): REF = $(SRC_PATH)/tests/ref/fate/toi420-$(1)-353x287
endef
$(foreach F,$(TOI420_FMTS),$(eval $(call FATE_TOI420_MT_TEST,$(F))))

# Matrices and ranges of RGB input, on colour bars.
define FATE_TOI420_MATRIX_TEST
FATE_TOI420 += fate-toi420-matrix-$(1)-$(2)
fate-toi420-matrix-$(1)-$(2): CMD = framemd5 -lavfi smptehdbars=s=353x287:r=5:d=0.4,$(TOI420_SWS),format=rgb24,toi420=matrix=$(1):range=$(2)
endef
$(foreach M,bt601 bt709 bt2020,$(foreach R,tv pc,$(eval $(call FATE_TOI420_MATRIX_TEST,$(M),$(R)))))

# Negative linesizes.
FATE_TOI420 += fate-toi420-vflip-bgra fate-toi420-vflip-nv12
fate-toi420-vflip-%: CMD = framemd5 -lavfi testsrc2=s=353x287:r=5:d=0.4,format=rgba,$(TOI420_SWS),format=$(word 4, $(subst -, ,$(@))),vflip,toi420

# The reference program: every format and size against a plain C reference
# and libswscale, passthrough, mid-stream changes, threads, bad options.
FATE_TOI420_REF-$(CONFIG_SWSCALE) += fate-toi420-ref
fate-toi420-ref: libavfilter/tests/toi420$(EXESUF)
fate-toi420-ref: CMD = run libavfilter/tests/toi420$(EXESUF)
fate-toi420-ref: CMP = null

FATE_TOI420 := $(if $(call ALLYES, TOI420_FILTER TESTSRC2_FILTER SMPTEHDBARS_FILTER SCALE_FILTER FORMAT_FILTER VFLIP_FILTER LAVFI_INDEV FRAMEMD5_MUXER RAWVIDEO_ENCODER),$(FATE_TOI420))

FATE_FFMPEG += $(FATE_TOI420)
FATE += $(FATE_TOI420_REF-yes)
fate-toi420: $(FATE_TOI420) $(FATE_TOI420_REF-yes)
fate-ext: fate-toi420

# checkasm: every toi420 kernel against its C reference, bit for bit
FATE_TOI420_CHECKASM-$(CONFIG_TOI420_FILTER) += fate-checkasm-vf_toi420
fate-checkasm-vf_toi420: tests/checkasm/checkasm$(EXESUF)
fate-checkasm-vf_toi420: CMD = run tests/checkasm/checkasm$(EXESUF) --test=vf_toi420
fate-checkasm-vf_toi420: CMP = null
FATE += $(FATE_TOI420_CHECKASM-yes)
fate-ext: $(FATE_TOI420_CHECKASM-yes)

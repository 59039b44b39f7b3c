# AVBufferPool with recycled references (patches/0001).
FATE_LIBAVUTIL_EXT += fate-buffer
fate-buffer: libavutil/tests/buffer$(EXESUF)
fate-buffer: CMD = run libavutil/tests/buffer$(EXESUF)
fate-buffer: CMP = null

FATE += $(FATE_LIBAVUTIL_EXT)
fate-ext: $(FATE_LIBAVUTIL_EXT)

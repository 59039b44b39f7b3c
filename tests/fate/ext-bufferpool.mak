# AVBufferPool with recycled references (patches/0001).
FATE_LIBAVUTIL_EXT += fate-bufferpool
fate-bufferpool: libavutil/tests/bufferpool$(EXESUF)
fate-bufferpool: CMD = run libavutil/tests/bufferpool$(EXESUF)
fate-bufferpool: CMP = null

FATE += $(FATE_LIBAVUTIL_EXT)
fate-ext: $(FATE_LIBAVUTIL_EXT)

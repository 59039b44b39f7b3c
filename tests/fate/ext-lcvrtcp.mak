# lcv_rtcp: the public RTCP library (libavformat/lcvrtcp.h).
FATE_LCVRTCP += fate-lcvrtcp
fate-lcvrtcp: libavformat/tests/lcvrtcp$(EXESUF)
fate-lcvrtcp: CMD = run libavformat/tests/lcvrtcp$(EXESUF)
fate-lcvrtcp: CMP = null

FATE += $(FATE_LCVRTCP)
fate-ext: $(FATE_LCVRTCP)

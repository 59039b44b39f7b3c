# lcv_rtcp: the public RTCP library (libavformat/lcvrtcp.h).
FATE_LCVRTCP += fate-lcvrtcp
fate-lcvrtcp: libavformat/tests/lcvrtcp$(EXESUF)
fate-lcvrtcp: CMD = run libavformat/tests/lcvrtcp$(EXESUF)
fate-lcvrtcp: CMP = null

FATE += $(FATE_LCVRTCP)
fate-ext: $(FATE_LCVRTCP)

# The RTP demuxer's loss recovery (libavformat/rtpdec_ext.c): NACKs parsed
# back with lcv_rtcp, RTX restored byte for byte, hostile sequences bounded.
FATE_RTPDEC_EXT += fate-rtpdec-ext
fate-rtpdec-ext: libavformat/tests/rtpdec_ext$(EXESUF)
fate-rtpdec-ext: CMD = run libavformat/tests/rtpdec_ext$(EXESUF)
fate-rtpdec-ext: CMP = null

FATE += $(FATE_RTPDEC_EXT)
fate-ext: $(FATE_RTPDEC_EXT)

# The congestion controller (libavformat/rtpcc.c) against a simulated
# bottleneck: losses, link use, queueing delay and reaction times asserted.
FATE_RTPCC += fate-rtpcc
fate-rtpcc: libavformat/tests/rtpcc$(EXESUF)
fate-rtpcc: CMD = run libavformat/tests/rtpcc$(EXESUF)
fate-rtpcc: CMP = null

FATE += $(FATE_RTPCC)
fate-ext: $(FATE_RTPCC)

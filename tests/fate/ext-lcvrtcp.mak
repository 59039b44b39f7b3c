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

# The pacer (libavformat/rtppacer.c) on a made-up clock: budgets per burst,
# spacing at pace_factor x the media rate, the link's cap, keyframe due
# times, forced drains, resends ahead of the media, the drain.
FATE_RTPPACER += fate-rtppacer
fate-rtppacer: libavformat/tests/rtppacer$(EXESUF)
fate-rtppacer: CMD = run libavformat/tests/rtppacer$(EXESUF)
fate-rtppacer: CMP = null

FATE += $(FATE_RTPPACER)
fate-ext: $(FATE_RTPPACER)

# The packet history (libavformat/rtphist.c): NACK answers, RTX built by
# hand, the resend budget's size and refill.
FATE_RTPHIST += fate-rtphist
fate-rtphist: libavformat/tests/rtphist$(EXESUF)
fate-rtphist: CMD = run libavformat/tests/rtphist$(EXESUF)
fate-rtphist: CMP = null

FATE += $(FATE_RTPHIST)
fate-ext: $(FATE_RTPHIST)

# The receiver's NACK generator (libavformat/rtpnack.c) on a made-up clock.
FATE_RTPNACK += fate-rtpnack
fate-rtpnack: libavformat/tests/rtpnack$(EXESUF)
fate-rtpnack: CMD = run libavformat/tests/rtpnack$(EXESUF)
fate-rtpnack: CMP = null

FATE += $(FATE_RTPNACK)
fate-ext: $(FATE_RTPNACK)

# The late receiver's keyframe requests (libavformat/rtpjoin.c) on a
# made-up clock, with H.264 and HEVC payloads built by hand.
FATE_RTPJOIN += fate-rtpjoin
fate-rtpjoin: libavformat/tests/rtpjoin$(EXESUF)
fate-rtpjoin: CMD = run libavformat/tests/rtpjoin$(EXESUF)
fate-rtpjoin: CMP = null

FATE += $(FATE_RTPJOIN)
fate-ext: $(FATE_RTPJOIN)

# Whose RTCP a sender acts on and which source a receiver answers
# (libavformat/rtppeer.c), with addresses built by hand.
FATE_RTPPEER-$(CONFIG_NETWORK) += fate-rtppeer
fate-rtppeer: libavformat/tests/rtppeer$(EXESUF)
fate-rtppeer: CMD = run libavformat/tests/rtppeer$(EXESUF)
fate-rtppeer: CMP = null

FATE += $(FATE_RTPPEER-yes)
fate-ext: $(FATE_RTPPEER-yes)

# The WHIP muxer's transport hooks (libavformat/whip_ext.c): SRTP and SRTCP
# out checked by decrypting them, the peer's SRTCP in, STUN and DTLS kept,
# forged datagrams dropped; the offer's feedback lines and rtp_options.
FATE_WHIP_EXT-$(CONFIG_WHIP_MUXER) += fate-whip-ext
fate-whip-ext: libavformat/tests/whip_ext$(EXESUF)
fate-whip-ext: CMD = run libavformat/tests/whip_ext$(EXESUF)
fate-whip-ext: CMP = null

FATE += $(FATE_WHIP_EXT-yes)
fate-ext: $(FATE_WHIP_EXT-yes)

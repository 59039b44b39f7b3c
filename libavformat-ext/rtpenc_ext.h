/*
 * RTP muxer extensions: batched sending, packet size checks
 *
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

#ifndef AVFORMAT_RTPENC_EXT_H
#define AVFORMAT_RTPENC_EXT_H

#include <stdint.h>

#include "avformat.h"
#include "rtpfb.h"
#include "rtpsend.h"

/**
 * Sockets and hooks of a muxer that owns the network side (a WebRTC
 * muxer after ICE and DTLS): its rtp muxers send through them instead of
 * their AVIOContext. See ff_rtpenc_ext_set_transport().
 */
typedef struct FFRTPEncTransport {
    FFRTPSenderSockets sockets;
    /** FFRTPSendConfig.protect and its opaque, overhead (SRTP) */
    int (*protect)(void *opaque, int rtcp, const uint8_t *in, int len, uint8_t *out, int out_size);
    void *protect_opaque;
    int protect_overhead;
    /** FFRTPSendConfig.incoming (unprotect SRTCP, keep STUN and DTLS) */
    int (*incoming)(void *opaque, uint8_t *buf, int len, int size);
    void *incoming_opaque;
    /** this muxer reads the socket's RTCP (one muxer per socket may) */
    int read_feedback;
} FFRTPEncTransport;

/** State of the extensions, embedded in RTPMuxContext as "ext". */
typedef struct FFRTPEncExt {
    int send_mode;              ///< enum FFRTPSendMode
    int64_t base_timestamp;     ///< -1: random
    FFRTPSender *sender;        ///< NULL: packets go through the AVIOContext
    struct FFRTPTwccLog *twcc_log; ///< the transport-wide send log (cc), shared by sender and feedback
    int send_error;             ///< first error of the current packet
    uint64_t access_units;      ///< write_packet calls that sent something
    int au_seq;                 ///< sequence number of the next access unit's first packet, -1: unknown
    int kf_seq;                 ///< first sequence number of the last keyframe sent, -1: none

    int feedback;               ///< read RTCP: stats, NACK, PLI/FIR; AVPF in the SDP
    int rtcp_from;              ///< whose RTCP counts: enum FFRTPPeerCheck
    int nack;
    int nack_history;           ///< ms
    int rtx_pt;
    uint32_t rtx_ssrc;
    double nack_max_share;
    double nack_dup_loss;
    int64_t sr_interval, stats_interval, kf_min_interval;
    char *stats_file;
    int bye;
    int64_t bye_delay;          ///< µs the BYE waits after the last media send
    int pace;
    double pace_factor;
    int pace_burst;             ///< bytes
    int64_t pace_max_delay;     ///< µs
    int pace_kernel;            ///< SO_TXTIME: -1 where the qdisc is fq, 0 never, 1 always
    int dscp;
    int cc;                     ///< congestion control: transport-cc extension, target bit rate (-1 auto until init)
    int cc_auto;                ///< cc was auto: decided by the stream and the output
    int64_t min_bitrate, max_bitrate, start_bitrate;
    int probe;                  ///< probe clusters when transport feedback starts
    FFRTPFeedback *fb;
    const FFRTPEncTransport *transport; ///< the caller's sockets, NULL: the AVIOContext's
} FFRTPEncExt;

/* the pacer's defaults, chosen from tests/bench/rtp_pacing.sh (README) */
#define FF_RTPENC_PACE_FACTOR    1.5
#define FF_RTPENC_PACE_BURST     16384
#define FF_RTPENC_PACE_MAX_DELAY 500000
/* the congestion control's ceiling when neither max_bitrate nor the stream's bit rate is known */
#define FF_RTPENC_CC_MAX_BITRATE 20000000
/* where it starts by default (below max_bitrate): a link of 1 Mbit/s takes
 * it, and a 720p picture at it is still a picture; from there the start-up
 * doubles the rate every response time (rtpcc.c) */
#define FF_RTPENC_CC_START_BITRATE 1000000

#define FF_RTPENC_EXT_OPTS(ctx, field)                                                 \
    { "send_mode", "how RTP packets are handed to the kernel",                         \
      offsetof(ctx, field.send_mode), AV_OPT_TYPE_INT, { .i64 = FF_RTP_SEND_AUTO },    \
      0, FF_RTP_SEND_NB - 1, AV_OPT_FLAG_ENCODING_PARAM, .unit = "send_mode" },        \
    { "auto",   "UDP GSO if the kernel has it, else sendmmsg", 0, AV_OPT_TYPE_CONST,   \
      { .i64 = FF_RTP_SEND_AUTO }, 0, 0, AV_OPT_FLAG_ENCODING_PARAM, .unit = "send_mode" }, \
    { "gso",    "runs of equal-size packets as one UDP GSO send", 0, AV_OPT_TYPE_CONST, \
      { .i64 = FF_RTP_SEND_GSO }, 0, 0, AV_OPT_FLAG_ENCODING_PARAM, .unit = "send_mode" }, \
    { "mmsg",   "all packets of an access unit in one sendmmsg", 0, AV_OPT_TYPE_CONST, \
      { .i64 = FF_RTP_SEND_MMSG }, 0, 0, AV_OPT_FLAG_ENCODING_PARAM, .unit = "send_mode" }, \
    { "single", "one send per packet", 0, AV_OPT_TYPE_CONST,                          \
      { .i64 = FF_RTP_SEND_SINGLE }, 0, 0, AV_OPT_FLAG_ENCODING_PARAM, .unit = "send_mode" }, \
    { "base_timestamp", "RTP timestamp of time zero (-1: random)",                      \
      offsetof(ctx, field.base_timestamp), AV_OPT_TYPE_INT64, { .i64 = -1 },            \
      -1, UINT32_MAX, AV_OPT_FLAG_ENCODING_PARAM },                                     \
    { "feedback", "read RTCP from receivers: statistics, NACK, PLI and FIR; RTP/AVPF in the SDP", \
      offsetof(ctx, field.feedback), AV_OPT_TYPE_BOOL, { .i64 = 1 }, 0, 1, AV_OPT_FLAG_ENCODING_PARAM }, \
    { "rtcp_from", "whose RTCP feedback is acted on; the rest is counted and dropped", \
      offsetof(ctx, field.rtcp_from), AV_OPT_TYPE_INT, { .i64 = -1 }, -1, 2,           \
      AV_OPT_FLAG_ENCODING_PARAM, .unit = "rtcp_from" },                                \
    { "auto", "host to a unicast destination, any to a multicast group", 0, AV_OPT_TYPE_CONST, \
      { .i64 = -1 }, 0, 0, AV_OPT_FLAG_ENCODING_PARAM, .unit = "rtcp_from" },           \
    { "any",  "anyone (stock FFmpeg)", 0, AV_OPT_TYPE_CONST,                           \
      { .i64 = 0 }, 0, 0, AV_OPT_FLAG_ENCODING_PARAM, .unit = "rtcp_from" },            \
    { "host", "the address RTP or RTCP goes to, from any port", 0, AV_OPT_TYPE_CONST,  \
      { .i64 = 1 }, 0, 0, AV_OPT_FLAG_ENCODING_PARAM, .unit = "rtcp_from" },            \
    { "peer", "the address and port RTP or RTCP goes to", 0, AV_OPT_TYPE_CONST,        \
      { .i64 = 2 }, 0, 0, AV_OPT_FLAG_ENCODING_PARAM, .unit = "rtcp_from" },            \
    { "nack", "answer NACKs from the history of sent packets",                         \
      offsetof(ctx, field.nack), AV_OPT_TYPE_BOOL, { .i64 = 1 }, 0, 1, AV_OPT_FLAG_ENCODING_PARAM }, \
    { "nack_history", "how long sent packets stay available for NACKs, in ms",         \
      offsetof(ctx, field.nack_history), AV_OPT_TYPE_INT, { .i64 = 1000 }, 0, 10000,   \
      AV_OPT_FLAG_ENCODING_PARAM },                                                     \
    { "nack_max_share", "retransmissions at most this share of the media bitrate",     \
      offsetof(ctx, field.nack_max_share), AV_OPT_TYPE_DOUBLE, { .dbl = 0.3 }, 0, 1,    \
      AV_OPT_FLAG_ENCODING_PARAM },                                                     \
    { "nack_dup_loss", "resend twice from this loss rate (0: never)",                  \
      offsetof(ctx, field.nack_dup_loss), AV_OPT_TYPE_DOUBLE, { .dbl = 0.02 }, 0, 1,    \
      AV_OPT_FLAG_ENCODING_PARAM },                                                     \
    { "rtx_pt", "RFC 4588 RTX payload type for retransmissions (-1: resend the original packet)", \
      offsetof(ctx, field.rtx_pt), AV_OPT_TYPE_INT, { .i64 = -1 }, -1, 127,             \
      AV_OPT_FLAG_ENCODING_PARAM },                                                     \
    { "rtx_ssrc", "SSRC of the RTX stream (0: random)",                                \
      offsetof(ctx, field.rtx_ssrc), AV_OPT_TYPE_UINT, { .i64 = 0 }, 0, UINT32_MAX,     \
      AV_OPT_FLAG_ENCODING_PARAM },                                                     \
    { "sr_interval", "time between sender reports (0: the RFC 3550 rule)",             \
      offsetof(ctx, field.sr_interval), AV_OPT_TYPE_DURATION, { .i64 = 0 }, 0, 3600000000LL, \
      AV_OPT_FLAG_ENCODING_PARAM },                                                     \
    { "stats_interval", "time between receiver statistics logs at verbose level (0: only the final one)", \
      offsetof(ctx, field.stats_interval), AV_OPT_TYPE_DURATION, { .i64 = 5000000 }, 0, \
      3600000000LL, AV_OPT_FLAG_ENCODING_PARAM },                                       \
    { "stats_file", "write the statistics as JSON lines to this file",                 \
      offsetof(ctx, field.stats_file), AV_OPT_TYPE_STRING, { .str = NULL }, 0, 0,       \
      AV_OPT_FLAG_ENCODING_PARAM },                                                     \
    { "keyframe_min_interval", "minimum time between keyframe requests raised on PLI/FIR", \
      offsetof(ctx, field.kf_min_interval), AV_OPT_TYPE_DURATION, { .i64 = 300000 }, 0, \
      3600000000LL, AV_OPT_FLAG_ENCODING_PARAM },                                       \
    { "bye", "send an RTCP BYE when the stream ends",                                  \
      offsetof(ctx, field.bye), AV_OPT_TYPE_BOOL, { .i64 = 1 }, 0, 1, AV_OPT_FLAG_ENCODING_PARAM }, \
    { "bye_delay", "how long after the last media packet the BYE goes out at the earliest (at least two receiver round trips, 1 s at most)", \
      offsetof(ctx, field.bye_delay), AV_OPT_TYPE_DURATION, { .i64 = 50000 }, 0, 1000000, \
      AV_OPT_FLAG_ENCODING_PARAM },                                                     \
    { "pace", "spread each access unit over time instead of sending it at line rate",  \
      offsetof(ctx, field.pace), AV_OPT_TYPE_BOOL, { .i64 = 1 }, 0, 1, AV_OPT_FLAG_ENCODING_PARAM }, \
    { "pace_factor", "pacing rate as a multiple of the media rate (the last second's, or the encoder's bit rate)", \
      offsetof(ctx, field.pace_factor), AV_OPT_TYPE_DOUBLE, { .dbl = FF_RTPENC_PACE_FACTOR }, 1, 100, \
      AV_OPT_FLAG_ENCODING_PARAM },                                                     \
    { "pace_burst", "bytes the pacer may send back to back",                           \
      offsetof(ctx, field.pace_burst), AV_OPT_TYPE_INT, { .i64 = FF_RTPENC_PACE_BURST }, 1, 262144, \
      AV_OPT_FLAG_ENCODING_PARAM },                                                     \
    { "pace_max_delay", "longest a packet waits in the pacer: beyond, it sends faster than pace_factor", \
      offsetof(ctx, field.pace_max_delay), AV_OPT_TYPE_DURATION, { .i64 = FF_RTPENC_PACE_MAX_DELAY }, \
      1000, 10000000, AV_OPT_FLAG_ENCODING_PARAM },                                    \
    { "pace_kernel", "give the kernel departure times (SO_TXTIME) for its fq qdisc to pace: -1 where the outgoing device has fq, 0 never, 1 always", \
      offsetof(ctx, field.pace_kernel), AV_OPT_TYPE_INT, { .i64 = -1 }, -1, 1, AV_OPT_FLAG_ENCODING_PARAM, .unit = "pace_kernel" }, \
    { "auto",   "where the outgoing device's qdisc is fq", 0, AV_OPT_TYPE_CONST,        \
      { .i64 = -1 }, 0, 0, AV_OPT_FLAG_ENCODING_PARAM, .unit = "pace_kernel" },         \
    { "dscp", "DSCP of the RTP and RTCP packets (IPv4 TOS or IPv6 traffic class), -1: leave it", \
      offsetof(ctx, field.dscp), AV_OPT_TYPE_INT, { .i64 = -1 }, -1, 63, AV_OPT_FLAG_ENCODING_PARAM }, \
    { "cc", "congestion control: number packets for transport-cc feedback and estimate the bit rate the network takes (the encoder follows it in ffmpeg); auto: on for a video stream sent to rtp:// or udp:// with feedback", \
      offsetof(ctx, field.cc), AV_OPT_TYPE_BOOL, { .i64 = -1 }, -1, 1, AV_OPT_FLAG_ENCODING_PARAM }, \
    { "min_bitrate", "the congestion control's lowest target, in bit/s",              \
      offsetof(ctx, field.min_bitrate), AV_OPT_TYPE_INT64, { .i64 = 150000 }, 10000, INT32_MAX, \
      AV_OPT_FLAG_ENCODING_PARAM },                                                     \
    { "max_bitrate", "the congestion control's highest target, in bit/s (0: the stream's bit rate, e.g. -b:v, else 20 Mbit/s)", \
      offsetof(ctx, field.max_bitrate), AV_OPT_TYPE_INT64, { .i64 = 0 }, 0, INT32_MAX,  \
      AV_OPT_FLAG_ENCODING_PARAM },                                                     \
    { "start_bitrate", "the congestion control's first target, in bit/s (0: 1 Mbit/s, or max_bitrate if lower)", \
      offsetof(ctx, field.start_bitrate), AV_OPT_TYPE_INT64, { .i64 = 0 }, 0, INT32_MAX, \
      AV_OPT_FLAG_ENCODING_PARAM },                                                     \
    { "probe", "probe the link from start_bitrate up with short bursts of resent packets once transport feedback comes (cc with nack)", \
      offsetof(ctx, field.probe), AV_OPT_TYPE_BOOL, { .i64 = 1 }, 0, 1, AV_OPT_FLAG_ENCODING_PARAM }

/**
 * Check the packet size against the network and the codec, warn about
 * sizes above the Ethernet MTU, and take over sending when the output is
 * rtp:// or udp://. Called once s1->packet_size is known.
 */
int ff_rtpenc_ext_init(AVFormatContext *s1);

/**
 * Send through the caller's sockets and hooks: call between
 * avformat_init_output() and avformat_write_header() of the rtp muxer s1.
 * Everything else is as for an rtp:// output (batching, pacing, feedback,
 * cc auto on for video, the BYE); without read_feedback the muxer reads
 * no RTCP (its feedback is off). t must outlive the muxer.
 * @return 0, or AVERROR(EINVAL) if s1 is not an rtp muxer before its header
 */
int ff_rtpenc_ext_set_transport(AVFormatContext *s1, const FFRTPEncTransport *t);

/**
 * Bytes a packet may carry beyond the payload limit that the packetizers
 * get (s1->packet_size - 12 - this): the 2-byte OSN of an RFC 4588 resend,
 * the transport-wide sequence number extension. pkt_size itself is the
 * user's, the limit of every datagram on the wire.
 */
int ff_rtpenc_ext_overhead(AVFormatContext *s1);

/** Start the feedback reader: at the end of the header, once the stream's
 *  time base (its RTP clock) is set. */
int ff_rtpenc_ext_start(AVFormatContext *s1);

/** ff_rtp_send_data() when a sender is active. */
void ff_rtpenc_ext_send_data(AVFormatContext *s1, const uint8_t *buf, int len, int m);

/** rtcp_send_sr() when a sender is active. */
void ff_rtpenc_ext_send_sr(AVFormatContext *s1, int64_t ntp_time, int bye);

/** After write_packet of pkt: send the access unit. @return ret or a send error */
int ff_rtpenc_ext_packet_done(AVFormatContext *s1, const AVPacket *pkt, int ret);

/** Log the send statistics and free the sender. */
void ff_rtpenc_ext_close(AVFormatContext *s1);

/** Whether the trailer sends a BYE (rtpflags send_bye, or the bye option
 *  when the muxer sends to an rtp:// or udp:// output). */
int ff_rtpenc_ext_want_bye(AVFormatContext *s1);

/**
 * Check the rtp_options of s (RTSP output), before its SDP is made: every
 * key an rtp muxer option, valid sender option values, and no ssrc,
 * rtx_ssrc or stats_file when s has more than one stream.
 * @return 0, AVERROR_OPTION_NOT_FOUND, AVERROR(EINVAL) or AVERROR(ENOMEM)
 */
int ff_rtpenc_ext_check_options(AVFormatContext *s);

/**
 * What the rtp_options of s (a muxer with that option) leave on for a video
 * stream's SDP: feedback, NACK, congestion control (auto counts as on).
 */
void ff_rtpenc_ext_sdp_options(const AVFormatContext *s, int *feedback, int *nack, int *cc);

/** Add the rtp_options of s (RTSP output) to opts, for one of its rtp muxers. */
int ff_rtpenc_ext_chain_options(AVFormatContext *s, AVDictionary **opts);

/**
 * SDP for an rtp muxer context (fmt may be anything, or NULL): the profile
 * of the m= line, and the feedback and RTX attributes after the others.
 */
const char *ff_rtpenc_ext_sdp_profile(const AVFormatContext *fmt);
int ff_rtpenc_ext_sdp_rtx_pt(const AVFormatContext *fmt);
void ff_rtpenc_ext_sdp_attributes(char *buff, int size, const AVStream *st,
                                  int payload_type, const AVFormatContext *fmt);

/** VP9 (RFC 9628): a frame in packets with their payload descriptors
 *  (rtpvp9.c), in place of ff_rtp_send_vp9(). */
void ff_rtpenc_ext_send_vp9(AVFormatContext *s1, const uint8_t *buf, int size);

#endif /* AVFORMAT_RTPENC_EXT_H */

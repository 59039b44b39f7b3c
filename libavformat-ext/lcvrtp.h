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

/**
 * @file
 * Public API of FFmpeg's RTP muxer and demuxer in this project (the prefix
 * lcv_, "low-CPU video"): the feedback statistics and keyframe requests of
 * an rtp/rtsp output, the congestion controller's target, and the loss
 * recovery statistics of an sdp/rtsp input. The RTCP packet library is
 * libavformat/lcvrtcp.h.
 */

#ifndef AVFORMAT_LCVRTP_H
#define AVFORMAT_LCVRTP_H

#include <stddef.h>
#include <stdint.h>

#include "libavutil/macros.h"
#include "libavutil/version.h"

/**
 * @defgroup lcv_rtp_version Version of this API
 * The statistics structs only grow at their end, and MINOR grows with
 * them. The get_stats calls take the size of the caller's struct and fill
 * at most that much (zeroing what the library does not know), so a program
 * built against an older or a newer header than the library keeps working.
 * MAJOR grows when a field changes meaning or goes (2: the receivers
 * left LCVRTPSenderStats for lcv_rtp_muxer_get_receiver_stats()).
 * @{
 */
#define LCV_RTP_VERSION_MAJOR 2
#define LCV_RTP_VERSION_MINOR 0
#define LCV_RTP_VERSION_MICRO 0
#define LCV_RTP_VERSION_INT AV_VERSION_INT(LCV_RTP_VERSION_MAJOR, LCV_RTP_VERSION_MINOR, \
                                           LCV_RTP_VERSION_MICRO)

/** LCV_RTP_VERSION_INT of the library linked */
unsigned lcv_rtp_version(void);
/** @} */

/**
 * @defgroup lcv_rtp_muxer RTCP feedback of FFmpeg's rtp muxer
 * What the receivers of an "rtp" output (or of the streams of an "rtsp"
 * output) report, and their keyframe requests. The muxer reads its RTCP
 * socket in a thread of its own (muxer option feedback, on by default);
 * these calls are safe from any thread between avformat_write_header() and
 * av_write_trailer() (which stops the thread and frees the statistics; the
 * final figures are logged at verbose level and written to stats_file).
 * @{
 */
#define LCV_RTP_MAX_RECEIVERS 16   ///< receivers a stream keeps statistics of

/** What one receiver (by the SSRC of its reports) has told the sender. */
typedef struct LCVRTPReceiverStats {
    uint32_t ssrc;              ///< the receiver's SSRC
    int64_t  last_report_us;    ///< av_gettime_relative() at its last report block, 0 if none
    double   fraction_lost;     ///< 0..1, in its last report block
    int64_t  cumulative_lost;   ///< packets, in its last report block
    uint32_t highest_seq;       ///< extended highest sequence number received
    double   jitter_ms;         ///< interarrival jitter
    double   rtt_ms;            ///< round trip from LSR/DLSR against the SRs sent; -1 until known
    double   rtt_min_ms;        ///< the smallest of those (receiver-side delays only add); -1 until known
    uint64_t reports;           ///< report blocks about our stream
    uint64_t nacks, plis, firs; ///< feedback packets it sent about our stream
    uint64_t remb_bitrate;      ///< bits/s of its last REMB, 0 if none (with cc: a cap on the target)
    uint64_t twcc_reports;      ///< transport-cc reports (with cc: they drive the target)
    uint64_t twcc_packets;      ///< packets they covered
    uint64_t twcc_received;     ///< of which reported received
    int64_t  twcc_last_arrival_us; ///< receiver-clock arrival time of the last packet reported received
    uint64_t ccfb_reports;      ///< RFC 8888 congestion control feedback reports
    int      bye;               ///< it sent a BYE
} LCVRTPReceiverStats;

/** The sender's side: what was sent, what feedback did. */
typedef struct LCVRTPSenderStats {
    uint32_t ssrc;              ///< media SSRC
    uint64_t packets, octets;   ///< RTP packets and payload bytes sent (as in the SR)
    uint64_t sr_sent;           ///< SRs sent
    uint64_t rtcp_received;     ///< RTCP datagrams read
    uint64_t rtcp_malformed;    ///< of which rejected (AVERROR_INVALIDDATA) and dropped
    uint64_t nack_packets;      ///< NACK packets about our stream
    uint64_t nacked;            ///< sequence numbers they asked for
    uint64_t retransmitted;     ///< packets resent (plain or RTX)
    uint64_t retransmitted_octets; ///< their size on the wire
    uint64_t nack_missed;       ///< asked for but no longer (or never) in the history
    uint64_t nack_rate_limited; ///< not resent: over the retransmission budget
    uint64_t pli, fir;          ///< PLI packets, new FIR requests about our stream
    uint64_t keyframe_requests; ///< raised for the encoder (after keyframe_min_interval)
    uint64_t econnrefused;      ///< refusals seen on the RTCP socket
    int nb_receivers;           ///< receivers known, each read with lcv_rtp_muxer_get_receiver_stats();
                                ///< at most LCV_RTP_MAX_RECEIVERS: then a new one takes the place of
                                ///< one that left (BYE) or was silent for 25 s
    /* congestion control (muxer option cc; all 0 without it) */
    int64_t  target_bitrate;    ///< bit/s the encoder should produce now (the estimate less the retransmissions)
    int64_t  acked_bitrate;     ///< bit/s the receiver got, from transport feedback; 0: unknown
    int      cc_state;          ///< the rate controller: 0 hold, 1 increase, 2 decrease
    double   cc_delay_trend;    ///< the delay detector's modified trend (ms; > threshold: overuse)
    uint64_t rtcp_foreign;      ///< RTCP datagrams from others than the peer (muxer option rtcp_from): dropped
} LCVRTPSenderStats;

struct AVFormatContext;

/**
 * Copy the feedback statistics of one stream of an rtp or rtsp output.
 * @param size sizeof(*st)
 * @return 0, or AVERROR(ENOSYS) if the stream has no feedback reader (not
 *         rtp/rtsp over UDP, or feedback=0, or a libavformat built without
 *         the rtp muxer)
 */
int lcv_rtp_muxer_get_stats(struct AVFormatContext *s, int stream_index,
                            LCVRTPSenderStats *st, size_t size);

/**
 * Copy what receiver index (0 to nb_receivers - 1 of the stream's
 * LCVRTPSenderStats) has reported.
 * @param size sizeof(*st)
 * @return 0, AVERROR(ENOENT) for an index out of range, or AVERROR(ENOSYS)
 *         as lcv_rtp_muxer_get_stats()
 */
int lcv_rtp_muxer_get_receiver_stats(struct AVFormatContext *s, int stream_index, int index,
                                     LCVRTPReceiverStats *st, size_t size);

/**
 * Whether a receiver asked for a keyframe (PLI, or FIR with a new sequence
 * number) since the last call; at most one request per
 * keyframe_min_interval. Clears the request.
 * @return 1 if the encoder of this stream should code an IDR next, else 0
 */
int lcv_rtp_muxer_keyframe_requested(struct AVFormatContext *s, int stream_index);

/**
 * The bit rate the network takes now, by the muxer's congestion control
 * (muxer option cc): what the encoder of this stream should aim for, between
 * the muxer's min_bitrate and max_bitrate. Read it before each frame.
 * @return bit/s, or 0 without congestion control on this stream
 */
int64_t lcv_rtp_muxer_target_bitrate(struct AVFormatContext *s, int stream_index);
/** @} */

/**
 * @defgroup lcv_rtp_demuxer Loss recovery of FFmpeg's RTP demuxer
 * The "sdp" and "rtsp" demuxers ask for missing packets with NACKs (when
 * the SDP negotiates RTP/AVPF and, for an SDP input, with sdp_flags
 * rtcp_to_source), take RFC 4588 retransmissions, and send PLI or FIR when
 * a gap cannot be repaired in time. These calls are for the thread that
 * reads the input.
 * @{
 */
typedef struct LCVRTPReceiveStats {
    uint32_t ssrc;              ///< of the media stream
    uint64_t packets;           ///< RTP packets received (retransmissions included)
    uint64_t missing;           ///< sequence numbers found missing when a later one arrived
    uint64_t recovered;         ///< of which arrived after a NACK
    uint64_t rtx_packets;       ///< RFC 4588 packets restored
    uint64_t reordered;         ///< arrived late but before any NACK
    uint64_t lost;              ///< given up: retries spent, waited too long, or skipped
    uint64_t late;              ///< arrived after the demuxer had skipped them
    uint64_t duplicates;        ///< arrived again, or after being given up
    uint64_t skipped;           ///< gaps the demuxer stopped waiting for
    uint64_t seq_jumps;         ///< jumps too large to be loss (a restart)
    uint64_t nack_packets;      ///< NACK packets sent
    uint64_t nacked;            ///< sequence numbers asked for (each retry counts)
    uint64_t plis, firs;        ///< keyframe requests sent
    uint64_t pending;           ///< numbers still pursued now
    double   rtt_ms;            ///< smoothed NACK-to-retransmission time; -1 until measured
    double   reorder_wait_ms;   ///< how long the demuxer now waits for a missing packet at most
    uint64_t twcc_reports;      ///< transport-cc feedback packets sent (SDP a=extmap of transport-wide-cc)
    uint64_t au_overflows;      ///< H.264/HEVC access units handed on at 8 MiB, before their marker
    uint64_t queue_overflows;   ///< packets handed on early: the reorder queue held 16 MiB
    uint64_t resyncs;           ///< times the stream was followed again after packets far ahead took its place
    uint64_t strays;            ///< packets far ahead dropped from the reorder queue: the stream went on without them
    uint64_t kernel_stamps;     ///< packets whose arrival time (transport-cc) is the kernel's (SO_TIMESTAMPNS)
} LCVRTPReceiveStats;

/**
 * Copy the loss-recovery statistics of one stream of an sdp or rtsp input.
 * @param size sizeof(*st)
 * @return 0, or AVERROR(ENOSYS) if s is not such an input or the stream is
 *         not RTP
 */
int lcv_rtp_demuxer_get_stats(struct AVFormatContext *s, int stream_index,
                              LCVRTPReceiveStats *st, size_t size);
/** @} */

#endif /* AVFORMAT_LCVRTP_H */

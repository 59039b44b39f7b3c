/*
 * RTP demuxer extensions: NACK generator, adaptive reorder wait, RTX
 * reception, keyframe requests, receiver statistics
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

#ifndef AVFORMAT_RTPDEC_EXT_H
#define AVFORMAT_RTPDEC_EXT_H

#include <stdint.h>

#include "avformat.h"
#include "lcvrtcp.h"
#include "lcvrtp.h"
#include "url.h"

struct RTPDemuxContext;
struct RTSPStream;

/** rtcp-fb capabilities of a stream (RFC 4585 4.2, RFC 5104 7.1) */
#define FF_RTPDEC_FB_NACK   1
#define FF_RTPDEC_FB_PLI    2
#define FF_RTPDEC_FB_FIR    4

/** What the SDP says about a stream, kept in RTSPStream until the RTP
 *  demuxer context exists (all zero: nothing seen). */
typedef struct FFRTPDecExtSdp {
    int seen_rtx;               ///< an rtx rtpmap or an fmtp with apt= was seen
    int rtx_pt;                 ///< RFC 4588 RTX payload type
    int rtx_apt;                ///< the payload type it retransmits (apt=), -1 if not given
    int fb;                     ///< FF_RTPDEC_FB_* from a=rtcp-fb
    int seen_fb;                ///< any a=rtcp-fb line for the stream
    int twcc_id;                ///< a=extmap id of transport-wide-cc (1..14), 0: none
} FFRTPDecExtSdp;

/** Demuxer options (RTSPState), handed to each stream. */
typedef struct FFRTPDecExtOpts {
    int nack;                   ///< -1 auto (when negotiated), 0 off, 1 on
    int have_max_delay;         ///< max_delay below was noted before FFmpeg's default
    int64_t max_delay;          ///< the user's max_delay in µs, -1 if not set
    int nack_max_retries;
    int au_marker;              ///< H.264/HEVC: hand on access units at the marker bit
    int64_t stats_interval;     ///< µs between statistics (log and stats_file); 0: only at the end
    char *stats_file;           ///< JSON lines of the statistics, NULL: none

    AVIOContext *stats_pb;      ///< stats_file, once open (not an option)
    int64_t stats_next;         ///< when the next line is due
} FFRTPDecExtOpts;

typedef struct FFRTPDecExt FFRTPDecExt;

/**
 * Parse an SDP attribute line (without "a=") that belongs to the stream;
 * rtpmap/fmtp of the RTX payload type and rtcp-fb.
 * @return 1 if the line is consumed (FFmpeg's parser must not see it)
 */
int ff_rtpdec_ext_sdp_a_line(FFRTPDecExtSdp *sdp, int media_pt, const char *line);

/**
 * Attach the extension state to an RTP demuxer context.
 * @param feedback the stream is RTP/AVPF (RFC 4585 feedback allowed)
 */
int ff_rtpdec_ext_open(struct RTPDemuxContext *s, const FFRTPDecExtSdp *sdp,
                       const FFRTPDecExtOpts *opts, int feedback);
void ff_rtpdec_ext_close(struct RTPDemuxContext *s);

/**
 * An RTP packet arrived (before the reorder queue). Restores an RTX packet
 * in place into the original packet (*len shrinks by 2) and tracks the
 * sequence number.
 * @return 0 to go on; AVERROR_INVALIDDATA (a malformed RTX packet) or 1 (a
 *         duplicate, with NACKs on) to drop the packet
 */
int ff_rtpdec_ext_packet(struct RTPDemuxContext *s, uint8_t *buf, int *len);

/**
 * After the depacketizer made pkt (rv its return value) from a packet with
 * this RTP timestamp and flags: for H.264 and HEVC with au_marker, the
 * pieces of an access unit are gathered and the whole access unit is handed
 * on when its marker bit arrives (or, if that never comes, when the next
 * access unit begins), so that FFmpeg's parser need not wait for the next
 * one to start (one frame interval). Returns rv, 0 with pkt holding a
 * whole access unit, or AVERROR(EAGAIN) (pkt empty) while gathering.
 */
int ff_rtpdec_ext_au(struct RTPDemuxContext *s, AVPacket *pkt, uint32_t timestamp, int flags, int rv);

/** The demuxer skips the packets before seq (it gives up waiting). */
void ff_rtpdec_ext_skip(struct RTPDemuxContext *s, uint16_t seq);

/**
 * When the demuxer stops waiting for the missing packets before the head of
 * its reorder queue (queued since first_queue_time): as long as the NACK
 * generator still pursues one of them, at most max_delay.
 */
int64_t ff_rtpdec_ext_wait_end(struct RTPDemuxContext *s, int64_t first_queue_time,
                               int64_t max_delay);

/**
 * Send what is due: NACKs for missing packets, PLI/FIR when a gap was
 * skipped. Also logs the statistics at verbose level now and then.
 * @return µs until something is due next (INT64_MAX if nothing pending),
 *         or 0 when the extension is not active (then the caller uses
 *         FFmpeg's own ff_rtp_send_rtcp_feedback)
 */
int64_t ff_rtpdec_ext_feedback(struct RTPDemuxContext *s, URLContext *fd, AVIOContext *pb);

/** The stream's statistics (all zero, rtt_ms -1, without the extension). */
void ff_rtpdec_ext_get_stats(const struct RTPDemuxContext *s, LCVRTPReceiveStats *st);

/**
 * Write the stream's statistics as one JSON line (doc/stats.md).
 * @return 0, or AVERROR(ENOMEM) if the line would not fit (nothing written)
 */
int ff_rtpdec_ext_write_stats(const struct RTPDemuxContext *s, int stream_index,
                              AVIOContext *pb, int64_t now, int final);

/** Whether the stream asks for missing packets. */
int ff_rtpdec_ext_nacks(const struct RTPDemuxContext *s);

/** Whether this stream's feedback is the extension's. */
int ff_rtpdec_ext_active(const struct RTPDemuxContext *s);

/**
 * The kernel's receive time of the datagram the demuxer read last (µs,
 * av_gettime_relative()'s clock; 0: not known), for the next packet parsed:
 * its transport-cc arrival time.
 */
void ff_rtpdec_ext_arrival(struct RTPDemuxContext *s, int64_t arrival);

/** The SDP parser's a= line of the last stream: 1 if consumed (see
 *  ff_rtpdec_ext_sdp_a_line()). */
int ff_rtsp_ext_sdp_a_line(AVFormatContext *s, const char *line);

/** Note the user's max_delay (-1: not set) before FFmpeg fills in its
 *  default; paths that do not (RTSP listen) leave s->max_delay as set. */
void ff_rtsp_ext_note_max_delay(AVFormatContext *s);

/** ff_rtpdec_ext_open() for an RTSP/SDP stream whose RTP context is open,
 *  with the demuxer's options; a larger reorder queue while NACKs are on
 *  (unless reorder_queue_size is set). */
int ff_rtsp_ext_open_stream(AVFormatContext *s, struct RTSPStream *rtsp_st);

/**
 * Every stream has sent its BYE: hand on what the reorder queues still hold
 * (stock FFmpeg dropped it, and with it the end of the stream whenever a
 * retransmission was still due).
 * @return 0 with a packet, else AVERROR_EOF
 */
int ff_rtsp_ext_drain(AVFormatContext *s, AVPacket *pkt);

/**
 * The RTSP/SDP demuxer's poll loop: send the feedback due on every stream.
 * @return the poll timeout in ms: timeout_ms, or less when feedback or the
 *         end of the reorder wait (wait_end, 0 if none) comes sooner
 */
int ff_rtsp_ext_feedback_all(AVFormatContext *s, int timeout_ms, int64_t wait_end);

/** The RTSP/SDP demuxer read a datagram of rtsp_st: pass on when the kernel
 *  received it. */
void ff_rtsp_ext_received(AVFormatContext *s, struct RTSPStream *rtsp_st);

/**
 * Before the demuxer's streams are closed: the last statistics line of
 * each stream to stats_file, which is closed. Nothing without one.
 */
void ff_rtsp_ext_close(AVFormatContext *s);

/**
 * RTSP listen mode (a publisher's RECORD): point the stream's RTP handle,
 * opened towards the server's own port numbers, at the publisher's
 * client_port pair on the RTSP connection's peer address, so that RTCP
 * (RR, NACK, PLI, transport-cc) reaches the sending muxer.
 * @return 0 or a negative AVERROR
 */
int ff_rtsp_ext_listen_remote(AVFormatContext *s, struct RTSPStream *rtsp_st, int client_port);

#endif /* AVFORMAT_RTPDEC_EXT_H */

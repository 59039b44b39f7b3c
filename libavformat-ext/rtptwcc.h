/*
 * Transport-wide congestion control feedback: the send log, and feedback
 * turned into packets for the congestion controller
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

#ifndef AVFORMAT_RTPTWCC_H
#define AVFORMAT_RTPTWCC_H

/**
 * @file
 * The sender notes each RTP packet as it leaves (ff_rtp_twcc_sent()):
 * it numbers the packets that carry the transport-wide sequence number
 * extension and keeps when each left and its size, by that number and,
 * for the media SSRC, by RTP sequence number (RFC 8888 names packets so).
 * The feedback reader turns a transport-cc or RFC 8888 report into the
 * congestion controller's packets with ff_rtp_twcc_read(). The log has its
 * own lock: the sender's threads write it, the feedback reader reads it.
 * The muxer makes it and hands it to both.
 */

#include <stdint.h>

#include "lcvrtcp.h"
#include "rtpcc.h"

#ifndef FF_RTP_TWCC_LOG             /* a fuzzer builds it smaller: a power of 2 up to 65536 */
#define FF_RTP_TWCC_LOG 8192        ///< packets remembered
#endif

typedef struct FFRTPTwccLog FFRTPTwccLog;

/** @param media_ssrc the SSRC whose packets are also logged by RTP sequence number */
int ff_rtp_twcc_log_alloc(FFRTPTwccLog **plog, uint32_t media_ssrc);
void ff_rtp_twcc_log_free(FFRTPTwccLog **plog);

/**
 * Packets leaving at now: each one that carries the extension is numbered
 * (written into the packet) and logged. Any thread.
 */
void ff_rtp_twcc_sent(FFRTPTwccLog *log, uint8_t *const *pkts, const int *sizes, int nb,
                      int64_t now);

/**
 * When the packet with transport-wide number seq (by_rtp_seq: RTP sequence
 * number of the media SSRC) left, and its size, while the log remembers it.
 * @return 0, or AVERROR(ENOENT)
 */
int ff_rtp_twcc_lookup(FFRTPTwccLog *log, uint16_t seq, int by_rtp_seq,
                       int64_t *send_time, int *size);

/** A report being read: from ff_rtp_twcc_read_start() to the last ff_rtp_twcc_read(). */
typedef struct FFRTPTwccReader {
    const LCVRTCPPacket *p;
    LCVRTCPIter it;
    int64_t ts;                     ///< RFC 8888: the report's timestamp, unwrapped
    /* RFC 8888 reports overlap: kept from one report to the next */
    int ccfb_seen;
    uint16_t ccfb_last_seq;         ///< the last sequence number fed on
    int64_t ccfb_ts;
    /* transport-cc: the reference time unwrapped from one report to the
     * next, and what it adds to the parsed arrival times */
    int twcc_seen;
    int64_t twcc_ref;               ///< 64 ms units, > 0
    int64_t twcc_offset;            ///< us
} FFRTPTwccReader;

/**
 * Start reading a transport-cc or RFC 8888 (CCFB) feedback packet. r keeps
 * the RFC 8888 state between reports: zero it once before the first.
 * @return 0, or AVERROR(EINVAL) for another kind of packet
 */
int ff_rtp_twcc_read_start(FFRTPTwccReader *r, const LCVRTCPPacket *p);

/**
 * The next packets of the report that the log knows (others are not ours,
 * or too old), at most max, with their send times and sizes and their
 * arrival times (-1: lost; else >= 0, in the receiver's time base: a
 * transport-cc reference time that reads negative as the parser's signed
 * 24 bits, as libwebrtc's uptime-based one does, or that wraps after
 * 12.4 days, is unwrapped from report to report). RFC 8888 reports count only the media SSRC's
 * packets not reported before.
 * @return how many, 0 at the end
 */
int ff_rtp_twcc_read(FFRTPTwccLog *log, FFRTPTwccReader *r, uint32_t media_ssrc,
                     FFRTPCCPacket *out, int max);

/* ---- the receiving side: arrival times, and the feedback that reports them ---- */

#define FF_RTP_TWCC_INTERVAL 50000  ///< µs between transport feedback reports

typedef struct FFRTPTwccRecv FFRTPTwccRecv;

/** @param id the extension's id (1..14) from the SDP's a=extmap */
int ff_rtp_twcc_recv_alloc(FFRTPTwccRecv **pr, int id);
void ff_rtp_twcc_recv_free(FFRTPTwccRecv **pr);

/** An RTP packet arrived at now: its transport-wide number, if it has one, is noted. */
void ff_rtp_twcc_recv_packet(FFRTPTwccRecv *r, const uint8_t *pkt, int size, int64_t now);

/** When the next report is due (INT64_MAX before the first numbered packet). */
int64_t ff_rtp_twcc_recv_due(const FFRTPTwccRecv *r);

/**
 * Write the report due at now (the packets not reported yet, at most 400:
 * the rest at the next call) into w, sender SSRC me, media SSRC media_ssrc.
 * @return 1 if a report was written, 0 if there was nothing to report or no
 *         room; either way the next one is due by ff_rtp_twcc_recv_due()
 */
int ff_rtp_twcc_recv_write(FFRTPTwccRecv *r, LCVRTCPWriter *w, uint32_t me,
                           uint32_t media_ssrc, int64_t now);

#endif /* AVFORMAT_RTPTWCC_H */

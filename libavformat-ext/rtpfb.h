/*
 * RTCP feedback for the RTP muxer: receiver reports, NACK, PLI/FIR, SRs
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

#ifndef AVFORMAT_RTPFB_H
#define AVFORMAT_RTPFB_H

#include <stdint.h>

#include "avformat.h"
#include "lcvrtcp.h"
#include "lcvrtp.h"
#include "rtpsend.h"

typedef struct FFRTPFeedbackConfig {
    int nack;                   ///< answer NACKs
    int history_ms;             ///< how long sent packets stay answerable
    int rtx_pt;                 ///< RFC 4588 payload type, -1: plain resend
    uint32_t rtx_ssrc;          ///< 0: random
    double max_share;           ///< retransmissions / media bitrate
    double dup_loss;            ///< loss rate from which a resend goes out twice, 0: never
    int64_t sr_interval;        ///< us, 0: RFC 3550 rule
    int64_t stats_interval;     ///< us, 0: no periodic log
    const char *stats_file;     ///< JSON lines, or NULL
    int64_t kf_min_interval;    ///< us between keyframe requests
    uint32_t ssrc;
    const char *cname;
    int clock_rate;
    int packet_size;            ///< pkt_size: the largest datagram, RTX resends included
    int cc;                     ///< congestion control (transport-cc, RR loss, REMB)
    int64_t min_bitrate;        ///< bit/s, the target's floor
    int64_t max_bitrate;        ///< bit/s, its ceiling
    int64_t start_bitrate;      ///< bit/s, where it starts (at most max_bitrate)
    int probe;                  ///< probe clusters of resent packets (cc with nack)
    struct FFRTPTwccLog *twcc_log; ///< the sender's send log (cc), outliving the reader
} FFRTPFeedbackConfig;

typedef struct FFRTPFeedback FFRTPFeedback;

/**
 * Become the client of the sender's thread: read its RTCP socket, send the
 * SRs, and keep a history of the packets it sends (references to its
 * pooled buffers) for NACKs.
 */
int ff_rtpfb_start(FFRTPFeedback **pfb, void *logctx, FFRTPSender *sender,
                   const FFRTPFeedbackConfig *cfg);

/**
 * The muxer sent an SR itself (the first one, with the first packet): note
 * its NTP time for RTT, and schedule the next from now.
 */
void ff_rtpfb_sr_sent(FFRTPFeedback *fb, uint64_t ntp);

/** 1 until the first SR went out */
int ff_rtpfb_needs_first_sr(FFRTPFeedback *fb);

/**
 * The stream ended: if a receiver has sent NACKs, send the last packet of
 * the history once more (a tail loss probe: when the last packets were
 * lost, no later packet shows a receiver the gap; a receiver that has the
 * packet drops the copy). Returns 1 if it was sent, 0 if not, <0 on error.
 */
int ff_rtpfb_tail_probe(FFRTPFeedback *fb);

/** When the last NACK for a packet in the history arrived
 *  (av_gettime_relative()), 0 before any. */
int64_t ff_rtpfb_last_nack(FFRTPFeedback *fb);

/** Detach from the sender's thread (no more SRs, no more NACKs answered);
 *  the statistics stay readable. */
void ff_rtpfb_stop(FFRTPFeedback *fb);

void ff_rtpfb_get_stats(FFRTPFeedback *fb, LCVRTPSenderStats *st);

/** Receiver i (0 to the stats' nb_receivers - 1): 0, or AVERROR(ENOENT). */
int ff_rtpfb_get_receiver_stats(FFRTPFeedback *fb, int i, LCVRTPReceiverStats *st);

/** 1 once per keyframe request, see lcv_rtp_muxer_keyframe_requested() */
int ff_rtpfb_keyframe_requested(FFRTPFeedback *fb);

/** A keyframe is being sent: 1 if one was asked for since the last (the
 *  receiver's picture is broken until it arrives), 0 otherwise. */
int ff_rtpfb_keyframe_sent(FFRTPFeedback *fb);

/** A keyframe whose first packet has sequence number first_seq went out
 *  (-1: forget the last one, before the numbers wrap onto it). A NACK for
 *  a packet before it that the history cannot answer asks for no keyframe. */
void ff_rtpfb_keyframe_out(FFRTPFeedback *fb, int first_seq);

/** The congestion controller's target (bit/s), 0 without congestion control. */
int64_t ff_rtpfb_target_bitrate(FFRTPFeedback *fb);

/** Log the final statistics, release the history, free. */
void ff_rtpfb_free(FFRTPFeedback **pfb);

#endif /* AVFORMAT_RTPFB_H */

/*
 * Sender-side congestion control for the RTP muxer: a delay-based and a
 * loss-based estimate in the spirit of Google Congestion Control
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

#ifndef AVFORMAT_RTPCC_H
#define AVFORMAT_RTPCC_H

#include <stdint.h>

/** The transport-wide sequence number extension (RFC 8285 one-byte form). */

typedef struct FFRTPCCConfig {
    int64_t min_bitrate;        ///< bit/s, never below
    int64_t max_bitrate;        ///< bit/s, never above
    int64_t start_bitrate;      ///< bit/s before any feedback
    int probe;                  ///< ask for probe clusters (ff_rtpcc_probe_due())
} FFRTPCCConfig;

/** One packet of a transport feedback report, in transport order. */
typedef struct FFRTPCCPacket {
    int64_t send_time;          ///< µs, the sender's clock, when it left
    int64_t arrival;            ///< µs, the receiver's clock; < 0: reported lost
    int size;                   ///< bytes on the wire (RTP header included)
} FFRTPCCPacket;

enum FFRTPCCState {
    FF_RTPCC_HOLD,
    FF_RTPCC_INCREASE,
    FF_RTPCC_DECREASE,
};

enum FFRTPCCUsage {
    FF_RTPCC_NORMAL,
    FF_RTPCC_OVERUSE,
    FF_RTPCC_UNDERUSE,
};

typedef struct FFRTPCCStats {
    int64_t target;             ///< bit/s: min(delay_based, loss_based, remb)
    int64_t delay_based;        ///< bit/s, the AIMD rate controller's
    int64_t loss_based;         ///< bit/s
    int64_t acked;              ///< bit/s the receiver got over the last 300 ms, 0: unknown
    int64_t link_estimate;      ///< bit/s, the acked rate at the last decreases, 0: none yet
    enum FFRTPCCState state;
    enum FFRTPCCUsage usage;
    double trend;               ///< modified delay trend (ms), what the detector compares
    double threshold;           ///< its adaptive threshold (ms)
    double loss;                ///< fraction lost over the last loss interval
    uint64_t feedbacks;         ///< transport feedback reports consumed
    uint64_t loss_reports;      ///< RR loss fractions consumed (no transport feedback)
    uint64_t overuses;          ///< times the detector signalled overuse
    uint64_t decreases;         ///< rate decreases (delay or loss)
    uint64_t feedback_timeouts; ///< no transport feedback within FF_RTPCC_FEEDBACK_WAIT of the media's start
    uint64_t remb_expired;      ///< REMB caps dropped: no new REMB within FF_RTPCC_REMB_TIMEOUT
    uint64_t probes;            ///< probe clusters asked for
    uint64_t probe_results;     ///< of which measured
    uint64_t probe_failures;    ///< of which not: too few packets reported, too many lost, no result in time
    int64_t probe_estimate;     ///< bit/s, the last probe's measure, 0: none
    uint64_t recovery_probes;   ///< of the clusters, those asked for after a large drop of the target
} FFRTPCCStats;

typedef struct FFRTPCC FFRTPCC;

FFRTPCC *ff_rtpcc_alloc(const FFRTPCCConfig *cfg);
void ff_rtpcc_free(FFRTPCC **pcc);

/**
 * A transport feedback report: its packets in transport sequence order,
 * those no longer known to the sender left out.
 */
void ff_rtpcc_feedback(FFRTPCC *cc, const FFRTPCCPacket *pkts, int nb, int64_t now);

/** An RR's fraction lost (0..1), for receivers that send no transport feedback.
 *  Without transport feedback FF_RTPCC_FEEDBACK_WAIT after the first
 *  ff_rtpcc_update() (the first media packet), the delay-based rate is
 *  max_bitrate; the first transport feedback after that starts over from
 *  the start rate. */
void ff_rtpcc_loss_report(FFRTPCC *cc, double fraction, int64_t now);

#define FF_RTPCC_FEEDBACK_WAIT 1000000 ///< µs from the media's start: no transport feedback, max_bitrate
#define FF_RTPCC_REMB_TIMEOUT 5000000  ///< µs a REMB holds without a new one
#define FF_RTPCC_REMB_HALVING  500000  ///< µs a REMB cut takes to halve the target, at the fastest

/**
 * A receiver's REMB: the target goes no higher, after a descent of at most
 * half per FF_RTPCC_REMB_HALVING from where it was; it holds
 * FF_RTPCC_REMB_TIMEOUT after the last REMB.
 */
void ff_rtpcc_remb(FFRTPCC *cc, int64_t bitrate, int64_t now);

/** The clock alone moved (no feedback): the REMB's descent and timeout, the
 *  wait for transport feedback. Call it from the first media packet on. */
void ff_rtpcc_update(FFRTPCC *cc, int64_t now);

/** The round trip time (µs), for the response time of the rate controller. */
void ff_rtpcc_rtt(FFRTPCC *cc, int64_t rtt);

/** 1 while the delay-based rate is an estimate: from the start, and with
 *  transport feedback; 0 once FF_RTPCC_FEEDBACK_WAIT passed without it. */
int ff_rtpcc_estimating(const FFRTPCC *cc);

/**
 * Probing, as GCC's probe controller does: the first transport feedback
 * (after the start, or when it starts late) asks for clusters at 3 and 6 x
 * the start rate, each a short burst at its rate; a cluster the link took
 * at 70 % or more of the highest rate asked for asks for one at twice
 * what it measured, up to max_bitrate. The receive rate of a cluster
 * (min. with its send rate; 0.95 x it where it fell short of 0.9 x the send
 * rate: the link is full) raises the delay-based rate at once, and holds
 * against the acknowledged rate's cap for FF_RTPCC_PROBE_HOLD while the
 * encoder catches up. A decrease (delay or loss) ends the probing.
 */
typedef struct FFRTPCCProbe {
    int id;
    int64_t bitrate;            ///< bit/s to send the cluster at
    int bytes;                  ///< to send at least
    int packets;                ///< to send at least
} FFRTPCCProbe;

#define FF_RTPCC_PROBE_HOLD 1000000 ///< µs a probe's measure holds against the acknowledged rate

/**
 * A probe cluster to send from now, at p->bitrate, of p->bytes and
 * p->packets at least; every packet sent from now until
 * ff_rtpcc_probe_sent() counts in it (media too). One at a time.
 * @return 1 if one is due (p filled), 0 if not
 */
int ff_rtpcc_probe_due(FFRTPCC *cc, int64_t now, FFRTPCCProbe *p);

/** The cluster id went out: its last packet left at last (µs, the send
 *  times' clock); last < the cluster's start: nothing could be sent. */
void ff_rtpcc_probe_sent(FFRTPCC *cc, int id, int64_t last);

/** The target bit rate now (bit/s). */
int64_t ff_rtpcc_target(const FFRTPCC *cc);

void ff_rtpcc_get_stats(const FFRTPCC *cc, FFRTPCCStats *st);

const char *ff_rtpcc_state_name(enum FFRTPCCState state);

#endif /* AVFORMAT_RTPCC_H */

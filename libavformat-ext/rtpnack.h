/*
 * RTP receiver: which missing packets to ask for, and when (RFC 4585 NACK)
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

#ifndef AVFORMAT_RTPNACK_H
#define AVFORMAT_RTPNACK_H

/**
 * @file
 * The NACK generator, in the spirit of libwebrtc's NackRequester, as logic
 * only: it is told each sequence number that arrives and the time, and
 * says which numbers to ask for now and when it wants to be asked again.
 * It reads no clock and sends nothing (rtpdec_ext.c does).
 *
 * Every missing sequence number (unwrapped to 64 bits) is tracked in a
 * sorted, bounded list from the moment a later packet shows the gap. A
 * number is due when it is new and the reorder allowance has passed, or
 * when its last request is one retry interval old; it is given up one retry
 * interval after its max_retries-th request, or when it has been held for
 * the hold cap. The RTT is measured from the NACK to the arrival of a
 * number requested exactly once (Karn's rule), smoothed as TCP does
 * (RFC 6298); the retry interval is srtt + max(4 rttvar, 5 ms), 100 ms
 * before the first sample. The hold cap is max_wait; before any
 * retransmission arrived 500 ms, and 200 ms once a number went unanswered.
 * A new gap is asked for only when it is plausible: no more numbers than
 * arrived in the last second (at least FF_RTP_NACK_MIN_PLAUSIBLE); a real
 * stream loses no more than it sends, and a larger gap could not be
 * repaired from a sender's history in time (it counts as a jump).
 *
 * FFRTPRtcpBudget keeps the receiver's RTCP within its share of the media
 * rate, whatever the stream does: RTCP is 5 % of the session (RFC 3550 6.2,
 * RFC 4585 3.4, early feedback included), of which receivers get 75 %:
 * 3.75 %. A token bucket refilled at FF_RTP_RTCP_SHARE of the bytes
 * received over the last second (never less than FF_RTP_RTCP_FLOOR),
 * holding a quarter second of it (at least one compound).
 */

#include <stdint.h>

#define FF_RTP_NACK_MAX_MISSING 1024    ///< numbers tracked at once
#define FF_RTP_NACK_MAX_GAP     1000    ///< a larger jump is a restart, not loss
#define FF_RTP_NACK_REORDER     3000    ///< µs a new gap waits before its first NACK
#define FF_RTP_NACK_MIN_PLAUSIBLE 128   ///< a gap this large is always asked for
#define FF_RTP_NACK_JUMP_WAIT_MIN 20000  ///< µs a jump far ahead is held at least
#define FF_RTP_NACK_JUMP_WAIT_MAX 500000 ///< and at most
#define FF_RTP_RTCP_SHARE       0.0375  ///< the receiver's RTCP bytes / media bytes
#define FF_RTP_RTCP_FLOOR       1000    ///< bytes/s of RTCP always allowed
#define FF_RTP_RTCP_DEPTH       1400    ///< bytes the budget holds at least (one compound)

/** What the generator counted; the names of LCVRTPReceiveStats. */
typedef struct FFRTPNackStats {
    uint64_t packets, missing, recovered, reordered, lost, late, duplicates, skipped, seq_jumps;
} FFRTPNackStats;

typedef struct FFRTPNackMissing {
    int64_t seq;                ///< unwrapped
    int64_t detected;           ///< when a later packet showed the gap
    int64_t sent;               ///< last request, 0 before the first
    int retries;                ///< requests sent
} FFRTPNackMissing;

/** The generator's state: owned by it, embedded by its user. */
typedef struct FFRTPNack {
    int nack;                   ///< ask for missing packets (else only count them)
    int max_retries;
    int64_t max_wait;           ///< µs, the hold cap
    void *logctx;               ///< for debug logs of jumps and restarts, or NULL

    int started;
    int64_t highest;            ///< unwrapped highest sequence number seen
    int bad_seq;                ///< the number that confirms a restart far behind
    FFRTPNackMissing miss[FF_RTP_NACK_MAX_MISSING]; ///< sorted by seq
    int nb_miss;
    int64_t gave_up[FF_RTP_NACK_MAX_MISSING]; ///< recently given-up numbers + 1, by seq % size
    int64_t srtt, rttvar;       ///< µs; srtt 0 before the first sample
    int64_t wake;               ///< it wants ff_rtp_nack_due() by then (0: now)
    int64_t win_start;          ///< µs, the arrival count's second
    int win_count, win_prev;    ///< arrivals in it, and in the second before
    FFRTPNackStats st;
} FFRTPNack;

/** The receiver's RTCP budget (the caller's, zeroed to start). */
typedef struct FFRTPRtcpBudget {
    double tokens;              ///< bytes it may send now
    int64_t time;               ///< µs, when tokens was last brought up to date; 0: never
    int64_t win_start;          ///< µs, the media byte count's second
    int64_t win_bytes, prev_bytes;
    uint64_t deferred;          ///< times feedback waited for the budget
} FFRTPRtcpBudget;

/** A media datagram of bytes arrived at now. */
void ff_rtp_rtcp_budget_media(FFRTPRtcpBudget *b, int bytes, int64_t now);

/** Bytes of RTCP the budget allows now. */
double ff_rtp_rtcp_budget_left(FFRTPRtcpBudget *b, int64_t now);

/** µs until bytes are allowed (0: now). */
int64_t ff_rtp_rtcp_budget_wait(FFRTPRtcpBudget *b, int bytes, int64_t now);

/** bytes of RTCP were sent at now. */
void ff_rtp_rtcp_budget_spend(FFRTPRtcpBudget *b, int bytes, int64_t now);

void ff_rtp_nack_init(FFRTPNack *g, int nack, int max_retries, int64_t max_wait, void *logctx);

/**
 * A packet with sequence number seq arrived at now.
 * @return 1 for a copy of a number already handed on or queued (with NACKs
 *         on, the demuxer must not queue it again), else 0
 */
int ff_rtp_nack_packet(FFRTPNack *g, uint16_t seq, int64_t now);

/**
 * Give up what is over and take the numbers due for a request now, at most
 * max of them, into seqs (each counts as a request).
 * @param next when it wants to be called again (INT64_MAX: nothing pending)
 * @return how many numbers to ask for
 */
int ff_rtp_nack_due(FFRTPNack *g, int64_t now, uint16_t *seqs, int max, int64_t *next);

/** The demuxer skipped the packets before seq: they are given up. */
void ff_rtp_nack_skip(FFRTPNack *g, uint16_t seq);

/**
 * When to stop waiting for the numbers from `from` to before `head` (the
 * reorder queue's next expected number and its head): the latest time one
 * of them is still pursued, 0 if none is.
 */
int64_t ff_rtp_nack_wait_end(const FFRTPNack *g, uint16_t from, uint16_t head);

/** µs between two requests for one number. */
int64_t ff_rtp_nack_retry_interval(const FFRTPNack *g);

/** µs the demuxer now waits for a missing packet at most (statistics). */
int64_t ff_rtp_nack_reorder_wait(const FFRTPNack *g);

/**
 * µs the demuxer holds a packet far ahead of the stream (a jump that is no
 * loss) before it follows it: the time the stream takes, at the rate of the
 * last second, to send twice `run` packets, within FF_RTP_NACK_JUMP_WAIT_MIN
 * and FF_RTP_NACK_JUMP_WAIT_MAX. Long enough to see whether the stream goes
 * on behind it (then the packet is a stray, not the stream's), short enough
 * that a sender that restarted with new numbers is followed at once.
 */
int64_t ff_rtp_nack_jump_wait(const FFRTPNack *g, int run);

#endif /* AVFORMAT_RTPNACK_H */

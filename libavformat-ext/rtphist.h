/*
 * RTP packet history: what a NACK can be answered from, RTX, the resend budget
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

#ifndef AVFORMAT_RTPHIST_H
#define AVFORMAT_RTPHIST_H

/**
 * @file
 * The history holds references to the pooled buffers of the packets as they
 * leave, in send order, so sequence number n sits at (n - first) from the
 * oldest entry: no copy, no allocation. Entries leave it when older than
 * history_ms (by the clock, or by the media for a source faster than real
 * time) or when it is full; their buffers go back to the sender's pool.
 * A NACK is answered from the buffer (plain), or rebuilt into one scratch
 * buffer as RFC 4588 RTX. A token bucket refilled at max_share of the media
 * rate limits what is resent, in bytes and in datagrams (as many as those
 * bytes make in packets of the history's mean size). Logic only: `now` and the media rate come with
 * each call, and the caller sends and locks.
 */

#include <stdint.h>

#include "libavutil/buffer.h"

#ifndef FF_RTP_HIST_MAX_PACKETS     /* a fuzzer builds it smaller: a power of 2 up to 32768 */
#define FF_RTP_HIST_MAX_PACKETS 32768
#endif
#define FF_RTP_HIST_MAX_BYTES   (64 << 20)
#define FF_RTP_HIST_MIN_BURST   8       ///< packets the resend budget always has room for

typedef struct FFRTPHistConfig {
    int history_ms;             ///< how long sent packets stay answerable, 0: none kept
    int clock_rate;             ///< Hz of the RTP timestamps
    int rtx_pt;                 ///< RFC 4588 payload type, -1: plain resend
    uint32_t rtx_ssrc;
    uint16_t rtx_seq;           ///< the first RTX sequence number
    double max_share;           ///< resent bytes / media bytes
    int max_packet;             ///< largest packet it keeps, in bytes (RTX adds 2)
    double dup_loss;            ///< loss rate from which a resend goes out twice, 0: never
} FFRTPHistConfig;

/** What to do with a NACK for one sequence number. */
enum FFRTPHistAnswer {
    FF_RTP_HIST_RESEND,         ///< send the packet given
    FF_RTP_HIST_EARLY,          ///< resent less than the shortest round trip ago: on its way
    FF_RTP_HIST_OVER_BUDGET,    ///< the budget is spent
    FF_RTP_HIST_AHEAD,          ///< after the newest packet: not sent yet
    FF_RTP_HIST_GONE,           ///< sent, but no longer in the history
};

typedef struct FFRTPHist FFRTPHist;

int ff_rtp_hist_alloc(FFRTPHist **ph, const FFRTPHistConfig *cfg);

/** Release every buffer it holds, and free it. */
void ff_rtp_hist_free(FFRTPHist **ph);

/**
 * Packets that leave now: the history steals their references (sets bufs[i]
 * to NULL) and frees nothing before its next call, so the data stays valid
 * while they are sent. A gap in the sequence numbers empties it first.
 */
void ff_rtp_hist_add(FFRTPHist *h, AVBufferRef **bufs, const int *sizes, int nb, int64_t now);

/**
 * A NACK for seq at now.
 * @param media_rate bytes/s of media lately (the budget's refill is max_share of it,
 *                   in bytes and in datagrams of the history's mean size)
 * @param min_rtt    µs, the shortest round trip of any receiver (0: none yet)
 * @param pkt, len   with FF_RTP_HIST_RESEND, the packet to send (valid until
 *                   the next call), charged to the budget
 */
enum FFRTPHistAnswer ff_rtp_hist_nack(FFRTPHist *h, uint16_t seq, int64_t now, double media_rate,
                                      int64_t min_rtt, const uint8_t **pkt, int *len);

/** The packet ff_rtp_hist_nack() gave for seq was sent at now. */
void ff_rtp_hist_resent(FFRTPHist *h, uint16_t seq, int64_t now);

/**
 * The share of the packets sent lately that a receiver NACKed (each packet
 * counted once), decaying with a 2 s time constant; 0 until 50 were sent.
 */
double ff_rtp_hist_loss(const FFRTPHist *h);

/**
 * A second copy of the packet just resent (ff_rtp_hist_resent() for seq at
 * the same now): when the loss lately is at least dup_loss, a single resend
 * is lost as often as the original, and a frame waits another round trip
 * for it. Charged to the budget, and given only while that keeps at least
 * half of it (the first copies of other packets come first).
 * @return 1 with *pkt and *len set (as for ff_rtp_hist_nack()), 0 if none
 */
int ff_rtp_hist_copy(FFRTPHist *h, uint16_t seq, int64_t now, const uint8_t **pkt, int *len);

/**
 * The newest packet, as a resend (RTX-wrapped with rtx_pt), outside the
 * budget: the tail loss probe. @return 1 with *pkt set, 0 if empty
 */
int ff_rtp_hist_newest(FFRTPHist *h, const uint8_t **pkt, int *len);

/**
 * A packet for a probe cluster, as a resend, outside the budget: the
 * n-th of the newest ones (n modulo the 16 newest, or fewer if the history
 * holds fewer), the largest of it and the next newer one (the last packet
 * of a frame is often short). @return 1 with *pkt set, 0 if empty
 */
int ff_rtp_hist_probe(FFRTPHist *h, int n, const uint8_t **pkt, int *len);

#endif /* AVFORMAT_RTPHIST_H */

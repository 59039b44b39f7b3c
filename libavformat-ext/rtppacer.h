/*
 * RTP pacer: when each packet of the muxer may leave
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

#ifndef AVFORMAT_RTPPACER_H
#define AVFORMAT_RTPPACER_H

/**
 * @file
 * The pacer as logic only: it holds the packets of the access units it is
 * given and says which leave in each burst and when the next burst is
 * due. It reads no clock (every call takes `now`, µs on one monotonic
 * clock), takes no lock and touches no socket: the sender (rtpsend.c)
 * calls it under its own lock and sends what it hands out. Its unit test
 * (libavformat/tests/rtppacer.c) drives it with a made-up clock.
 */

#include <stdint.h>

#include "libavutil/buffer.h"

#define FF_RTP_PACER_MAX_PACKETS 8192       ///< packets it holds at most
#define FF_RTP_PACER_MAX_BYTES   (16 << 20) ///< and bytes
#define FF_RTP_PACER_MAX_UNITS   1024       ///< access units it holds at most

typedef struct FFRTPPacerConfig {
    double factor;          ///< pacing rate / media rate
    int burst;              ///< bytes that may leave back to back
    int64_t max_delay;      ///< µs a unit may wait past its time before the rate rises
    int64_t bit_rate;       ///< the encoder's bit/s when known, else 0
    int clock_rate;         ///< Hz of the packets' RTP timestamps
    int max_resend;         ///< largest resend it copies, in bytes
    /**
     * µs ahead of its departure time a burst may be handed out (the
     * kernel's pacing, SO_TXTIME: the burst carries that time), 0: a burst
     * is handed out when it is due.
     */
    int64_t ahead;
} FFRTPPacerConfig;

typedef struct FFRTPPacerStats {
    uint64_t bursts;            ///< bursts handed out
    uint64_t forced_drains;     ///< units that would have waited more than max_delay
    uint64_t urgent_units;      ///< units given a short due time (ff_rtp_pacer_urgent())
    uint64_t unpaced_units;     ///< units not paced: the source is faster than real time
    uint64_t resends_queued;    ///< resends that waited for a burst
    uint64_t resends_dropped;   ///< resends refused: the resend queue was full
    double rate;                ///< bit/s of the last burst, 0 before any
    double delay_p50_ms, delay_p95_ms, delay_max_ms; ///< time packets waited
} FFRTPPacerStats;

/** One burst: from ff_rtp_pacer_burst_start() to ff_rtp_pacer_burst_end(). */
typedef struct FFRTPPacerBurst {
    int64_t now;
    int64_t depart;         ///< µs: the departure time it carries (ahead), 0: none
    double rate;            ///< bytes/s it is paced at
    int limit;              ///< bytes it may carry
    int resent;             ///< bytes of resends it carries
    int bytes;              ///< bytes of media it carries
} FFRTPPacerBurst;

typedef struct FFRTPPacer FFRTPPacer;

int ff_rtp_pacer_alloc(FFRTPPacer **pp, const FFRTPPacerConfig *cfg);

/** Free the pacer and the packets it still holds. */
void ff_rtp_pacer_free(FFRTPPacer **pp);

/** Whether nb more packets of bytes in all, as units more access units, fit. */
int ff_rtp_pacer_has_room(const FFRTPPacer *p, int nb, int bytes, int units);

/** 1 when it holds neither media nor resends. */
int ff_rtp_pacer_empty(const FFRTPPacer *p);

/** Media packets it holds. */
int ff_rtp_pacer_queued(const FFRTPPacer *p);

/**
 * Bytes/s of media lately (the units pushed in the last second, paced or
 * not: rtprate.h), without the encoder's bit_rate: the sender's one
 * estimate of the media rate while it paces.
 */
double ff_rtp_pacer_media_rate(FFRTPPacer *p, int64_t now);

/** 1 while the source keeps to real time (its units are paced). */
int ff_rtp_pacer_live(const FFRTPPacer *p);

/**
 * The next unit pushed is due within `within` µs (a keyframe a receiver
 * asked for): the rate rises to meet it, counted as urgent, not forced.
 */
void ff_rtp_pacer_urgent(FFRTPPacer *p, int64_t within);

/**
 * An access unit of nb packets (RTP packets: the timestamp is read from
 * bufs[0]). It is due max_delay after its time by its timestamp.
 * @return 1: held, its references taken (bufs[i] set to NULL); 0: the
 *         source is faster than real time and the unit is not paced: the
 *         caller sends it itself, once the pacer is empty
 */
int ff_rtp_pacer_push(FFRTPPacer *p, AVBufferRef **bufs, const int *sizes, int nb,
                      int64_t now);

/**
 * Start a burst if one is due at now.
 * @return 1 with *b set; 0 with *next set to when the next one is due
 *         (INT64_MAX: the pacer is empty)
 */
int ff_rtp_pacer_burst_start(FFRTPPacer *p, int64_t now, FFRTPPacerBurst *b, int64_t *next);

/**
 * The oldest queued resend, if the burst has room for it: *data stays valid
 * until ff_rtp_pacer_resend_done(), and may be written to (numbered).
 * Resends go first in a burst.
 */
int ff_rtp_pacer_resend_peek(FFRTPPacer *p, const FFRTPPacerBurst *b, uint8_t **data, int *len);

/** The resend of ff_rtp_pacer_resend_peek() left (or failed): drop it. */
void ff_rtp_pacer_resend_done(FFRTPPacer *p, FFRTPPacerBurst *b);

/**
 * Media packets for the burst, in order, at most max: their references go
 * to bufs (the caller unrefs them after sending).
 * @return how many
 */
int ff_rtp_pacer_take(FFRTPPacer *p, FFRTPPacerBurst *b, AVBufferRef **bufs, int *sizes, int max);

/** The burst is complete: the next one is due when this one would have left at its rate. */
void ff_rtp_pacer_burst_end(FFRTPPacer *p, FFRTPPacerBurst *b);

/**
 * A resend of len bytes ahead of the media it holds: at once while a burst
 * of credit is left (charged to the rate), else copied to go first in the
 * next burst.
 * @return 1: the caller sends it now; 0: queued; AVERROR(EAGAIN): the
 *         resend queue is full (or len is above max_resend), not sent
 */
int ff_rtp_pacer_resend(FFRTPPacer *p, const uint8_t *buf, int len, int64_t now);

/**
 * The rate the link takes, bytes/s (congestion control's target, when the
 * encoder follows it): bursts go at factor x this rate instead of factor x
 * the media rate (never slower than the last second's media rate, and the
 * encoder's configured bit rate no longer counts), as GCC's pacer does.
 * 0: unknown, paced by the media rate again.
 */
void ff_rtp_pacer_set_link_rate(FFRTPPacer *p, double rate);

/** Change cfg.clock_rate (the stream's is known after the pacer is made). */
void ff_rtp_pacer_set_clock_rate(FFRTPPacer *p, int clock_rate);

/** Change cfg.ahead (0: no departure times any more). */
void ff_rtp_pacer_set_ahead(FFRTPPacer *p, int64_t ahead);

void ff_rtp_pacer_get_stats(const FFRTPPacer *p, FFRTPPacerStats *st);

#endif /* AVFORMAT_RTPPACER_H */

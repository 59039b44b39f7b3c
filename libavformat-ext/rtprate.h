/*
 * The media rate of an RTP stream over the last second
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

#ifndef AVFORMAT_RTPRATE_H
#define AVFORMAT_RTPRATE_H

/**
 * @file
 * One estimate of the rate a stream's media comes at: the bytes of the
 * access units handed to the sender in the last second, over the time they
 * cover. The sender keeps one (in its pacer when it paces), and everything
 * that needs the media rate asks it: the pacer's rate, the resend budget,
 * the RTCP interval. Logic only: `now` in every call.
 */

#include <stdint.h>

#define FF_RTP_RATE_WINDOW 1000000      ///< µs over which the rate is measured

typedef struct FFRTPRateSample {
    int64_t time;
    int bytes;
    int64_t media_time;                 ///< µs, by the RTP timestamps
} FFRTPRateSample;

/** The state, owned by whoever embeds it; zeroed to start. */
typedef struct FFRTPRate {
    FFRTPRateSample win[512];           ///< access units of the last window
    int start, count;
    int64_t bytes;
} FFRTPRate;

/** An access unit of bytes at now, of media time media_time. */
void ff_rtp_rate_add(FFRTPRate *r, int64_t now, int bytes, int64_t media_time);

/**
 * Bytes per second, 0 before any unit: over the clock since the oldest
 * unit of the window (so the first second is not underestimated), at
 * least 200 ms; with media_span over the media time the window covers if
 * that is longer (a source that came ahead of its time), 10 s at most.
 */
double ff_rtp_rate_get(FFRTPRate *r, int64_t now, int media_span);

#endif /* AVFORMAT_RTPRATE_H */

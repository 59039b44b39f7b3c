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

#include "libavutil/common.h"

#include "rtprate.h"

#define MIN_SPAN 200000                 ///< µs: the shortest time a rate is measured over

void ff_rtp_rate_add(FFRTPRate *r, int64_t now, int bytes, int64_t media_time)
{
    if (r->count == FF_ARRAY_ELEMS(r->win)) {
        /* more than 512 units in a second: fold into the newest */
        r->win[(r->start + r->count - 1) % FF_ARRAY_ELEMS(r->win)].bytes += bytes;
    } else {
        FFRTPRateSample *w = &r->win[(r->start + r->count++) % FF_ARRAY_ELEMS(r->win)];
        w->time       = now;
        w->bytes      = bytes;
        w->media_time = media_time;
    }
    r->bytes += bytes;
}

double ff_rtp_rate_get(FFRTPRate *r, int64_t now, int media_span)
{
    const FFRTPRateSample *o, *n;
    int64_t span;

    while (r->count && now - r->win[r->start].time > FF_RTP_RATE_WINDOW) {
        r->bytes -= r->win[r->start].bytes;
        r->start = (r->start + 1) % FF_ARRAY_ELEMS(r->win);
        r->count--;
    }
    if (!r->count)
        return 0;
    o    = &r->win[r->start];
    n    = &r->win[(r->start + r->count - 1) % FF_ARRAY_ELEMS(r->win)];
    span = FFMAX(now - o->time, MIN_SPAN);
    if (media_span)
        span = FFMAX(span, FFMIN(n->media_time - o->media_time, 10 * FF_RTP_RATE_WINDOW));
    return r->bytes * 1e6 / span;
}

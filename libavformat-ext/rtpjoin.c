/*
 * RTP: a receiver that joins late, its keyframe request and the sender's
 * parameter sets before each IDR
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

#include <stdint.h>

#include "libavutil/intreadwrite.h"
#include "libavutil/macros.h"
#include "libavcodec/codec_id.h"

#include "rtpjoin.h"

/* the bits of FFRTPJoin.seen */
#define SEEN_VPS 1
#define SEEN_SPS 2
#define SEEN_PPS 4

/* one NAL unit's type; start: it begins here (not a fragment's middle) */
static void nal(FFRTPJoin *j, int type, int start, int64_t now)
{
    int irap;

    if (!j->active || !start)
        return;
    if (j->hevc) {
        j->seen |= type == 32 ? SEEN_VPS : type == 33 ? SEEN_SPS : type == 34 ? SEEN_PPS : 0;
        irap = type >= 16 && type <= 23;
    } else {
        j->seen |= type == 7 ? SEEN_SPS : type == 8 ? SEEN_PPS : 0;
        irap = type == 5;
    }
    /* parameter sets before the picture, as a decoder needs them */
    if (irap && (j->seen & j->need) == j->need) {
        j->active    = 0;
        j->decodable = now;
    }
}

/* the NAL units of an aggregation packet: 16-bit sizes, each unit after its own */
static void aggregate(FFRTPJoin *j, const uint8_t *p, int len, int64_t now)
{
    while (len > 2) {
        int size = AV_RB16(p);
        p += 2, len -= 2;
        if (size < 1 || size > len)
            return;
        nal(j, j->hevc ? (p[0] >> 1) & 0x3f : p[0] & 0x1f, 1, now);
        p += size, len -= size;
    }
}

static void annexb(FFRTPJoin *j, const uint8_t *p, int size)
{
    for (int i = 0; i + 3 < size; i++)
        if (!p[i] && !p[i + 1] && p[i + 2] == 1)
            nal(j, j->hevc ? (p[i + 3] >> 1) & 0x3f : p[i + 3] & 0x1f, 1, -1);
}

void ff_rtp_join_init(FFRTPJoin *j, int codec_id, const uint8_t *extradata, int size)
{
    *j = (FFRTPJoin){
        .hevc      = codec_id == AV_CODEC_ID_HEVC,
        .active    = codec_id == AV_CODEC_ID_H264 || codec_id == AV_CODEC_ID_HEVC,
        .first     = -1,
        .decodable = -1,
    };
    j->need = j->hevc ? SEEN_VPS | SEEN_SPS | SEEN_PPS : SEEN_SPS | SEEN_PPS;
    if (j->active && extradata)
        annexb(j, extradata, size);
}

void ff_rtp_join_packet(FFRTPJoin *j, const uint8_t *p, int len, int64_t now)
{
    int type;

    if (!j->active || len < 1)
        return;
    if (j->first < 0) {
        j->first    = now;
        j->next     = now + FF_RTP_JOIN_FIRST;
        j->interval = FF_RTP_JOIN_RETRY;
    }
    if (j->hevc) {                          /* RFC 7798 */
        if (len < 3)
            return;
        type = (p[0] >> 1) & 0x3f;
        if (type == 48)                     /* AP (without DONL) */
            aggregate(j, p + 2, len - 2, now);
        else if (type == 49)                /* FU: S bit, type */
            nal(j, p[2] & 0x3f, p[2] & 0x80, now);
        else if (type < 48)
            nal(j, type, 1, now);
    } else {                                /* RFC 6184 */
        type = p[0] & 0x1f;
        if (type >= 1 && type <= 23)
            nal(j, type, 1, now);
        else if (type == 24)                /* STAP-A */
            aggregate(j, p + 1, len - 1, now);
        else if (type == 25 && len > 3)     /* STAP-B: a DON first */
            aggregate(j, p + 3, len - 3, now);
        else if ((type == 28 || type == 29) && len > 1) /* FU-A, FU-B */
            nal(j, p[1] & 0x1f, p[1] & 0x80, now);
    }
}

int64_t ff_rtp_join_next(const FFRTPJoin *j)
{
    return j->active && j->first >= 0 ? j->next : INT64_MAX;
}

int ff_rtp_join_due(FFRTPJoin *j, int64_t now)
{
    if (now < ff_rtp_join_next(j))
        return 0;
    j->requests++;
    j->next     = now + j->interval;
    j->interval = FFMIN(2 * j->interval, FF_RTP_JOIN_MAX);
    return 1;
}

/* the parameter sets (SEEN_*) of an Annex B buffer before its first slice;
 * *irap: that slice is an IDR/IRAP one (the scan stops there) */
static unsigned annexb_sets(int hevc, const uint8_t *p, int size, int *irap)
{
    unsigned seen = 0;

    *irap = 0;
    for (int i = 0; i + 3 < size; i++) {
        int type;
        if (p[i] || p[i + 1] || p[i + 2] != 1)
            continue;
        type = hevc ? (p[i + 3] >> 1) & 0x3f : p[i + 3] & 0x1f;
        if (hevc) {
            seen  |= type == 32 ? SEEN_VPS : type == 33 ? SEEN_SPS : type == 34 ? SEEN_PPS : 0;
            *irap  = type >= 16 && type <= 23;
            if (type < 32)          /* the first slice: what follows cannot help it */
                break;
        } else {
            seen  |= type == 7 ? SEEN_SPS : type == 8 ? SEEN_PPS : 0;
            *irap  = type == 5;
            if (type >= 1 && type <= 5)
                break;
        }
        i += 3;
    }
    return seen;
}

int ff_rtp_join_params_needed(int codec_id, const uint8_t *extradata, int extradata_size,
                              const uint8_t *au, int size)
{
    int hevc = codec_id == AV_CODEC_ID_HEVC, irap;
    unsigned need = hevc ? SEEN_VPS | SEEN_SPS | SEEN_PPS : SEEN_SPS | SEEN_PPS;

    if ((codec_id != AV_CODEC_ID_H264 && !hevc) || !extradata ||
        (annexb_sets(hevc, extradata, extradata_size, &irap) & need) != need)
        return 0;
    return (annexb_sets(hevc, au, size, &irap) & need) != need && irap;
}

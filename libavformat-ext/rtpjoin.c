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
#include <string.h>

#include "libavutil/error.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/macros.h"
#include "libavutil/mem.h"
#include "libavcodec/codec_id.h"
#include "libavcodec/defs.h"

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

/* one NAL unit of an access unit's start: its parameter set in *seen; 1
 * at the first slice (*irap: an IDR/IRAP one), where the scan stops */
static int classify(int hevc, int type, unsigned *seen, int *irap)
{
    if (hevc) {
        *seen |= type == 32 ? SEEN_VPS : type == 33 ? SEEN_SPS : type == 34 ? SEEN_PPS : 0;
        *irap  = type >= 16 && type <= 23;
        return type < 32;       /* the first slice: what follows cannot help it */
    }
    *seen |= type == 7 ? SEEN_SPS : type == 8 ? SEEN_PPS : 0;
    *irap  = type == 5;
    return type >= 1 && type <= 5;
}

int ff_rtp_join_is_slice(int codec_id, uint8_t nal)
{
    unsigned seen;
    int irap, hevc = codec_id == AV_CODEC_ID_HEVC;

    return classify(hevc, hevc ? (nal >> 1) & 0x3f : nal & 0x1f, &seen, &irap);
}

/* the parameter sets (SEEN_*) of an Annex B buffer before its first slice;
 * *irap: that slice is an IDR/IRAP one (the scan stops there) */
static unsigned annexb_sets(int hevc, const uint8_t *p, int size, int *irap)
{
    unsigned seen = 0;

    *irap = 0;
    for (int i = 0; i + 3 < size; i++) {
        if (p[i] || p[i + 1] || p[i + 2] != 1)
            continue;
        if (classify(hevc, hevc ? (p[i + 3] >> 1) & 0x3f : p[i + 3] & 0x1f, &seen, irap))
            break;
        i += 3;
    }
    return seen;
}

/* the same for NAL units each after its size in nal_length_size bytes (MP4,
 * Matroska); a size past the end stops the scan */
static unsigned sized_sets(int hevc, const uint8_t *p, int size, int nal_length_size,
                           int *irap)
{
    unsigned seen = 0;

    *irap = 0;
    while (size > nal_length_size) {
        uint32_t len = 0;
        for (int i = 0; i < nal_length_size; i++)
            len = len << 8 | p[i];
        p += nal_length_size, size -= nal_length_size;
        if (!len || len > size)
            break;
        if (classify(hevc, hevc ? (p[0] >> 1) & 0x3f : p[0] & 0x1f, &seen, irap))
            break;
        p += len, size -= len;
    }
    return seen;
}

int ff_rtp_join_params_needed(int codec_id, const uint8_t *ps, int ps_size,
                              const uint8_t *au, int size, int nal_length_size)
{
    int hevc = codec_id == AV_CODEC_ID_HEVC, irap;
    unsigned need = hevc ? SEEN_VPS | SEEN_SPS | SEEN_PPS : SEEN_SPS | SEEN_PPS, seen;

    if ((codec_id != AV_CODEC_ID_H264 && !hevc) || !ps ||
        (annexb_sets(hevc, ps, ps_size, &irap) & need) != need ||
        nal_length_size < 0 || nal_length_size > 4)
        return 0;
    seen = nal_length_size ? sized_sets(hevc, au, size, nal_length_size, &irap)
                           : annexb_sets(hevc, au, size, &irap);
    return (seen & need) != need && irap;
}

/* the NAL units of avcC or hvcC extradata to out as Annex B (out NULL: only
 * counts); the size, or AVERROR_INVALIDDATA */
static int sized_to_annexb(int hevc, const uint8_t *x, int size, uint8_t *out)
{
    const uint8_t *p = x + (hevc ? 23 : 6), *end = x + size;
    /* avcC: SPS count (5 bits) in byte 5, then the SPS, a PPS count byte
     * and the PPS; hvcC: arrays (count in byte 22), each a type byte and
     * a 16-bit count of NAL units. Every NAL unit after its 16-bit size. */
    int groups = hevc ? x[22] : 2, total = 0;

    for (int g = 0; g < groups; g++) {
        int n;
        if (hevc) {
            if (end - p < 3)
                return AVERROR_INVALIDDATA;
            n = AV_RB16(p + 1);
            p += 3;
        } else if (g == 0) {
            n = x[5] & 0x1f;
        } else {
            if (p >= end)
                return AVERROR_INVALIDDATA;
            n = *p++;
        }
        while (n--) {
            int len;
            if (end - p < 2 || (len = AV_RB16(p)) > end - p - 2)
                return AVERROR_INVALIDDATA;
            if (len && out) {
                AV_WB32(out + total, 1);
                memcpy(out + total + 4, p + 2, len);
            }
            total += len ? 4 + len : 0;
            p += 2 + len;
        }
    }
    return total;
}

int ff_rtp_join_params_annexb(int codec_id, const uint8_t *extradata, int size, uint8_t **out)
{
    int hevc = codec_id == AV_CODEC_ID_HEVC, ret;

    *out = NULL;
    if ((codec_id != AV_CODEC_ID_H264 && !hevc) || !extradata ||
        size < (hevc ? 23 : 6) || extradata[0] != 1)
        return 0;
    if ((ret = sized_to_annexb(hevc, extradata, size, NULL)) <= 0)
        return ret;
    if (!(*out = av_malloc(ret + AV_INPUT_BUFFER_PADDING_SIZE)))
        return AVERROR(ENOMEM);
    sized_to_annexb(hevc, extradata, size, *out);
    memset(*out + ret, 0, AV_INPUT_BUFFER_PADDING_SIZE);
    return ret;
}

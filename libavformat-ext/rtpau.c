/*
 * RTP receiver: H.264 and HEVC access units handed on at their marker bit
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

#include <limits.h>
#include <string.h>

#include "libavcodec/codec_id.h"
#include "libavcodec/defs.h"
#include "libavutil/error.h"
#include "libavutil/mem.h"

#include "rtpau.h"

struct FFRTPAU {
    int codec;                  ///< AV_CODEC_ID_H264 or _HEVC
    uint8_t *buf;
    unsigned size, cap;
    uint32_t ts;
    int vcl;                    ///< the gathered pieces hold a slice
    AVPacket *props;            ///< the first piece's properties (no data)
    uint64_t overflows;
};

int ff_rtp_au_alloc(FFRTPAU **pa, int codec_id)
{
    FFRTPAU *a;

    *pa = NULL;
    if (codec_id != AV_CODEC_ID_H264 && codec_id != AV_CODEC_ID_HEVC)
        return AVERROR(EINVAL);
    if (!(a = av_mallocz(sizeof(*a))) || !(a->props = av_packet_alloc())) {
        av_free(a);
        return AVERROR(ENOMEM);
    }
    a->codec = codec_id;
    *pa = a;
    return 0;
}

void ff_rtp_au_free(FFRTPAU **pa)
{
    if (!*pa)
        return;
    av_freep(&(*pa)->buf);
    av_packet_free(&(*pa)->props);
    av_freep(pa);
}

/** Whether depacketized data (Annex B) holds a slice NAL unit. */
static int has_slice(int codec, const uint8_t *p, int size)
{
    for (int i = 0; i + 3 < size; i++) {
        int type;
        if (p[i] || p[i + 1] || p[i + 2] != 1) {
            if (p[i + 2] > 1)
                i += 2;             /* no start code can begin before i + 3 */
            continue;
        }
        type = codec == AV_CODEC_ID_H264 ? p[i + 3] & 0x1f : (p[i + 3] >> 1) & 0x3f;
        if (codec == AV_CODEC_ID_H264 ? type >= 1 && type <= 5 : type <= 31)
            return 1;
        i += 2;
    }
    return 0;
}

/** Move the gathered access unit into pkt. */
static int out(FFRTPAU *a, AVPacket *pkt)
{
    int ret;

    av_packet_unref(pkt);
    if ((ret = av_new_packet(pkt, a->size)) < 0)
        return ret;
    memcpy(pkt->data, a->buf, a->size);
    if ((ret = av_packet_copy_props(pkt, a->props)) < 0)
        return ret;
    av_packet_unref(a->props);
    /* one huge access unit (or a flood) does not keep its buffer */
    if (a->cap > (1 << 20) && a->cap / 4 > a->size) {
        av_freep(&a->buf);
        a->cap = 0;
    }
    a->size = 0;
    a->vcl  = 0;
    return 0;
}

/** Append pkt's data (and its properties, if it is the first piece). */
static int add(FFRTPAU *a, AVPacket *pkt, uint32_t ts)
{
    int ret;

    if (a->size + (uint64_t)pkt->size > INT_MAX - AV_INPUT_BUFFER_PADDING_SIZE)
        return AVERROR_INVALIDDATA;
    if (!a->size) {
        if ((ret = av_packet_copy_props(a->props, pkt)) < 0)
            return ret;
        a->ts = ts;
    }
    if (a->size + pkt->size > a->cap) {
        /* keeps the contents; grows by about an eighth at least */
        uint8_t *buf = av_fast_realloc(a->buf, &a->cap, a->size + pkt->size);
        if (!buf)
            return AVERROR(ENOMEM);
        a->buf = buf;
    }
    memcpy(a->buf + a->size, pkt->data, pkt->size);
    a->size += pkt->size;
    if (!a->vcl)         /* once a slice is in, the rest need not be scanned */
        a->vcl = has_slice(a->codec, pkt->data, pkt->size);
    av_packet_unref(pkt);
    return 0;
}

int ff_rtp_au_add(FFRTPAU *a, AVPacket *pkt, uint32_t ts, int marker)
{
    int ret;

    if (!pkt->size) {
        av_packet_unref(pkt);
        return AVERROR(EAGAIN);
    }
    if (a->size && a->size + (uint64_t)pkt->size > FF_RTP_AU_MAX_BYTES && ts == a->ts)
        a->overflows++;
    if (a->size && (ts != a->ts || a->size + (uint64_t)pkt->size > FF_RTP_AU_MAX_BYTES)) {
        /* the previous access unit's marker never came (or it is as large
         * as one may be): it ends here, and this piece begins the next one
         * (whose marker, if this piece has it, hands it on with the next
         * packet) */
        AVPacket *cur = av_packet_clone(pkt);
        if (!cur)
            return AVERROR(ENOMEM);
        if ((ret = out(a, pkt)) >= 0)
            ret = add(a, cur, ts);
        av_packet_free(&cur);
        return ret < 0 ? ret : 0;
    }
    if ((ret = add(a, pkt, ts)) < 0)
        return ret;
    if (marker && a->vcl)
        return out(a, pkt);
    return AVERROR(EAGAIN);
}

uint64_t ff_rtp_au_overflows(const FFRTPAU *a)
{
    return a->overflows;
}

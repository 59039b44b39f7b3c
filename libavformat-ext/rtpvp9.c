/*
 * RTP packetizer for VP9 (RFC 9628, non-flexible mode, one layer)
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

#include <string.h>

#include "libavcodec/get_bits.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/macros.h"

#include "rtpenc.h"

/* Upstream's ff_rtp_send_vp9() writes only B and E (the draft it
 * followed), so every frame looks like a key frame to a receiver that
 * reads the descriptor: libwebrtc hands such frames to the decoder without
 * the ones they reference. This writes I (a 15-bit picture ID), B, E; P
 * on inter frames; V (the scalability structure: one spatial layer and
 * its size) on the first packet of a key frame. */
#define VP9_DESC_I 0x80
#define VP9_DESC_P 0x40
#define VP9_DESC_B 0x08
#define VP9_DESC_E 0x04
#define VP9_DESC_V 0x02

/* The first frame's uncompressed header (VP9 bitstream 6.2): whether it
 * is a key frame, and a key frame's size. A frame that does not parse is
 * sent as an inter frame. */
static int vp9_key_frame(const uint8_t *buf, int size, int *width, int *height)
{
    GetBitContext gb;
    int profile;

    if (init_get_bits8(&gb, buf, FFMIN(size, 16)) < 0 || get_bits(&gb, 2) != 2)
        return 0;
    profile  = get_bits1(&gb);
    profile |= get_bits1(&gb) << 1;
    if (profile == 3)
        skip_bits1(&gb);
    if (get_bits1(&gb) || get_bits1(&gb))   /* show_existing_frame, frame_type */
        return 0;
    skip_bits(&gb, 2);                      /* show_frame, error_resilient_mode */
    if (get_bits(&gb, 24) != 0x498342)      /* frame_sync_code */
        return 0;
    if (profile >= 2)
        skip_bits1(&gb);                    /* ten_or_twelve_bit */
    if (get_bits(&gb, 3) != 7) {            /* color_space, not CS_RGB */
        skip_bits1(&gb);                    /* color_range */
        if (profile == 1 || profile == 3)
            skip_bits(&gb, 3);              /* subsampling_x, _y, reserved_zero */
    } else if (profile == 1 || profile == 3) {
        skip_bits1(&gb);
    }
    *width  = get_bits(&gb, 16) + 1;
    *height = get_bits(&gb, 16) + 1;
    return get_bits_left(&gb) >= 0;
}

void ff_rtpenc_ext_send_vp9(AVFormatContext *ctx, const uint8_t *buf, int size)
{
    RTPMuxContext *rtp_ctx = ctx->priv_data;
    int width = 0, height = 0, key = vp9_key_frame(buf, size, &width, &height);
    unsigned pid = rtp_ctx->frame_count++ & 0x7fff;
    uint8_t *desc;
    int len, first = 1;

    rtp_ctx->timestamp = rtp_ctx->cur_timestamp;

    while (size > 0) {
        desc = rtp_ctx->buf;
        *desc++ = VP9_DESC_I | (key ? 0 : VP9_DESC_P) | (first ? VP9_DESC_B : 0) |
                  (first && key ? VP9_DESC_V : 0);
        AV_WB16(desc, 0x8000 | pid);        /* M: 15 bits */
        desc += 2;
        if (first && key) {
            *desc++ = 0x10;                 /* N_S 0 (one spatial layer), Y, no G */
            AV_WB16(desc,     width);
            AV_WB16(desc + 2, height);
            desc += 4;
        }
        len = FFMIN(size, rtp_ctx->max_payload_size - (desc - rtp_ctx->buf));
        if (len == size)
            rtp_ctx->buf[0] |= VP9_DESC_E;
        memcpy(desc, buf, len);
        ff_rtp_send_data(ctx, rtp_ctx->buf, desc - rtp_ctx->buf + len, size == len);

        size -= len;
        buf  += len;
        first = 0;
    }
}

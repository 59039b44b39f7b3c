/*
 * RTP header extensions (RFC 8285): ids, URIs, writing and finding
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

#include "libavutil/error.h"
#include "libavutil/intreadwrite.h"

#include "rtphdrext.h"

int ff_rtp_header_size(const uint8_t *pkt, int size)
{
    int hdr;

    if (size < 12)
        return AVERROR_INVALIDDATA;
    hdr = 12 + 4 * (pkt[0] & 0x0f);
    if (pkt[0] & 0x10) {
        if (size < hdr + 4)
            return AVERROR_INVALIDDATA;
        hdr += 4 + 4 * AV_RB16(pkt + hdr + 2);
    }
    return hdr <= size ? hdr : AVERROR_INVALIDDATA;
}

int ff_rtp_hdrext_find(const uint8_t *pkt, int size, int id, int *len)
{
    int off, end = ff_rtp_header_size(pkt, size);

    if (end < 0)
        return end;
    if (!(pkt[0] & 0x10))
        return AVERROR(ENOENT);
    off = 12 + 4 * (pkt[0] & 0x0f);
    if (AV_RB16(pkt + off) != 0xBEDE)
        return AVERROR(ENOENT);     /* two-byte headers (0x100x) are not ours */
    /* one-byte elements: id, length - 1, data; 0 is padding, 15 ends */
    for (off += 4; off < end;) {
        int e = pkt[off] >> 4, l = (pkt[off] & 0x0f) + 1;

        if (!pkt[off]) {
            off++;
            continue;
        }
        if (e == 15)
            return AVERROR(ENOENT);
        if (off + 1 + l > end)
            return AVERROR_INVALIDDATA;
        if (e == id) {
            *len = l;
            return off + 1;
        }
        off += 1 + l;
    }
    return AVERROR(ENOENT);
}

void ff_rtp_hdrext_write_twcc(uint8_t *buf, uint16_t seq)
{
    AV_WB16(buf, 0xBEDE);
    AV_WB16(buf + 2, 1);
    buf[4] = FF_RTP_HDREXT_TWCC_ID << 4 | (2 - 1);
    AV_WB16(buf + 5, seq);
    buf[7] = 0;
}

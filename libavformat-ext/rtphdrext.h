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

#ifndef AVFORMAT_RTPHDREXT_H
#define AVFORMAT_RTPHDREXT_H

/**
 * @file
 * The one place that knows the layout of an RTP header's extension: the
 * sender writes the transport-wide sequence number's element with
 * ff_rtp_hdrext_write_twcc() and numbers it as the packet leaves, the
 * history keeps the extension in an RTX packet's header, and the receiver
 * finds the number; all through ff_rtp_header_size() and
 * ff_rtp_hdrext_find(), which count the CSRCs.
 */

#include <stdint.h>

/** The transport-wide sequence number (draft-holmer-rmcat-transport-wide-cc-extensions-01). */
#define FF_RTP_HDREXT_TWCC_URI  "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
#define FF_RTP_HDREXT_TWCC_ID   1   ///< its id in the muxer's SDP
#define FF_RTP_HDREXT_TWCC_SIZE 8   ///< bytes it adds to a header: 0xBEDE, length, id/len, 2 bytes, pad

/**
 * The size of an RTP packet's header: the fixed part, the CSRCs and the
 * extension, if any.
 * @return the payload's offset, or AVERROR_INVALIDDATA when the packet is
 *         shorter than its header says
 */
int ff_rtp_header_size(const uint8_t *pkt, int size);

/**
 * An element of a one-byte-header extension (RFC 8285 4.2), by id.
 * @param len its data's length
 * @return the offset of its data in pkt, AVERROR(ENOENT) if the packet has
 *         no such element, or AVERROR_INVALIDDATA if its header is malformed
 */
int ff_rtp_hdrext_find(const uint8_t *pkt, int size, int id, int *len);

/**
 * Write the extension with the transport-wide sequence number seq (one
 * element, id FF_RTP_HDREXT_TWCC_ID) at buf: FF_RTP_HDREXT_TWCC_SIZE bytes,
 * right after a fixed header without CSRCs. The caller sets the X bit.
 */
void ff_rtp_hdrext_write_twcc(uint8_t *buf, uint16_t seq);

#endif /* AVFORMAT_RTPHDREXT_H */

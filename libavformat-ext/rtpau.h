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

#ifndef AVFORMAT_RTPAU_H
#define AVFORMAT_RTPAU_H

/**
 * @file
 * FFmpeg's parser completes an access unit when the next one starts, a
 * frame interval after its last packet arrived. Here the depacketized
 * pieces of one RTP timestamp are gathered and handed on as one packet at
 * the marker bit (RFC 6184 and RFC 7798 set it on the last packet of an
 * access unit). A marker bit on a piece without a slice (parameter sets
 * sent apart) does not end the access unit; a new timestamp ends the
 * previous one whose marker never came. The buffer grows to the largest
 * access unit seen, and nothing else is allocated per packet. An access
 * unit stops at FF_RTP_AU_MAX_BYTES: what is gathered goes on as it is and
 * the rest begins the next (a stream whose marker never comes cannot grow
 * the buffer without bound); a buffer four times larger than the access
 * unit it held, and above 1 MiB, is let go.
 */

#include <stdint.h>

#include "libavcodec/packet.h"

/** Bytes of one access unit at most (an intra 4K frame at a high rate is a few MB). */
#define FF_RTP_AU_MAX_BYTES (8 << 20)

typedef struct FFRTPAU FFRTPAU;

/** @param codec_id AV_CODEC_ID_H264 or AV_CODEC_ID_HEVC */
int ff_rtp_au_alloc(FFRTPAU **pa, int codec_id);
void ff_rtp_au_free(FFRTPAU **pa);

/**
 * A depacketized piece (Annex B) of RTP timestamp ts; marker: its packet's
 * marker bit.
 * @return 0 with pkt holding a whole access unit, AVERROR(EAGAIN) with pkt
 *         empty while gathering, or a negative AVERROR
 */
int ff_rtp_au_add(FFRTPAU *a, AVPacket *pkt, uint32_t ts, int marker);

/** Access units handed on at FF_RTP_AU_MAX_BYTES, before their marker. */
uint64_t ff_rtp_au_overflows(const FFRTPAU *a);

#endif /* AVFORMAT_RTPAU_H */

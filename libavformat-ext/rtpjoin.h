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

#ifndef AVFORMAT_RTPJOIN_H
#define AVFORMAT_RTPJOIN_H

/**
 * @file
 * A receiver started after its sender, or one whose first keyframe was
 * lost, has nothing to decode until the next keyframe, which a live
 * encoder with a long GOP may send minutes later. This part, logic only,
 * is told each RTP payload of an H.264 or HEVC stream and the time, and
 * says when a keyframe request (PLI, or FIR) is due because nothing
 * decodable has arrived yet: the parameter sets (H.264 SPS and PPS, HEVC
 * VPS, SPS and PPS; those of the SDP's sprop-parameter-sets count) and
 * then the start of an IDR (H.264) or IRAP (HEVC) picture. The first
 * request is due FF_RTP_JOIN_FIRST after the first packet, the next ones
 * after doubling intervals from FF_RTP_JOIN_RETRY up to FF_RTP_JOIN_MAX,
 * until the stream is decodable; then never again. It reads no clock and
 * sends nothing (rtpdec_ext.c does).
 */

#include <stdint.h>

#define FF_RTP_JOIN_FIRST   20000   ///< µs after the first packet: a keyframe's first packets reordered
#define FF_RTP_JOIN_RETRY  500000   ///< µs before the second request
#define FF_RTP_JOIN_MAX   2000000   ///< µs between requests at most

typedef struct FFRTPJoin {
    int hevc;                   ///< else H.264
    int active;                 ///< 0: another codec, or decodable already
    unsigned seen;              ///< parameter sets seen, one bit per kind
    unsigned need;              ///< the bits that make the parameter sets complete
    int64_t first;              ///< arrival of the first packet, -1 before
    int64_t next;               ///< when the next request is due
    int64_t interval;           ///< before the request after the next
    int requests;               ///< requests said due
    int64_t decodable;          ///< when it became decodable, -1 before
} FFRTPJoin;

/**
 * @param codec_id  AV_CODEC_ID_H264 or AV_CODEC_ID_HEVC; any other leaves
 *                  it inactive
 * @param extradata the stream's parameter sets from the SDP (Annex B), or NULL
 */
void ff_rtp_join_init(FFRTPJoin *j, int codec_id, const uint8_t *extradata, int size);

/** An RTP payload (after the header) of the stream arrived at now. */
void ff_rtp_join_packet(FFRTPJoin *j, const uint8_t *payload, int len, int64_t now);

/** When a request is due next: INT64_MAX when none will be. */
int64_t ff_rtp_join_next(const FFRTPJoin *j);

/** 1 when a request is due at now (it then counts as made), else 0. */
int ff_rtp_join_due(FFRTPJoin *j, int64_t now);

/**
 * The sender's side: whether an access unit with an IDR (H.264) or IRAP
 * (HEVC) picture lacks parameter sets that ps has all of, so that ps must
 * be sent before it: a receiver that joins at this picture then finds them
 * in-band, as without global headers.
 * @param ps              parameter sets in Annex B: the extradata of a live
 *                        encoder with global headers, or what
 *                        ff_rtp_join_params_annexb() made of avcC/hvcC
 * @param nal_length_size 0: au is Annex B; 1-4: each NAL unit of au comes
 *                        after its size in that many bytes (avcC/hvcC)
 * @return 1 if so, else 0 (another codec, no complete set in ps, a picture
 *         that is no IDR/IRAP, or one that carries its own)
 */
int ff_rtp_join_params_needed(int codec_id, const uint8_t *ps, int ps_size,
                              const uint8_t *au, int size, int nal_length_size);

/**
 * Whether a NAL unit is a slice (H.264 types 1-5, HEVC 0-31), by its first
 * header byte: the packetizer sends the parameter sets right before an
 * access unit's first slice, after an access unit delimiter and SEI, where
 * h264_mp4toannexb puts them.
 */
int ff_rtp_join_is_slice(int codec_id, uint8_t nal);

/**
 * The NAL units of avcC (H.264) or hvcC (HEVC) extradata, as MP4 and
 * Matroska carry them, in Annex B: what ff_rtp_join_params_needed() and the
 * packetizer take.
 * @param out set to a buffer of the returned size (and zeroed padding) to
 *            av_free(), or to NULL
 * @return its size; 0 for another codec, Annex B extradata or none;
 *         AVERROR_INVALIDDATA when a count or a size runs past the end,
 *         AVERROR(ENOMEM)
 */
int ff_rtp_join_params_annexb(int codec_id, const uint8_t *extradata, int size,
                              uint8_t **out);

#endif /* AVFORMAT_RTPJOIN_H */

/*
 * WHIP muxer extensions: its media through the RTP transport's parts
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

#ifndef AVFORMAT_WHIP_EXT_H
#define AVFORMAT_WHIP_EXT_H

#include <stdint.h>

#include "libavutil/bprint.h"
#include "avc.h"
#include "avformat.h"

/**
 * After ICE and DTLS, the WHIP muxer's media leaves through the same
 * sender as the rtp muxer's (rtpsend.c: batched, paced), each datagram
 * SRTP-protected on its way out by this transport's hook; the video rtp
 * muxer's feedback reader (rtpfb.c) reads the socket, and this
 * transport's incoming hook hands it the SRTCP it authenticated
 * (NACK -> RTX from the pooled history, PLI/FIR -> a keyframe, REMB and
 * transport-cc -> the congestion control), answers the peer's STUN
 * binding requests through the muxer's callback, and notes its binding
 * responses (consent freshness, RFC 7675).
 */
typedef struct FFWhipTransport FFWhipTransport;

typedef struct FFWhipTransportConfig {
    int fd;                     ///< the muxer's UDP socket, connected to the peer
    int max_size;               ///< largest UDP payload the socket takes
    const char *suite;          ///< SRTP crypto suite (ff_srtp_set_crypto())
    const char *send_params;    ///< base64 key and salt of what this end sends
    const char *recv_params;    ///< and of what the peer sends
    uint32_t ssrc[3];           ///< the SSRCs this end sends (0: unused): video, RTX, audio
    /**
     * A STUN binding request from the peer, in the sender's thread: the
     * muxer answers it (it knows the ICE credentials). May be NULL.
     */
    void (*binding_request)(void *opaque, const uint8_t *buf, int len);
    void *opaque;
} FFWhipTransportConfig;

int ff_whip_ext_open(FFWhipTransport **pt, void *logctx, const FFWhipTransportConfig *cfg);

/**
 * Make the rtp muxer rtp_ctx (between avformat_init_output() and
 * avformat_write_header()) send through the transport; the first muxer
 * attached with read_feedback reads the socket's RTCP.
 */
int ff_whip_ext_attach(FFWhipTransport *t, AVFormatContext *rtp_ctx, int read_feedback);

/** Whether a muxer reads the socket (the WHIP muxer must not then). */
int ff_whip_ext_reads(const FFWhipTransport *t);

/** av_gettime_relative() of the last STUN binding response, 0: none. */
int64_t ff_whip_ext_last_binding_response(const FFWhipTransport *t);

/** Free it, after the rtp muxers attached to it. */
void ff_whip_ext_free(FFWhipTransport **pt);

/**
 * The video m= section's feedback lines for payload type pt: NACK, PLI,
 * FIR, REMB, and, with congestion control (the rtp_options of s, auto:
 * on), transport-cc and its header extension.
 */
void ff_whip_ext_sdp_video(AVBPrint *bp, const AVFormatContext *s, int pt);

/**
 * Check the rtp_options of the WHIP muxer s: those of the rtp muxer, less
 * what the muxer sets itself from its offer (payload types, SSRCs).
 * @return 0, AVERROR_OPTION_NOT_FOUND or AVERROR(EINVAL)
 */
int ff_whip_ext_check_options(AVFormatContext *s);

/**
 * Options for the rtp muxer of a stream of the WHIP muxer s: the
 * rtp_options of s, and RTX on rtx_pt with rtx_ssrc for video.
 */
int ff_whip_ext_rtp_options(const AVFormatContext *s, int video, int rtx_pt,
                            uint32_t rtx_ssrc, AVDictionary **opts);

/**
 * The profile of an H.264 SPS as libavcodec sets it in codecpar: with the
 * constraint flags that the offer's profile-level-id carries (constrained
 * baseline, the intra profiles).
 */
int ff_whip_ext_h264_profile(const H264SPS *sps);

/**
 * Set the profile and level of par from the first SPS of its avcC
 * extradata (ISO/IEC 14496-15: MP4, Matroska; extradata[0] == 1).
 * @return 0, AVERROR_INVALIDDATA if it holds no SPS, or the SPS parser's error
 */
int ff_whip_ext_avcc_profile_level(void *logctx, AVCodecParameters *par);

#endif /* AVFORMAT_WHIP_EXT_H */

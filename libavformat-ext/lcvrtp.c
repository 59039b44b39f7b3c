/*
 * The lcv_rtp API (libavformat/lcvrtp.h): its version, and the muxer's
 * calls in builds without the rtp muxer
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

/**
 * @file
 * The lcv_rtp calls that are no part of the RTP muxer or demuxer: the
 * API's version, and the muxer's calls for a libavformat built without the
 * rtp muxer (rtpenc_ext.c has the real ones; the demuxer's is in
 * rtsp_ext.c, with a stub for builds without it).
 */

#include "config_components.h"

#include "libavutil/error.h"

#include "lcvrtp.h"

unsigned lcv_rtp_version(void)
{
    return LCV_RTP_VERSION_INT;
}

#if !CONFIG_RTP_MUXER
/* no stream has a feedback reader */
int lcv_rtp_muxer_get_stats(struct AVFormatContext *s, int stream_index,
                            LCVRTPSenderStats *st, size_t size)
{
    return AVERROR(ENOSYS);
}

int lcv_rtp_muxer_get_receiver_stats(struct AVFormatContext *s, int stream_index, int index,
                                     LCVRTPReceiverStats *st, size_t size)
{
    return AVERROR(ENOSYS);
}

int lcv_rtp_muxer_keyframe_requested(struct AVFormatContext *s, int stream_index)
{
    return 0;
}

int64_t lcv_rtp_muxer_target_bitrate(struct AVFormatContext *s, int stream_index)
{
    return 0;
}
#endif

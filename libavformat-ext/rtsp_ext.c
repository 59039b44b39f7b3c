/*
 * The RTSP and SDP demuxers' side of the RTP receiver's loss recovery
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
 * The glue between rtsp.c's streams and the RTP demuxer's extension
 * (rtpdec_ext.c): the SDP attributes of each stream, the options, the
 * feedback of every stream in the demuxer's poll loop, the drain at the
 * end, the RTCP destination in listen mode, and the public statistics.
 */

#include "config.h"
#include "config_components.h"

#include <string.h>

#include "libavutil/error.h"
#include "libavutil/macros.h"
#include "libavutil/time.h"

#include "avformat.h"
#include "internal.h"
#include "lcvrtp.h"

#if CONFIG_RTPDEC
#include "rtpdec.h"
#include "rtpdec_ext.h"
#include "rtsp.h"
#include "url.h"
#if CONFIG_RTP_PROTOCOL
#include "rtpproto.h"
#endif
#if CONFIG_RTSP_DEMUXER && CONFIG_RTP_PROTOCOL
#include <errno.h>
#include "network.h"
#endif

#define NACK_QUEUE_SIZE  4096       ///< reorder queue default with NACKs (1 s at 40 Mbit/s of 1200-byte packets)

int lcv_rtp_demuxer_get_stats(AVFormatContext *s, int stream_index, LCVRTPReceiveStats *st, size_t size)
{
    const RTSPState *rt;

    if (!st || !size)
        return AVERROR(EINVAL);
    if (!s->iformat || (strcmp(s->iformat->name, "sdp") && strcmp(s->iformat->name, "rtsp")))
        return AVERROR(ENOSYS);
    rt = s->priv_data;
    if (rt->transport != RTSP_TRANSPORT_RTP)
        return AVERROR(ENOSYS);
    for (int i = 0; i < rt->nb_rtsp_streams; i++) {
        const RTSPStream *rtsp_st = rt->rtsp_streams[i];
        const RTPDemuxContext *r = rtsp_st->transport_priv;
        if (rtsp_st->stream_index != stream_index || !r || !r->ext)
            continue;
        {
            /* at most the caller's size: a program built against another
             * version of lcvrtp.h gets the fields it knows */
            LCVRTPReceiveStats all;
            ff_rtpdec_ext_get_stats(r, &all);
            memset(st, 0, size);
            memcpy(st, &all, FFMIN(size, sizeof(all)));
        }
        return 0;
    }
    return AVERROR(ENOSYS);
}

int ff_rtsp_ext_sdp_a_line(AVFormatContext *s, const char *line)
{
    RTSPState *rt = s->priv_data;
    RTSPStream *rtsp_st;

    if (!rt->nb_rtsp_streams)
        return 0;
    rtsp_st = rt->rtsp_streams[rt->nb_rtsp_streams - 1];
    return ff_rtpdec_ext_sdp_a_line(&rtsp_st->ext_sdp, rtsp_st->sdp_payload_type, line);
}

void ff_rtsp_ext_note_max_delay(AVFormatContext *s)
{
    RTSPState *rt = s->priv_data;

    rt->ext_opts.max_delay      = s->max_delay;
    rt->ext_opts.have_max_delay = 1;
}

int ff_rtsp_ext_open_stream(AVFormatContext *s, RTSPStream *rtsp_st)
{
    RTSPState *rt = s->priv_data;
    RTPDemuxContext *r = rtsp_st->transport_priv;
    FFRTPDecExtOpts opts = rt->ext_opts;
    /* feedback can be sent: RTSP over UDP, or an SDP input with
     * rtcp_to_source (or custom I/O) */
    int feedback = rtsp_st->feedback &&
                   rt->lower_transport != RTSP_LOWER_TRANSPORT_UDP_MULTICAST &&
                   (strcmp(s->iformat->name, "sdp") ||
                    rt->rtsp_flags & (RTSP_FLAG_RTCP_TO_SOURCE | RTSP_FLAG_CUSTOM_IO));
    int ret;

    if (!opts.have_max_delay)
        opts.max_delay = s->max_delay;
    if (rtsp_st->feedback && !feedback && !strcmp(s->iformat->name, "sdp") &&
        rt->lower_transport != RTSP_LOWER_TRANSPORT_UDP_MULTICAST)
        av_log(s, AV_LOG_INFO, "The SDP negotiates RTP/AVPF, but no RTCP goes back to the "
               "sender: no NACKs or keyframe requests, and the sender's congestion control "
               "has no feedback. Add -sdp_flags rtcp_to_source to turn them on.\n");
    if ((ret = ff_rtpdec_ext_open(r, &rtsp_st->ext_sdp, &opts, feedback)) < 0)
        return ret;
    if (rt->ext_opts.stats_file && !rt->ext_opts.stats_pb) {
        if ((ret = avio_open(&rt->ext_opts.stats_pb, rt->ext_opts.stats_file, AVIO_FLAG_WRITE)) < 0) {
            av_log(s, AV_LOG_ERROR, "Could not open stats_file '%s': %s\n",
                   rt->ext_opts.stats_file, av_err2str(ret));
            return ret;
        }
        rt->ext_opts.stats_next = av_gettime_relative() + rt->ext_opts.stats_interval;
    }
    /* FFmpeg's 500 packets hold a keyframe of 8 Mbit/s video and little
     * more: while NACKs are pursued, the queue must hold the wait */
    if (ff_rtpdec_ext_nacks(r) && rt->reordering_queue_size < 0 && r->queue_size > 0)
        r->queue_size = FFMAX(r->queue_size, NACK_QUEUE_SIZE);
    return 0;
}

int ff_rtsp_ext_drain(AVFormatContext *s, AVPacket *pkt)
{
    RTSPState *rt = s->priv_data;

    if (rt->transport != RTSP_TRANSPORT_RTP)
        return AVERROR_EOF;
    for (int i = 0; i < rt->nb_rtsp_streams; i++) {
        RTPDemuxContext *r = rt->rtsp_streams[i]->transport_priv;
        while (r && r->queue) {
            /* the head of the queue, gaps skipped: each call dequeues one */
            int ret = ff_rtp_parse_packet(r, pkt, NULL, 0);
            if (ret == 1)
                rt->cur_transport_priv = r;
            if (ret >= 0)
                return 0;
        }
    }
    return AVERROR_EOF;
}

/* one line per RTP stream of the demuxer */
static void write_stats(AVFormatContext *s, int64_t now, int final)
{
    RTSPState *rt = s->priv_data;

    for (int i = 0; i < rt->nb_rtsp_streams; i++) {
        RTSPStream *rtsp_st = rt->rtsp_streams[i];
        RTPDemuxContext *r = rtsp_st ? rtsp_st->transport_priv : NULL;
        if (!r || rt->transport != RTSP_TRANSPORT_RTP)
            continue;
        if (ff_rtpdec_ext_write_stats(r, rtsp_st->stream_index, rt->ext_opts.stats_pb, now, final) < 0)
            av_log(s, AV_LOG_ERROR, "stats_file: a line of stream %d was too long, not written\n",
                   rtsp_st->stream_index);
    }
    avio_flush(rt->ext_opts.stats_pb);
}

void ff_rtsp_ext_close(AVFormatContext *s)
{
    RTSPState *rt = s->priv_data;

    if (!rt->ext_opts.stats_pb)
        return;
    write_stats(s, av_gettime_relative(), 1);
    avio_closep(&rt->ext_opts.stats_pb);
}

int ff_rtsp_ext_feedback_all(AVFormatContext *s, int timeout_ms, int64_t wait_end)
{
    RTSPState *rt = s->priv_data;
    int64_t t = timeout_ms * 1000LL;
    int64_t now;

    if (rt->ext_opts.stats_pb && rt->ext_opts.stats_interval) {
        now = av_gettime_relative();
        if (now >= rt->ext_opts.stats_next) {
            write_stats(s, now, 0);
            /* the next one an interval on, none skipped but never two at once */
            rt->ext_opts.stats_next = FFMAX(rt->ext_opts.stats_next + rt->ext_opts.stats_interval,
                                            now + rt->ext_opts.stats_interval / 2);
        }
        t = FFMIN(t, rt->ext_opts.stats_next - now);
    }

    if (rt->transport == RTSP_TRANSPORT_RTP) {
        for (int i = 0; i < rt->nb_rtsp_streams; i++) {
            RTSPStream *rtsp_st = rt->rtsp_streams[i];
            RTPDemuxContext *r = rtsp_st->transport_priv;
            if (r && rtsp_st->rtp_handle && ff_rtpdec_ext_active(r))
                t = FFMIN(t, ff_rtpdec_ext_feedback(r, rtsp_st->rtp_handle, NULL));
        }
    }
    if (wait_end)
        t = FFMIN(t, wait_end - av_gettime_relative());
    if (t >= timeout_ms * 1000LL)
        return timeout_ms;
    return t <= 0 ? 0 : (int)((t + 999) / 1000);
}

void ff_rtsp_ext_received(AVFormatContext *s, RTSPStream *rtsp_st)
{
#if CONFIG_RTP_PROTOCOL
    const RTSPState *rt = s->priv_data;

    if (rt->transport == RTSP_TRANSPORT_RTP && rtsp_st->transport_priv && rtsp_st->rtp_handle)
        ff_rtpdec_ext_arrival(rtsp_st->transport_priv, ff_rtp_get_arrival(rtsp_st->rtp_handle));
#endif
}

#if CONFIG_RTSP_DEMUXER
int ff_rtsp_ext_listen_remote(AVFormatContext *s, RTSPStream *rtsp_st, int client_port)
{
#if CONFIG_RTP_PROTOCOL
    RTSPState *rt = s->priv_data;
    struct sockaddr_storage peer;
    socklen_t len = sizeof(peer);
    char host[256], url[MAX_URL_SIZE];
    int fd = rt->rtsp_hd ? ffurl_get_file_handle(rt->rtsp_hd) : -1;

    if (fd < 0 || client_port <= 0 || !rtsp_st->rtp_handle)
        return 0;
    /* the publisher's address: the RTSP connection's peer */
    if (getpeername(fd, (struct sockaddr *)&peer, &len) < 0 ||
        getnameinfo((struct sockaddr *)&peer, len, host, sizeof(host), NULL, 0, NI_NUMERICHOST))
        return AVERROR(errno ? errno : EINVAL);
    ff_url_join(url, sizeof(url), "rtp", NULL, host, client_port, NULL);
    av_log(s, AV_LOG_VERBOSE, "RTCP of stream %d goes to %s\n", rtsp_st->stream_index, url);
    return ff_rtp_set_remote_url(rtsp_st->rtp_handle, url);
#else
    return 0;
#endif
}
#endif

#else /* !CONFIG_RTPDEC: no RTP demuxer (e.g. --disable-network) */

#include "rtpdec_ext.h"

int lcv_rtp_demuxer_get_stats(AVFormatContext *s, int stream_index, LCVRTPReceiveStats *st, size_t size)
{
    return AVERROR(ENOSYS);
}

void ff_rtsp_ext_close(AVFormatContext *s)
{
}

#endif /* CONFIG_RTPDEC */

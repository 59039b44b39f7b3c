/*
 * RTP muxer extensions: batched sending, packet size checks
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

#include <inttypes.h>
#include <string.h>

#include "libavutil/intreadwrite.h"
#include "libavutil/mathematics.h"
#include "libavutil/time.h"

#include "libavcodec/defs.h"
#include "libavcodec/packet.h"

#include "libavutil/avstring.h"
#include "libavutil/dict.h"
#include "libavutil/opt.h"

#include "config_components.h"
#include "avio_internal.h"
#include "internal.h"
#include "lcvrtcp.h"
#include "lcvrtp.h"
#include "rtpcc.h"
#include "rtpenc.h"
#include "rtpenc_ext.h"
#include "rtphdrext.h"
#include "rtptwcc.h"
#include "url.h"
#if CONFIG_RTSP_MUXER
#include "rtsp.h"
#endif

#define RTP_HEADER_SIZE 12
#define MTU_PAYLOAD_V4  1472    ///< 1500-byte Ethernet MTU - IPv4 - UDP headers
#define MTU_PAYLOAD_V6  1452    ///< 1500 - IPv6 - UDP headers
/** µs within which a keyframe a receiver asked for leaves: its loss costs a
 *  round trip, the wait for the next frame, the encoding and the keyframe's
 *  transmission, one RTT and two frame intervals at most (25 fps); paced at
 *  pace_factor 1.5 a 125 KB keyframe at 8 Mbit/s took 83 ms. In 30 ms
 *  (33 Mbit/s) it fills 63 KB of the 64 KB queue of a link of twice
 *  8 Mbit/s: the most that link takes (doc/rtp-receiver.md) */
#define KEYFRAME_DUE    30000

/** The smallest payload each packetizer can work with. */
static int min_payload(enum AVCodecID id)
{
    switch (id) {
    case AV_CODEC_ID_MPEG2TS:   return 188;             /* one TS packet */
    case AV_CODEC_ID_MJPEG:     return 8 + 4 + 4 * 64 + 4; /* headers, 4 tables */
    case AV_CODEC_ID_RAWVIDEO:
    case AV_CODEC_ID_BITPACKED: return 64;              /* line headers + a pgroup */
    case AV_CODEC_ID_DIRAC:     return 32;
    default:                    return 16;              /* FU headers and a few bytes */
    }
}

static int is_udp_output(AVFormatContext *s1)
{
    const RTPMuxContext *s = s1->priv_data;
    URLContext *h;

    if (s->ext.transport)
        return 1;
    h = ffio_geturlcontext(s1->pb);
    return h && (!strcmp(h->prot->name, "rtp") || !strcmp(h->prot->name, "udp") ||
                 !strcmp(h->prot->name, "srtp"));
}

/**
 * The clock rate that sdp.c writes in the media's a=rtpmap, for the RTX
 * rtpmap beside it. The SDP of an RTSP output is written before its RTP
 * muxers set their time bases, so the muxer's own code reads the time base
 * (ff_rtpenc_ext_start()) and only the SDP needs this.
 */
static int sdp_clock_rate(const AVCodecParameters *par)
{
    switch (par->codec_id) {
    case AV_CODEC_ID_MP2:
    case AV_CODEC_ID_MP3:        return 90000;
    case AV_CODEC_ID_ADPCM_G722: return 8000;
    case AV_CODEC_ID_OPUS:       return 48000;
    default:
        return par->codec_type == AVMEDIA_TYPE_AUDIO && par->sample_rate > 0 ?
               par->sample_rate : 90000;
    }
}

/** Bytes the extension adds to a packet beyond the payload limit that it
 *  leaves the packetizers: the OSN of an RTX resend, the header extension. */
static int overhead(const FFRTPEncExt *e)
{
    if (!e->sender)
        return 0;
    return (e->feedback && e->rtx_pt >= 0 ? 2 : 0) + (e->cc ? FF_RTP_HDREXT_TWCC_SIZE : 0);
}

int ff_rtpenc_ext_overhead(AVFormatContext *s1)
{
    RTPMuxContext *s = s1->priv_data;
    return overhead(&s->ext);
}

static int start_feedback(AVFormatContext *s1)
{
    RTPMuxContext *s = s1->priv_data;
    FFRTPEncExt *e = &s->ext;
    FFRTPSenderReportInfo sr = {
        .ssrc           = s->ssrc,
        .cname          = s->cname,
        .clock_rate     = s1->streams[0]->time_base.den,
        .base_timestamp = s->base_timestamp,
        .first_ntp      = s->first_rtcp_ntp_time,
    };
    FFRTPFeedbackConfig cfg = {
        .nack            = e->nack,
        .history_ms      = e->nack_history,
        .rtx_pt          = e->rtx_pt,
        .rtx_ssrc        = e->rtx_ssrc,
        .max_share       = e->nack_max_share,
        .dup_loss        = e->nack_dup_loss,
        .sr_interval     = e->sr_interval,
        .stats_interval  = e->stats_interval,
        .stats_file      = e->stats_file,
        .kf_min_interval = e->kf_min_interval,
        .ssrc            = s->ssrc,
        .cname           = s->cname,
        .clock_rate      = s1->streams[0]->time_base.den,
        .packet_size     = s1->packet_size,
        .cc              = e->cc,
        .probe           = e->probe,
        .min_bitrate     = e->min_bitrate,
        .max_bitrate     = e->max_bitrate ? e->max_bitrate : s1->streams[0]->codecpar->bit_rate,
        .twcc_log        = e->twcc_log,
    };

    if (e->cc && !cfg.max_bitrate) {
        cfg.max_bitrate = FF_RTPENC_CC_MAX_BITRATE;
        av_log(s1, AV_LOG_VERBOSE, "cc: the stream's bit rate is not known; the target "
               "stays below max_bitrate %d\n", FF_RTPENC_CC_MAX_BITRATE);
    }
    ff_rtp_sender_set_report_info(e->sender, &sr);
    if (e->cc && cfg.max_bitrate < e->min_bitrate) {
        av_log(s1, AV_LOG_ERROR, "cc needs max_bitrate (or the stream's bit rate, e.g. -b:v) "
               "of at least min_bitrate %"PRId64"; max_bitrate is %"PRId64"\n",
               e->min_bitrate, cfg.max_bitrate);
        return AVERROR(EINVAL);
    }
    if (e->cc && e->start_bitrate &&
        (e->start_bitrate < e->min_bitrate || e->start_bitrate > cfg.max_bitrate)) {
        av_log(s1, AV_LOG_ERROR, "start_bitrate %"PRId64" is out of range [%"PRId64", %"PRId64"] "
               "(min_bitrate, max_bitrate)\n", e->start_bitrate, e->min_bitrate, cfg.max_bitrate);
        return AVERROR(EINVAL);
    }
    cfg.start_bitrate = e->start_bitrate ? e->start_bitrate :
                        av_clip64(FF_RTPENC_CC_START_BITRATE, e->min_bitrate, cfg.max_bitrate);
    if (e->cc)
        av_log(s1, AV_LOG_VERBOSE, "cc: starts at %"PRId64" bit/s, at most %"PRId64"; probing %s\n",
               cfg.start_bitrate, cfg.max_bitrate,
               !e->probe ? "off" : e->nack && e->feedback ? "on" : "off (needs nack)");

    if (!e->feedback)
        return 0;
    if (e->rtx_pt >= 0 && e->rtx_pt < 96) {
        av_log(s1, AV_LOG_ERROR, "rtx_pt %d is not a dynamic payload type: use one "
               "in [96, 127], or -1 to resend the original packets\n", e->rtx_pt);
        return AVERROR(EINVAL);
    }
    if (e->rtx_pt >= 0 && e->rtx_pt == s->payload_type) {
        av_log(s1, AV_LOG_ERROR, "rtx_pt %d is the media payload type; use another "
               "in [96, 127]\n", e->rtx_pt);
        return AVERROR(EINVAL);
    }
    e->au_seq = s->seq & 0xffff;
    e->kf_seq = -1;
    return ff_rtpfb_start(&e->fb, s1, e->sender, &cfg);
}

int ff_rtpenc_ext_init(AVFormatContext *s1)
{
    RTPMuxContext *s = s1->priv_data;
    FFRTPEncExt *e = &s->ext;
    enum AVCodecID id = s1->streams[0]->codecpar->codec_id;
    int min = RTP_HEADER_SIZE + min_payload(id), max = 65535 - 8, ret;

    /* cc auto (the default): on for a video stream that the sender sends
     * with feedback, decided below once the sender is known */
    /* a transport's socket has one RTCP reader: the other muxers on it
     * send, and read nothing */
    if (e->transport && !e->transport->read_feedback)
        e->feedback = 0;
    e->cc_auto = e->cc < 0;
    if (e->cc_auto)
        e->cc = e->feedback;
    if (e->cc && s1->streams[0]->codecpar->codec_type != AVMEDIA_TYPE_VIDEO) {
        /* an audio stream's few kbit/s are not worth adapting (and an RTSP
         * output's rtp_options reach every stream) */
        if (!e->cc_auto)
            av_log(s1, AV_LOG_VERBOSE, "cc: only video streams take part; off for this %s stream\n",
                   av_get_media_type_string(s1->streams[0]->codecpar->codec_type));
        e->cc = 0;
    }
    if (e->cc_auto && (!s1->pb || s1->packet_size <= 0 || !is_udp_output(s1)))
        e->cc = 0;
    if (s1->pb && s1->packet_size > 0 && e->cc && e->feedback &&
        (ret = ff_rtp_twcc_log_alloc(&e->twcc_log, s->ssrc)) < 0)
        return ret;
    if (s1->pb && s1->packet_size > 0) {
        FFRTPSendConfig cfg = {
            .packet_size    = s1->packet_size,
            .mode           = e->send_mode,
            .pace           = e->pace,
            .pace_factor    = e->pace_factor,
            .pace_burst     = e->pace_burst,
            .pace_max_delay = e->pace_max_delay,
            .pace_kernel    = e->pace_kernel,
            .bit_rate       = s1->streams[0]->codecpar->bit_rate,
            .dscp           = e->dscp,
            .twcc           = e->twcc_log,
            .rtcp_from      = e->rtcp_from,
        };
        if (e->transport) {
            cfg.protect          = e->transport->protect;
            cfg.protect_opaque   = e->transport->protect_opaque;
            cfg.protect_overhead = e->transport->protect_overhead;
            cfg.incoming         = e->transport->incoming;
            cfg.incoming_opaque  = e->transport->incoming_opaque;
            ret = ff_rtp_sender_open_sockets(&e->sender, s1, &e->transport->sockets, &cfg);
        } else {
            ret = ff_rtp_sender_open(&e->sender, s1, s1->pb, &cfg);
        }
        if (ret < 0) {
            ff_rtp_twcc_log_free(&e->twcc_log);
            return ret;
        }
        if (!e->sender && e->send_mode != FF_RTP_SEND_AUTO)
            av_log(s1, AV_LOG_WARNING, "send_mode %s needs an rtp:// or udp:// "
                   "output; writing packets one by one\n",
                   ff_rtp_sender_mode_name(e->send_mode));
    }
    if (e->cc && !e->feedback) {
        av_log(s1, AV_LOG_ERROR, "cc 1 needs feedback 1: the estimate comes from the "
               "receivers' RTCP\n");
        ff_rtp_sender_free(&e->sender);
        ff_rtp_twcc_log_free(&e->twcc_log);
        return AVERROR(EINVAL);
    }
    if (e->cc && !e->sender) {
        av_log(s1, e->cc_auto ? AV_LOG_VERBOSE : AV_LOG_WARNING,
               "cc needs an rtp:// or udp:// output; no congestion control\n");
        ff_rtp_twcc_log_free(&e->twcc_log);
        e->cc = 0;
    }
    if (e->cc && s1->streams[0]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) {
        const AVCodecParameters *par = s1->streams[0]->codecpar;
        const AVPacketSideData *sd = av_packet_side_data_get(par->coded_side_data,
                                                             par->nb_coded_side_data,
                                                             AV_PKT_DATA_CPB_PROPERTIES);
        /* said by default only when asked for: a copied stream (-c copy)
         * gets cc by default, with its target reported */
        if (!sd || !((const AVCPBProperties *)sd->data)->max_bitrate)
            av_log(s1, e->cc_auto ? AV_LOG_VERBOSE : AV_LOG_WARNING, "cc: the stream has no rate limit (-maxrate and "
                   "-bufsize): libx264 follows the target bit rate only with them, and a "
                   "copied stream (-c copy) not at all; the target is only reported\n");
    }
    if (e->sender)
        max = ff_rtp_sender_max_size(e->sender);
    min += overhead(e);
    if (s1->packet_size < min || s1->packet_size > max) {
        av_log(s1, AV_LOG_ERROR, "pkt_size %u is out of range [%d, %d] for %s over RTP%s\n",
               s1->packet_size, min, max, avcodec_get_name(id),
               overhead(e) ? " (with room for RTX and the header extension)" : "");
        ff_rtp_sender_free(&e->sender);
        ff_rtp_twcc_log_free(&e->twcc_log);
        return AVERROR(EINVAL);
    }
    if (is_udp_output(s1)) {
        int mtu = e->sender && ff_rtp_sender_ipv6(e->sender) ? MTU_PAYLOAD_V6 : MTU_PAYLOAD_V4;
        if (s1->packet_size > mtu)
            av_log(s1, AV_LOG_WARNING, "pkt_size %u is above %d, the UDP payload of a "
                   "1500-byte Ethernet MTU: packets this large may be fragmented, or "
                   "dropped by routers and firewalls beyond a LAN\n",
                   s1->packet_size, mtu);
    }
    return 0;
}

int ff_rtpenc_ext_set_transport(AVFormatContext *s1, const FFRTPEncTransport *t)
{
    RTPMuxContext *s;

    if (!s1->oformat || strcmp(s1->oformat->name, "rtp") || !s1->priv_data || !t)
        return AVERROR(EINVAL);
    s = s1->priv_data;
    if (s->ext.sender)
        return AVERROR(EINVAL);
    s->ext.transport = t;
    return 0;
}

int ff_rtpenc_ext_start(AVFormatContext *s1)
{
    RTPMuxContext *s = s1->priv_data;
    FFRTPEncExt *e = &s->ext;
    int ret;

    /* the stream's time base is its RTP clock now */
    if (e->sender && (ret = start_feedback(s1)) < 0) {
        ff_rtp_sender_free(&e->sender);
        ff_rtp_twcc_log_free(&e->twcc_log);
        return ret;
    }
    return 0;
}

void ff_rtpenc_ext_send_data(AVFormatContext *s1, const uint8_t *buf, int len, int m)
{
    RTPMuxContext *s = s1->priv_data;
    uint8_t hdr[RTP_HEADER_SIZE + FF_RTP_HDREXT_TWCC_SIZE];
    int ret, hdr_len = RTP_HEADER_SIZE;

    hdr[0] = RTP_VERSION << 6;
    hdr[1] = (s->payload_type & 0x7f) | ((m & 0x01) << 7);
    AV_WB16(hdr + 2, s->seq);
    AV_WB32(hdr + 4, s->timestamp);
    AV_WB32(hdr + 8, s->ssrc);
    if (s->ext.cc) {
        /* RFC 8285 one-byte header: the transport-wide sequence number
         * (2 bytes, filled in by the sender as the packet leaves), padded */
        hdr[0] |= 0x10;
        ff_rtp_hdrext_write_twcc(hdr + RTP_HEADER_SIZE, 0);
        hdr_len += FF_RTP_HDREXT_TWCC_SIZE;
    }
    ret = ff_rtp_sender_queue(s->ext.sender, hdr, hdr_len, buf, len);
    if (ret < 0 && !s->ext.send_error)
        s->ext.send_error = ret;

    s->seq = (s->seq + 1) & 0xffff;
    s->octet_count += len;
    s->packet_count++;
}

#define BYE_MAX_WAIT 1000000     ///< us after the last packet the BYE waits at most

/* The BYE waits bye_delay, and two round trips of the slowest receiver
 * that reported one, plus 10 ms (1 s at most), after the last packet and
 * after the last NACK: the last packets lost get their NACKs answered, and
 * a retransmission lost on the way is asked for again, before the
 * receivers stop at the BYE. */
static int64_t bye_delay(RTPMuxContext *s)
{
    int64_t delay = s->ext.bye_delay;
    LCVRTPReceiverStats r;

    if (!s->ext.fb)
        return delay;
    for (int i = 0; !ff_rtpfb_get_receiver_stats(s->ext.fb, i, &r); i++)
        if (r.rtt_ms > 0 && !r.bye)
            delay = FFMAX(delay, FFMIN(2000 * r.rtt_ms + 10000, 1000000));
    return delay;
}

void ff_rtpenc_ext_send_sr(AVFormatContext *s1, int64_t ntp_time, int bye)
{
    RTPMuxContext *s = s1->priv_data;
    FFRTPEncExt *e = &s->ext;
    uint64_t ntp;
    int ret;

    if (bye) {
        FFRTPSendStats st;
        int64_t wait;

        /* after the last paced packet */
        if (ff_rtp_sender_drain(e->sender, e->pace_max_delay + 1000000) < 0)
            av_log(s1, AV_LOG_WARNING, "the pacer still holds packets; sending the BYE\n");
        /* a receiver that NACKs cannot see a loss of the last packets
         * (nothing comes after them): the last one once more shows it */
        if (e->fb)
            ff_rtpfb_tail_probe(e->fb);
        /* receivers may read RTCP before the RTP already queued on their
         * socket (FFmpeg's rtp protocol does) and stop at the BYE: give
         * them time to read the last access unit; NACKs are still
         * answered meanwhile, and while they come (a retransmission lost
         * too is asked for again about a round trip later) the BYE waits
         * until none has come for bye_delay(), BYE_MAX_WAIT at most */
        ff_rtp_sender_get_stats(e->sender, &st);
        while (st.last_media_send) {
            int64_t quiet = bye_delay(s), end = st.last_media_send + quiet;

            if (e->fb)
                end = FFMAX(end, ff_rtpfb_last_nack(e->fb) + quiet);
            end = FFMIN(end, st.last_media_send + BYE_MAX_WAIT);
            if ((wait = end - av_gettime_relative()) <= 0)
                break;
            av_usleep(FFMIN(wait, 10000));
        }
        ntp_time = ff_ntp_time();
    }
    s->last_rtcp_ntp_time = ntp_time;
    if (e->fb) {
        /* the feedback reader sends the SRs on its own schedule, all but
         * the first, which goes out here, before the first packet, as
         * stock FFmpeg sends it */
        if (!bye && !ff_rtpfb_needs_first_sr(e->fb))
            return;
        if (bye)
            ff_rtpfb_stop(e->fb);
    }
    ret = ff_rtp_sender_send_sr(e->sender, bye, &ntp);
    if (ret >= 0 && e->fb && !bye)
        ff_rtpfb_sr_sent(e->fb, ntp);
    if (ret < 0 && !e->send_error)
        e->send_error = ret;
}

int ff_rtpenc_ext_packet_done(AVFormatContext *s1, const AVPacket *pkt, int ret)
{
    RTPMuxContext *s = s1->priv_data;
    FFRTPEncExt *e = &s->ext;
    int err;

    if (!e->sender)
        return ret;
    /* the keyframe a receiver asked for: its picture is broken until the
     * whole keyframe is there, so it leaves within KEYFRAME_DUE, faster
     * than pace_factor if it must */
    if ((pkt->flags & AV_PKT_FLAG_KEY) && e->fb && ff_rtpfb_keyframe_sent(e->fb))
        ff_rtp_sender_urgent(e->sender, KEYFRAME_DUE);
    if (e->fb) {
        /* where each keyframe starts, for the NACKs the history cannot
         * answer; forgotten half a wrap of the numbers later */
        if ((pkt->flags & AV_PKT_FLAG_KEY) && e->au_seq >= 0) {
            e->kf_seq = e->au_seq;
            ff_rtpfb_keyframe_out(e->fb, e->kf_seq);
        } else if (e->kf_seq >= 0 && (uint16_t)(s->seq - e->kf_seq) >= 0x4000) {
            e->kf_seq = -1;
            ff_rtpfb_keyframe_out(e->fb, -1);
        }
        e->au_seq = s->seq & 0xffff;
    }
    err = ff_rtp_sender_flush(e->sender);
    e->access_units += err > 0;
    if (err < 0 && !e->send_error)
        e->send_error = err;
    if (e->send_error < 0) {
        err = e->send_error;
        e->send_error = 0;
        av_log(s1, AV_LOG_ERROR, "Sending RTP failed: %s\n", av_err2str(err));
        return err;
    }
    return ret;
}

void ff_rtpenc_ext_close(AVFormatContext *s1)
{
    RTPMuxContext *s = s1->priv_data;
    FFRTPEncExt *e = &s->ext;
    FFRTPSendStats st;

    if (!e->sender) {
        ff_rtpfb_free(&e->fb);
        ff_rtp_twcc_log_free(&e->twcc_log);
        return;
    }
    /* the pacer's last packets still leave, with their NACKs answered */
    ff_rtp_sender_flush(e->sender);
    ff_rtp_sender_drain(e->sender, e->pace_max_delay + 1000000);
    ff_rtpfb_free(&e->fb);
    ff_rtp_sender_get_stats(e->sender, &st);
    av_log(s1, AV_LOG_VERBOSE, "RTP send (%s): %"PRIu64" packets, %"PRIu64" bytes, "
           "%"PRIu64" RTCP; %"PRIu64" system calls for %"PRIu64" access units "
           "(%.2f syscalls per access unit, %"PRIu64" GSO messages), %"PRIu64" retransmitted; "
           "EAGAIN %"PRIu64", ENOBUFS %"PRIu64", ECONNREFUSED %"PRIu64", "
           "dropped %"PRIu64", fallbacks %"PRIu64"\n",
           ff_rtp_sender_mode_name(ff_rtp_sender_mode(e->sender)),
           st.packets, st.bytes, st.rtcp_packets, st.syscalls, e->access_units,
           e->access_units ? (double)(st.syscalls - st.rtcp_packets - st.retransmissions) / e->access_units : 0.0,
           st.gso_messages, st.retransmissions, st.eagain, st.enobufs, st.econnrefused,
           st.dropped, st.fallbacks);
    if (ff_rtp_sender_paced(e->sender))
        av_log(s1, AV_LOG_VERBOSE, "RTP pacer: %"PRIu64" bursts, last rate %.0f kbit/s, "
               "packets waited %.1f ms (p50) %.1f ms (p95) %.1f ms (max), %"PRIu64" forced drains, "
               "%"PRIu64" keyframes asked for sent within %d ms, "
               "%"PRIu64" access units sent at once (faster than real time), %"PRIu64" resends "
               "waited for a burst, %"PRIu64" dropped (queue full)\n",
               st.paced_bursts, st.pace_rate / 1000, st.delay_p50_ms, st.delay_p95_ms,
               st.delay_max_ms, st.forced_drains, st.urgent_units, KEYFRAME_DUE / 1000,
               st.unpaced_units, st.resends_queued, st.resends_dropped);
    ff_rtp_sender_free(&e->sender);
    ff_rtp_twcc_log_free(&e->twcc_log);
}

int ff_rtpenc_ext_want_bye(AVFormatContext *s1)
{
    RTPMuxContext *s = s1->priv_data;
    /* the bye option applies to packets sent on the network; a muxer
     * chained into a buffer (the mov muxer's RTP hint track) writes only
     * what stock FFmpeg writes, BYE with rtpflags send_bye */
    return (s->flags & FF_RTP_FLAG_SEND_BYE) || (s->ext.bye && s->ext.sender);
}

typedef struct ExtOptions {
    const AVClass *class;
    FFRTPEncExt ext;
} ExtOptions;

static const AVOption ext_options[] = {
    FF_RTPENC_EXT_OPTS(ExtOptions, ext),
    { NULL },
};

static const AVClass ext_options_class = {
    .class_name = "rtp_options",
    .item_name  = av_default_item_name,
    .option     = ext_options,
    .version    = LIBAVUTIL_VERSION_INT,
};

/** A copy of the rtp_options of s in *d; 1 if it has any. */
static int get_rtp_options(const AVFormatContext *s, AVDictionary **d)
{
    *d = NULL;
    /* only muxers with an rtp_options option (RTSP) have any */
    if (!s->oformat || !s->oformat->priv_class || !s->priv_data ||
        av_opt_get_dict_val(s->priv_data, "rtp_options", 0, d) < 0)
        return 0;
    return !!*d;
}

int ff_rtpenc_ext_check_options(AVFormatContext *s)
{
    const AVOutputFormat *rtp = av_guess_format("rtp", NULL, NULL);
    const AVClass *rtp_class = rtp ? rtp->priv_class : NULL;
    const AVDictionaryEntry *t = NULL;
    ExtOptions o = { &ext_options_class };
    AVDictionary *src, *d = NULL;
    int ret = 0;

    av_opt_set_defaults(&o);
    if (!get_rtp_options(s, &src) || !rtp_class)
        goto end;
    while ((t = av_dict_iterate(src, t))) {
        const AVOption *opt = av_opt_find(&rtp_class, t->key, NULL, 0, AV_OPT_SEARCH_FAKE_OBJ);
        if (!opt || opt->type == AV_OPT_TYPE_CONST) {
            av_log(s, AV_LOG_ERROR, "rtp_options: '%s' is not an option of the rtp muxer "
                   "(ffmpeg -h muxer=rtp lists them)\n", t->key);
            ret = AVERROR_OPTION_NOT_FOUND;
            goto end;
        }
        /* one value for every stream, where each needs its own */
        /* (a WHIP output's statistics are its video stream's) */
        if (s->nb_streams > 1 && (!strcmp(t->key, "ssrc") || !strcmp(t->key, "rtx_ssrc") ||
                                  (!strcmp(t->key, "stats_file") &&
                                   strcmp(s->oformat->name, "whip")))) {
            av_log(s, AV_LOG_ERROR, "rtp_options: %s '%s' would be shared by the %u streams "
                   "of this output; it is valid with one stream only\n",
                   t->key, t->value, s->nb_streams);
            ret = AVERROR(EINVAL);
            goto end;
        }
    }
    /* the values of the sender options (the others are checked when the
     * rtp muxers are created) */
    if ((ret = av_dict_copy(&d, src, 0)) >= 0)
        ret = av_opt_set_dict(&o, &d);
end:
    av_opt_free(&o);
    av_dict_free(&d);
    av_dict_free(&src);
    return ret;
}

void ff_rtpenc_ext_sdp_options(const AVFormatContext *s, int *feedback, int *nack, int *cc)
{
    ExtOptions o = { &ext_options_class };
    AVDictionary *d;

    av_opt_set_defaults(&o);
    if (get_rtp_options(s, &d))
        av_opt_set_dict(&o, &d);
    av_dict_free(&d);
    *feedback = o.ext.feedback;
    *nack     = o.ext.feedback && o.ext.nack;
    *cc       = o.ext.feedback && o.ext.cc != 0;   /* auto: on for video */
    av_opt_free(&o);
}

int ff_rtpenc_ext_chain_options(AVFormatContext *s, AVDictionary **opts)
{
    AVDictionary *src;
    int ret = 0;

    if (get_rtp_options(s, &src))
        ret = av_dict_copy(opts, src, 0);
    av_dict_free(&src);
    return ret;
}

/**
 * What the SDP of fmt advertises: 1 and *e filled in (feedback, nack,
 * rtx_pt) if it announces RTP/AVPF, 0 for stock's SDP.
 */
static int sdp_ext(const AVFormatContext *fmt, FFRTPEncExt *e)
{
    const RTPMuxContext *s;

    if (fmt && fmt->oformat && !strcmp(fmt->oformat->name, "rtsp")) {
#if CONFIG_RTSP_MUXER
        /* RTSP output announces before it creates its rtp muxers: read
         * their options from rtp_options (checked before the ANNOUNCE by
         * ff_rtpenc_ext_check_options()). Over TCP (rtsp_transport tcp, rtsps://, HTTP tunnels)
         * they write into the RTSP connection and read no RTCP: the SDP
         * stays stock. 0 is every transport, UDP first. */
        const RTSPState *rt = fmt->priv_data;
        ExtOptions o = { &ext_options_class };
        AVDictionary *d = NULL;

        if (!rt || (rt->lower_transport_mask &&
                    !(rt->lower_transport_mask & (1 << RTSP_LOWER_TRANSPORT_UDP))))
            return 0;
        av_opt_set_defaults(&o);
        if (av_dict_copy(&d, rt->rtp_opts, 0) >= 0)
            av_opt_set_dict(&o, &d);
        av_dict_free(&d);
        e->feedback = o.ext.feedback;
        e->nack     = o.ext.nack;
        e->rtx_pt   = o.ext.rtx_pt;
        e->cc       = o.ext.cc != 0;    /* auto: on for video over UDP */
        av_opt_free(&o);
        return e->feedback;
#else
        return 0;
#endif
    }
    if (!fmt || !fmt->oformat || strcmp(fmt->oformat->name, "rtp") || !fmt->priv_data)
        return 0;
    s = fmt->priv_data;
    /* once its header is written, a muxer advertises feedback only if it
     * runs it: not when it writes to a file or into another muxer's buffer
     * (the RTP hint track of -movflags +rtphint, whose SDP stays stock) */
    if (!s->ext.feedback || (s->buf && !s->ext.fb))
        return 0;
    *e = s->ext;
    return 1;
}

const char *ff_rtpenc_ext_sdp_profile(const AVFormatContext *fmt)
{
    FFRTPEncExt e;
    return sdp_ext(fmt, &e) ? "RTP/AVPF" : "RTP/AVP";
}

int ff_rtpenc_ext_sdp_rtx_pt(const AVFormatContext *fmt)
{
    FFRTPEncExt e;
    return sdp_ext(fmt, &e) && e.nack ? e.rtx_pt : -1;
}

void ff_rtpenc_ext_sdp_attributes(char *buff, int size, const AVStream *st,
                                  int payload_type, const AVFormatContext *fmt)
{
    FFRTPEncExt ext, *e = &ext;

    if (!sdp_ext(fmt, e))
        return;
    if (e->nack)
        av_strlcatf(buff, size, "a=rtcp-fb:%d nack\r\n", payload_type);
    if (st->codecpar->codec_type == AVMEDIA_TYPE_VIDEO)
        av_strlcatf(buff, size, "a=rtcp-fb:%d nack pli\r\n"
                                "a=rtcp-fb:%d ccm fir\r\n", payload_type, payload_type);
    if (e->cc && st->codecpar->codec_type == AVMEDIA_TYPE_VIDEO)
        av_strlcatf(buff, size, "a=rtcp-fb:%d ack ccfb\r\n"
                                "a=extmap:%d %s\r\n", payload_type, FF_RTP_HDREXT_TWCC_ID, FF_RTP_HDREXT_TWCC_URI);
    if (e->nack && e->rtx_pt >= 0)
        av_strlcatf(buff, size, "a=rtpmap:%d rtx/%d\r\n"
                                "a=fmtp:%d apt=%d\r\n", e->rtx_pt, sdp_clock_rate(st->codecpar),
                    e->rtx_pt, payload_type);
}

/* ---- public: lcvrtp.h ---- */

static FFRTPFeedback *stream_feedback(AVFormatContext *s, int stream_index)
{
    if (!s || !s->oformat || !s->priv_data || stream_index < 0 ||
        stream_index >= s->nb_streams)
        return NULL;
    if (!strcmp(s->oformat->name, "rtp")) {
        RTPMuxContext *r = s->priv_data;
        return r->ext.fb;
    }
    /* a WHIP output keeps each stream's rtp muxer in the stream */
    if (!strcmp(s->oformat->name, "whip"))
        return s->streams[stream_index]->priv_data ?
               stream_feedback(s->streams[stream_index]->priv_data, 0) : NULL;
#if CONFIG_RTSP_MUXER
    if (!strcmp(s->oformat->name, "rtsp")) {
        RTSPState *rt = s->priv_data;
        for (int i = 0; i < rt->nb_rtsp_streams; i++) {
            RTSPStream *rst = rt->rtsp_streams[i];
            if (rst->stream_index == stream_index && rt->transport == RTSP_TRANSPORT_RTP &&
                rst->transport_priv)
                return stream_feedback(rst->transport_priv, 0);
        }
    }
#endif
    return NULL;
}

int lcv_rtp_muxer_get_stats(AVFormatContext *s, int stream_index, LCVRTPSenderStats *st, size_t size)
{
    FFRTPFeedback *fb = stream_feedback(s, stream_index);
    LCVRTPSenderStats all;

    if (!fb)
        return AVERROR(ENOSYS);
    if (!st || !size)
        return AVERROR(EINVAL);
    /* at most the caller's size: a program built against another version
     * of lcvrtp.h gets the fields it knows */
    ff_rtpfb_get_stats(fb, &all);
    memset(st, 0, size);
    memcpy(st, &all, FFMIN(size, sizeof(all)));
    return 0;
}

int lcv_rtp_muxer_get_receiver_stats(AVFormatContext *s, int stream_index, int index,
                                     LCVRTPReceiverStats *st, size_t size)
{
    FFRTPFeedback *fb = stream_feedback(s, stream_index);
    LCVRTPReceiverStats r;
    int ret;

    if (!fb)
        return AVERROR(ENOSYS);
    if (!st || !size)
        return AVERROR(EINVAL);
    if ((ret = ff_rtpfb_get_receiver_stats(fb, index, &r)) < 0)
        return ret;
    memset(st, 0, size);
    memcpy(st, &r, FFMIN(size, sizeof(r)));
    return 0;
}

int lcv_rtp_muxer_keyframe_requested(AVFormatContext *s, int stream_index)
{
    FFRTPFeedback *fb = stream_feedback(s, stream_index);
    return fb ? ff_rtpfb_keyframe_requested(fb) : 0;
}

int64_t lcv_rtp_muxer_target_bitrate(AVFormatContext *s, int stream_index)
{
    FFRTPFeedback *fb = stream_feedback(s, stream_index);
    return fb ? ff_rtpfb_target_bitrate(fb) : 0;
}

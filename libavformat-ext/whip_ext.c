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

/**
 * @file
 * The WHIP muxer's network side after ICE and DTLS: SRTP per datagram as
 * the hook of the RTP sender, and the demultiplexing of what the peer
 * sends (RFC 7983: STUN, DTLS, SRTCP) for the rtp muxer's feedback reader.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "libavcodec/h264.h"
#include "libavutil/avstring.h"
#include "libavutil/dict.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/mem.h"
#include "libavutil/time.h"
#include "rtp.h"
#include "rtpenc_ext.h"
#include "rtphdrext.h"
#include "srtp.h"
#include "whip_ext.h"

#define NB_SSRC 3

struct FFWhipTransport {
    void *logctx;
    FFWhipTransportConfig cfg;
    /* one context per SSRC sent, for SRTP and for SRTCP: each keeps its
     * own rollover counter or SRTCP index, and each sender thread uses its
     * own; the locks keep two callers of one context apart all the same */
    SRTPContext rtp[NB_SSRC], rtcp[NB_SSRC];
    pthread_mutex_t lock[2][NB_SSRC];
    int nb_locks;
    SRTPContext recv;           ///< the feedback reader's thread only
    FFRTPEncTransport send_only, reader;
    int reading;
    atomic_int_least64_t last_response;
    atomic_uint unauthenticated, dtls, other;
};

/* RFC 7983: the first byte tells STUN (0-3), DTLS (20-63) and RTP/RTCP (128-191) apart */
static int is_stun(const uint8_t *b, int len) { return len >= 20 && b[0] <= 3; }
static int is_dtls(const uint8_t *b, int len) { return len >= 1 && b[0] >= 20 && b[0] <= 63; }
static int is_rtcp(const uint8_t *b, int len)
{
    return len >= 8 && b[0] >= 128 && b[0] <= 191 && RTP_PT_IS_RTCP(b[1]);
}

static int ssrc_index(const FFWhipTransport *t, uint32_t ssrc)
{
    for (int i = 0; i < NB_SSRC; i++)
        if (t->cfg.ssrc[i] && t->cfg.ssrc[i] == ssrc)
            return i;
    return -1;
}

/* FFRTPSendConfig.protect: RTP by the SSRC of its header, RTCP by the
 * SSRC of its first packet (the sender's SR, or its BYE) */
static int protect(void *opaque, int rtcp, const uint8_t *in, int len, uint8_t *out, int out_size)
{
    FFWhipTransport *t = opaque;
    int i, ret;

    if (len < (rtcp ? 8 : 12))
        return AVERROR(EINVAL);
    if ((i = ssrc_index(t, AV_RB32(in + (rtcp ? 4 : 8)))) < 0)
        return AVERROR(EINVAL);
    pthread_mutex_lock(&t->lock[rtcp][i]);
    ret = ff_srtp_encrypt(rtcp ? &t->rtcp[i] : &t->rtp[i], in, len, out, out_size);
    pthread_mutex_unlock(&t->lock[rtcp][i]);
    return ret < len ? (ret < 0 ? ret : AVERROR(EINVAL)) : ret;
}

/* FFRTPSendConfig.incoming: authenticated RTCP goes on, in place and
 * unprotected; the rest stays here */
static int incoming(void *opaque, uint8_t *buf, int len, int size)
{
    FFWhipTransport *t = opaque;

    if (is_stun(buf, len)) {
        uint16_t type = AV_RB16(buf);
        if (type == 0x0101)             /* binding success response */
            atomic_store(&t->last_response, av_gettime_relative());
        else if (type == 0x0001 && t->cfg.binding_request)
            t->cfg.binding_request(t->cfg.opaque, buf, len);
        return 0;
    }
    if (is_rtcp(buf, len)) {
        int n = len;
        if (ff_srtp_decrypt(&t->recv, buf, &n) < 0 || n < 8) {
            if (!atomic_fetch_add(&t->unauthenticated, 1))
                av_log(t->logctx, AV_LOG_WARNING, "SRTCP datagram of %d bytes did not "
                       "authenticate: dropped (and the next ones, counted)\n", len);
            return 0;
        }
        return n;
    }
    /* DTLS after the handshake (a retransmitted flight, an alert), and
     * RTP, which a sendonly peer does not send */
    atomic_fetch_add(is_dtls(buf, len) ? &t->dtls : &t->other, 1);
    return 0;
}

int ff_whip_ext_open(FFWhipTransport **pt, void *logctx, const FFWhipTransportConfig *cfg)
{
    FFWhipTransport *t;
    int ret;

    *pt = NULL;
    if (cfg->fd < 0 || cfg->max_size <= 0 || !cfg->suite || !cfg->send_params ||
        !cfg->recv_params)
        return AVERROR(EINVAL);
    if (!(t = av_mallocz(sizeof(*t))))
        return AVERROR(ENOMEM);
    t->logctx = logctx;
    t->cfg = *cfg;
    atomic_init(&t->last_response, 0);
    atomic_init(&t->unauthenticated, 0);
    atomic_init(&t->dtls, 0);
    atomic_init(&t->other, 0);
    for (; t->nb_locks < NB_SSRC; t->nb_locks++) {
        if ((ret = AVERROR(pthread_mutex_init(&t->lock[0][t->nb_locks], NULL))))
            goto fail;
        if ((ret = AVERROR(pthread_mutex_init(&t->lock[1][t->nb_locks], NULL)))) {
            pthread_mutex_destroy(&t->lock[0][t->nb_locks]);
            goto fail;
        }
    }
    for (int i = 0; i < NB_SSRC; i++)
        if ((ret = ff_srtp_set_crypto(&t->rtp[i], cfg->suite, cfg->send_params)) < 0 ||
            (ret = ff_srtp_set_crypto(&t->rtcp[i], cfg->suite, cfg->send_params)) < 0)
            goto fail;
    if ((ret = ff_srtp_set_crypto(&t->recv, cfg->suite, cfg->recv_params)) < 0)
        goto fail;

    t->send_only = (FFRTPEncTransport) {
        .sockets = {
            .rtp_fd    = cfg->fd,
            .rtcp_fd   = cfg->fd,
            .connected = 1,
            .max_size  = cfg->max_size,
        },
        .protect          = protect,
        .protect_opaque   = t,
        /* SRTCP: the E flag and index, and the 80-bit tag; SRTP: the tag */
        .protect_overhead = 4 + 10,
        .incoming         = incoming,
        .incoming_opaque  = t,
    };
    t->reader = t->send_only;
    t->reader.read_feedback = 1;
    *pt = t;
    return 0;
fail:
    ff_whip_ext_free(&t);
    return ret;
}

int ff_whip_ext_attach(FFWhipTransport *t, AVFormatContext *rtp_ctx, int read_feedback)
{
    int reads = read_feedback && !t->reading;
    int ret = ff_rtpenc_ext_set_transport(rtp_ctx, reads ? &t->reader : &t->send_only);

    if (ret >= 0 && reads)
        t->reading = 1;
    return ret;
}

int ff_whip_ext_reads(const FFWhipTransport *t)
{
    return t && t->reading;
}

int64_t ff_whip_ext_last_binding_response(const FFWhipTransport *t)
{
    return t ? atomic_load(&t->last_response) : 0;
}

void ff_whip_ext_free(FFWhipTransport **pt)
{
    FFWhipTransport *t = *pt;

    if (!t)
        return;
    if (atomic_load(&t->unauthenticated) || atomic_load(&t->dtls) || atomic_load(&t->other))
        av_log(t->logctx, AV_LOG_VERBOSE, "read and not handed on: %u SRTCP that did not "
               "authenticate, %u DTLS, %u other datagrams\n", atomic_load(&t->unauthenticated),
               atomic_load(&t->dtls), atomic_load(&t->other));
    for (int i = 0; i < NB_SSRC; i++) {
        ff_srtp_free(&t->rtp[i]);
        ff_srtp_free(&t->rtcp[i]);
    }
    ff_srtp_free(&t->recv);
    for (int i = 0; i < t->nb_locks; i++) {
        pthread_mutex_destroy(&t->lock[0][i]);
        pthread_mutex_destroy(&t->lock[1][i]);
    }
    av_freep(pt);
}

void ff_whip_ext_sdp_video(AVBPrint *bp, const AVFormatContext *s, int pt)
{
    int feedback, nack, cc;

    ff_rtpenc_ext_sdp_options(s, &feedback, &nack, &cc);
    if (!feedback)
        return;
    av_bprintf(bp, "a=rtcp-fb:%d nack pli\r\n"
                   "a=rtcp-fb:%d ccm fir\r\n"
                   "a=rtcp-fb:%d goog-remb\r\n", pt, pt, pt);
    if (cc)
        av_bprintf(bp, "a=rtcp-fb:%d transport-cc\r\n"
                       "a=extmap:%d %s\r\n", pt, FF_RTP_HDREXT_TWCC_ID, FF_RTP_HDREXT_TWCC_URI);
}

/* what the WHIP muxer sets itself, from its SDP offer */
static const char *const own_options[] = {
    "payload_type", "ssrc", "seq", "rtx_pt", "rtx_ssrc", "cname", NULL
};

int ff_whip_ext_check_options(AVFormatContext *s)
{
    AVDictionary *d = NULL;
    int ret;

    if ((ret = ff_rtpenc_ext_chain_options(s, &d)) < 0)
        return ret;
    for (int i = 0; own_options[i]; i++) {
        const AVDictionaryEntry *e = av_dict_get(d, own_options[i], NULL, 0);
        if (e) {
            av_log(s, AV_LOG_ERROR, "rtp_options: %s '%s' is set by the WHIP muxer from "
                   "its SDP offer; leave it out\n", e->key, e->value);
            av_dict_free(&d);
            return AVERROR(EINVAL);
        }
    }
    av_dict_free(&d);
    return ff_rtpenc_ext_check_options(s);
}

int ff_whip_ext_rtp_options(const AVFormatContext *s, int video, int rtx_pt,
                            uint32_t rtx_ssrc, AVDictionary **opts)
{
    int ret;

    if ((ret = ff_rtpenc_ext_chain_options((AVFormatContext *)s, opts)) < 0)
        return ret;
    if (!video)     /* the statistics are the video muxer's, which reads RTCP */
        return av_dict_set(opts, "stats_file", NULL, 0);
    if ((ret = av_dict_set_int(opts, "rtx_pt", rtx_pt, 0)) < 0)
        return ret;
    return av_dict_set_int(opts, "rtx_ssrc", rtx_ssrc, 0);
}

int ff_whip_ext_h264_profile(const H264SPS *sps)
{
    int profile = sps->profile_idc;

    if (profile == AV_PROFILE_H264_BASELINE && (sps->constraint_set_flags & 1 << 1))
        profile |= AV_PROFILE_H264_CONSTRAINED;
    if ((profile == AV_PROFILE_H264_HIGH_10 || profile == AV_PROFILE_H264_HIGH_422 ||
         profile == AV_PROFILE_H264_HIGH_444_PREDICTIVE) && (sps->constraint_set_flags & 1 << 3))
        profile |= AV_PROFILE_H264_INTRA;
    return profile;
}

int ff_whip_ext_avcc_profile_level(void *logctx, AVCodecParameters *par)
{
    const uint8_t *x = par->extradata;
    /* a 6-byte header, the SPS count, then the first SPS after its 16-bit
     * size, without a start code */
    int size = par->extradata_size >= 9 && (x[5] & 0x1f) ? AV_RB16(x + 6) : 0;
    H264SPS sps;
    int ret;

    if (size < 4 || size > par->extradata_size - 8 || (x[8] & 0x1f) != H264_NAL_SPS) {
        av_log(logctx, AV_LOG_ERROR, "No SPS in the avcC extradata (%d bytes)\n", par->extradata_size);
        return AVERROR_INVALIDDATA;
    }
    if ((ret = ff_avc_decode_sps(&sps, x + 9, size - 1)) < 0) {
        av_log(logctx, AV_LOG_ERROR, "Failed to decode the SPS of the avcC extradata, size=%d\n", size);
        return ret;
    }
    par->profile = ff_whip_ext_h264_profile(&sps);
    par->level   = sps.level_idc;
    av_log(logctx, AV_LOG_VERBOSE, "Parse profile=%d, level=%d from the avcC's SPS\n",
           par->profile, par->level);
    return 0;
}

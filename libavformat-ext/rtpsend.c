/*
 * Batched RTP sending: sendmmsg and UDP GSO with pooled packet buffers
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
 * The RTP muxer queues the packets of one access unit here and sends them
 * together when the unit is complete:
 *
 * - GSO: runs of equal-size packets (the last of a run may be shorter, as
 *   the last FU-A fragment of a NAL is) become one message with a
 *   UDP_SEGMENT control message; the kernel cuts it into datagrams. All
 *   messages of the unit go out in one sendmmsg.
 * - mmsg: one message per packet, all in one sendmmsg.
 * - single: one send per packet.
 *
 * No poll() precedes a send: the socket blocks by itself when its buffer is
 * full. EAGAIN and ENOBUFS wait and retry the rest; ECONNREFUSED (an ICMP
 * port unreachable for an earlier datagram on a connected socket) is counted
 * and the send retried, since the error consumed nothing. A GSO send that
 * fails for want of device support drops to sendmmsg, and a missing
 * sendmmsg to single sends, with the unsent rest resent in order.
 *
 * Packets live in buffers from an AVBufferPool, so the steady state
 * allocates nothing, and a retransmission history can keep references to
 * exactly what went out.
 *
 * Everything the muxer sends goes through here: media, retransmissions and
 * RTCP (the SR is built in ff_rtp_sender_send_sr() only), with one error
 * policy and one set of counters. A thread ("rtp-send") does the pacing and
 * reads the RTCP socket for the client (rtpfb.c), whose callbacks run under
 * client_lock; lock guards the pacer's state and the counters and is never
 * held across a system call or a callback (order: client_lock, the
 * client's own lock, lock).
 *
 * The pacer (rtppacer.c) decides which packets leave when; the sender
 * sends them. The muxer hands each access unit to it (waiting while it is
 * full), and the thread asks it for the bursts that are due and sends
 * them, resends first.
 *
 * This file opens the sender (on an rtp:// or udp:// URLContext, or on
 * the caller's sockets) and has what its users call; rtpsend_io.c puts
 * the datagrams on the socket, rtpsend_thread.c is the thread.
 */

#define _GNU_SOURCE

#include "config.h"
#include "config_components.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#include "libavutil/avassert.h"
#include "libavutil/avstring.h"
#include "libavutil/error.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/log.h"
#include "libavutil/mathematics.h"
#include "libavutil/mem.h"
#include "libavutil/thread.h"
#include "libavutil/time.h"

#include "avio_internal.h"
#include "internal.h"
#include "lcvrtcp.h"
#include "rtpcc.h"
#include "rtphdrext.h"
#include "rtpkernel.h"
#include "rtppacer.h"
#include "rtprate.h"
#include "rtpsend.h"
#include "rtptwcc.h"

static const char *const mode_names[FF_RTP_SEND_NB] = {
    [FF_RTP_SEND_AUTO]   = "auto",
    [FF_RTP_SEND_GSO]    = "gso",
    [FF_RTP_SEND_MMSG]   = "mmsg",
    [FF_RTP_SEND_SINGLE] = "single",
};

const char *ff_rtp_sender_mode_name(enum FFRTPSendMode mode)
{
    return mode >= 0 && mode < FF_RTP_SEND_NB ? mode_names[mode] : "?";
}

#if CONFIG_NETWORK
#include "network.h"
#include "rtpproto.h"
#include "url.h"
#include "rtpsend_internal.h"

static int get_socket(URLContext *h, SendSocket *sock, int *max_size)
{
    return ff_udp_get_send_target(h, &sock->fd, &sock->connected,
                                  &sock->dest, &sock->dest_len, max_size);
}

#if RTPSEND_BATCH
/** Turn kernel pacing on if asked (pace_kernel) and possible: SO_TXTIME on
 *  the RTP socket, with CLOCK_MONOTONIC. Logs why not. */
static void setup_kernel_pacing(FFRTPSender *s)
{
    char dev[IF_NAMESIZE] = "", kind[32] = "";
    int index, fq = 0, ret;

    if (!s->cfg.pace_kernel || !s->cfg.pace)
        return;
    index = ff_rtp_kernel_egress_device(s->rtp.fd, s->rtp.connected,
                                        (const struct sockaddr *)&s->rtp.dest, s->rtp.dest_len,
                                        dev, sizeof(dev));
    if (index)
        fq = ff_rtp_kernel_qdisc_paces(index, kind, sizeof(kind));
    if (!fq && s->cfg.pace_kernel < 0) {
        av_log(s->logctx, AV_LOG_VERBOSE, "SO_TXTIME pacing not used: %s%s%s%s; "
               "the send thread's timer paces\n", index ? "qdisc of " : "no device found",
               dev, index ? " is " : "", index ? (kind[0] ? kind : "none (noqueue)") : "");
        return;
    }
    if (s->mode == FF_RTP_SEND_SINGLE || !av_gettime_relative_is_monotonic()) {
        av_log(s->logctx, s->cfg.pace_kernel > 0 ? AV_LOG_WARNING : AV_LOG_VERBOSE,
               "SO_TXTIME pacing not used: it needs send_mode gso or mmsg and a monotonic clock\n");
        return;
    }
    if ((ret = ff_rtp_kernel_txtime(s->rtp.fd)) < 0) {
        av_log(s->logctx, s->cfg.pace_kernel > 0 ? AV_LOG_WARNING : AV_LOG_VERBOSE,
               "SO_TXTIME pacing not used: %s\n", av_err2str(ret));
        return;
    }
    s->kernel_paced = 1;
    ff_rtp_pacer_set_ahead(s->pacer, KERNEL_AHEAD);
    av_log(s->logctx, AV_LOG_VERBOSE, "SO_TXTIME pacing on %s (qdisc %s%s): bursts go to the "
           "kernel up to %d ms ahead of their departure times\n", index ? dev : "?",
           kind[0] ? kind : "none", fq ? "" : ", which ignores the times", KERNEL_AHEAD / 1000);
}
#endif

/** DSCP in the IPv4 TOS or IPv6 traffic class byte of one socket. */
static int set_dscp(FFRTPSender *s, const SendSocket *sock, const char *what)
{
    int ret = ff_rtp_kernel_set_dscp(sock->fd, sock->dest.ss_family, s->cfg.dscp);

    if (ret < 0) {
        av_log(s->logctx, AV_LOG_ERROR, "dscp %d: could not mark the %s socket: %s\n",
               s->cfg.dscp, what, av_err2str(ret));
        return ret;
    }
    return 0;
}

#define SR_MAX_SIZE (28 + 4 + 4 + 2 + 255 + 1 + 3 + 8)

/* SR without report blocks, SDES with the CNAME (at most 255 bytes of it),
 * with bye a BYE; padded to 4 bytes */
static int write_sr(uint8_t *buf, int size, uint32_t ssrc, uint64_t ntp,
                    uint32_t rtp_ts, uint32_t packets, uint32_t octets,
                    const char *cname, int bye)
{
    LCVRTCPWriter w;
    int ret;

    lcv_rtcp_writer_init(&w, buf, size);
    ret = lcv_rtcp_write_sr(&w, ssrc, ntp, rtp_ts, packets, octets, NULL, 0);
    if (ret >= 0 && cname) {
        LCVRTCPSdesItem item = {
            .ssrc  = ssrc,
            .type  = LCV_SDES_CNAME,
            .value = (const uint8_t *)cname,
            .len   = FFMIN(strlen(cname), 255),
        };
        ret = lcv_rtcp_write_sdes(&w, &item, 1);
    }
    if (ret >= 0 && bye)
        ret = lcv_rtcp_write_bye(&w, &ssrc, 1, NULL);
    return ret < 0 ? ret : lcv_rtcp_writer_finish(&w, 4);
}

static int open_common(FFRTPSender **ps, void *logctx, const SendSocket *rtp,
                       const SendSocket *rtcp, int max_size, AVIOInterruptCB *interrupt,
                       int64_t rw_timeout, const FFRTPSendConfig *cfg)
{
    enum FFRTPSendMode mode = cfg->mode;
    FFRTPSender *s;
    int ret;

    *ps = NULL;
    /* pkt_size against max_size: the muxer's check, with its message */
    if (cfg->packet_size <= 0 || cfg->protect_overhead < 0 || cfg->protect_overhead > 1024)
        return AVERROR(EINVAL);
    s = av_mallocz(sizeof(*s));
    if (!s)
        return AVERROR(ENOMEM);
    s->wake_pipe[0] = s->wake_pipe[1] = -1;
    atomic_init(&s->stop, 0);
    atomic_init(&s->prot_logged, 0);
    s->rtp         = *rtp;
    s->rtcp        = *rtcp;
    s->logctx      = logctx;
    s->interrupt   = interrupt;
    s->rw_timeout  = rw_timeout;
    s->max_size    = max_size;
    s->cfg         = *cfg;
    s->cfg.rtcp_from = ff_rtp_peer_resolve(cfg->rtcp_from, &s->rtcp.dest);
    if ((ret = pthread_mutex_init(&s->lock, NULL))) {
        av_free(s);
        return AVERROR(ret);
    }
    if ((ret = pthread_cond_init(&s->cond, NULL))) {
        pthread_mutex_destroy(&s->lock);
        av_free(s);
        return AVERROR(ret);
    }
    s->sync_init = 1;
    if ((ret = pthread_mutex_init(&s->client_lock, NULL))) {
        ret = AVERROR(ret);
        goto fail;
    }
    s->client_lock_init = 1;
    s->pool = av_buffer_pool_init(cfg->packet_size, NULL);
    if (!s->pool) {
        ret = AVERROR(ENOMEM);
        goto fail;
    }
    if (cfg->protect) {
        /* a protected datagram may grow: the socket must still take it */
        s->prot_slot = cfg->packet_size + 16 + cfg->protect_overhead;
        s->prot_one  = av_malloc(s->prot_slot);
        s->au.prot   = av_malloc_array(MAX_QUEUE, s->prot_slot);
        if (cfg->pace)
            s->burst.prot = av_malloc_array(MAX_QUEUE, s->prot_slot);
        if (!s->prot_one || !s->au.prot || (cfg->pace && !s->burst.prot)) {
            ret = AVERROR(ENOMEM);
            goto fail;
        }
        if ((ret = pthread_mutex_init(&s->prot_lock, NULL))) {
            ret = AVERROR(ret);
            goto fail;
        }
        s->prot_lock_init = 1;
    }
    s->hdr_size = 12;
    if (cfg->twcc) {
        s->hdr_size = 12 + FF_RTP_HDREXT_TWCC_SIZE;
        if (!(s->now_buf = av_malloc(cfg->packet_size + 16))) {
            ret = AVERROR(ENOMEM);
            goto fail;
        }
    }
    if (cfg->dscp >= 0 && ((ret = set_dscp(s, &s->rtp, "RTP")) < 0 ||
                           (s->rtcp.fd != s->rtp.fd && (ret = set_dscp(s, &s->rtcp, "RTCP")) < 0)))
        goto fail;

#if RTPSEND_BATCH
    if (mode == FF_RTP_SEND_AUTO || mode == FF_RTP_SEND_GSO) {
        if (ff_rtp_kernel_gso(s->rtp.fd)) {
            s->mode = FF_RTP_SEND_GSO;
        } else {
            if (mode == FF_RTP_SEND_GSO)
                av_log(logctx, AV_LOG_WARNING,
                       "send_mode gso: UDP GSO is not available here, using sendmmsg\n");
            s->mode = FF_RTP_SEND_MMSG;
        }
    } else {
        s->mode = mode;
    }
#else
    if (mode != FF_RTP_SEND_AUTO && mode != FF_RTP_SEND_SINGLE)
        av_log(logctx, AV_LOG_WARNING,
               "send_mode %s is not available on this system, using single\n",
               ff_rtp_sender_mode_name(mode));
    s->mode = FF_RTP_SEND_SINGLE;
#endif
    if (cfg->pace) {
        FFRTPPacerConfig pcfg = {
            .factor     = cfg->pace_factor,
            .burst      = cfg->pace_burst,
            .max_delay  = cfg->pace_max_delay,
            .bit_rate   = cfg->bit_rate,
            .max_resend = cfg->packet_size + 16,
        };
        if ((ret = ff_rtp_pacer_alloc(&s->pacer, &pcfg)) < 0)
            goto fail;
#if RTPSEND_BATCH
        setup_kernel_pacing(s);
#else
        if (cfg->pace_kernel > 0)
            av_log(logctx, AV_LOG_WARNING, "SO_TXTIME pacing is not available on this system\n");
#endif
        if ((ret = ff_rtp_send_start_thread(s)) < 0)
            goto fail;
    }
    av_log(logctx, AV_LOG_VERBOSE, "RTP send mode %s, packets up to %d bytes, ",
           ff_rtp_sender_mode_name(s->mode), cfg->packet_size);
    if (cfg->pace)
        av_log(logctx, AV_LOG_VERBOSE, "paced at %.2f x the media rate in bursts of "
               "%d bytes, packets wait %.0f ms at most (%s)\n", cfg->pace_factor, cfg->pace_burst,
               cfg->pace_max_delay / 1000.0,
               s->kernel_paced ? "departure times for the kernel: SO_TXTIME" : "timer in a thread");
    else
        av_log(logctx, AV_LOG_VERBOSE, "not paced\n");
    *ps = s;
    return 0;
fail:
    ff_rtp_sender_free(&s);
    return ret;
}

int ff_rtp_sender_open(FFRTPSender **ps, void *logctx, AVIOContext *pb,
                       const FFRTPSendConfig *cfg)
{
    URLContext *h = ffio_geturlcontext(pb), *rtp_hd, *rtcp_hd;
    SendSocket rtp, rtcp;
    int max_size, max_rtcp;

    *ps = NULL;
    if (!h || !CONFIG_UDP_PROTOCOL)
        return 0;
    if (CONFIG_RTP_PROTOCOL && !strcmp(h->prot->name, "rtp")) {
        if (ff_rtp_get_udp_handles(h, &rtp_hd, &rtcp_hd) < 0)
            return 0;
    } else if (!strcmp(h->prot->name, "udp")) {
        rtp_hd = rtcp_hd = h;
    } else {
        return 0;
    }
    if (get_socket(rtp_hd, &rtp, &max_size) < 0 || get_socket(rtcp_hd, &rtcp, &max_rtcp) < 0)
        return 0;
    return open_common(ps, logctx, &rtp, &rtcp, max_size, &h->interrupt_callback,
                       h->rw_timeout, cfg);
}

int ff_rtp_sender_open_sockets(FFRTPSender **ps, void *logctx, const FFRTPSenderSockets *so,
                               const FFRTPSendConfig *cfg)
{
    SendSocket rtp = { .fd = so->rtp_fd, .connected = so->connected };
    SendSocket rtcp = { .fd = so->rtcp_fd, .connected = so->connected };
    const struct sockaddr_storage *rd = so->rtcp_dest ? so->rtcp_dest : so->dest;
    int rdl = so->rtcp_dest ? so->rtcp_dest_len : so->dest_len;

    *ps = NULL;
    if (so->rtp_fd < 0 || so->rtcp_fd < 0 || so->max_size <= 0 ||
        (!so->connected && (!so->dest || so->dest_len <= 0 || so->dest_len > sizeof(rtp.dest) ||
                            !rd || rdl <= 0 || rdl > sizeof(rtcp.dest))))
        return AVERROR(EINVAL);
    if (!so->connected) {
        memcpy(&rtp.dest, so->dest, so->dest_len);
        memcpy(&rtcp.dest, rd, rdl);
        rtp.dest_len  = so->dest_len;
        rtcp.dest_len = rdl;
    } else {
        /* the family, for the MTU and DSCP */
        socklen_t len = sizeof(rtp.dest);
        if (getpeername(rtp.fd, (struct sockaddr *)&rtp.dest, &len) < 0)
            return AVERROR(errno);
        rtp.dest_len = len;
        len = sizeof(rtcp.dest);
        if (getpeername(rtcp.fd, (struct sockaddr *)&rtcp.dest, &len) < 0)
            return AVERROR(errno);
        rtcp.dest_len = len;
    }
    return open_common(ps, logctx, &rtp, &rtcp, so->max_size, so->interrupt, so->rw_timeout, cfg);
}

void ff_rtp_sender_urgent(FFRTPSender *s, int64_t within)
{
    if (s->cfg.pace) {
        pthread_mutex_lock(&s->lock);
        ff_rtp_pacer_urgent(s->pacer, within);
        pthread_mutex_unlock(&s->lock);
    }
}

int ff_rtp_sender_max_size(const FFRTPSender *s)
{
    return s->max_size;
}

int ff_rtp_sender_ipv6(const FFRTPSender *s)
{
    return s->rtp.dest.ss_family == AF_INET6;
}

enum FFRTPSendMode ff_rtp_sender_mode(const FFRTPSender *s)
{
    return s->mode;
}

int ff_rtp_sender_paced(const FFRTPSender *s)
{
    return s->cfg.pace;
}

void ff_rtp_sender_set_report_info(FFRTPSender *s, const FFRTPSenderReportInfo *info)
{
    s->sr = *info;
    if (s->pacer) {
        pthread_mutex_lock(&s->lock);
        ff_rtp_pacer_set_clock_rate(s->pacer, info->clock_rate);
        pthread_mutex_unlock(&s->lock);
    }
}

void ff_rtp_sender_get_stats(FFRTPSender *s, FFRTPSendStats *st)
{
    pthread_mutex_lock(&s->lock);
    *st = s->st;
    if (s->pacer) {
        FFRTPPacerStats ps;
        ff_rtp_pacer_get_stats(s->pacer, &ps);
        st->paced_bursts    = ps.bursts;
        st->forced_drains   = ps.forced_drains;
        st->urgent_units    = ps.urgent_units;
        st->unpaced_units   = ps.unpaced_units;
        st->resends_queued  = ps.resends_queued;
        st->resends_dropped = ps.resends_dropped;
        st->pace_rate       = ps.rate;
        st->delay_p50_ms    = ps.delay_p50_ms;
        st->delay_p95_ms    = ps.delay_p95_ms;
        st->delay_max_ms    = ps.delay_max_ms;
    }
    st->kernel_paced = s->kernel_paced;
    pthread_mutex_unlock(&s->lock);
}

/* ---- what the muxer and the client call ---- */

int ff_rtp_sender_flush(FFRTPSender *s)
{
    int ret, nb = s->au.nb;

    if (!nb)
        return 0;
    if (s->cfg.pace)
        return ff_rtp_send_enqueue(s);
    /* unpaced, the units leave as they come: the media rate is kept here */
    pthread_mutex_lock(&s->lock);
    ff_rtp_rate_add(&s->media, av_gettime_relative(), s->au.bytes, 0);
    pthread_mutex_unlock(&s->lock);
    ret = ff_rtp_send_media(s, &s->au);
    return ret < 0 ? ret : nb;
}

double ff_rtp_sender_media_rate(FFRTPSender *s)
{
    int64_t now = av_gettime_relative();
    double rate;

    pthread_mutex_lock(&s->lock);
    rate = s->pacer ? ff_rtp_pacer_media_rate(s->pacer, now) : ff_rtp_rate_get(&s->media, now, 0);
    pthread_mutex_unlock(&s->lock);
    return rate;
}

int ff_rtp_sender_queue(FFRTPSender *s, const uint8_t *hdr, int hdr_len,
                        const uint8_t *payload, int len)
{
    Batch *b = &s->au;
    AVBufferRef *buf;
    int ret;

    if (hdr_len < 0 || len < 0 || hdr_len + len > s->cfg.packet_size)
        return AVERROR(EINVAL);
    if (b->nb == MAX_QUEUE || b->bytes + hdr_len + len > MAX_QUEUE_BYTES) {
        if ((ret = ff_rtp_sender_flush(s)) < 0)
            return ret;
    }
    buf = av_buffer_pool_get(s->pool);
    if (!buf)
        return AVERROR(ENOMEM);
    memcpy(buf->data, hdr, hdr_len);
    if (len)
        memcpy(buf->data + hdr_len, payload, len);
    b->bufs[b->nb]    = buf;
    b->data[b->nb]    = buf->data;
    b->sizes[b->nb++] = hdr_len + len;
    b->bytes         += hdr_len + len;
    return 0;
}

/** One copy of a packet sent before, now: a resend, or a probe's. */
static int send_numbered(FFRTPSender *s, const uint8_t *buf, int len, int probe)
{
    FFRTPSendStats d = { 0 };
    int ret;

    if (s->cfg.twcc) {
        /* numbered as it leaves: a copy (the caller's may be the history's) */
        if (len > s->cfg.packet_size + 16)
            return AVERROR(EINVAL);
        memcpy(s->now_buf, buf, len);
        ff_rtp_twcc_sent(s->cfg.twcc, &s->now_buf, &len, 1, av_gettime_relative());
        buf = s->now_buf;
    }
    ret = ff_rtp_send_one(s, &d, &s->rtp, buf, len, "RTP");
    ff_rtp_send_count(s, &d);
    if (!ret) {
        pthread_mutex_lock(&s->lock);
        if (probe) {
            s->st.probe_packets++;
            s->st.probe_bytes += len;
        } else {
            s->st.retransmissions++;
            s->st.retransmitted_bytes += len;
        }
        pthread_mutex_unlock(&s->lock);
    }
    return ret;
}

int ff_rtp_sender_send_now(FFRTPSender *s, const uint8_t *buf, int len)
{
    int ret;

    if (s->cfg.pace) {
        int in_thread = s->thread_started && pthread_equal(pthread_self(), s->thread);

        pthread_mutex_lock(&s->lock);
        ret = ff_rtp_pacer_resend(s->pacer, buf, len, av_gettime_relative());
        pthread_mutex_unlock(&s->lock);
        if (ret <= 0) {
            /* queued (the pacer sends it first thing), or refused */
            if (!ret && !in_thread)
                ff_rtp_send_wake(s);
            return ret;
        }
    }
    return send_numbered(s, buf, len, 0);
}

int ff_rtp_sender_send_probe(FFRTPSender *s, const uint8_t *buf, int len)
{
    return send_numbered(s, buf, len, 1);
}

int ff_rtp_sender_send_rtcp(FFRTPSender *s, const uint8_t *buf, int len)
{
    FFRTPSendStats d = { 0 };
    int ret;

    /* no flush of the muxer's access unit: the send thread sends SRs too,
     * and the unit belongs to the muxer's thread (which sends it whole,
     * before any SR of its own); paced, RTCP goes ahead of the media */
    ret = ff_rtp_send_one(s, &d, &s->rtcp, buf, len, "RTCP");
    ff_rtp_send_count(s, &d);
    if (!ret) {
        pthread_mutex_lock(&s->lock);
        s->st.rtcp_packets++;
        pthread_mutex_unlock(&s->lock);
    }
    return ret;
}

int ff_rtp_sender_send_sr(FFRTPSender *s, int bye, uint64_t *pntp)
{
    uint8_t buf[SR_MAX_SIZE];
    int64_t ntp_us = ff_ntp_time();
    uint64_t ntp = ff_get_formatted_ntp_time(ntp_us);
    uint32_t rtp_ts = av_rescale(ntp_us - s->sr.first_ntp, s->sr.clock_rate, 1000000) +
                      s->sr.base_timestamp;
    uint64_t packets, octets;
    int ret, size = 0;

    pthread_mutex_lock(&s->lock);
    packets = s->st.packets;
    octets  = s->st.payload_bytes;
    pthread_mutex_unlock(&s->lock);
    ret = write_sr(buf, sizeof(buf), s->sr.ssrc, ntp, rtp_ts, packets, octets,
                   s->sr.cname, bye);
    if (ret >= 0) {
        size = ret;
        ret  = ff_rtp_sender_send_rtcp(s, buf, size);
    }
    if (ret >= 0 && pntp)
        *pntp = ntp;
    return ret < 0 ? ret : size;
}

void ff_rtp_sender_set_link_rate(FFRTPSender *s, int64_t bit_rate)
{
    pthread_mutex_lock(&s->lock);
    if (s->pacer)
        ff_rtp_pacer_set_link_rate(s->pacer, bit_rate / 8.0);
    pthread_mutex_unlock(&s->lock);
}

void ff_rtp_sender_free(FFRTPSender **ps)
{
    FFRTPSender *s = *ps;

    if (!s)
        return;
    if (s->thread_started) {
        /* what the pacer holds still goes out */
        if (s->cfg.pace && ff_rtp_sender_drain(s, s->cfg.pace_max_delay + 1000000) < 0)
            av_log(s->logctx, AV_LOG_WARNING, "the pacer could not send everything "
                   "before the end; dropped the rest\n");
        atomic_store(&s->stop, 1);
        ff_rtp_send_wake(s);
        pthread_join(s->thread, NULL);
    }
    ff_rtp_send_clear_batch(&s->au);
    ff_rtp_send_clear_batch(&s->burst);
    ff_rtp_pacer_free(&s->pacer);
    av_freep(&s->au.prot);
    av_freep(&s->burst.prot);
    av_freep(&s->prot_one);
    if (s->prot_lock_init)
        pthread_mutex_destroy(&s->prot_lock);
    av_freep(&s->now_buf);
    av_buffer_pool_uninit(&s->pool);
    if (s->wake_pipe[0] >= 0)
        close(s->wake_pipe[0]);
    if (s->wake_pipe[1] >= 0)
        close(s->wake_pipe[1]);
    if (s->client_lock_init)
        pthread_mutex_destroy(&s->client_lock);
    if (s->sync_init) {
        pthread_cond_destroy(&s->cond);
        pthread_mutex_destroy(&s->lock);
    }
    av_freep(ps);
}

#else /* !CONFIG_NETWORK */

/* Without network support there are no sockets to send on: the muxer
 * keeps writing to its AVIOContext (ff_rtp_sender_open() gives no sender,
 * and nothing below is reached with one). */
int ff_rtp_sender_open(FFRTPSender **ps, void *logctx, AVIOContext *pb,
                       const FFRTPSendConfig *cfg)
{
    *ps = NULL;
    return 0;
}

int ff_rtp_sender_open_sockets(FFRTPSender **ps, void *logctx, const FFRTPSenderSockets *so,
                               const FFRTPSendConfig *cfg)
{
    *ps = NULL;
    return AVERROR(ENOSYS);
}

void ff_rtp_sender_urgent(FFRTPSender *s, int64_t within)
{
}

int ff_rtp_sender_ipv6(const FFRTPSender *s)
{
    return 0;
}

int ff_rtp_sender_max_size(const FFRTPSender *s)
{
    return 0;
}

enum FFRTPSendMode ff_rtp_sender_mode(const FFRTPSender *s)
{
    return FF_RTP_SEND_SINGLE;
}

int ff_rtp_sender_paced(const FFRTPSender *s)
{
    return 0;
}

int ff_rtp_sender_queue(FFRTPSender *s, const uint8_t *hdr, int hdr_len,
                        const uint8_t *payload, int len)
{
    return AVERROR(ENOSYS);
}

int ff_rtp_sender_flush(FFRTPSender *s)
{
    return AVERROR(ENOSYS);
}

double ff_rtp_sender_media_rate(FFRTPSender *s)
{
    return 0;
}

int ff_rtp_sender_drain(FFRTPSender *s, int64_t timeout)
{
    return 0;
}

int ff_rtp_sender_send_now(FFRTPSender *s, const uint8_t *buf, int len)
{
    return AVERROR(ENOSYS);
}

int ff_rtp_sender_send_probe(FFRTPSender *s, const uint8_t *buf, int len)
{
    return AVERROR(ENOSYS);
}

int ff_rtp_sender_send_rtcp(FFRTPSender *s, const uint8_t *buf, int len)
{
    return AVERROR(ENOSYS);
}

void ff_rtp_sender_set_report_info(FFRTPSender *s, const FFRTPSenderReportInfo *info)
{
}

int ff_rtp_sender_send_sr(FFRTPSender *s, int bye, uint64_t *ntp)
{
    return AVERROR(ENOSYS);
}

int ff_rtp_sender_set_client(FFRTPSender *s, const FFRTPSenderClient *c)
{
    return AVERROR(ENOSYS);
}

void ff_rtp_sender_get_stats(FFRTPSender *s, FFRTPSendStats *st)
{
    memset(st, 0, sizeof(*st));
}

void ff_rtp_sender_set_link_rate(FFRTPSender *s, int64_t bit_rate)
{
}

void ff_rtp_sender_free(FFRTPSender **ps)
{
    *ps = NULL;
}
#endif /* CONFIG_NETWORK */

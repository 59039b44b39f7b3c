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
 */

#define _GNU_SOURCE

#include "config.h"
#include "config_components.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "libavutil/avassert.h"
#include "libavutil/error.h"
#include "libavutil/log.h"
#include "libavutil/mem.h"
#include "libavutil/time.h"

#include "avio_internal.h"
#include "rtpsend.h"

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

#if defined(__linux__) && HAVE_POLL_H
#define RTPSEND_BATCH 1
#include <poll.h>
#include <sys/uio.h>
#include <netinet/udp.h>
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#else
#define RTPSEND_BATCH 0
#endif

#define MAX_QUEUE        256        ///< packets per flush; a longer unit flushes early
#define MAX_QUEUE_BYTES  (1 << 20)  ///< bytes per flush
#define GSO_MAX_SEGMENTS 64         ///< UDP_MAX_SEGMENTS of kernels before 6.9
#define MAX_STALLS       64         ///< refusals in a row before a packet is dropped

typedef struct SendSocket {
    int fd;
    int connected;
    struct sockaddr_storage dest;
    int dest_len;
} SendSocket;

struct FFRTPSender {
    void *logctx;
    SendSocket rtp, rtcp;
    AVIOInterruptCB *interrupt;
    int64_t rw_timeout;
    enum FFRTPSendMode mode;        ///< in use now
    int max_size;
    int packet_size;

    AVBufferPool *pool;
    AVBufferRef *queue[MAX_QUEUE];
    uint8_t *data[MAX_QUEUE];       ///< queue[i]->data, valid while the history holds it
    int sizes[MAX_QUEUE];
    int nb_queued, queued_bytes;

#if RTPSEND_BATCH
    struct iovec iov[MAX_QUEUE];
    struct mmsghdr msg[MAX_QUEUE];
    int first[MAX_QUEUE];           ///< first packet of each message
    union {
        char buf[CMSG_SPACE(sizeof(uint16_t))];
        struct cmsghdr align;
    } cmsg[MAX_QUEUE];
#endif

    void (*sent_cb)(void *opaque, AVBufferRef **bufs, const int *sizes, int nb);
    void *sent_opaque;

    FFRTPSendStats st;
    int64_t refused_log_time;
    uint64_t refused_logged;
};

static int get_socket(URLContext *h, SendSocket *sock, int *max_size)
{
    return ff_udp_get_send_target(h, &sock->fd, &sock->connected,
                                  &sock->dest, &sock->dest_len, max_size);
}

static int gso_available(int fd)
{
#if RTPSEND_BATCH
    int val = 0;
    socklen_t len = sizeof(val);
    /* kernels since 4.18 know the option; older ones say ENOPROTOOPT */
    return !getsockopt(fd, SOL_UDP, UDP_SEGMENT, &val, &len);
#else
    return 0;
#endif
}

int ff_rtp_sender_open(FFRTPSender **ps, void *logctx, AVIOContext *pb,
                       int packet_size, enum FFRTPSendMode mode)
{
    URLContext *h = ffio_geturlcontext(pb), *rtp_hd, *rtcp_hd;
    FFRTPSender *s;
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

    s = av_mallocz(sizeof(*s));
    if (!s)
        return AVERROR(ENOMEM);
    if (get_socket(rtp_hd, &s->rtp, &max_size) < 0 ||
        get_socket(rtcp_hd, &s->rtcp, &max_rtcp) < 0) {
        av_free(s);
        return 0;
    }
    s->logctx      = logctx;
    s->interrupt   = &h->interrupt_callback;
    s->rw_timeout  = h->rw_timeout;
    s->max_size    = max_size;
    s->packet_size = packet_size;
    s->pool = av_buffer_pool_init(packet_size, NULL);
    if (!s->pool) {
        av_free(s);
        return AVERROR(ENOMEM);
    }

#if RTPSEND_BATCH
    if (mode == FF_RTP_SEND_AUTO || mode == FF_RTP_SEND_GSO) {
        if (gso_available(s->rtp.fd)) {
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
    av_log(logctx, AV_LOG_VERBOSE, "RTP send mode %s, packets up to %d bytes\n",
           ff_rtp_sender_mode_name(s->mode), packet_size);
    *ps = s;
    return 0;
}

int ff_rtp_sender_max_size(const FFRTPSender *s)
{
    return s->max_size;
}

enum FFRTPSendMode ff_rtp_sender_mode(const FFRTPSender *s)
{
    return s->mode;
}

void ff_rtp_sender_get_stats(const FFRTPSender *s, FFRTPSendStats *st)
{
    *st = s->st;
}

static void log_refused(FFRTPSender *s, const char *what)
{
    int64_t now = av_gettime_relative();

    s->st.econnrefused++;
    if (s->refused_logged && now - s->refused_log_time < 1000000)
        return;
    av_log(s->logctx, AV_LOG_WARNING,
           "%s: connection refused (nobody listening yet?), %"PRIu64" times so far; "
           "still sending\n", what, s->st.econnrefused);
    s->refused_log_time = now;
    s->refused_logged   = s->st.econnrefused;
}

/**
 * Decide what to do after a failed send.
 * @return 1 to retry, 0 to drop what could not be sent, or a negative AVERROR
 */
static int handle_error(FFRTPSender *s, int fd, int err, int *stalls,
                        int64_t *wait_start, const char *what)
{
    int64_t now;

    switch (err) {
    case EINTR:
        return 1;
    case ECONNREFUSED:
        log_refused(s, what);
        return ++*stalls <= MAX_STALLS;
    case EAGAIN:
#if EAGAIN != EWOULDBLOCK
    case EWOULDBLOCK:
#endif
    case ENOBUFS:
        if (err == ENOBUFS)
            s->st.enobufs++;
        else
            s->st.eagain++;
        if (ff_check_interrupt(s->interrupt))
            return AVERROR_EXIT;
        now = av_gettime_relative();
        if (!*wait_start)
            *wait_start = now;
        else if (s->rw_timeout > 0 && now - *wait_start > s->rw_timeout)
            return AVERROR(ETIMEDOUT);
#if RTPSEND_BATCH
        if (err != ENOBUFS) {
            struct pollfd p = { .fd = fd, .events = POLLOUT };
            poll(&p, 1, 100);
        } else
#endif
            av_usleep(1000);    /* a full device queue gives no POLLOUT signal */
        return 1;
    default:
        return AVERROR(err);
    }
}

static int send_one(FFRTPSender *s, const SendSocket *sock, const uint8_t *buf,
                    int size, const char *what)
{
    int stalls = 0;
    int64_t wait_start = 0;

    for (;;) {
        int ret;

        s->st.syscalls++;
        if (sock->connected)
            ret = send(sock->fd, buf, size, 0);
        else
            ret = sendto(sock->fd, buf, size, 0,
                         (const struct sockaddr *)&sock->dest, sock->dest_len);
        if (ret >= 0)
            return 0;
        ret = handle_error(s, sock->fd, errno, &stalls, &wait_start, what);
        if (!ret)
            s->st.dropped++;
        if (ret <= 0)
            return ret;
    }
}

static int send_single(FFRTPSender *s, int from)
{
    for (int i = from; i < s->nb_queued; i++) {
        int ret = send_one(s, &s->rtp, s->data[i], s->sizes[i], "RTP");
        if (ret < 0)
            return ret;
    }
    return 0;
}

#if RTPSEND_BATCH
/** Messages for packets from..nb_queued-1, grouped for GSO if gso is set. */
static int build_messages(FFRTPSender *s, int from, int gso)
{
    int nb_msg = 0;

    for (int i = from; i < s->nb_queued;) {
        struct mmsghdr *m = &s->msg[nb_msg];
        int seg = s->sizes[i], n = 1, total = seg;

        if (gso) {
            /* equal sizes; only the last of a run may be shorter */
            while (i + n < s->nb_queued && n < GSO_MAX_SEGMENTS &&
                   s->sizes[i + n - 1] == seg && s->sizes[i + n] <= seg &&
                   total + s->sizes[i + n] <= s->max_size) {
                total += s->sizes[i + n];
                n++;
            }
        }
        memset(m, 0, sizeof(*m));
        for (int j = 0; j < n; j++) {
            s->iov[i + j].iov_base = s->data[i + j];
            s->iov[i + j].iov_len  = s->sizes[i + j];
        }
        m->msg_hdr.msg_iov    = &s->iov[i];
        m->msg_hdr.msg_iovlen = n;
        if (!s->rtp.connected) {
            m->msg_hdr.msg_name    = &s->rtp.dest;
            m->msg_hdr.msg_namelen = s->rtp.dest_len;
        }
        if (n > 1) {
            struct cmsghdr *c;
            m->msg_hdr.msg_control    = s->cmsg[nb_msg].buf;
            m->msg_hdr.msg_controllen = sizeof(s->cmsg[nb_msg].buf);
            c = CMSG_FIRSTHDR(&m->msg_hdr);
            c->cmsg_level = SOL_UDP;
            c->cmsg_type  = UDP_SEGMENT;
            c->cmsg_len   = CMSG_LEN(sizeof(uint16_t));
            *(uint16_t *)CMSG_DATA(c) = seg;
        }
        s->first[nb_msg++] = i;
        i += n;
    }
    return nb_msg;
}

static int send_batch(FFRTPSender *s)
{
    int nb_msg = build_messages(s, 0, s->mode == FF_RTP_SEND_GSO);
    int done = 0, stalls = 0;
    int64_t wait_start = 0;

    while (done < nb_msg) {
        int ret, err;

        s->st.syscalls++;
        ret = sendmmsg(s->rtp.fd, s->msg + done, nb_msg - done, 0);
        if (ret > 0) {
            for (int i = done; i < done + ret; i++)
                s->st.gso_messages += s->msg[i].msg_hdr.msg_iovlen > 1;
            done  += ret;
            stalls = 0;
            continue;
        }
        err = errno;
        if (err == ENOSYS) {
            av_log(s->logctx, AV_LOG_WARNING, "sendmmsg is not available, "
                   "sending one packet per call\n");
            s->st.fallbacks++;
            s->mode = FF_RTP_SEND_SINGLE;
            return send_single(s, s->first[done]);
        }
        if (s->msg[done].msg_hdr.msg_iovlen > 1 &&
            (err == EIO || err == EINVAL || err == EOPNOTSUPP ||
             err == ENOPROTOOPT || err == EMSGSIZE)) {
            /* the device or path cannot segment (no checksum offload, or a
             * segment above the path MTU): resend the rest without GSO */
            av_log(s->logctx, AV_LOG_WARNING, "UDP GSO send failed (%s), "
                   "using sendmmsg from now on\n", av_err2str(AVERROR(err)));
            s->st.fallbacks++;
            s->mode = FF_RTP_SEND_MMSG;
            nb_msg  = build_messages(s, s->first[done], 0);
            done    = 0;
            continue;
        }
        ret = handle_error(s, s->rtp.fd, err, &stalls, &wait_start, "RTP");
        if (ret < 0)
            return ret;
        if (!ret) {
            /* refused over and over: give up on this message only */
            int next = done + 1 < nb_msg ? s->first[done + 1] : s->nb_queued;
            s->st.dropped += next - s->first[done];
            done++;
            stalls = 0;
        }
    }
    return 0;
}
#endif

void ff_rtp_sender_set_sent_cb(FFRTPSender *s,
                               void (*cb)(void *opaque, AVBufferRef **bufs,
                                          const int *sizes, int nb),
                               void *opaque)
{
    s->sent_cb     = cb;
    s->sent_opaque = opaque;
}

void ff_rtp_sender_socket(const FFRTPSender *s, int rtcp, int *fd,
                          const struct sockaddr **dest, int *dest_len)
{
    const SendSocket *sock = rtcp ? &s->rtcp : &s->rtp;

    *fd       = sock->fd;
    *dest     = sock->connected ? NULL : (const struct sockaddr *)&sock->dest;
    *dest_len = sock->dest_len;
}

static void clear_queue(FFRTPSender *s)
{
    for (int i = 0; i < s->nb_queued; i++)
        av_buffer_unref(&s->queue[i]);
    s->nb_queued    = 0;
    s->queued_bytes = 0;
}

int ff_rtp_sender_flush(FFRTPSender *s)
{
    int ret, nb = s->nb_queued;

    if (!s->nb_queued)
        return 0;
    s->st.batches++;
    /* the history takes the packets before they leave, so that a NACK that
     * comes back at once finds them; it frees nothing before the next
     * flush, in this thread, so data[] stays valid */
    if (s->sent_cb)
        s->sent_cb(s->sent_opaque, s->queue, s->sizes, s->nb_queued);
#if RTPSEND_BATCH
    if (s->mode != FF_RTP_SEND_SINGLE)
        ret = send_batch(s);
    else
#endif
        ret = send_single(s, 0);
    if (ret >= 0) {
        s->st.packets += s->nb_queued;
        s->st.bytes   += s->queued_bytes;
    }
    clear_queue(s);
    return ret < 0 ? ret : nb;
}

int ff_rtp_sender_queue(FFRTPSender *s, const uint8_t *hdr, int hdr_len,
                        const uint8_t *payload, int len)
{
    AVBufferRef *buf;
    int ret;

    if (hdr_len < 0 || len < 0 || hdr_len + len > s->packet_size)
        return AVERROR(EINVAL);
    if (s->nb_queued == MAX_QUEUE || s->queued_bytes + hdr_len + len > MAX_QUEUE_BYTES) {
        if ((ret = ff_rtp_sender_flush(s)) < 0)
            return ret;
    }
    buf = av_buffer_pool_get(s->pool);
    if (!buf)
        return AVERROR(ENOMEM);
    memcpy(buf->data, hdr, hdr_len);
    if (len)
        memcpy(buf->data + hdr_len, payload, len);
    s->queue[s->nb_queued]   = buf;
    s->data[s->nb_queued]    = buf->data;
    s->sizes[s->nb_queued++] = hdr_len + len;
    s->queued_bytes         += hdr_len + len;
    return 0;
}

int ff_rtp_sender_send_rtcp(FFRTPSender *s, const uint8_t *buf, int len)
{
    int ret = ff_rtp_sender_flush(s);

    if (ret < 0)
        return ret;
    ret = send_one(s, &s->rtcp, buf, len, "RTCP");
    if (!ret)
        s->st.rtcp_packets++;
    return ret;
}

void ff_rtp_sender_free(FFRTPSender **ps)
{
    FFRTPSender *s = *ps;

    if (!s)
        return;
    clear_queue(s);
    av_buffer_pool_uninit(&s->pool);
    av_freep(ps);
}

#else /* !CONFIG_NETWORK */

/* Without network support there are no sockets to send on: the muxer
 * keeps writing to its AVIOContext (ff_rtp_sender_open() gives no sender,
 * and nothing below is reached with one). */
int ff_rtp_sender_open(FFRTPSender **ps, void *logctx, AVIOContext *pb,
                       int packet_size, enum FFRTPSendMode mode)
{
    *ps = NULL;
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

int ff_rtp_sender_queue(FFRTPSender *s, const uint8_t *hdr, int hdr_len,
                        const uint8_t *payload, int len)
{
    return AVERROR(ENOSYS);
}

int ff_rtp_sender_flush(FFRTPSender *s)
{
    return AVERROR(ENOSYS);
}

int ff_rtp_sender_send_rtcp(FFRTPSender *s, const uint8_t *buf, int len)
{
    return AVERROR(ENOSYS);
}

void ff_rtp_sender_get_stats(const FFRTPSender *s, FFRTPSendStats *st)
{
    memset(st, 0, sizeof(*st));
}

void ff_rtp_sender_set_sent_cb(FFRTPSender *s,
                               void (*cb)(void *opaque, AVBufferRef **bufs,
                                          const int *sizes, int nb),
                               void *opaque)
{
}

void ff_rtp_sender_socket(const FFRTPSender *s, int rtcp, int *fd,
                          const struct sockaddr **dest, int *dest_len)
{
    *fd       = -1;
    *dest     = NULL;
    *dest_len = 0;
}

void ff_rtp_sender_free(FFRTPSender **ps)
{
    *ps = NULL;
}
#endif /* CONFIG_NETWORK */

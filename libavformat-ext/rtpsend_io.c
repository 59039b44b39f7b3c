/*
 * Batched RTP sending: datagrams onto the socket
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
 * How the sender's datagrams reach the socket (see rtpsend.c): an access
 * unit or a burst in one sendmmsg() of GSO messages, or of one message per
 * packet, or one send each; the error policy; the caller's protect hook.
 */

#define _GNU_SOURCE

#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "libavutil/error.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/log.h"
#include "libavutil/mem.h"
#include "libavutil/time.h"

#include "avio_internal.h"
#include "internal.h"

#if CONFIG_NETWORK
#include "rtpsend_internal.h"
#include "rtptwcc.h"

static void log_refused(FFRTPSender *s, const char *what)
{
    int64_t now = av_gettime_relative();
    uint64_t n;

    pthread_mutex_lock(&s->lock);
    n = ++s->st.econnrefused;
    if (s->refused_logged && now - s->refused_log_time < 1000000) {
        pthread_mutex_unlock(&s->lock);
        return;
    }
    s->refused_log_time = now;
    s->refused_logged   = n;
    pthread_mutex_unlock(&s->lock);
    av_log(s->logctx, AV_LOG_WARNING,
           "%s: connection refused (nobody listening yet?), %"PRIu64" times so far; "
           "still sending\n", what, n);
}

/** Add the counters of d (one send) to the totals. */
void ff_rtp_send_count(FFRTPSender *s, const FFRTPSendStats *d)
{
    pthread_mutex_lock(&s->lock);
    s->st.syscalls     += d->syscalls;
    s->st.gso_messages += d->gso_messages;
    s->st.eagain       += d->eagain;
    s->st.enobufs      += d->enobufs;
    s->st.dropped      += d->dropped;
    s->st.fallbacks    += d->fallbacks;
    pthread_mutex_unlock(&s->lock);
}

/**
 * Decide what to do after a failed send.
 * @return 1 to retry, 0 to drop what could not be sent, or a negative AVERROR
 */
static int handle_error(FFRTPSender *s, FFRTPSendStats *d, int fd, int err,
                        int *stalls, int64_t *wait_start, const char *what)
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
            d->enobufs++;
        else
            d->eagain++;
        if (ff_check_interrupt(s->interrupt))
            return AVERROR_EXIT;
        now = av_gettime_relative();
        if (!*wait_start)
            *wait_start = now;
        else if (s->rw_timeout > 0 && now - *wait_start > s->rw_timeout)
            return AVERROR(ETIMEDOUT);
        else if (atomic_load(&s->stop) && now - *wait_start > 1000000)
            return AVERROR_EXIT;    /* closing, and the socket takes nothing */
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

/** Send one datagram as it is. */
static int send_raw(FFRTPSender *s, FFRTPSendStats *d, const SendSocket *sock,
                    const uint8_t *buf, int size, const char *what)
{
    int stalls = 0;
    int64_t wait_start = 0;

    for (;;) {
        int ret;

        d->syscalls++;
        if (sock->connected)
            ret = send(sock->fd, buf, size, 0);
        else
            ret = sendto(sock->fd, buf, size, 0,
                         (const struct sockaddr *)&sock->dest, sock->dest_len);
        if (ret >= 0)
            return 0;
        ret = handle_error(s, d, sock->fd, errno, &stalls, &wait_start, what);
        if (!ret)
            d->dropped++;
        if (ret <= 0)
            return ret;
    }
}

/** A protect() that failed: the datagram is dropped, counted, and logged once. */
static void protect_failed(FFRTPSender *s, FFRTPSendStats *d, int err, const char *what)
{
    d->dropped++;
    if (!atomic_exchange(&s->prot_logged, 1))
        av_log(s->logctx, AV_LOG_ERROR, "could not protect an %s datagram (%s): dropped, "
               "and so are the next that fail (counted)\n", what, av_err2str(err));
}

/** Send one datagram (a resend or RTCP), protected first if the caller protects. */
int ff_rtp_send_one(FFRTPSender *s, FFRTPSendStats *d, const SendSocket *sock,
                    const uint8_t *buf, int size, const char *what)
{
    int ret;

    if (!s->cfg.protect)
        return send_raw(s, d, sock, buf, size, what);
    if (size > s->prot_slot - s->cfg.protect_overhead)
        return AVERROR(EINVAL);
    pthread_mutex_lock(&s->prot_lock);
    ret = s->cfg.protect(s->cfg.protect_opaque, !strcmp(what, "RTCP"), buf, size,
                         s->prot_one, s->prot_slot);
    if (ret > 0 && ret <= s->prot_slot) {
        ret = send_raw(s, d, sock, s->prot_one, ret, what);
    } else {
        /* dropped as a datagram the socket refused for good: no error */
        protect_failed(s, d, ret < 0 ? ret : AVERROR_BUG, what);
        ret = 0;
    }
    pthread_mutex_unlock(&s->prot_lock);
    return ret;
}

/**
 * The batch's datagrams as they go on the wire: protected into its scratch
 * (data[] and sizes[] point there from now on; bufs[] keep the originals),
 * those that could not be protected left out.
 */
static void protect_batch(FFRTPSender *s, FFRTPSendStats *d, Batch *b)
{
    int n = 0;

    for (int i = 0; i < b->nb; i++) {
        uint8_t *out = b->prot + (size_t)i * s->prot_slot;
        int ret = b->sizes[i] <= s->prot_slot - s->cfg.protect_overhead ?
                  s->cfg.protect(s->cfg.protect_opaque, 0, b->data[i], b->sizes[i], out, s->prot_slot) :
                  AVERROR(EINVAL);
        if (ret <= 0 || ret > s->prot_slot) {
            protect_failed(s, d, ret < 0 ? ret : AVERROR_BUG, "RTP");
            continue;
        }
        b->data[n]    = out;
        b->sizes[n++] = ret;
    }
    b->nb_wire = n;
}

static int send_single(FFRTPSender *s, FFRTPSendStats *d, Batch *b, int from)
{
    for (int i = from; i < b->nb_wire; i++) {
        int ret = send_raw(s, d, &s->rtp, b->data[i], b->sizes[i], "RTP");
        if (ret < 0)
            return ret;
    }
    return 0;
}

#if RTPSEND_BATCH
/** Messages for packets from..nb-1, grouped for GSO if gso is set. */
static int build_messages(FFRTPSender *s, Batch *b, int from, int gso)
{
    int nb_msg = 0;

    for (int i = from; i < b->nb_wire;) {
        struct mmsghdr *m = &b->msg[nb_msg];
        int seg = b->sizes[i], n = 1, total = seg;

        if (gso) {
            /* equal sizes; only the last of a run may be shorter */
            while (i + n < b->nb_wire && n < GSO_MAX_SEGMENTS &&
                   b->sizes[i + n - 1] == seg && b->sizes[i + n] <= seg &&
                   total + b->sizes[i + n] <= s->max_size) {
                total += b->sizes[i + n];
                n++;
            }
        }
        memset(m, 0, sizeof(*m));
        for (int j = 0; j < n; j++) {
            b->iov[i + j].iov_base = b->data[i + j];
            b->iov[i + j].iov_len  = b->sizes[i + j];
        }
        m->msg_hdr.msg_iov    = &b->iov[i];
        m->msg_hdr.msg_iovlen = n;
        if (!s->rtp.connected) {
            m->msg_hdr.msg_name    = &s->rtp.dest;
            m->msg_hdr.msg_namelen = s->rtp.dest_len;
        }
        if (n > 1 || b->txtime) {
            struct cmsghdr *c;
            size_t len = 0;
            m->msg_hdr.msg_control    = b->cmsg[nb_msg].buf;
            m->msg_hdr.msg_controllen = sizeof(b->cmsg[nb_msg].buf);
            c = CMSG_FIRSTHDR(&m->msg_hdr);
            if (n > 1) {
                c->cmsg_level = SOL_UDP;
                c->cmsg_type  = UDP_SEGMENT;
                c->cmsg_len   = CMSG_LEN(sizeof(uint16_t));
                *(uint16_t *)CMSG_DATA(c) = seg;
                len += CMSG_SPACE(sizeof(uint16_t));
                c = CMSG_NXTHDR(&m->msg_hdr, c);
            }
            if (b->txtime) {
                /* the departure time, ns of CLOCK_MONOTONIC (the clock of
                 * av_gettime_relative(), checked at open) */
                uint64_t ns = (uint64_t)b->txtime * 1000;
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type  = SCM_TXTIME;
                c->cmsg_len   = CMSG_LEN(sizeof(uint64_t));
                memcpy(CMSG_DATA(c), &ns, sizeof(ns));
                len += CMSG_SPACE(sizeof(uint64_t));
            }
            m->msg_hdr.msg_controllen = len;
        }
        b->first[nb_msg++] = i;
        i += n;
    }
    return nb_msg;
}

static int send_batch(FFRTPSender *s, FFRTPSendStats *d, Batch *b)
{
    int nb_msg = build_messages(s, b, 0, s->mode == FF_RTP_SEND_GSO);
    int done = 0, stalls = 0;
    int64_t wait_start = 0;

    while (done < nb_msg) {
        int ret, err;

        d->syscalls++;
        ret = sendmmsg(s->rtp.fd, b->msg + done, nb_msg - done, 0);
        if (ret > 0) {
            for (int i = done; i < done + ret; i++)
                d->gso_messages += b->msg[i].msg_hdr.msg_iovlen > 1;
            done  += ret;
            stalls = 0;
            continue;
        }
        err = errno;
        if (err == ENOSYS) {
            av_log(s->logctx, AV_LOG_WARNING, "sendmmsg is not available, "
                   "sending one packet per call\n");
            d->fallbacks++;
            s->mode = FF_RTP_SEND_SINGLE;
            /* one send per packet carries no departure time: the pacer's
             * timer paces again, from the next burst on */
            pthread_mutex_lock(&s->lock);
            s->kernel_paced = 0;
            ff_rtp_pacer_set_ahead(s->pacer, 0);
            pthread_mutex_unlock(&s->lock);
            return send_single(s, d, b, b->first[done]);
        }
        if (b->msg[done].msg_hdr.msg_iovlen > 1 &&
            (err == EIO || err == EINVAL || err == EOPNOTSUPP ||
             err == ENOPROTOOPT || err == EMSGSIZE)) {
            /* the device or path cannot segment (no checksum offload, or a
             * segment above the path MTU): resend the rest without GSO */
            av_log(s->logctx, AV_LOG_WARNING, "UDP GSO send failed (%s), "
                   "using sendmmsg from now on\n", av_err2str(AVERROR(err)));
            d->fallbacks++;
            s->mode = FF_RTP_SEND_MMSG;
            nb_msg  = build_messages(s, b, b->first[done], 0);
            done    = 0;
            continue;
        }
        ret = handle_error(s, d, s->rtp.fd, err, &stalls, &wait_start, "RTP");
        if (ret < 0)
            return ret;
        if (!ret) {
            /* refused over and over: give up on this message only */
            int next = done + 1 < nb_msg ? b->first[done + 1] : b->nb_wire;
            d->dropped += next - b->first[done];
            done++;
            stalls = 0;
        }
    }
    return 0;
}
#endif

void ff_rtp_send_clear_batch(Batch *b)
{
    for (int i = 0; i < b->nb; i++)
        av_buffer_unref(&b->bufs[i]);
    b->nb     = 0;
    b->bytes  = 0;
    b->txtime = 0;
}

/** Media packets out now: the history sees them, then the socket. */
int ff_rtp_send_media(FFRTPSender *s, Batch *b)
{
    FFRTPSendStats d = { 0 };
    int ret;

    /* the history takes the packets before they leave, so that a NACK that
     * comes back at once finds them; it frees nothing before its next call,
     * in this thread, so data[] stays valid */
    if (s->cfg.twcc)
        ff_rtp_twcc_sent(s->cfg.twcc, b->data, b->sizes, b->nb,
                         b->txtime ? b->txtime : av_gettime_relative());
    pthread_mutex_lock(&s->client_lock);
    if (s->has_client && s->client.sent)
        s->client.sent(s->client.opaque, b->bufs, b->sizes, b->nb);
    pthread_mutex_unlock(&s->client_lock);
    b->nb_wire = b->nb;
    if (s->cfg.protect)
        protect_batch(s, &d, b);
#if RTPSEND_BATCH
    if (s->mode != FF_RTP_SEND_SINGLE)
        ret = send_batch(s, &d, b);
    else
#endif
        ret = send_single(s, &d, b, 0);
    ff_rtp_send_count(s, &d);
    pthread_mutex_lock(&s->lock);
    s->st.batches++;
    if (ret >= 0) {
        s->st.packets       += b->nb;
        s->st.bytes         += b->bytes;
        s->st.payload_bytes += b->bytes - s->hdr_size * b->nb;
        s->st.last_media_send = b->txtime ? b->txtime : av_gettime_relative();
    }
    pthread_mutex_unlock(&s->lock);
    ff_rtp_send_clear_batch(b);
    return ret;
}

#endif /* CONFIG_NETWORK */

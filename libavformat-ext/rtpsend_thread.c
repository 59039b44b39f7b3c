/*
 * Batched RTP sending: the thread (pacing, RTCP in, timers)
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
 * The sender's thread ("rtp-send", see rtpsend.c): it runs the bursts the
 * pacer says are due, reads the RTCP socket for the client and runs the
 * client's timer, and sleeps in ppoll() until the next of these or a byte
 * on its wake-up pipe (the muxer writes one when the pacer held no media).
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
#include <fcntl.h>
#include <sys/time.h>
#include <unistd.h>

#include "rtppacer.h"
#include "rtpsend_internal.h"
#include "rtptwcc.h"

static void *sender_thread(void *arg);

int ff_rtp_send_start_thread(FFRTPSender *s)
{
    int ret;

    if (s->thread_started)
        return 0;
    if (pipe(s->wake_pipe) < 0) {
        s->wake_pipe[0] = s->wake_pipe[1] = -1;
        return AVERROR(errno);
    }
    fcntl(s->wake_pipe[0], F_SETFL, fcntl(s->wake_pipe[0], F_GETFL) | O_NONBLOCK);
    fcntl(s->wake_pipe[1], F_SETFL, fcntl(s->wake_pipe[1], F_GETFL) | O_NONBLOCK);
    if ((ret = pthread_create(&s->thread, NULL, sender_thread, s)))
        return AVERROR(ret);
    s->thread_started = 1;
    return 0;
}

void ff_rtp_send_wake(FFRTPSender *s)
{
    /* a full pipe already wakes the thread */
    if (s->thread_started && write(s->wake_pipe[1], "", 1) < 0 && errno != EAGAIN)
        av_log(s->logctx, AV_LOG_WARNING, "could not wake the RTP send thread\n");
}

/* ---- the pacer (rtppacer.c says when; this sends) ---- */

/**
 * Wake the muxer waiting for room (when there is room for a whole access
 * unit, not after every burst) or for the pacer to be empty. Under lock.
 */
static void wake_waiters(FFRTPSender *s)
{
    if (s->waiters && (ff_rtp_pacer_empty(s->pacer) ||
                       ff_rtp_pacer_has_room(s->pacer, 2 * MAX_QUEUE, 2 * MAX_QUEUE_BYTES,
                                             FF_RTP_PACER_MAX_UNITS / 2 + 1)))
        pthread_cond_broadcast(&s->cond);
}

/**
 * Send the bursts that are due. Called by the sender's thread.
 * @return when to come back (INT64_MAX: the pacer is empty)
 */
static int64_t pace_run(FFRTPSender *s)
{
    for (int bursts = 0; bursts < 16; bursts++) {
        Batch *b = &s->burst;
        FFRTPPacerBurst pb;
        int64_t next;
        uint8_t *data;
        int ret = 0, len;

        pthread_mutex_lock(&s->lock);
        if (!ff_rtp_pacer_burst_start(s->pacer, av_gettime_relative(), &pb, &next)) {
            pthread_mutex_unlock(&s->lock);
            return next;
        }
        b->txtime = pb.depart;
        /* resends first, in the same budget */
        while (ff_rtp_pacer_resend_peek(s->pacer, &pb, &data, &len)) {
            FFRTPSendStats d = { 0 };

            if (s->cfg.twcc)
                ff_rtp_twcc_sent(s->cfg.twcc, &data, &len, 1, av_gettime_relative());
            pthread_mutex_unlock(&s->lock);
            ret = ff_rtp_send_one(s, &d, &s->rtp, data, len, "RTP");
            ff_rtp_send_count(s, &d);
            pthread_mutex_lock(&s->lock);
            ff_rtp_pacer_resend_done(s->pacer, &pb);
            if (!ret) {
                s->st.retransmissions++;
                s->st.retransmitted_bytes += len;
            }
        }
        b->nb = ff_rtp_pacer_take(s->pacer, &pb, b->bufs, b->sizes, MAX_QUEUE);
        for (int i = 0; i < b->nb; i++)
            b->data[i] = b->bufs[i]->data;
        b->bytes = pb.bytes;
        ff_rtp_pacer_burst_end(s->pacer, &pb);
        s->inflight = 1;
        wake_waiters(s);
        pthread_mutex_unlock(&s->lock);

        if (b->nb)
            ret = ff_rtp_send_media(s, b);

        pthread_mutex_lock(&s->lock);
        s->inflight = 0;
        if (ret < 0 && !s->async_error)
            s->async_error = ret;
        wake_waiters(s);
        pthread_mutex_unlock(&s->lock);
    }
    return av_gettime_relative();
}

/** Wait on cond for at most ms milliseconds. Under lock. */
static void cond_wait_ms(FFRTPSender *s, int ms)
{
    struct timeval tv;
    struct timespec ts;
    int64_t t;

    gettimeofday(&tv, NULL);
    t = tv.tv_sec * 1000000LL + tv.tv_usec + ms * 1000LL;
    ts.tv_sec  = t / 1000000;
    ts.tv_nsec = t % 1000000 * 1000;
    pthread_cond_timedwait(&s->cond, &s->lock, &ts);
}

/** Hand the access unit to the pacer's thread. */
int ff_rtp_send_enqueue(FFRTPSender *s)
{
    Batch *b = &s->au;
    int64_t start = av_gettime_relative();
    int ret = 0, was_empty, nb = b->nb;

    pthread_mutex_lock(&s->lock);
    /* no room: the socket takes less than the pacer gives it */
    while (!s->async_error && !ff_rtp_pacer_has_room(s->pacer, b->nb, b->bytes, 1)) {
        if (ff_check_interrupt(s->interrupt)) {
            ret = AVERROR_EXIT;
            break;
        }
        if (s->rw_timeout > 0 && av_gettime_relative() - start > s->rw_timeout) {
            ret = AVERROR(ETIMEDOUT);
            break;
        }
        s->waiters++;
        cond_wait_ms(s, 100);
        s->waiters--;
    }
    if (s->async_error) {
        ret = s->async_error;
        s->async_error = 0;
    }
    if (ret < 0) {
        pthread_mutex_unlock(&s->lock);
        ff_rtp_send_clear_batch(b);
        return ret;
    }
    was_empty = !ff_rtp_pacer_queued(s->pacer);
    ret = ff_rtp_pacer_push(s->pacer, b->bufs, b->sizes, b->nb, av_gettime_relative());
    if (ret == 0) {
        /* faster than real time: there is no rate to pace at; what the
         * pacer still holds goes first (it sends it without waiting) */
        while ((!ff_rtp_pacer_empty(s->pacer) || s->inflight) && !s->async_error) {
            s->waiters++;
            cond_wait_ms(s, 10);
            s->waiters--;
        }
        pthread_mutex_unlock(&s->lock);
        ret = ff_rtp_send_media(s, b);
        return ret < 0 ? ret : nb;
    }
    pthread_mutex_unlock(&s->lock);
    if (ret < 0) {
        ff_rtp_send_clear_batch(b);
        return ret;
    }
    b->nb = b->bytes = 0;
    /* a pacer with packets wakes by itself when the next burst is due */
    if (was_empty)
        ff_rtp_send_wake(s);
    return nb;
}

int ff_rtp_sender_drain(FFRTPSender *s, int64_t timeout)
{
    int64_t start = av_gettime_relative();
    int ret = 0;

    if (!s->cfg.pace)
        return 0;
    pthread_mutex_lock(&s->lock);
    while (!ff_rtp_pacer_empty(s->pacer) || s->inflight) {
        if (av_gettime_relative() - start > timeout) {
            ret = AVERROR(ETIMEDOUT);
            break;
        }
        s->waiters++;
        cond_wait_ms(s, 10);
        s->waiters--;
    }
    pthread_mutex_unlock(&s->lock);
    return ret;
}

/* ---- the thread: pacing, and the client's RTCP and timers ---- */

/* a datagram from someone not the peer: counted and dropped; the first
 * logged at warning level, as it may be the peer's RTCP from a port the
 * check does not expect */
static void foreign_rtcp(FFRTPSender *s, const struct sockaddr_storage *from)
{
    char a[80], p[80];
    uint64_t n;

    pthread_mutex_lock(&s->lock);
    n = ++s->st.rtcp_foreign;
    pthread_mutex_unlock(&s->lock);
    av_log(s->logctx, n == 1 ? AV_LOG_WARNING : AV_LOG_DEBUG,
           "RTCP from %s dropped: not the peer %s (rtcp_from %s)%s\n",
           ff_rtp_peer_str(from, a, sizeof(a)), ff_rtp_peer_str(&s->rtcp.dest, p, sizeof(p)),
           s->cfg.rtcp_from == FF_RTP_PEER_EXACT ? "peer" : "host",
           n == 1 ? "; -rtcp_from any takes RTCP from anyone" : "");
}

static void read_rtcp(FFRTPSender *s)
{
    /* whatever is there, at most 64 datagrams */
    for (int i = 0; i < 64; i++) {
        struct sockaddr_storage from;
        socklen_t from_len = sizeof(from);
        int len = recvfrom(s->rtcp.fd, s->rtcp_in, sizeof(s->rtcp_in), MSG_DONTWAIT,
                           (struct sockaddr *)&from, &from_len);
        if (len < 0) {
            if (errno == ECONNREFUSED) {
                pthread_mutex_lock(&s->lock);
                s->st.econnrefused++;
                pthread_mutex_unlock(&s->lock);
                continue;
            }
            break;
        }
        /* feedback steers the rate, keyframes and resends: the peer's only */
        if (s->cfg.rtcp_from != FF_RTP_PEER_ANY && !s->rtcp.connected &&
            !ff_rtp_peer_allowed(s->cfg.rtcp_from, &from, &s->rtp.dest, &s->rtcp.dest)) {
            foreign_rtcp(s, &from);
            continue;
        }
        /* the caller's first (SRTCP, or what else shares the socket) */
        if (s->cfg.incoming &&
            (len = s->cfg.incoming(s->cfg.incoming_opaque, s->rtcp_in, len, sizeof(s->rtcp_in))) <= 0)
            continue;
        len = FFMIN(len, sizeof(s->rtcp_in));
        pthread_mutex_lock(&s->client_lock);
        if (s->has_client && s->client.rtcp)
            s->client.rtcp(s->client.opaque, s->rtcp_in, len, av_gettime_relative());
        pthread_mutex_unlock(&s->client_lock);
    }
}

static void *sender_thread(void *arg)
{
    FFRTPSender *s = arg;
    char drain[64];

    ff_thread_setname("rtp-send");
    for (;;) {
        struct pollfd p[2] = {
            { .fd = s->wake_pipe[0], .events = POLLIN },
            { .fd = s->rtcp.fd,      .events = POLLIN },
        };
        int64_t next = s->cfg.pace ? pace_run(s) : INT64_MAX, wait;
        int has_client, ret;

        pthread_mutex_lock(&s->client_lock);
        has_client = s->has_client;
        if (has_client && s->client.tick)
            next = FFMIN(next, s->client.tick(s->client.opaque, av_gettime_relative()));
        pthread_mutex_unlock(&s->client_lock);
        if (atomic_load(&s->stop))
            break;
        wait = next == INT64_MAX ? 1000000 : FFMIN(next - av_gettime_relative(), 1000000);
        wait = FFMAX(wait, 0);
#if RTPSEND_BATCH
        ret = ppoll(p, 1 + has_client,
                    &(struct timespec){ wait / 1000000, wait % 1000000 * 1000 }, NULL);
#else
        ret = poll(p, 1 + has_client, (wait + 999) / 1000);
#endif
        if (ret < 0 && errno != EINTR)
            break;
        if (p[0].revents & POLLIN)
            while (read(s->wake_pipe[0], drain, sizeof(drain)) > 0);
        if (has_client && (p[1].revents & POLLIN)) {
            read_rtcp(s);
        } else if (has_client && (p[1].revents & (POLLERR | POLLHUP | POLLNVAL))) {
            /* a pending socket error (ICMP): consume it */
            int err = 0;
            socklen_t l = sizeof(err);
            getsockopt(s->rtcp.fd, SOL_SOCKET, SO_ERROR, &err, &l);
            if (p[1].revents & POLLNVAL)
                break;
        }
    }
    return NULL;
}

int ff_rtp_sender_set_client(FFRTPSender *s, const FFRTPSenderClient *c)
{
    pthread_mutex_lock(&s->client_lock);
    if (c)
        s->client = *c;
    s->has_client = !!c;
    pthread_mutex_unlock(&s->client_lock);
    if (c) {
        int ret = ff_rtp_send_start_thread(s);
        if (ret < 0) {
            pthread_mutex_lock(&s->client_lock);
            s->has_client = 0;
            pthread_mutex_unlock(&s->client_lock);
            return ret;
        }
    }
    ff_rtp_send_wake(s);
    return 0;
}

#endif /* CONFIG_NETWORK */

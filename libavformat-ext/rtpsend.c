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
 * The pacer: the muxer hands each access unit to a ring (bounded; it waits
 * for room), and the thread sends it in bursts of at most pace_burst bytes,
 * the next burst when the last one would have left at the pacing rate
 * (pace_factor x the media rate of the last second). Each unit is due
 * pace_max_delay after its time by its RTP timestamp; the rate rises when
 * one would be late. Resends go ahead of the media, at once while a burst of
 * credit is left, else first in the next burst (copied into a small queue).
 * A source faster than real time is not paced. The thread sleeps in ppoll()
 * until the next burst, an RTCP datagram, the client's next timer or a byte
 * on its wake-up pipe (the muxer writes one when the ring was empty).
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
#include <netinet/in.h>
#include <netinet/udp.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <linux/net_tstamp.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef SO_TXTIME
#define SO_TXTIME 61
#endif
#ifndef SCM_TXTIME
#define SCM_TXTIME SO_TXTIME
#endif
#else
#define RTPSEND_BATCH 0
#endif
#if HAVE_POLL_H
#include <poll.h>
#endif
#include <fcntl.h>
#include <sys/time.h>
#include <unistd.h>

#define MAX_QUEUE        256        ///< packets per flush or burst; a longer unit flushes early
#define MAX_QUEUE_BYTES  (1 << 20)  ///< bytes per flush
#define GSO_MAX_SEGMENTS 64         ///< UDP_MAX_SEGMENTS of kernels before 6.9
#define MAX_STALLS       64         ///< refusals in a row before a packet is dropped
#define PACE_RING        8192       ///< packets the pacer holds at most
#define PACE_RING_BYTES  (16 << 20) ///< and bytes
#define PACE_AUS         1024       ///< access units it holds at most
#define RATE_WINDOW      1000000    ///< µs over which the media rate is measured
#define MIN_SPAN         200000     ///< µs: the shortest time a rate is measured over
#define EARLY            100000     ///< µs ahead of its time an access unit is early
#define LATE_CREDIT      1000       ///< µs of a late wake-up the pacer makes up for
#define DELAY_BIN        250        ///< µs per bin of the pacer's delay histogram
#define DELAY_BINS       4000       ///< 1 s of bins, then one for everything above
#define RTCP_MAX_SIZE    1500
#define PRIO_BYTES       (1 << 20)  ///< resends the pacer holds at most (and 256 packets)
#define TWCC_LOG         8192       ///< send times kept for transport feedback
#define TWCC_OFFSET      17         ///< the sequence number's offset: header, 0xBEDE, length, id/len
#define KERNEL_AHEAD     20000      ///< µs ahead of its time a burst goes to the kernel (SO_TXTIME):
                                    ///< fq holds 100 packets per flow, 25 at 1200 bytes and 12 Mbit/s

typedef struct SendSocket {
    int fd;
    int connected;
    struct sockaddr_storage dest;
    int dest_len;
} SendSocket;

/** Packets sent together: an access unit, or one burst of the pacer. */
typedef struct Batch {
    AVBufferRef *bufs[MAX_QUEUE];
    uint8_t *data[MAX_QUEUE];       ///< bufs[i]->data, valid while the history holds it
    int sizes[MAX_QUEUE];
    int nb, bytes;
#if RTPSEND_BATCH
    struct iovec iov[MAX_QUEUE];
    struct mmsghdr msg[MAX_QUEUE];
    int first[MAX_QUEUE];           ///< first packet of each message
    union {
        char buf[CMSG_SPACE(sizeof(uint16_t)) + CMSG_SPACE(sizeof(uint64_t))];
        struct cmsghdr align;
    } cmsg[MAX_QUEUE];
#endif
    int64_t txtime;                 ///< µs, CLOCK_MONOTONIC: SO_TXTIME departure time, 0: none
} Batch;

typedef struct Paced {
    AVBufferRef *buf;
    int size;
    int64_t time;                   ///< when the muxer handed it over
} Paced;

typedef struct PacedAU {
    int64_t due;                    ///< when it should have left, at the latest
    uint64_t end;                   ///< enq_bytes after its last packet
    int forced;
} PacedAU;

typedef struct RateSample {
    int64_t time;
    int bytes;
    int64_t media_time;
} RateSample;

typedef struct TwccSent {
    int64_t time;
    int size;
    int seq;                        ///< -1: none
} TwccSent;

struct FFRTPSender {
    void *logctx;
    SendSocket rtp, rtcp;
    AVIOInterruptCB *interrupt;
    int64_t rw_timeout;
    enum FFRTPSendMode mode;        ///< in use now; changed only by the media sender
    int max_size;
    FFRTPSendConfig cfg;
    FFRTPSenderReportInfo sr;

    AVBufferPool *pool;
    Batch au;                       ///< the muxer's access unit
    Batch burst;                    ///< the pacer's burst (its thread)

    pthread_mutex_t lock;           ///< everything below, short sections only
    pthread_cond_t cond;            ///< room in the pacer, or the pacer empty
    int sync_init;
    FFRTPSendStats st;
    int64_t refused_log_time;
    uint64_t refused_logged;
    int async_error;                ///< the pacer's, for the muxer's next flush

    Paced *ring;
    int ring_start, ring_count, ring_bytes, inflight;
    int waiters;                    ///< threads waiting on cond
    PacedAU aus[PACE_AUS];
    int au_start, au_count;
    uint64_t enq_bytes, sent_bytes; ///< through the pacer, since the start
    RateSample win[512];            ///< access units of the last RATE_WINDOW
    int win_start, win_count;
    int64_t win_bytes;
    int64_t t_free;                 ///< when the next burst may leave
    int64_t media_time;             ///< µs, from the RTP timestamps
    int64_t first_time;             ///< when the first access unit came
    int64_t ref, ref_time;          ///< clock - media time of the latest unit, decaying
    int live;                       ///< the source keeps to real time
    int early;                      ///< its last access unit came ahead of its time
    uint32_t last_ts;
    int have_ts;
    double rate;                    ///< bytes/s of the last burst
    int kernel_paced;               ///< bursts carry SO_TXTIME departure times
    int64_t urgent_within;          ///< µs: the next unit's due time, 0: as usual (the muxer's thread)
    double link_rate;               ///< bytes/s the link takes (congestion control), 0: unknown
    uint32_t delay_hist[DELAY_BINS + 1];
    uint64_t delay_count;
    int64_t delay_max;

    pthread_t thread;
    int thread_started;
    atomic_int stop;
    int wake_pipe[2];
    pthread_mutex_t client_lock;    ///< held while a client callback runs
    int client_lock_init;
    FFRTPSenderClient client;
    int has_client;
    uint8_t rtcp_in[RTCP_MAX_SIZE];

    /* transport-wide sequence numbers: under lock */
    TwccSent *twcc_log;             ///< by transport-wide number
    TwccSent *seq_log;              ///< by RTP sequence number (media SSRC)
    uint16_t twcc_seq;
    int hdr_size;                   ///< fixed header and extension of our packets
    uint8_t *now_buf;               ///< ff_rtp_sender_send_now()'s copy to number

    /* resends beyond one burst of credit wait here, ahead of the media */
    uint8_t *prio;
    int *prio_size;
    int prio_slot, prio_slots, prio_start, prio_count;
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

#if RTPSEND_BATCH
/** The interface the socket's packets leave by: its index, and its name
 *  in name; 0 if not found. */
static int egress_device(const SendSocket *sock, char *name, int size)
{
    struct sockaddr_storage local;
    socklen_t len = sizeof(local);
    struct ifaddrs *list, *i;
    int fd = sock->fd, tmp = -1, index = 0;

    if (!sock->connected) {
        /* a connected socket of the same family finds the route */
        tmp = socket(sock->dest.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (tmp < 0 || connect(tmp, (const struct sockaddr *)&sock->dest, sock->dest_len) < 0)
            goto end;
        fd = tmp;
    }
    if (getsockname(fd, (struct sockaddr *)&local, &len) < 0 || getifaddrs(&list) < 0)
        goto end;
    for (i = list; i && !index; i = i->ifa_next) {
        const struct sockaddr *a = i->ifa_addr;
        if (!a || a->sa_family != local.ss_family)
            continue;
        if ((a->sa_family == AF_INET &&
             ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
             ((const struct sockaddr_in *)&local)->sin_addr.s_addr) ||
            (a->sa_family == AF_INET6 &&
             !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                     &((const struct sockaddr_in6 *)&local)->sin6_addr, 16))) {
            index = if_nametoindex(i->ifa_name);
            av_strlcpy(name, i->ifa_name, size);
        }
    }
    freeifaddrs(list);
end:
    if (tmp >= 0)
        close(tmp);
    return index;
}

/**
 * Whether the device's qdisc paces by departure time: fq at its root, or mq
 * (a multiqueue device) with fq under it. Asked over rtnetlink (RTM_GETQDISC);
 * the root's kind goes to kind ("" if none was listed: noqueue).
 */
static int device_has_fq(int index, char *kind, int size)
{
    struct {
        struct nlmsghdr nh;
        struct tcmsg tc;
    } req = {
        .nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)), .nlmsg_type = RTM_GETQDISC,
                .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
        .tc = { .tcm_family = AF_UNSPEC, .tcm_ifindex = index },
    };
    struct timeval tv = { 1, 0 };
    uint32_t root = 0;
    int fd, done = 0, children = 0, fq_children = 0, fq_root = 0, mq_root = 0;
    union {
        char buf[16384];
        struct nlmsghdr align;
    } u;

    kind[0] = 0;
    fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0)
        return 0;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (send(fd, &req, req.nh.nlmsg_len, 0) < 0)
        done = -1;
    /* a bounded dump: 64 reads at most */
    for (int reads = 0; !done && reads < 64; reads++) {
        int n = recv(fd, u.buf, sizeof(u.buf), 0);
        if (n <= 0)
            break;
        for (struct nlmsghdr *nh = &u.align; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
            const struct tcmsg *tc = NLMSG_DATA(nh);
            int left = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*tc));
            const char *k = NULL;

            if (nh->nlmsg_type == NLMSG_DONE || nh->nlmsg_type == NLMSG_ERROR) {
                done = 1;
                break;
            }
            if (nh->nlmsg_type != RTM_NEWQDISC || left < 0 || tc->tcm_ifindex != index)
                continue;
            for (const struct rtattr *a = (const struct rtattr *)((const char *)tc + NLMSG_ALIGN(sizeof(*tc)));
                 RTA_OK(a, left); a = RTA_NEXT(a, left))
                if (a->rta_type == TCA_KIND && RTA_PAYLOAD(a) > 0 &&
                    memchr(RTA_DATA(a), 0, RTA_PAYLOAD(a)))
                    k = RTA_DATA(a);
            if (!k)
                continue;
            if (tc->tcm_parent == TC_H_ROOT) {
                av_strlcpy(kind, k, size);
                root    = tc->tcm_handle;
                fq_root = !strcmp(k, "fq");
                mq_root = !strcmp(k, "mq");
            } else if (tc->tcm_parent != TC_H_INGRESS) {
                /* under mq: its children hang from mq's handle */
                children++;
                fq_children += !strcmp(k, "fq") && (!root || TC_H_MAJ(tc->tcm_parent) == TC_H_MAJ(root));
            }
        }
    }
    close(fd);
    return fq_root || (mq_root && children && fq_children == children);
}

/** Turn kernel pacing on if asked (pace_kernel) and possible: SO_TXTIME on
 *  the RTP socket, with CLOCK_MONOTONIC. Logs why not. */
static void setup_kernel_pacing(FFRTPSender *s)
{
    char dev[IF_NAMESIZE] = "", kind[32] = "";
    struct sock_txtime cfg = { .clockid = CLOCK_MONOTONIC };
    int index, fq = 0;

    if (!s->cfg.pace_kernel || !s->cfg.pace)
        return;
    index = egress_device(&s->rtp, dev, sizeof(dev));
    if (index)
        fq = device_has_fq(index, kind, sizeof(kind));
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
    if (setsockopt(s->rtp.fd, SOL_SOCKET, SO_TXTIME, &cfg, sizeof(cfg)) < 0) {
        av_log(s->logctx, s->cfg.pace_kernel > 0 ? AV_LOG_WARNING : AV_LOG_VERBOSE,
               "SO_TXTIME pacing not used: %s\n", av_err2str(AVERROR(errno)));
        return;
    }
    s->kernel_paced = 1;
    av_log(s->logctx, AV_LOG_VERBOSE, "SO_TXTIME pacing on %s (qdisc %s%s): bursts go to the "
           "kernel up to %d ms ahead of their departure times\n", index ? dev : "?",
           kind[0] ? kind : "none", fq ? "" : ", which ignores the times", KERNEL_AHEAD / 1000);
}
#endif

/** DSCP in the IPv4 TOS or IPv6 traffic class byte of one socket. */
static int set_dscp(FFRTPSender *s, const SendSocket *sock, const char *what)
{
    int v = s->cfg.dscp << 2, ret;

#if defined(IPV6_TCLASS)
    if (sock->dest.ss_family == AF_INET6)
        ret = setsockopt(sock->fd, IPPROTO_IPV6, IPV6_TCLASS, &v, sizeof(v));
    else
#endif
        ret = setsockopt(sock->fd, IPPROTO_IP, IP_TOS, &v, sizeof(v));
    if (ret < 0) {
        ret = AVERROR(errno);
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

static void *sender_thread(void *arg);

static int start_thread(FFRTPSender *s)
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

static void wake(FFRTPSender *s)
{
    /* a full pipe already wakes the thread */
    if (s->thread_started && write(s->wake_pipe[1], "", 1) < 0 && errno != EAGAIN)
        av_log(s->logctx, AV_LOG_WARNING, "could not wake the RTP send thread\n");
}

int ff_rtp_sender_open(FFRTPSender **ps, void *logctx, AVIOContext *pb,
                       const FFRTPSendConfig *cfg)
{
    URLContext *h = ffio_geturlcontext(pb), *rtp_hd, *rtcp_hd;
    enum FFRTPSendMode mode = cfg->mode;
    FFRTPSender *s;
    int max_size, max_rtcp, ret;

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
    s->wake_pipe[0] = s->wake_pipe[1] = -1;
    atomic_init(&s->stop, 0);
    if (get_socket(rtp_hd, &s->rtp, &max_size) < 0 ||
        get_socket(rtcp_hd, &s->rtcp, &max_rtcp) < 0) {
        av_free(s);
        return 0;
    }
    s->logctx      = logctx;
    s->interrupt   = &h->interrupt_callback;
    s->rw_timeout  = h->rw_timeout;
    s->max_size    = max_size;
    s->cfg         = *cfg;
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
    s->hdr_size = 12;
    if (cfg->twcc) {
        s->hdr_size = 12 + FF_RTPCC_EXT_SIZE;
        s->twcc_log = av_malloc_array(TWCC_LOG, sizeof(*s->twcc_log));
        s->seq_log  = av_malloc_array(TWCC_LOG, sizeof(*s->seq_log));
        s->now_buf  = av_malloc(cfg->packet_size + 16);
        if (!s->twcc_log || !s->seq_log || !s->now_buf) {
            ret = AVERROR(ENOMEM);
            goto fail;
        }
        for (int i = 0; i < TWCC_LOG; i++)
            s->twcc_log[i].seq = s->seq_log[i].seq = -1;
    }
    if (cfg->dscp >= 0 && ((ret = set_dscp(s, &s->rtp, "RTP")) < 0 ||
                           (s->rtcp.fd != s->rtp.fd && (ret = set_dscp(s, &s->rtcp, "RTCP")) < 0)))
        goto fail;

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
    if (cfg->pace) {
        s->prio_slot  = cfg->packet_size + 16;
        s->prio_slots = av_clip(PRIO_BYTES / s->prio_slot, 8, 256);
        s->prio       = av_malloc_array(s->prio_slots, s->prio_slot);
        s->prio_size  = av_calloc(s->prio_slots, sizeof(*s->prio_size));
        if (!(s->ring = av_calloc(PACE_RING, sizeof(*s->ring))) || !s->prio || !s->prio_size) {
            ret = AVERROR(ENOMEM);
            goto fail;
        }
#if RTPSEND_BATCH
        setup_kernel_pacing(s);
#else
        if (cfg->pace_kernel > 0)
            av_log(logctx, AV_LOG_WARNING, "SO_TXTIME pacing is not available on this system\n");
#endif
        if ((ret = start_thread(s)) < 0)
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

void ff_rtp_sender_urgent(FFRTPSender *s, int64_t within)
{
    if (s->cfg.pace) {
        pthread_mutex_lock(&s->lock);
        s->urgent_within = within;
        pthread_mutex_unlock(&s->lock);
    }
}

int ff_rtp_sender_max_size(const FFRTPSender *s)
{
    return s->max_size;
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
}

/** The delay below which a share q of the paced packets waited, in ms. */
static double delay_quantile(const FFRTPSender *s, double q)
{
    uint64_t need = ceil(s->delay_count * q), sum = 0;

    if (!s->delay_count)
        return 0;
    for (int i = 0; i <= DELAY_BINS; i++) {
        sum += s->delay_hist[i];
        if (sum >= need)
            return i == DELAY_BINS ? s->delay_max / 1000.0 : (i + 1) * DELAY_BIN / 1000.0;
    }
    return s->delay_max / 1000.0;
}

void ff_rtp_sender_get_stats(FFRTPSender *s, FFRTPSendStats *st)
{
    pthread_mutex_lock(&s->lock);
    *st = s->st;
    st->pace_rate    = s->cfg.pace ? s->rate * 8 : 0;
    st->delay_p50_ms = delay_quantile(s, 0.5);
    st->delay_p95_ms = delay_quantile(s, 0.95);
    st->delay_max_ms = s->delay_max / 1000.0;
    st->kernel_paced = s->kernel_paced;
    pthread_mutex_unlock(&s->lock);
}

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
static void count(FFRTPSender *s, const FFRTPSendStats *d)
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

static int send_one(FFRTPSender *s, FFRTPSendStats *d, const SendSocket *sock,
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

static int send_single(FFRTPSender *s, FFRTPSendStats *d, Batch *b, int from)
{
    for (int i = from; i < b->nb; i++) {
        int ret = send_one(s, d, &s->rtp, b->data[i], b->sizes[i], "RTP");
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

    for (int i = from; i < b->nb;) {
        struct mmsghdr *m = &b->msg[nb_msg];
        int seg = b->sizes[i], n = 1, total = seg;

        if (gso) {
            /* equal sizes; only the last of a run may be shorter */
            while (i + n < b->nb && n < GSO_MAX_SEGMENTS &&
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
            int next = done + 1 < nb_msg ? b->first[done + 1] : b->nb;
            d->dropped += next - b->first[done];
            done++;
            stalls = 0;
        }
    }
    return 0;
}
#endif

static void clear_batch(Batch *b)
{
    for (int i = 0; i < b->nb; i++)
        av_buffer_unref(&b->bufs[i]);
    b->nb     = 0;
    b->bytes  = 0;
    b->txtime = 0;
}

/**
 * Note when a packet leaves, for congestion control feedback: by its RTP
 * sequence number if it is of the media SSRC (RFC 8888 reports), and by a
 * new transport-wide number written into its extension if it carries ours
 * (transport-cc). Under lock.
 */
static void twcc_stamp(FFRTPSender *s, uint8_t *data, int size, int64_t now)
{
    TwccSent *e;

    if (size >= 12 && AV_RB32(data + 8) == s->sr.ssrc) {
        e = &s->seq_log[AV_RB16(data + 2) % TWCC_LOG];
        e->time = now;
        e->size = size;
        e->seq  = AV_RB16(data + 2);
    }
    if (size < TWCC_OFFSET + 2 || !(data[0] & 0x10) || AV_RB16(data + 12) != 0xBEDE ||
        data[16] >> 4 != FF_RTPCC_TWCC_ID)
        return;
    AV_WB16(data + TWCC_OFFSET, s->twcc_seq);
    e = &s->twcc_log[s->twcc_seq % TWCC_LOG];
    e->time = now;
    e->size = size;
    e->seq  = s->twcc_seq++;
}

/** Media packets out now: the history sees them, then the socket. */
static int send_media(FFRTPSender *s, Batch *b)
{
    FFRTPSendStats d = { 0 };
    int ret;

    /* the history takes the packets before they leave, so that a NACK that
     * comes back at once finds them; it frees nothing before its next call,
     * in this thread, so data[] stays valid */
    if (s->twcc_log) {
        int64_t now = b->txtime ? b->txtime : av_gettime_relative();
        pthread_mutex_lock(&s->lock);
        for (int i = 0; i < b->nb; i++)
            twcc_stamp(s, b->data[i], b->sizes[i], now);
        pthread_mutex_unlock(&s->lock);
    }
    pthread_mutex_lock(&s->client_lock);
    if (s->has_client && s->client.sent)
        s->client.sent(s->client.opaque, b->bufs, b->sizes, b->nb);
    pthread_mutex_unlock(&s->client_lock);
#if RTPSEND_BATCH
    if (s->mode != FF_RTP_SEND_SINGLE)
        ret = send_batch(s, &d, b);
    else
#endif
        ret = send_single(s, &d, b, 0);
    count(s, &d);
    pthread_mutex_lock(&s->lock);
    s->st.batches++;
    if (ret >= 0) {
        s->st.packets       += b->nb;
        s->st.bytes         += b->bytes;
        s->st.payload_bytes += b->bytes - s->hdr_size * b->nb;
        s->st.last_media_send = b->txtime ? b->txtime : av_gettime_relative();
    }
    pthread_mutex_unlock(&s->lock);
    clear_batch(b);
    return ret;
}

/* ---- the pacer ---- */

/** Drop the access units older than the rate window. Under lock. */
static void window_trim(FFRTPSender *s, int64_t now)
{
    while (s->win_count && now - s->win[s->win_start].time > RATE_WINDOW) {
        s->win_bytes -= s->win[s->win_start].bytes;
        s->win_start = (s->win_start + 1) % FF_ARRAY_ELEMS(s->win);
        s->win_count--;
    }
}

/**
 * Bytes per second for the next burst: pace_factor times the media rate
 * (the last second's, or the encoder's bit rate if higher), at most the
 * link's rate when congestion control knows it (but never below the media
 * rate), and faster when an access unit would otherwise leave after its
 * due time. Under lock.
 */
static double pace_rate(FFRTPSender *s, int64_t now)
{
    double rate, media;
    int64_t span = RATE_WINDOW;

    window_trim(s, now);
    /* over the time the window covers: the clock since its oldest access
     * unit (less than the window in the first second: a camera's stream
     * is not underestimated while it starts), or the media time, if longer
     * (a source that came early, as ffmpeg -re's first half second); at
     * least MIN_SPAN. A source faster than real time is paced by the clock. */
    if (s->win_count) {
        const RateSample *o = &s->win[s->win_start];
        const RateSample *n = &s->win[(s->win_start + s->win_count - 1) % FF_ARRAY_ELEMS(s->win)];
        span = FFMAX(now - o->time, MIN_SPAN);
        if (s->live && s->early)
            span = FFMAX(span, FFMIN(n->media_time - o->media_time, 10 * RATE_WINDOW));
    }
    media = FFMAX(s->win_bytes * 1e6 / span, s->cfg.bit_rate / 8.0);
    rate  = media * s->cfg.pace_factor;
    /* not faster than the link takes, if known: a keyframe spread over
     * more time rather than lost in its queue */
    if (s->link_rate > 0)
        rate = FFMAX(FFMIN(rate, s->link_rate), media);
    for (int i = 0; i < s->au_count; i++) {
        PacedAU *au = &s->aus[(s->au_start + i) % PACE_AUS];
        double left = (double)(au->end - s->sent_bytes);
        int64_t until = au->due - now;
        double need = left * 1e6 / FFMAX(until, 1000);

        if (need > rate) {
            rate = need;
            if (!au->forced) {
                au->forced = 1;
                s->st.forced_drains++;
            }
        }
    }
    return rate;
}

/**
 * Wake the muxer waiting for room (when there is room for a whole access
 * unit, not after every burst) or for the pacer to be empty. Under lock.
 */
static void wake_waiters(FFRTPSender *s)
{
    if (s->waiters && (!s->ring_count ||
                       (PACE_RING - s->ring_count >= 2 * MAX_QUEUE &&
                        PACE_RING_BYTES - s->ring_bytes >= 2 * MAX_QUEUE_BYTES &&
                        s->au_count < PACE_AUS / 2)))
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
        int64_t now = av_gettime_relative(), ahead, depart;
        int ret = 0, resent = 0, burst;
        double rate;

        pthread_mutex_lock(&s->lock);
        /* with kernel pacing a burst goes to the kernel ahead of its time,
         * with that time; resends (sent at once) wait for their credit as
         * without it */
        ahead = s->kernel_paced && s->live && !s->prio_count ? KERNEL_AHEAD : 0;
        if (now + ahead < s->t_free || (!s->prio_count && !s->ring_count)) {
            int64_t next = s->prio_count || s->ring_count ? s->t_free - ahead : INT64_MAX;
            pthread_mutex_unlock(&s->lock);
            return next;
        }
        depart    = FFMAX(s->t_free, now);
        b->txtime = ahead ? depart : 0;
        rate = s->rate = pace_rate(s, now);
        /* resends first, in the same budget */
        while (s->prio_count && (!resent || resent + s->prio_size[s->prio_start] <= s->cfg.pace_burst)) {
            uint8_t *data = s->prio + (size_t)s->prio_start * s->prio_slot;
            int len = s->prio_size[s->prio_start];
            FFRTPSendStats d = { 0 };

            if (s->twcc_log)
                twcc_stamp(s, data, len, av_gettime_relative());
            pthread_mutex_unlock(&s->lock);
            ret = send_one(s, &d, &s->rtp, data, len, "RTP");
            count(s, &d);
            pthread_mutex_lock(&s->lock);
            s->prio_start = (s->prio_start + 1) % s->prio_slots;
            s->prio_count--;
            if (!ret) {
                s->st.retransmissions++;
                s->st.retransmitted_bytes += len;
            }
            resent += len;
        }
        /* a source faster than real time has no rate to pace at: what is
         * queued goes in batches as large as the muxer's */
        burst = s->live ? s->cfg.pace_burst : MAX_QUEUE_BYTES;
        while (s->ring_count && b->nb < MAX_QUEUE &&
               (!(b->nb || resent) || resent + b->bytes + s->ring[s->ring_start].size <= burst)) {
            Paced *p = &s->ring[s->ring_start];
            int64_t delay = (b->txtime ? depart : now) - p->time;

            b->bufs[b->nb]  = p->buf;
            b->data[b->nb]  = p->buf->data;
            b->sizes[b->nb] = p->size;
            b->bytes       += p->size;
            b->nb++;
            p->buf = NULL;
            s->ring_start = (s->ring_start + 1) % PACE_RING;
            s->ring_count--;
            s->ring_bytes -= p->size;
            s->delay_hist[FFMIN(FFMAX(delay, 0) / DELAY_BIN, DELAY_BINS)]++;
            s->delay_count++;
            s->delay_max = FFMAX(s->delay_max, delay);
        }
        s->sent_bytes += b->bytes;
        while (s->au_count && s->aus[s->au_start].end <= s->sent_bytes) {
            s->au_start = (s->au_start + 1) % PACE_AUS;
            s->au_count--;
        }
        /* a wake-up a little late is made up for; a long idle time is not
         * banked as a burst */
        if (s->live)
            s->t_free = FFMAX(s->t_free, now - LATE_CREDIT) + (resent + b->bytes) * 1e6 / rate;
        s->inflight = 1;
        s->st.paced_bursts++;
        wake_waiters(s);
        pthread_mutex_unlock(&s->lock);

        if (b->nb)
            ret = send_media(s, b);

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

/**
 * When the access unit in b is due out, at the latest: pace_max_delay after
 * its time by its RTP timestamp, on the clock of the unit that came latest
 * for its timestamp (its lateness: the clock less its media time). The
 * reference follows later units at once and earlier ones by 250 ms per
 * second at most, so that clocks that drift apart are followed and due
 * times do not move back. A unit that comes on time is due pace_max_delay
 * after it came; one that came early (the first half second ffmpeg -re
 * reads at once) is not hurried out ahead of its time, 1 s at most. A
 * source faster than real time (media time more than twice the clock and a
 * second: no -re) is not live: due pace_max_delay after it came, and
 * pace_enqueue() sends it at once when nothing waits. Under lock.
 */
static int64_t pace_due(FFRTPSender *s, const Batch *b, int64_t now)
{
    uint32_t ts = AV_RB32(b->data[0] + 4);
    int64_t ref, sched, elapsed;
    int live;

    if (s->have_ts) {
        /* a jump of more than 10 s is a discontinuity, not media time */
        int64_t d = av_rescale((int32_t)(ts - s->last_ts), 1000000, FFMAX(s->sr.clock_rate, 1));
        if (d > -10000000 && d < 10000000)
            s->media_time += d;
    } else {
        s->first_time = now;
    }
    ref = now - s->media_time;
    if (s->have_ts)
        ref = FFMAX(ref, s->ref - (now - s->ref_time) / 4);
    s->ref      = ref;
    s->ref_time = now;
    s->last_ts  = ts;
    s->have_ts  = 1;
    sched   = s->media_time + ref;
    elapsed = now - s->first_time;
    live    = s->live = s->media_time <= 2 * elapsed + RATE_WINDOW;
    s->early = sched - now > EARLY;
    return (live ? FFMIN(sched, now + RATE_WINDOW) : now) + s->cfg.pace_max_delay;
}

/** Hand the access unit to the pacer's thread. */
static int pace_enqueue(FFRTPSender *s)
{
    Batch *b = &s->au;
    int64_t now = av_gettime_relative(), start = now, due;
    int ret = 0, was_empty, nb = b->nb, urgent;

    pthread_mutex_lock(&s->lock);
    /* no room: the socket takes less than the pacer gives it */
    while (!s->async_error && (PACE_RING - s->ring_count < b->nb ||
                               s->ring_bytes + b->bytes > PACE_RING_BYTES ||
                               s->au_count == PACE_AUS)) {
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
        clear_batch(b);
        return ret;
    }
    now = av_gettime_relative();
    due = pace_due(s, b, now);
    urgent = s->urgent_within && s->live;
    if (urgent) {
        due = FFMIN(due, now + s->urgent_within);
        s->st.urgent_units++;
    }
    s->urgent_within = 0;
    if (!s->live) {
        /* faster than real time: there is no rate to pace at; what the
         * pacer still holds goes first (it sends it without waiting) */
        while ((s->ring_count || s->prio_count || s->inflight) && !s->async_error) {
            s->waiters++;
            cond_wait_ms(s, 10);
            s->waiters--;
        }
        s->st.unpaced_units++;
        pthread_mutex_unlock(&s->lock);
        ret = send_media(s, b);
        return ret < 0 ? ret : nb;
    }
    was_empty = !s->ring_count;
    for (int i = 0; i < b->nb; i++) {
        Paced *p = &s->ring[(s->ring_start + s->ring_count++) % PACE_RING];
        p->buf  = b->bufs[i];
        p->size = b->sizes[i];
        p->time = now;
        b->bufs[i] = NULL;
    }
    s->ring_bytes += b->bytes;
    s->enq_bytes  += b->bytes;
    /* an urgent unit's speed-up is no forced drain */
    s->aus[(s->au_start + s->au_count++) % PACE_AUS] = (PacedAU){ due, s->enq_bytes, urgent };
    if (s->win_count == FF_ARRAY_ELEMS(s->win)) {
        s->win[(s->win_start + s->win_count - 1) % FF_ARRAY_ELEMS(s->win)].bytes += b->bytes;
    } else {
        RateSample *w = &s->win[(s->win_start + s->win_count++) % FF_ARRAY_ELEMS(s->win)];
        w->time       = now;
        w->bytes      = b->bytes;
        w->media_time = s->media_time;
    }
    s->win_bytes += b->bytes;
    pthread_mutex_unlock(&s->lock);
    b->nb = b->bytes = 0;
    /* a pacer with packets wakes by itself when the next burst is due */
    if (was_empty)
        wake(s);
    return nb;
}

int ff_rtp_sender_drain(FFRTPSender *s, int64_t timeout)
{
    int64_t start = av_gettime_relative();
    int ret = 0;

    if (!s->cfg.pace)
        return 0;
    pthread_mutex_lock(&s->lock);
    while (s->ring_count || s->prio_count || s->inflight) {
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

static void read_rtcp(FFRTPSender *s)
{
    /* whatever is there, at most 64 datagrams */
    for (int i = 0; i < 64; i++) {
        int len = recv(s->rtcp.fd, s->rtcp_in, sizeof(s->rtcp_in), MSG_DONTWAIT);
        if (len < 0) {
            if (errno == ECONNREFUSED) {
                pthread_mutex_lock(&s->lock);
                s->st.econnrefused++;
                pthread_mutex_unlock(&s->lock);
                continue;
            }
            break;
        }
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
        int ret = start_thread(s);
        if (ret < 0) {
            pthread_mutex_lock(&s->client_lock);
            s->has_client = 0;
            pthread_mutex_unlock(&s->client_lock);
            return ret;
        }
    }
    wake(s);
    return 0;
}

/* ---- what the muxer and the client call ---- */

int ff_rtp_sender_flush(FFRTPSender *s)
{
    int ret, nb = s->au.nb;

    if (!nb)
        return 0;
    if (s->cfg.pace)
        return pace_enqueue(s);
    ret = send_media(s, &s->au);
    return ret < 0 ? ret : nb;
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

int ff_rtp_sender_send_now(FFRTPSender *s, const uint8_t *buf, int len)
{
    FFRTPSendStats d = { 0 };
    int ret;

    if (s->cfg.pace) {
        int64_t now = av_gettime_relative();
        double burst_time;

        pthread_mutex_lock(&s->lock);
        burst_time = s->rate > 0 ? s->cfg.pace_burst * 1e6 / s->rate : 0;
        if (s->prio_count || (s->rate > 0 && s->t_free - now > burst_time)) {
            /* more than a burst of credit spent: the pacer sends it first
             * thing, so that a NACK for many packets is no burst either */
            int in_thread = s->thread_started && pthread_equal(pthread_self(), s->thread);
            if (s->prio_count == s->prio_slots || len > s->prio_slot) {
                s->st.resends_dropped++;
                pthread_mutex_unlock(&s->lock);
                return AVERROR(EAGAIN);
            }
            memcpy(s->prio + (size_t)((s->prio_start + s->prio_count) % s->prio_slots) * s->prio_slot,
                   buf, len);
            s->prio_size[(s->prio_start + s->prio_count++) % s->prio_slots] = len;
            s->st.resends_queued++;
            pthread_mutex_unlock(&s->lock);
            if (!in_thread)
                wake(s);
            return 0;
        }
        /* it goes ahead of the paced media, which waits for it */
        if (s->rate > 0)
            s->t_free = FFMAX(s->t_free, now - LATE_CREDIT) + len * 1e6 / s->rate;
        pthread_mutex_unlock(&s->lock);
    }
    if (s->twcc_log) {
        /* numbered as it leaves: a copy (the caller's may be the history's) */
        if (len > s->cfg.packet_size + 16)
            return AVERROR(EINVAL);
        memcpy(s->now_buf, buf, len);
        pthread_mutex_lock(&s->lock);
        twcc_stamp(s, s->now_buf, len, av_gettime_relative());
        pthread_mutex_unlock(&s->lock);
        buf = s->now_buf;
    }
    ret = send_one(s, &d, &s->rtp, buf, len, "RTP");
    count(s, &d);
    if (!ret) {
        pthread_mutex_lock(&s->lock);
        s->st.retransmissions++;
        s->st.retransmitted_bytes += len;
        pthread_mutex_unlock(&s->lock);
    }
    return ret;
}

int ff_rtp_sender_send_rtcp(FFRTPSender *s, const uint8_t *buf, int len)
{
    FFRTPSendStats d = { 0 };
    int ret;

    /* no flush of the muxer's access unit: the send thread sends SRs too,
     * and the unit belongs to the muxer's thread (which sends it whole,
     * before any SR of its own); paced, RTCP goes ahead of the media */
    ret = send_one(s, &d, &s->rtcp, buf, len, "RTCP");
    count(s, &d);
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

static int log_lookup(FFRTPSender *s, const TwccSent *log, uint16_t seq,
                      int64_t *send_time, int *size)
{
    int ret = AVERROR(ENOENT);

    if (!log)
        return ret;
    pthread_mutex_lock(&s->lock);
    if (log[seq % TWCC_LOG].seq == seq) {
        *send_time = log[seq % TWCC_LOG].time;
        *size      = log[seq % TWCC_LOG].size;
        ret = 0;
    }
    pthread_mutex_unlock(&s->lock);
    return ret;
}

int ff_rtp_sender_twcc_lookup(FFRTPSender *s, uint16_t seq, int64_t *send_time, int *size)
{
    return log_lookup(s, s->twcc_log, seq, send_time, size);
}

int ff_rtp_sender_seq_lookup(FFRTPSender *s, uint16_t seq, int64_t *send_time, int *size)
{
    return log_lookup(s, s->seq_log, seq, send_time, size);
}

void ff_rtp_sender_set_link_rate(FFRTPSender *s, int64_t bit_rate)
{
    pthread_mutex_lock(&s->lock);
    s->link_rate    = bit_rate / 8.0;
    s->cfg.bit_rate = 0;
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
        wake(s);
        pthread_join(s->thread, NULL);
    }
    clear_batch(&s->au);
    clear_batch(&s->burst);
    if (s->ring)
        for (int i = 0; i < s->ring_count; i++)
            av_buffer_unref(&s->ring[(s->ring_start + i) % PACE_RING].buf);
    av_freep(&s->ring);
    av_freep(&s->prio);
    av_freep(&s->prio_size);
    av_freep(&s->twcc_log);
    av_freep(&s->seq_log);
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

void ff_rtp_sender_urgent(FFRTPSender *s, int64_t within)
{
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

int ff_rtp_sender_drain(FFRTPSender *s, int64_t timeout)
{
    return 0;
}

int ff_rtp_sender_send_now(FFRTPSender *s, const uint8_t *buf, int len)
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

int ff_rtp_sender_twcc_lookup(FFRTPSender *s, uint16_t seq, int64_t *send_time, int *size)
{
    return AVERROR(ENOENT);
}

int ff_rtp_sender_seq_lookup(FFRTPSender *s, uint16_t seq, int64_t *send_time, int *size)
{
    return AVERROR(ENOENT);
}

void ff_rtp_sender_set_link_rate(FFRTPSender *s, int64_t bit_rate)
{
}

void ff_rtp_sender_free(FFRTPSender **ps)
{
    *ps = NULL;
}
#endif /* CONFIG_NETWORK */

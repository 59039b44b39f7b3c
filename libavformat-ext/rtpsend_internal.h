/*
 * Batched RTP sending: what its files share (private to rtpsend*.c)
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

#ifndef AVFORMAT_RTPSEND_INTERNAL_H
#define AVFORMAT_RTPSEND_INTERNAL_H

/**
 * @file
 * The sender is one object in three files: rtpsend.c (opening, the API,
 * the SR), rtpsend_io.c (datagrams onto the socket: batches, GSO, errors,
 * the protect hook) and rtpsend_thread.c (the thread: the pacer's bursts,
 * the RTCP socket, the client's timer). Only CONFIG_NETWORK builds have it.
 */

#include "config.h"

#include <stdatomic.h>
#include <stdint.h>

#include "libavutil/buffer.h"
#include "libavutil/thread.h"

#include "avio.h"
#include "network.h"
#include "rtppacer.h"
#include "rtppeer.h"
#include "rtprate.h"
#include "rtpsend.h"

#if defined(__linux__) && HAVE_POLL_H
#define RTPSEND_BATCH 1
#include <poll.h>
#include <sys/uio.h>
#include <net/if.h>
#include "rtpkernel.h"              /* UDP_SEGMENT and SCM_TXTIME where the headers lack them */
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
#define RTCP_MAX_SIZE    1500
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
    int nb_wire;                    ///< datagrams of data[]/sizes[] to send (protected: fewer if one failed)
    uint8_t *prot;                  ///< protect(): MAX_QUEUE slots of prot_slot bytes, NULL without
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

    FFRTPPacer *pacer;              ///< NULL without pacing
    FFRTPRate media;                ///< the media rate without pacing (the pacer keeps it otherwise)
    int inflight;                   ///< the pacer's burst is being sent
    int waiters;                    ///< threads waiting on cond
    int kernel_paced;               ///< bursts carry SO_TXTIME departure times

    pthread_t thread;
    int thread_started;
    atomic_int stop;
    int wake_pipe[2];
    pthread_mutex_t client_lock;    ///< held while a client callback runs
    int client_lock_init;
    FFRTPSenderClient client;
    int has_client;
    uint8_t rtcp_in[RTCP_MAX_SIZE];

    int hdr_size;                   ///< fixed header and extension of our packets
    uint8_t *now_buf;               ///< ff_rtp_sender_send_now()'s copy to number

    /* cfg.protect: one datagram at a time outside the batches (resends, RTCP) */
    int prot_slot;                  ///< bytes of a protected datagram at most
    pthread_mutex_t prot_lock;
    int prot_lock_init;
    uint8_t *prot_one;
    atomic_int prot_logged;
};

/* rtpsend_io.c */
void ff_rtp_send_count(FFRTPSender *s, const FFRTPSendStats *d);
/** One datagram (a resend or RTCP), protected first if the caller protects. */
int ff_rtp_send_one(FFRTPSender *s, FFRTPSendStats *d, const SendSocket *sock,
                    const uint8_t *buf, int size, const char *what);
/** Media packets out now: the history sees them, then the socket. */
int ff_rtp_send_media(FFRTPSender *s, Batch *b);
void ff_rtp_send_clear_batch(Batch *b);

/* rtpsend_thread.c */
int ff_rtp_send_start_thread(FFRTPSender *s);
void ff_rtp_send_wake(FFRTPSender *s);
/** Hand the muxer's access unit to the pacer (or send it, faster than real time). */
int ff_rtp_send_enqueue(FFRTPSender *s);

#endif /* AVFORMAT_RTPSEND_INTERNAL_H */

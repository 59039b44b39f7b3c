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

#ifndef AVFORMAT_RTPSEND_H
#define AVFORMAT_RTPSEND_H

#include <stdint.h>

#include "libavutil/buffer.h"
#include "avio.h"

struct sockaddr;

enum FFRTPSendMode {
    FF_RTP_SEND_AUTO,       ///< GSO if the kernel has it, else sendmmsg, else send
    FF_RTP_SEND_GSO,        ///< runs of equal-size packets as one UDP GSO message
    FF_RTP_SEND_MMSG,       ///< one message per packet, many per sendmmsg
    FF_RTP_SEND_SINGLE,     ///< one send per packet
    FF_RTP_SEND_NB
};

typedef struct FFRTPSendStats {
    uint64_t packets;       ///< RTP packets handed to the kernel
    uint64_t bytes;         ///< their size, RTP headers included
    uint64_t rtcp_packets;  ///< RTCP datagrams (compound packets) sent
    uint64_t syscalls;      ///< send, sendmsg and sendmmsg calls, failed ones included
    uint64_t batches;       ///< flushes that sent at least one packet
    uint64_t gso_messages;  ///< messages that carried more than one segment
    uint64_t eagain;        ///< EAGAIN/EWOULDBLOCK: waited for the socket, then retried
    uint64_t enobufs;       ///< ENOBUFS: waited, then retried
    uint64_t econnrefused;  ///< ECONNREFUSED (ICMP port unreachable): retried
    uint64_t dropped;       ///< packets given up after repeated refusals
    uint64_t fallbacks;     ///< switches to a simpler mode after a failed send
} FFRTPSendStats;

typedef struct FFRTPSender FFRTPSender;

/**
 * Take over the sending of an RTP muxer's AVIOContext.
 *
 * @param pb      an AVIOContext over an rtp:// or udp:// URLContext
 * @return 0 with *ps set, 0 with *ps NULL when pb cannot be sent through
 *         directly (the caller keeps writing to pb), or a negative AVERROR
 */
int ff_rtp_sender_open(FFRTPSender **ps, void *logctx, AVIOContext *pb,
                       int packet_size, enum FFRTPSendMode mode);

/** Largest UDP payload for the destination's address family. */
int ff_rtp_sender_max_size(const FFRTPSender *s);

/** The mode in use now (never FF_RTP_SEND_AUTO). */
enum FFRTPSendMode ff_rtp_sender_mode(const FFRTPSender *s);

/**
 * Queue one RTP packet: hdr and payload are copied into a pooled buffer.
 * Sends the queue first when it is full.
 */
int ff_rtp_sender_queue(FFRTPSender *s, const uint8_t *hdr, int hdr_len,
                        const uint8_t *payload, int len);

/**
 * Send everything queued with as few system calls as the mode allows.
 * @return the number of packets sent (0 if none were queued), or a
 *         negative AVERROR
 */
int ff_rtp_sender_flush(FFRTPSender *s);

/** Flush, then send one RTCP datagram on the RTCP socket. */
int ff_rtp_sender_send_rtcp(FFRTPSender *s, const uint8_t *buf, int len);

void ff_rtp_sender_get_stats(const FFRTPSender *s, FFRTPSendStats *st);

const char *ff_rtp_sender_mode_name(enum FFRTPSendMode mode);

/**
 * Hand every packet to cb just before it is sent: cb may steal the
 * references (set bufs[i] to NULL) to keep them, for a retransmission
 * history, but must not free them before the next call (the send reads
 * them). Called from ff_rtp_sender_flush(), in the muxer's thread.
 */
void ff_rtp_sender_set_sent_cb(FFRTPSender *s,
                               void (*cb)(void *opaque, AVBufferRef **bufs,
                                          const int *sizes, int nb),
                               void *opaque);

/**
 * The RTP (rtcp = 0) or RTCP (rtcp = 1) socket, and its destination when
 * it is not connected (*dest NULL when it is).
 */
void ff_rtp_sender_socket(const FFRTPSender *s, int rtcp, int *fd,
                          const struct sockaddr **dest, int *dest_len);

/** Free the sender; packets still queued are dropped. */
void ff_rtp_sender_free(FFRTPSender **ps);

#endif /* AVFORMAT_RTPSEND_H */

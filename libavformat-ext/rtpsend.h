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

enum FFRTPSendMode {
    FF_RTP_SEND_AUTO,       ///< GSO if the kernel has it, else sendmmsg, else send
    FF_RTP_SEND_GSO,        ///< runs of equal-size packets as one UDP GSO message
    FF_RTP_SEND_MMSG,       ///< one message per packet, many per sendmmsg
    FF_RTP_SEND_SINGLE,     ///< one send per packet
    FF_RTP_SEND_NB
};

typedef struct FFRTPSendStats {
    uint64_t packets;       ///< RTP packets handed to the kernel (first transmissions)
    uint64_t bytes;         ///< their size, RTP headers included
    uint64_t payload_bytes; ///< their payload (as the SR's octet count)
    uint64_t retransmissions; ///< packets sent by ff_rtp_sender_send_now()
    uint64_t retransmitted_bytes;
    uint64_t resends_queued;  ///< of which waited for the pacer (a burst of credit spent)
    uint64_t resends_dropped; ///< not sent: the pacer's resend queue was full
    uint64_t probe_packets; ///< packets sent by ff_rtp_sender_send_probe()
    uint64_t probe_bytes;
    uint64_t rtcp_packets;  ///< RTCP datagrams (compound packets) sent
    uint64_t syscalls;      ///< send, sendmsg and sendmmsg calls, failed ones included
    uint64_t batches;       ///< flushes or paced bursts that sent at least one packet
    uint64_t gso_messages;  ///< messages that carried more than one segment
    uint64_t eagain;        ///< EAGAIN/EWOULDBLOCK: waited for the socket, then retried
    uint64_t enobufs;       ///< ENOBUFS: waited, then retried
    uint64_t econnrefused;  ///< ECONNREFUSED (ICMP port unreachable): retried
    uint64_t rtcp_foreign;  ///< RTCP datagrams from an address other than the peer's: dropped
    uint64_t dropped;       ///< packets given up after repeated refusals
    uint64_t fallbacks;     ///< switches to a simpler mode after a failed send
    /* pacing (all 0 with pacing off) */
    uint64_t paced_bursts;  ///< bursts the pacer sent
    uint64_t forced_drains; ///< access units that would have waited more than pace_max_delay
    uint64_t urgent_units;  ///< keyframes asked for, sent within their short due time
    uint64_t unpaced_units; ///< sent at once: the source is faster than real time
    double pace_rate;       ///< bit/s the pacer sends at now (0: idle, nothing measured yet)
    double delay_p50_ms, delay_p95_ms, delay_max_ms; ///< time packets waited in the pacer
    int64_t last_media_send;///< av_gettime_relative() of the last media packet sent, 0: none
                            ///< (with kernel pacing: its departure time)
    int kernel_paced;       ///< departure times go to the kernel (SO_TXTIME)
} FFRTPSendStats;

typedef struct FFRTPSendConfig {
    int packet_size;
    enum FFRTPSendMode mode;
    int pace;               ///< 0: each access unit leaves at once
    double pace_factor;     ///< pacing rate / media rate
    int pace_burst;         ///< bytes that may leave back to back
    int64_t pace_max_delay; ///< µs a packet may wait before the pacer speeds up
    /**
     * The kernel's pacing: each burst is handed over up to 20 ms ahead of
     * its time with that time as its SO_TXTIME departure time, for the fq
     * qdisc to hold it. -1: where the device the packets leave by has fq as
     * its qdisc (checked at open), 0: never, 1: always (a qdisc other than
     * fq ignores the times: the packets leave when handed over).
     */
    int pace_kernel;
    int64_t bit_rate;       ///< the encoder's bit/s when known, else 0
    int dscp;               ///< DSCP for both sockets, -1: leave them alone
    /**
     * Packets carry the transport-wide sequence number extension (id
     * FF_RTP_HDREXT_TWCC_ID): the sender numbers every RTP packet in this
     * log as it leaves, retransmissions included (rtptwcc.h); NULL: none.
     * The caller's, and it must outlive the sender.
     */
    struct FFRTPTwccLog *twcc;
    /**
     * The caller's transform of every datagram just before it leaves (SRTP
     * and SRTCP for a WebRTC muxer), NULL: none. It writes the datagram of
     * len bytes at in (RTP, or RTCP if rtcp) to out, at most out_size
     * bytes, and returns its new size, or a negative AVERROR to drop it
     * (counted in dropped, logged once). It may run in any of the sender's
     * threads, one call at a time for RTP media, and must not call the
     * sender. The packets the history keeps stay as they were.
     */
    int (*protect)(void *opaque, int rtcp, const uint8_t *in, int len, uint8_t *out, int out_size);
    void *protect_opaque;
    int protect_overhead;   ///< bytes protect() adds at most
    /**
     * Every datagram read from the RTCP socket, in the sender's thread,
     * before the client sees it, NULL: all go to the client. It may change
     * it in place (buf has size bytes of room: unprotect SRTCP) and returns
     * the length to hand on, or <= 0 to keep it from the client (a STUN or
     * DTLS packet it handled itself, or one that failed to authenticate).
     */
    int (*incoming)(void *opaque, uint8_t *buf, int len, int size);
    void *incoming_opaque;
    /**
     * Whose RTCP reaches incoming() and the client, enum FFRTPPeerCheck
     * (rtppeer.h): 0 (FF_RTP_PEER_ANY) all of it; connected sockets need
     * no check. The rest is counted in rtcp_foreign and dropped.
     */
    int rtcp_from;
} FFRTPSendConfig;

/**
 * The sockets of a muxer that makes its own (a WebRTC muxer after ICE):
 * the sender sends on them and reads RTCP from rtcp_fd; it closes neither.
 */
typedef struct FFRTPSenderSockets {
    int rtp_fd;
    int rtcp_fd;            ///< may be rtp_fd (RTP and RTCP on one port, RFC 5761)
    int connected;          ///< both are connected to the peer; else dest is used
    const struct sockaddr_storage *dest; ///< the peer's RTP address (RTCP's too with one fd)
    int dest_len;
    const struct sockaddr_storage *rtcp_dest; ///< the peer's RTCP address, NULL: dest
    int rtcp_dest_len;
    int max_size;           ///< the largest UDP payload to its address family
    AVIOInterruptCB *interrupt; ///< checked while the socket blocks, or NULL
    int64_t rw_timeout;     ///< µs a blocked send may wait, 0: for ever
} FFRTPSenderSockets;

/** What the sender needs to build an SR. */
typedef struct FFRTPSenderReportInfo {
    uint32_t ssrc;
    const char *cname;      ///< must outlive the sender, or NULL
    int clock_rate;
    uint32_t base_timestamp;
    int64_t first_ntp;      ///< µs, NTP epoch, of RTP time zero
} FFRTPSenderReportInfo;

/**
 * A user of the sender's thread (the RTCP feedback reader). The callbacks
 * run in that thread, except sent, which runs in whichever thread sends
 * media (the muxer's without pacing). None may be called with the client
 * detached; they may call the sender's functions.
 */
typedef struct FFRTPSenderClient {
    void *opaque;
    /**
     * Every media packet just before it leaves: it may steal the references
     * (set bufs[i] to NULL) to keep them for a retransmission history, but
     * must not free them before its next call (the send reads them).
     */
    void (*sent)(void *opaque, AVBufferRef **bufs, const int *sizes, int nb);
    /** A datagram read from the RTCP socket. */
    void (*rtcp)(void *opaque, const uint8_t *buf, int len, int64_t now);
    /** Timed work; returns when it wants to run next (av_gettime_relative()). */
    int64_t (*tick)(void *opaque, int64_t now);
} FFRTPSenderClient;

typedef struct FFRTPSender FFRTPSender;

/**
 * Take over the sending of an RTP muxer's AVIOContext.
 *
 * @param pb      an AVIOContext over an rtp:// or udp:// URLContext
 * @return 0 with *ps set, 0 with *ps NULL when pb cannot be sent through
 *         directly (the caller keeps writing to pb), or a negative AVERROR
 */
int ff_rtp_sender_open(FFRTPSender **ps, void *logctx, AVIOContext *pb,
                       const FFRTPSendConfig *cfg);

/**
 * The same on sockets the caller owns: everything else (batching, pacing,
 * the thread, feedback through a client, the SR) as for an RTP muxer.
 * @return 0 with *ps set, or a negative AVERROR
 */
int ff_rtp_sender_open_sockets(FFRTPSender **ps, void *logctx, const FFRTPSenderSockets *so,
                               const FFRTPSendConfig *cfg);

/** Largest UDP payload for the destination's address family. */
int ff_rtp_sender_max_size(const FFRTPSender *s);

/** 1 if the destination is IPv6. */
int ff_rtp_sender_ipv6(const FFRTPSender *s);

/** The mode in use now (never FF_RTP_SEND_AUTO). */
enum FFRTPSendMode ff_rtp_sender_mode(const FFRTPSender *s);

/**
 * The next access unit flushed is due within `within` µs (its pacing speeds
 * up to meet it): a keyframe a receiver asked for, whose picture is broken
 * until it arrives. Counted as an urgent unit, not as a forced drain.
 */
void ff_rtp_sender_urgent(FFRTPSender *s, int64_t within);

/** Whether media goes through the pacer. */
int ff_rtp_sender_paced(const FFRTPSender *s);

/**
 * Queue one RTP packet: hdr and payload are copied into a pooled buffer.
 * Sends the queue first when it is full.
 */
int ff_rtp_sender_queue(FFRTPSender *s, const uint8_t *hdr, int hdr_len,
                        const uint8_t *payload, int len);

/**
 * Send everything queued with as few system calls as the mode allows, or
 * hand it to the pacer (which may make this wait while its queue is full).
 * @return the number of packets sent or paced (0 if none were queued), or
 *         a negative AVERROR (also one the pacer's thread met since)
 */
int ff_rtp_sender_flush(FFRTPSender *s);

/**
 * Wait until the pacer has sent everything (at most timeout µs).
 * @return 0, or AVERROR(ETIMEDOUT)
 */
int ff_rtp_sender_drain(FFRTPSender *s, int64_t timeout);

/**
 * Send one RTP packet (a retransmission) ahead of the media the pacer
 * holds: at once while the pacer has a burst of credit left, else first
 * thing in its next burst (copied: buf may go). It counts against the
 * pacing rate. Any thread.
 * @return 0, or AVERROR(EAGAIN) when the pacer's resend queue is full
 */
int ff_rtp_sender_send_now(FFRTPSender *s, const uint8_t *buf, int len);

/**
 * Send one RTP packet of a probe cluster (a copy of one sent before) at
 * once, past the pacer, numbered for transport feedback. From the
 * sender's thread (a client's tick) only.
 * @return 0, or a negative error
 */
int ff_rtp_sender_send_probe(FFRTPSender *s, const uint8_t *buf, int len);

/** Send one RTCP datagram on the RTCP socket, ahead of paced media. */
int ff_rtp_sender_send_rtcp(FFRTPSender *s, const uint8_t *buf, int len);

void ff_rtp_sender_set_report_info(FFRTPSender *s, const FFRTPSenderReportInfo *info);

/**
 * Build the sender's RTCP compound (SR without report blocks, SDES CNAME,
 * with bye a BYE) from the clock now and the counts of what has left, and
 * send it. The only place an SR is made.
 * @param ntp  if not NULL, the SR's 64-bit NTP timestamp
 */
int ff_rtp_sender_send_sr(FFRTPSender *s, int bye, uint64_t *ntp);

/**
 * Attach (c) or detach (NULL) the client of the sender's thread; starts
 * the thread if needed. Detaching waits until no callback runs.
 */
int ff_rtp_sender_set_client(FFRTPSender *s, const FFRTPSenderClient *c);

void ff_rtp_sender_get_stats(FFRTPSender *s, FFRTPSendStats *st);

/**
 * Bytes/s of media lately: the access units flushed in the last second
 * (rtprate.h). The one estimate of the media rate: the pacer's rate, the
 * resend budget and the RTCP interval all come from it. Any thread.
 */
double ff_rtp_sender_media_rate(FFRTPSender *s);

/**
 * The rate the link takes (bit/s), by congestion control, when the encoder
 * follows it: the pacer sends at pace_factor x this rate (never below the
 * last second's media rate), and no longer assumes the encoder's bit_rate;
 * 0: unknown, paced by the media rate again. Any thread.
 */
void ff_rtp_sender_set_link_rate(FFRTPSender *s, int64_t bit_rate);

const char *ff_rtp_sender_mode_name(enum FFRTPSendMode mode);

/** Free the sender; paced packets are sent first (pace_max_delay at most). */
void ff_rtp_sender_free(FFRTPSender **ps);

#endif /* AVFORMAT_RTPSEND_H */

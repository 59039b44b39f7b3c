/*
 * RTP: whose packets count, the peer's addresses
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

#ifndef AVFORMAT_RTPPEER_H
#define AVFORMAT_RTPPEER_H

/**
 * @file
 * An unconnected UDP socket takes datagrams from anyone. RTCP feedback
 * steers a sender (its rate, keyframes, resends) and a receiver's RTCP
 * goes where its sender is: both must come from the peer, not from a
 * third party. This part, logic only, says whether an address is the
 * peer's: for the sender, one of the addresses it sends to; for a
 * receiver that answers its source (rtcp_to_source), the source it locked
 * on to. It reads no clock and owns no socket.
 */

#include <stdint.h>
#include <sys/socket.h>

/** Which RTCP a sender acts on. */
enum FFRTPPeerCheck {
    FF_RTP_PEER_AUTO = -1,      ///< HOST to a unicast destination, ANY to a multicast group
    FF_RTP_PEER_ANY,            ///< from anyone (stock FFmpeg)
    FF_RTP_PEER_HOST,           ///< from the address RTP or RTCP goes to, any port
    FF_RTP_PEER_EXACT,          ///< from the address and port RTP or RTCP goes to
};

/** A locked source stays locked while it sends: silent this long, another may take its place. */
#define FF_RTP_PEER_RELOCK 1000000

/** Whether a is an IPv4 or IPv6 multicast address. */
int ff_rtp_peer_is_multicast(const struct sockaddr_storage *a);

/**
 * Whether x and y are the same IP address (an IPv4-mapped IPv6 address
 * equals its IPv4 address), and with port, the same port too.
 */
int ff_rtp_peer_same(const struct sockaddr_storage *x, const struct sockaddr_storage *y, int port);

/** FF_RTP_PEER_AUTO resolved for the destination dest. */
enum FFRTPPeerCheck ff_rtp_peer_resolve(enum FFRTPPeerCheck check, const struct sockaddr_storage *dest);

/**
 * Whether a sender acts on a datagram from from, under check (resolved),
 * when it sends RTP to rtp_dest and RTCP to rtcp_dest.
 */
int ff_rtp_peer_allowed(enum FFRTPPeerCheck check, const struct sockaddr_storage *from,
                        const struct sockaddr_storage *rtp_dest,
                        const struct sockaddr_storage *rtcp_dest);

/** "a.b.c.d:port" or "[v6]:port" into buf. */
const char *ff_rtp_peer_str(const struct sockaddr_storage *a, char *buf, int size);

/**
 * The source a receiver locked on to: the address and port of the first
 * RTP datagram. Then RTP counts only from that address and port, RTCP
 * only from that address (before it, RTCP from anyone, as a sender's SR
 * may come first); after FF_RTP_PEER_RELOCK µs of silence from it, the
 * next source to send RTP takes its place (a sender that restarted on a
 * new port). RTCP alone never takes the lock.
 */
typedef struct FFRTPPeerLock {
    struct sockaddr_storage addr;
    int locked;                 ///< an RTP datagram came
    int64_t last;               ///< µs, the last datagram that counted
    uint64_t dropped;           ///< datagrams from elsewhere
    uint64_t relocks;           ///< times a new source took its place
} FFRTPPeerLock;

enum FFRTPPeerVerdict {
    FF_RTP_PEER_DROP,           ///< not from the locked source
    FF_RTP_PEER_ACCEPT,         ///< from it
    FF_RTP_PEER_LOCKED,         ///< the first, or a new source after the old one went silent
};

/** A datagram from from (RTCP if rtcp) at now: count it or not. */
enum FFRTPPeerVerdict ff_rtp_peer_lock_check(FFRTPPeerLock *l, int rtcp,
                                             const struct sockaddr_storage *from, int64_t now);

#endif /* AVFORMAT_RTPPEER_H */

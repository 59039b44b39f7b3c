/*
 * What the kernel offers the RTP sender: UDP GSO, the egress device and its
 * qdisc, SO_TXTIME, DSCP
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

#ifndef AVFORMAT_RTPKERNEL_H
#define AVFORMAT_RTPKERNEL_H

/**
 * @file
 * The RTP sender's questions to the kernel, apart from its send path:
 * each answers from a system call (or rtnetlink) and logs nothing; the
 * sender (rtpsend.c) decides and says what it does with the answer.
 * Where the system lacks a facility, the answer is no.
 */

struct sockaddr;

#if defined(__linux__)
/* what older kernel headers lack (UDP GSO: 4.18, SO_TXTIME: 4.19) */
#include <netinet/in.h>
#include <netinet/udp.h>
#include <linux/net_tstamp.h>
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
#endif

/** 1 if the kernel segments UDP (UDP_SEGMENT, Linux 4.18 and later). */
int ff_rtp_kernel_gso(int fd);

/**
 * The interface a socket's packets leave by (the route to dest when the
 * socket is not connected): its index, and its name in name; 0 if not found.
 */
int ff_rtp_kernel_egress_device(int fd, int connected, const struct sockaddr *dest,
                                int dest_len, char *name, int size);

/**
 * Whether the device's qdisc paces by departure time: fq at its root, or mq
 * (a multiqueue device) with fq under it. Asked over rtnetlink
 * (RTM_GETQDISC, a bounded dump); the root's kind goes to kind ("" if none
 * was listed: noqueue).
 */
int ff_rtp_kernel_qdisc_paces(int index, char *kind, int size);

/** SO_TXTIME with CLOCK_MONOTONIC on the socket: 0 or a negative AVERROR. */
int ff_rtp_kernel_txtime(int fd);

/** DSCP in the IPv4 TOS or IPv6 traffic class byte: 0 or a negative AVERROR. */
int ff_rtp_kernel_set_dscp(int fd, int family, int dscp);

#endif /* AVFORMAT_RTPKERNEL_H */

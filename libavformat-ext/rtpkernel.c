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

#define _GNU_SOURCE

#include "config.h"

#include <errno.h>
#include <string.h>

#include "libavutil/avstring.h"
#include "libavutil/error.h"

#include "rtpkernel.h"

#if CONFIG_NETWORK
#include "network.h"
#endif

#if CONFIG_NETWORK && defined(__linux__)
#include <ifaddrs.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

int ff_rtp_kernel_gso(int fd)
{
    int val = 0;
    socklen_t len = sizeof(val);
    /* kernels since 4.18 know the option; older ones say ENOPROTOOPT */
    return !getsockopt(fd, SOL_UDP, UDP_SEGMENT, &val, &len);
}

int ff_rtp_kernel_egress_device(int fd, int connected, const struct sockaddr *dest,
                                int dest_len, char *name, int size)
{
    struct sockaddr_storage local;
    socklen_t len = sizeof(local);
    struct ifaddrs *list, *i;
    int tmp = -1, index = 0;

    name[0] = 0;
    if (!connected) {
        /* a connected socket of the same family finds the route */
        tmp = socket(dest->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (tmp < 0 || connect(tmp, dest, dest_len) < 0)
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

int ff_rtp_kernel_qdisc_paces(int index, char *kind, int size)
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

int ff_rtp_kernel_txtime(int fd)
{
    struct sock_txtime cfg = { .clockid = CLOCK_MONOTONIC };

    return setsockopt(fd, SOL_SOCKET, SO_TXTIME, &cfg, sizeof(cfg)) < 0 ? AVERROR(errno) : 0;
}

#else /* !(CONFIG_NETWORK && __linux__) */

int ff_rtp_kernel_gso(int fd)
{
    return 0;
}

int ff_rtp_kernel_egress_device(int fd, int connected, const struct sockaddr *dest,
                                int dest_len, char *name, int size)
{
    name[0] = 0;
    return 0;
}

int ff_rtp_kernel_qdisc_paces(int index, char *kind, int size)
{
    kind[0] = 0;
    return 0;
}

int ff_rtp_kernel_txtime(int fd)
{
    return AVERROR(ENOSYS);
}
#endif

#if CONFIG_NETWORK
int ff_rtp_kernel_set_dscp(int fd, int family, int dscp)
{
    int v = dscp << 2, ret;

#if defined(IPV6_TCLASS)
    if (family == AF_INET6)
        ret = setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &v, sizeof(v));
    else
#endif
        ret = setsockopt(fd, IPPROTO_IP, IP_TOS, &v, sizeof(v));
    return ret < 0 ? AVERROR(errno) : 0;
}
#else
int ff_rtp_kernel_set_dscp(int fd, int family, int dscp)
{
    return AVERROR(ENOSYS);
}
#endif

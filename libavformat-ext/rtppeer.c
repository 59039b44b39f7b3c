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

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "rtppeer.h"

#if CONFIG_NETWORK
#include "network.h"

/* the IPv4 address of an AF_INET address or an IPv4-mapped AF_INET6 one,
 * in network order into *v4: 1, else 0 */
static int as_v4(const struct sockaddr_storage *a, uint32_t *v4, uint16_t *port)
{
    if (a->ss_family == AF_INET) {
        const struct sockaddr_in *s = (const struct sockaddr_in *)a;
        *v4   = s->sin_addr.s_addr;
        *port = s->sin_port;
        return 1;
    }
    if (a->ss_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)a;
        if (IN6_IS_ADDR_V4MAPPED(&s->sin6_addr)) {
            memcpy(v4, s->sin6_addr.s6_addr + 12, 4);
            *port = s->sin6_port;
            return 1;
        }
    }
    return 0;
}

int ff_rtp_peer_is_multicast(const struct sockaddr_storage *a)
{
    uint32_t v4;
    uint16_t port;

    if (as_v4(a, &v4, &port))
        return IN_MULTICAST(ntohl(v4));
    if (a->ss_family == AF_INET6)
        return IN6_IS_ADDR_MULTICAST(&((const struct sockaddr_in6 *)a)->sin6_addr);
    return 0;
}

int ff_rtp_peer_same(const struct sockaddr_storage *x, const struct sockaddr_storage *y, int port)
{
    uint32_t x4, y4;
    uint16_t xp, yp;
    int v4x = as_v4(x, &x4, &xp), v4y = as_v4(y, &y4, &yp);

    if (v4x || v4y)
        return v4x && v4y && x4 == y4 && (!port || xp == yp);
    if (x->ss_family != AF_INET6 || y->ss_family != AF_INET6)
        return 0;
    {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)x;
        const struct sockaddr_in6 *b = (const struct sockaddr_in6 *)y;
        /* a link-local address names an interface too */
        if (memcmp(&a->sin6_addr, &b->sin6_addr, sizeof(a->sin6_addr)) ||
            (IN6_IS_ADDR_LINKLOCAL(&a->sin6_addr) && a->sin6_scope_id && b->sin6_scope_id &&
             a->sin6_scope_id != b->sin6_scope_id))
            return 0;
        return !port || a->sin6_port == b->sin6_port;
    }
}

enum FFRTPPeerCheck ff_rtp_peer_resolve(enum FFRTPPeerCheck check, const struct sockaddr_storage *dest)
{
    if (check != FF_RTP_PEER_AUTO)
        return check;
    /* a group's receivers report from their own addresses */
    return ff_rtp_peer_is_multicast(dest) ? FF_RTP_PEER_ANY : FF_RTP_PEER_HOST;
}

int ff_rtp_peer_allowed(enum FFRTPPeerCheck check, const struct sockaddr_storage *from,
                        const struct sockaddr_storage *rtp_dest,
                        const struct sockaddr_storage *rtcp_dest)
{
    int port = check == FF_RTP_PEER_EXACT;

    if (check == FF_RTP_PEER_ANY || check == FF_RTP_PEER_AUTO)
        return 1;
    return ff_rtp_peer_same(from, rtp_dest, port) ||
           (rtcp_dest && ff_rtp_peer_same(from, rtcp_dest, port));
}

const char *ff_rtp_peer_str(const struct sockaddr_storage *a, char *buf, int size)
{
    char host[64] = "?";
    int port = 0;

    if (a->ss_family == AF_INET) {
        const struct sockaddr_in *s = (const struct sockaddr_in *)a;
        inet_ntop(AF_INET, &s->sin_addr, host, sizeof(host));
        port = ntohs(s->sin_port);
        snprintf(buf, size, "%s:%d", host, port);
    } else if (a->ss_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)a;
        inet_ntop(AF_INET6, &s->sin6_addr, host, sizeof(host));
        port = ntohs(s->sin6_port);
        snprintf(buf, size, "[%s]:%d", host, port);
    } else {
        snprintf(buf, size, "(family %d)", a->ss_family);
    }
    return buf;
}

enum FFRTPPeerVerdict ff_rtp_peer_lock_check(FFRTPPeerLock *l, int rtcp,
                                             const struct sockaddr_storage *from, int64_t now)
{
    if (!l->locked) {
        if (rtcp)
            return FF_RTP_PEER_ACCEPT;
        l->addr   = *from;
        l->locked = 1;
        l->last   = now;
        return FF_RTP_PEER_LOCKED;
    }
    if (ff_rtp_peer_same(from, &l->addr, !rtcp)) {
        l->last = now;
        return FF_RTP_PEER_ACCEPT;
    }
    /* the locked source went silent: a sender that restarted, from a new
     * port or address; RTP only, RTCP from elsewhere never takes it */
    if (!rtcp && now - l->last >= FF_RTP_PEER_RELOCK) {
        l->addr = *from;
        l->last = now;
        l->relocks++;
        return FF_RTP_PEER_LOCKED;
    }
    l->dropped++;
    return FF_RTP_PEER_DROP;
}

#endif /* CONFIG_NETWORK */

/*
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

/*
 * Whose datagrams count (libavformat/rtppeer.c). The addresses are built
 * here from inet_pton; what each case expects follows from the rule: a
 * sender takes RTCP from the address it sends to (host: any port, peer:
 * that port too, any: all; a multicast group: all by default), IPv4 equal
 * to its IPv4-mapped IPv6 form; a receiver locks on to the first RTP
 * source, takes RTCP from its address, and lets another take its place
 * only after 1 s of silence.
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "libavformat/rtppeer.h"

static int failures;

#define CHECK(cond, ...) do {                                               \
    if (!(cond)) {                                                          \
        printf("FAIL %s:%d: ", __func__, __LINE__);                         \
        printf(__VA_ARGS__);                                                \
        printf("\n");                                                       \
        failures++;                                                         \
    }                                                                       \
} while (0)

static struct sockaddr_storage addr(const char *host, int port)
{
    struct sockaddr_storage a;

    memset(&a, 0, sizeof(a));
    if (strchr(host, ':')) {
        struct sockaddr_in6 *s = (struct sockaddr_in6 *)&a;
        s->sin6_family = AF_INET6;
        s->sin6_port   = htons(port);
        inet_pton(AF_INET6, host, &s->sin6_addr);
    } else {
        struct sockaddr_in *s = (struct sockaddr_in *)&a;
        s->sin_family = AF_INET;
        s->sin_port   = htons(port);
        inet_pton(AF_INET, host, &s->sin_addr);
    }
    return a;
}

static void test_same(void)
{
    struct sockaddr_storage a = addr("192.0.2.7", 5000), b = addr("192.0.2.7", 5001);
    struct sockaddr_storage m = addr("::ffff:192.0.2.7", 5000), c = addr("192.0.2.8", 5000);
    struct sockaddr_storage v6 = addr("2001:db8::1", 5000), v6b = addr("2001:db8::2", 5000);

    CHECK(ff_rtp_peer_same(&a, &a, 1), "an address is not itself");
    CHECK(ff_rtp_peer_same(&a, &b, 0) && !ff_rtp_peer_same(&a, &b, 1), "ports");
    CHECK(ff_rtp_peer_same(&a, &m, 1) && ff_rtp_peer_same(&m, &a, 1), "v4-mapped");
    CHECK(!ff_rtp_peer_same(&a, &c, 0), "another host");
    CHECK(ff_rtp_peer_same(&v6, &v6, 1) && !ff_rtp_peer_same(&v6, &v6b, 0), "IPv6");
    CHECK(!ff_rtp_peer_same(&v6, &a, 0), "IPv6 against IPv4");
}

static void test_sender(void)
{
    struct sockaddr_storage rtp = addr("192.0.2.7", 5000), rtcp = addr("192.0.2.7", 5001);
    struct sockaddr_storage other_port = addr("192.0.2.7", 40000), other = addr("198.51.100.9", 5001);
    struct sockaddr_storage group = addr("239.1.2.3", 5000), group6 = addr("ff0e::1", 5000);
    enum FFRTPPeerCheck c;

    c = ff_rtp_peer_resolve(FF_RTP_PEER_AUTO, &rtcp);
    CHECK(c == FF_RTP_PEER_HOST, "auto to unicast: %d", c);
    CHECK(ff_rtp_peer_resolve(FF_RTP_PEER_AUTO, &group) == FF_RTP_PEER_ANY, "auto to a group");
    CHECK(ff_rtp_peer_resolve(FF_RTP_PEER_AUTO, &group6) == FF_RTP_PEER_ANY, "auto to an IPv6 group");
    CHECK(ff_rtp_peer_resolve(FF_RTP_PEER_EXACT, &group) == FF_RTP_PEER_EXACT, "explicit kept");

    CHECK(ff_rtp_peer_allowed(FF_RTP_PEER_HOST, &rtcp, &rtp, &rtcp), "host: the RTCP port");
    CHECK(ff_rtp_peer_allowed(FF_RTP_PEER_HOST, &other_port, &rtp, &rtcp), "host: another port");
    CHECK(!ff_rtp_peer_allowed(FF_RTP_PEER_HOST, &other, &rtp, &rtcp), "host: a third party");
    CHECK(ff_rtp_peer_allowed(FF_RTP_PEER_EXACT, &rtcp, &rtp, &rtcp) &&
          ff_rtp_peer_allowed(FF_RTP_PEER_EXACT, &rtp, &rtp, &rtcp), "peer: its ports");
    CHECK(!ff_rtp_peer_allowed(FF_RTP_PEER_EXACT, &other_port, &rtp, &rtcp), "peer: another port");
    CHECK(ff_rtp_peer_allowed(FF_RTP_PEER_ANY, &other, &rtp, &rtcp), "any: a third party");
    /* RTP and RTCP to different hosts: either */
    {
        struct sockaddr_storage rtcp2 = addr("203.0.113.1", 6001), from2 = addr("203.0.113.1", 9);
        CHECK(ff_rtp_peer_allowed(FF_RTP_PEER_HOST, &from2, &rtp, &rtcp2), "host: the RTCP host");
    }
}

static void test_lock(void)
{
    FFRTPPeerLock l = { 0 };
    struct sockaddr_storage src = addr("192.0.2.7", 40000), src_rtcp = addr("192.0.2.7", 40001);
    struct sockaddr_storage spoof = addr("198.51.100.9", 40000), src_new = addr("192.0.2.7", 41000);
    int64_t t = 1000000;

    /* RTCP before any RTP: taken, but takes no lock */
    CHECK(ff_rtp_peer_lock_check(&l, 1, &spoof, t) == FF_RTP_PEER_ACCEPT && !l.locked,
          "RTCP took the lock");
    CHECK(ff_rtp_peer_lock_check(&l, 0, &src, t) == FF_RTP_PEER_LOCKED, "the first RTP");
    CHECK(ff_rtp_peer_lock_check(&l, 0, &src, t + 20000) == FF_RTP_PEER_ACCEPT, "the source");
    CHECK(ff_rtp_peer_lock_check(&l, 1, &src_rtcp, t + 30000) == FF_RTP_PEER_ACCEPT,
          "the source's RTCP from its RTCP port");
    CHECK(ff_rtp_peer_lock_check(&l, 0, &spoof, t + 40000) == FF_RTP_PEER_DROP, "spoofed RTP");
    CHECK(ff_rtp_peer_lock_check(&l, 1, &spoof, t + 40000) == FF_RTP_PEER_DROP, "spoofed RTCP");
    CHECK(ff_rtp_peer_lock_check(&l, 0, &src_new, t + 50000) == FF_RTP_PEER_DROP,
          "another port of the source's host, while it sends");
    CHECK(l.dropped == 3, "dropped %d", (int)l.dropped);
    /* the source's RTCP alone keeps it: 2 s of SRs, spoofed RTP all along */
    for (int k = 1; k <= 20; k++) {
        ff_rtp_peer_lock_check(&l, 1, &src_rtcp, t + k * 100000);
        CHECK(ff_rtp_peer_lock_check(&l, 0, &spoof, t + k * 100000 + 50000) == FF_RTP_PEER_DROP,
              "spoofed RTP took over at %d", k);
    }
    /* spoofed RTCP after 1.5 s of silence never takes it: the source
     * that comes back is still the one */
    t += 2000000;
    CHECK(ff_rtp_peer_lock_check(&l, 1, &spoof, t + 1500000) == FF_RTP_PEER_DROP,
          "RTCP relocked");
    t += 1600000;
    CHECK(ff_rtp_peer_lock_check(&l, 0, &src, t) == FF_RTP_PEER_ACCEPT,
          "the source, back after the spoofed RTCP");
    /* silence of 1 s less 1 µs: still held; then a restarted sender */
    CHECK(ff_rtp_peer_lock_check(&l, 0, &src_new, t + FF_RTP_PEER_RELOCK - 1) == FF_RTP_PEER_DROP,
          "relocked before 1 s of silence");
    CHECK(ff_rtp_peer_lock_check(&l, 0, &src_new, t + FF_RTP_PEER_RELOCK) == FF_RTP_PEER_LOCKED &&
          l.relocks == 1, "the restarted sender was not taken");
    CHECK(ff_rtp_peer_lock_check(&l, 0, &src, t + FF_RTP_PEER_RELOCK + 1) == FF_RTP_PEER_DROP,
          "the old port still counts");
}

int main(void)
{
    test_same();
    test_sender();
    test_lock();
    if (failures)
        printf("%d failures\n", failures);
    else
        printf("rtppeer: all passed\n");
    return !!failures;
}

/*
 * The RTP sender driven as a second muxer would drive it (a WebRTC muxer
 * after ICE): on a socket it owns, RTP and RTCP on one port (RFC 5761),
 * every datagram through a protect hook, every datagram read back through
 * an incoming hook, feedback through a client.
 *
 *   transport_api MODE PACE [fail]
 *
 * MODE: gso, mmsg or single; PACE: 0 or 1; fail: the hook refuses every
 * packet whose sequence number is 5 modulo 7.
 *
 * The protect hook stands in for SRTP: every byte XOR 0x5a, then a 4-byte
 * trailer "lcvP" (RTP) or "lcvC" (RTCP). The peer, a plain socket on
 * 127.0.0.1, undoes that and checks each datagram against what was
 * queued, independently of the sender: every RTP packet, in order, byte
 * for byte; the resend; the SR, parsed with lcv_rtcp; nothing else. The
 * other way, the peer sends a protected RR and a STUN-like datagram: the
 * client must see the RR unprotected and never the STUN one. Bounded in
 * time (3 s of waiting at most) and count.
 */

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "libavutil/intreadwrite.h"
#include "libavutil/time.h"
#include "libavformat/internal.h"
#include "libavformat/lcvrtcp.h"
#include "libavformat/rtpsend.h"

#define AUS       5
#define PER_AU    20
#define PKT       1100
#define SSRC      0x11223344
#define OVERHEAD  4

static int failures;
static int fail_mode;
static atomic_int protected_rtp, protected_rtcp, refused;
static atomic_int seen_rr, seen_stun, client_rtcp;

#define CHECK(cond, ...) do {                                           \
    if (!(cond)) {                                                      \
        printf("FAIL line %d: ", __LINE__);                             \
        printf(__VA_ARGS__);                                            \
        printf("\n");                                                   \
        failures++;                                                     \
    }                                                                   \
} while (0)

static int protect(void *opaque, int rtcp, const uint8_t *in, int len, uint8_t *out, int out_size)
{
    if (len + OVERHEAD > out_size)
        return AVERROR(ENOSPC);
    if (fail_mode && !rtcp && AV_RB16(in + 2) % 7 == 5) {
        atomic_fetch_add(&refused, 1);
        return AVERROR(EINVAL);
    }
    for (int i = 0; i < len; i++)
        out[i] = in[i] ^ 0x5a;
    memcpy(out + len, rtcp ? "lcvC" : "lcvP", 4);
    atomic_fetch_add(rtcp ? &protected_rtcp : &protected_rtp, 1);
    return len + OVERHEAD;
}

/** Undo protect(): the datagram's length without the trailer, or -1. */
static int unprotect(uint8_t *buf, int len, char kind)
{
    if (len < OVERHEAD + 8 || memcmp(buf + len - 4, "lcv", 3) || buf[len - 1] != kind)
        return -1;
    len -= OVERHEAD;
    for (int i = 0; i < len; i++)
        buf[i] ^= 0x5a;
    return len;
}

static int incoming(void *opaque, uint8_t *buf, int len, int size)
{
    if (len > 0 && buf[0] < 4) {        /* STUN: the muxer's own */
        atomic_fetch_add(&seen_stun, 1);
        return 0;
    }
    return unprotect(buf, len, 'C');
}

static void on_rtcp(void *opaque, const uint8_t *buf, int len, int64_t now)
{
    atomic_fetch_add(&client_rtcp, 1);
    /* an RR of the peer: version 2, PT 201, its SSRC */
    if (len >= 8 && buf[0] >> 6 == 2 && buf[1] == 201 && AV_RB32(buf + 4) == 0xabcdef01)
        atomic_fetch_add(&seen_rr, 1);
}

static void make_packet(uint8_t *p, int seq, uint32_t ts, int marker, int size)
{
    p[0] = 0x80;
    p[1] = 96 | (marker ? 0x80 : 0);
    AV_WB16(p + 2, seq);
    AV_WB32(p + 4, ts);
    AV_WB32(p + 8, SSRC);
    for (int i = 12; i < size; i++)
        p[i] = (seq * 31 + i) & 0xff;
}

int main(int argc, char **argv)
{
    static uint8_t sent[AUS * PER_AU][PKT];
    static int sent_size[AUS * PER_AU];
    struct sockaddr_in a = { .sin_family = AF_INET }, pa, oa;
    socklen_t al = sizeof(pa);
    FFRTPSendConfig cfg = { 0 };
    FFRTPSenderClient client = { .rtcp = on_rtcp };
    FFRTPSendStats st;
    FFRTPSender *s = NULL;
    uint8_t buf[2048];
    int peer, ours, pace, ret, nb_rtp = 0, nb_rtcp = 0, nb_resend = 0, expect_rtp = 0;
    int expected_dropped = 0;

    if (argc < 3) {
        fprintf(stderr, "usage: transport_api gso|mmsg|single 0|1 [fail]\n");
        return 2;
    }
    cfg.mode = !strcmp(argv[1], "gso") ? FF_RTP_SEND_GSO : !strcmp(argv[1], "mmsg") ?
               FF_RTP_SEND_MMSG : FF_RTP_SEND_SINGLE;
    pace = atoi(argv[2]);
    fail_mode = argc > 3 && !strcmp(argv[3], "fail");

    /* two sockets on 127.0.0.1, connected to each other */
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    peer = socket(AF_INET, SOCK_DGRAM, 0);
    ours = socket(AF_INET, SOCK_DGRAM, 0);
    if (peer < 0 || ours < 0 || bind(peer, (struct sockaddr *)&a, sizeof(a)) < 0 ||
        bind(ours, (struct sockaddr *)&a, sizeof(a)) < 0 ||
        getsockname(peer, (struct sockaddr *)&pa, &al) < 0 ||
        (al = sizeof(oa), getsockname(ours, (struct sockaddr *)&oa, &al)) < 0 ||
        connect(ours, (struct sockaddr *)&pa, sizeof(pa)) < 0 ||
        connect(peer, (struct sockaddr *)&oa, sizeof(oa)) < 0) {
        perror("socket");
        return 2;
    }
    {
        int big = 4 << 20;
        setsockopt(peer, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
    }

    cfg.packet_size      = 1200;
    cfg.pace             = pace;
    cfg.pace_factor      = 1.5;
    cfg.pace_burst       = 16384;
    cfg.pace_max_delay   = 500000;
    cfg.pace_kernel      = 0;
    cfg.dscp             = -1;
    cfg.protect          = protect;
    cfg.protect_overhead = OVERHEAD;
    cfg.incoming         = incoming;
    {
        FFRTPSenderSockets so = {
            .rtp_fd = ours, .rtcp_fd = ours, .connected = 1, .max_size = 65507,
        };
        FFRTPSenderSockets bad = so;
        bad.connected = 0;      /* and no destination */
        CHECK(ff_rtp_sender_open_sockets(&s, NULL, &bad, &cfg) == AVERROR(EINVAL) && !s,
              "unconnected sockets without a destination taken");
        ret = ff_rtp_sender_open_sockets(&s, NULL, &so, &cfg);
        CHECK(ret == 0 && s, "open: %d", ret);
        if (!s)
            return 1;
    }
    ff_rtp_sender_set_report_info(s, &(FFRTPSenderReportInfo){
        .ssrc = SSRC, .cname = "transport-api", .clock_rate = 90000, .first_ntp = ff_ntp_time() });
    CHECK(ff_rtp_sender_set_client(s, &client) == 0, "set_client");

    /* 5 access units of 20 packets, the last of each shorter, 40 ms apart */
    for (int u = 0; u < AUS; u++) {
        for (int k = 0; k < PER_AU; k++) {
            int i = u * PER_AU + k, size = k == PER_AU - 1 ? 500 : PKT;
            make_packet(sent[i], i, u * 3600, k == PER_AU - 1, size);
            sent_size[i] = size;
            CHECK(ff_rtp_sender_queue(s, sent[i], 12, sent[i] + 12, size - 12) == 0, "queue %d", i);
            if (fail_mode && i % 7 == 5)
                expected_dropped++;
            else
                expect_rtp++;
        }
        ret = ff_rtp_sender_flush(s);
        CHECK(ret == PER_AU, "flush %d: %d", u, ret);
        av_usleep(40000);
    }
    /* a resend of packet 3, and an SR */
    CHECK(ff_rtp_sender_send_now(s, sent[3], sent_size[3]) == 0, "send_now");
    CHECK(ff_rtp_sender_send_sr(s, 0, NULL) > 0, "send_sr");

    /* the other way: a protected RR, and a STUN binding request */
    {
        LCVRTCPWriter w;
        int n;
        lcv_rtcp_writer_init(&w, buf, sizeof(buf));
        lcv_rtcp_write_rr(&w, 0xabcdef01, NULL, 0);
        n = lcv_rtcp_writer_finish(&w, 4);
        n = protect(NULL, 1, buf, n, buf, sizeof(buf));
        CHECK(send(peer, buf, n, 0) == n, "RR to the sender");
        memset(buf, 0, 20);
        buf[1] = 1;
        AV_WB32(buf + 4, 0x2112a442);
        CHECK(send(peer, buf, 20, 0) == 20, "STUN to the sender");
    }
    for (int t = 0; t < 100 && (!atomic_load(&seen_rr) || !atomic_load(&seen_stun)); t++)
        av_usleep(10000);
    CHECK(ff_rtp_sender_drain(s, 1000000) == 0, "drain");
    ff_rtp_sender_get_stats(s, &st);
    ff_rtp_sender_set_client(s, NULL);
    ff_rtp_sender_free(&s);

    CHECK(atomic_load(&seen_rr) == 1, "the client saw %d RRs, 1 expected", atomic_load(&seen_rr));
    CHECK(atomic_load(&seen_stun) == 1 && atomic_load(&client_rtcp) == 1,
          "STUN: %d consumed by the hook, the client saw %d datagrams (1: the RR)",
          atomic_load(&seen_stun), atomic_load(&client_rtcp));
    CHECK(st.dropped == expected_dropped && atomic_load(&refused) == expected_dropped,
          "%"PRIu64" dropped, %d refused by the hook, %d expected", st.dropped,
          atomic_load(&refused), expected_dropped);

    /* what reached the peer */
    for (int next = 0, guard = 0; guard < 1000; guard++) {
        struct pollfd p = { .fd = peer, .events = POLLIN };
        int len, k;

        if (poll(&p, 1, nb_rtp == expect_rtp && nb_rtcp && nb_resend ? 100 : 2000) <= 0)
            break;
        len = recv(peer, buf, sizeof(buf), 0);
        if (len <= 0)
            break;
        if (len >= 4 && !memcmp(buf + len - 4, "lcvC", 4)) {
            LCVRTCPContext *ctx = lcv_rtcp_context_alloc();
            len = unprotect(buf, len, 'C');
            CHECK(ctx && lcv_rtcp_parse(ctx, buf, len, 0) == 2 &&
                  ctx->packets[0].type == LCV_RTCP_SR && ctx->packets[0].ssrc == SSRC &&
                  ctx->packets[0].rr.packets > 0 && ctx->packets[0].rr.packets <= AUS * PER_AU &&
                  ctx->packets[1].type == LCV_RTCP_SDES, "the SR does not parse as SR + SDES");
            lcv_rtcp_context_free(&ctx);
            nb_rtcp++;
            continue;
        }
        len = unprotect(buf, len, 'P');
        CHECK(len > 0, "an RTP datagram without its trailer");
        if (len <= 0)
            continue;
        k = AV_RB16(buf + 2);
        if (next == AUS * PER_AU || (k == 3 && next > 3 && nb_resend == 0 && k < next)) {
            /* the resend, after its original */
            CHECK(k == 3 && len == sent_size[3] && !memcmp(buf, sent[3], len), "resend differs");
            nb_resend++;
            continue;
        }
        while (fail_mode && next % 7 == 5)
            next++;
        CHECK(k == next && len == sent_size[k] && !memcmp(buf, sent[k], len),
              "datagram %d: packet %d (%d bytes), %d (%d bytes) expected", nb_rtp, k, len,
              next, next < AUS * PER_AU ? sent_size[next] : 0);
        next = k + 1;
        nb_rtp++;
    }
    CHECK(nb_rtp == expect_rtp, "%d of %d RTP datagrams arrived", nb_rtp, expect_rtp);
    CHECK(nb_resend == 1 && nb_rtcp == 1, "%d resends, %d RTCP datagrams (1 and 1 expected)",
          nb_resend, nb_rtcp);
    close(peer);
    close(ours);
    printf("transport_api %s pace %d%s: %d RTP datagrams protected and in order, the resend, "
           "the SR; the peer's RR unprotected to the client, its STUN kept from it%s\n",
           argv[1], pace, fail_mode ? " fail" : "", nb_rtp,
           fail_mode ? "; refused ones dropped and counted" : "");
    return failures ? 1 : 0;
}

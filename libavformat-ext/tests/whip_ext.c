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
 * The WHIP muxer's transport hooks (libavformat/whip_ext.c): what the
 * protect hook writes is checked by decrypting it with SRTP contexts of
 * the test's own, set from the same keys (as the peer would); what the
 * incoming hook hands on is SRTCP the test protected with the peer's keys.
 * STUN, DTLS and forged datagrams must stay in the hook. The SDP lines and
 * the checks of rtp_options go through a real whip muxer context.
 */

#include <stdio.h>
#include <string.h>

#include "libavformat/whip_ext.c"
#include "libavformat/avformat.h"
#include "libavformat/lcvrtcp.h"
#include "libavformat/rtptwcc.h"
#include "libavutil/opt.h"

static int failures;

#define CHECK(cond, ...) do {                                               \
    if (!(cond)) {                                                          \
        printf("FAIL %s:%d: ", __func__, __LINE__);                         \
        printf(__VA_ARGS__);                                                \
        printf("\n");                                                       \
        failures++;                                                         \
    }                                                                       \
} while (0)

#define SUITE "SRTP_AES128_CM_HMAC_SHA1_80"
/* 30 bytes of key and salt each, base64 */
static const char *const SEND_KEY = "MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkw";
static const char *const RECV_KEY = "YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXphYmNk";

enum { VIDEO = 0x11111111, RTX = 0x22222222, AUDIO = 0x33333333 };

static int requests;
static uint8_t request_seen[32];

static void on_request(void *opaque, const uint8_t *buf, int len)
{
    requests++;
    memcpy(request_seen, buf, FFMIN(len, sizeof(request_seen)));
}

static int rtp_packet(uint8_t *p, uint32_t ssrc, uint16_t seq, int pt, int payload)
{
    p[0] = 0x80;
    p[1] = pt;
    AV_WB16(p + 2, seq);
    AV_WB32(p + 4, seq * 3000);
    AV_WB32(p + 8, ssrc);
    for (int i = 0; i < payload; i++)
        p[12 + i] = i * 7 + seq;
    return 12 + payload;
}

/* an SR (PT 200) of 28 bytes from ssrc */
static int sr_packet(uint8_t *p, uint32_t ssrc)
{
    memset(p, 0, 28);
    p[0] = 0x80;
    p[1] = 200;
    AV_WB16(p + 2, 6);
    AV_WB32(p + 4, ssrc);
    AV_WB32(p + 8, 0x12345678);
    AV_WB32(p + 20, 42);
    return 28;
}

static void test_protect(FFWhipTransport *t)
{
    static const uint32_t ssrcs[] = { VIDEO, RTX, AUDIO };
    uint8_t in[1500], out[1600], dec[1600];

    for (int k = 0; k < 3; k++) {
        SRTPContext peer = { 0 };
        CHECK(ff_srtp_set_crypto(&peer, SUITE, SEND_KEY) >= 0, "peer context");
        /* a run across a sequence number wrap: the rollover counter */
        for (int i = 0; i < 40; i++) {
            uint16_t seq = 65520 + i;
            int len = rtp_packet(in, ssrcs[k], seq, 106, 100 + i), n;
            int ret = protect(t, 0, in, len, out, sizeof(out));
            CHECK(ret == len + 10, "RTP of %d bytes protected to %d (the 80-bit tag)", len, ret);
            if (ret <= 0)
                continue;
            CHECK(memcmp(out + 12, in + 12, len - 12), "the payload is encrypted");
            memcpy(dec, out, ret);
            n = ret;
            CHECK(ff_srtp_decrypt(&peer, dec, &n) >= 0 && n == len && !memcmp(dec, in, len),
                  "ssrc %08x seq %u decrypts to the packet", ssrcs[k], seq);
        }
        ff_srtp_free(&peer);
    }
    {
        SRTPContext peer = { 0 };
        int len = sr_packet(in, VIDEO), n, ret;
        CHECK(ff_srtp_set_crypto(&peer, SUITE, SEND_KEY) >= 0, "peer context");
        for (int i = 0; i < 3; i++) {
            ret = protect(t, 1, in, len, out, sizeof(out));
            CHECK(ret == len + 14, "SRTCP: %d bytes, expected %d (index and tag)", ret, len + 14);
            CHECK(ret > 0 && (AV_RB32(out + len) & 0x7fffffff) == i, "SRTCP index %d", i);
            n = ret;
            CHECK(ret > 0 && ff_srtp_decrypt(&peer, out, &n) >= 0 && n == len &&
                  !memcmp(out, in, len), "the SR decrypts");
        }
        ff_srtp_free(&peer);
    }
    /* an SSRC the muxer does not send, a runt, no room: refused */
    {
        int len = rtp_packet(in, 0x44444444, 1, 106, 50);
        CHECK(protect(t, 0, in, len, out, sizeof(out)) < 0, "an unknown SSRC is refused");
        CHECK(protect(t, 0, in, 11, out, sizeof(out)) < 0, "a runt is refused");
        CHECK(protect(t, 0, in, len, out, len) < 0, "no room for the tag is refused");
        len = sr_packet(in, 0x44444444);
        CHECK(protect(t, 1, in, len, out, sizeof(out)) < 0, "RTCP of an unknown SSRC is refused");
    }
}

static void test_incoming(FFWhipTransport *t)
{
    SRTPContext peer = { 0 };
    uint8_t rr[32], buf[256];
    int len, ret;

    CHECK(ff_srtp_set_crypto(&peer, SUITE, RECV_KEY) >= 0, "peer context");
    /* an RR (PT 201) with one report block about the video */
    memset(rr, 0, sizeof(rr));
    rr[0] = 0x81;
    rr[1] = 201;
    AV_WB16(rr + 2, 7);
    AV_WB32(rr + 4, 0xabcdef01);
    AV_WB32(rr + 8, VIDEO);
    AV_WB32(rr + 12, 0x05000003);
    for (int i = 0; i < 3; i++) {
        len = ff_srtp_encrypt(&peer, rr, 32, buf, sizeof(buf));
        CHECK(len == 32 + 14, "the peer's SRTCP");
        ret = incoming(t, buf, len, sizeof(buf));
        CHECK(ret == 32 && !memcmp(buf, rr, 32), "SRTCP handed on as the RR (%d)", ret);
    }
    /* forged: one bit of the ciphertext, or a tag of a wrong key */
    len = ff_srtp_encrypt(&peer, rr, 32, buf, sizeof(buf));
    buf[10] ^= 1;
    CHECK(incoming(t, buf, len, sizeof(buf)) == 0, "a forged SRTCP stays in the hook");
    CHECK(atomic_load(&t->unauthenticated) == 1, "and is counted");
    {
        SRTPContext wrong = { 0 };
        ff_srtp_set_crypto(&wrong, SUITE, SEND_KEY);
        len = ff_srtp_encrypt(&wrong, rr, 32, buf, sizeof(buf));
        CHECK(incoming(t, buf, len, sizeof(buf)) == 0, "SRTCP with another key stays in the hook");
        ff_srtp_free(&wrong);
    }
    CHECK(incoming(t, rr, 32, sizeof(rr)) == 0, "plain RTCP (no tag) stays in the hook");
    for (int n = 0; n < 8; n++)
        CHECK(incoming(t, buf, n, sizeof(buf)) == 0, "a runt of %d bytes", n);
    CHECK(atomic_load(&t->unauthenticated) == 3, "three SRTCP that did not authenticate (%u)",
          atomic_load(&t->unauthenticated));

    /* STUN: a binding request goes to the muxer, a response is noted */
    memset(buf, 0, 40);
    AV_WB16(buf, 0x0001);
    AV_WB16(buf + 2, 20);
    AV_WB32(buf + 4, 0x2112A442);
    buf[8] = 0x77;
    CHECK(incoming(t, buf, 40, sizeof(buf)) == 0 && requests == 1 && request_seen[8] == 0x77,
          "a binding request reaches the muxer's callback (%d)", requests);
    CHECK(ff_whip_ext_last_binding_response(t) == 0, "no response yet");
    AV_WB16(buf, 0x0101);
    CHECK(incoming(t, buf, 40, sizeof(buf)) == 0 && requests == 1, "a binding response is no request");
    CHECK(ff_whip_ext_last_binding_response(t) > 0, "the response is noted");
    CHECK(incoming(t, buf, 19, sizeof(buf)) == 0 && requests == 1, "a STUN runt is dropped");
    /* DTLS (a handshake record), and RTP: kept */
    buf[0] = 22;
    CHECK(incoming(t, buf, 40, sizeof(buf)) == 0 && atomic_load(&t->dtls) == 1, "DTLS is kept");
    len = rtp_packet(buf, 0x99, 1, 96, 20);
    ret = atomic_load(&t->other);
    CHECK(incoming(t, buf, len, sizeof(buf)) == 0 && atomic_load(&t->other) == ret + 1, "RTP is kept");
    ff_srtp_free(&peer);
}

static void test_options(void)
{
    static const struct { const char *opts; int ret, cc_line, fb_line; } cases[] = {
        { NULL,                   0, 1, 1 },
        { "cc=0",                 0, 0, 1 },
        { "feedback=0",           0, 0, 0 },
        { "pace_factor=2:nack=0", 0, 1, 1 },
        { "ssrc=5",               AVERROR(EINVAL), 1, 1 },
        { "rtx_pt=99",            AVERROR(EINVAL), 1, 1 },
        { "pace_factor=0.5",      AVERROR(ERANGE), 1, 1 },
        { "no_such_option=1",     AVERROR_OPTION_NOT_FOUND, 1, 1 },
    };

    for (int i = 0; i < FF_ARRAY_ELEMS(cases); i++) {
        AVFormatContext *s = NULL;
        AVBPrint bp;
        int ret;

        if (avformat_alloc_output_context2(&s, NULL, "whip", "http://127.0.0.1:1/whip") < 0) {
            CHECK(0, "no whip muxer");
            return;
        }
        avformat_new_stream(s, NULL);
        if (cases[i].opts)
            CHECK(av_opt_set(s->priv_data, "rtp_options", cases[i].opts, 0) >= 0, "set %s", cases[i].opts);
        av_log_set_level(AV_LOG_QUIET);
        ret = ff_whip_ext_check_options(s);
        av_log_set_level(AV_LOG_INFO);
        /* an out-of-range value: whatever av_opt_set_dict says, an error */
        CHECK(cases[i].ret ? ret < 0 : ret == 0, "rtp_options '%s': %d, expected %d",
              cases[i].opts ? cases[i].opts : "", ret, cases[i].ret);
        if (cases[i].ret == 0) {
            av_bprint_init(&bp, 0, AV_BPRINT_SIZE_UNLIMITED);
            ff_whip_ext_sdp_video(&bp, s, 106);
            CHECK(!!strstr(bp.str, "a=rtcp-fb:106 transport-cc\r\na=extmap:1 " FF_RTP_HDREXT_TWCC_URI "\r\n")
                  == cases[i].cc_line, "'%s': transport-cc lines %s", cases[i].opts, bp.str);
            CHECK(!!strstr(bp.str, "a=rtcp-fb:106 nack pli\r\n") == cases[i].fb_line &&
                  !!strstr(bp.str, "a=rtcp-fb:106 ccm fir\r\n") == cases[i].fb_line,
                  "'%s': PLI and FIR lines %s", cases[i].opts, bp.str);
            av_bprint_finalize(&bp, NULL);
        }
        avformat_free_context(s);
    }
}

/*
 * libwebrtc's transport-cc reports: its reference time is its uptime in
 * 64 ms, which the parser's signed 24 bits read as negative after 6.2
 * days, and which wraps after 12.4. Arrival times must come out positive
 * (-1 means lost) and keep their spacing across the wrap. Reports are
 * built with lcv_rtcp_write_twcc(); the expected arrivals follow from the
 * reference times and deltas written.
 */
static void test_twcc_reference_time(void)
{
    static const int32_t refs[] = { -895134, -895133, (1 << 23) - 1, -(1 << 23), -(1 << 23) + 2 };
    FFRTPTwccLog *log = NULL;
    FFRTPTwccReader r = { 0 };
    LCVRTCPContext *ctx = lcv_rtcp_context_alloc();
    uint8_t pkt[64], *pp = pkt, buf[256];
    int size, seq = 0;
    int64_t last = -1;

    CHECK(ctx && ff_rtp_twcc_log_alloc(&log, VIDEO) >= 0, "allocations");
    if (!ctx || !log)
        goto end;
    for (int k = 0; k < FF_ARRAY_ELEMS(refs); k++) {
        LCVRTCPTwcc tw = { .base_seq = seq, .status_count = 4, .reference_time = refs[k] };
        LCVRTCPTwccItem items[4];
        LCVRTCPWriter w;
        FFRTPCCPacket out[8];
        int nb;

        /* four packets sent with the extension, numbered by the log */
        for (int i = 0; i < 4; i++) {
            size = rtp_packet(pkt, VIDEO, 100 + seq, 106, 40);
            pkt[0] |= 0x10;
            memmove(pkt + 12 + FF_RTP_HDREXT_TWCC_SIZE, pkt + 12, size - 12);
            ff_rtp_hdrext_write_twcc(pkt + 12, 0);
            size += FF_RTP_HDREXT_TWCC_SIZE;
            ff_rtp_twcc_sent(log, &pp, &size, 1, 1000000 + seq * 1000);
            seq++;
        }
        for (int i = 0; i < 4; i++)
            items[i] = (LCVRTCPTwccItem){ .status = i == 2 ? 0 : 1, .delta = i == 2 ? 0 : 40 };
        lcv_rtcp_writer_init(&w, buf, sizeof(buf));
        CHECK(lcv_rtcp_write_twcc(&w, 0x5151, VIDEO, &tw, items) >= 0, "report %d written", k);
        if (lcv_rtcp_parse(ctx, buf, w.pos, LCV_RTCP_FLAG_REDUCED_SIZE) != 1) {
            CHECK(0, "report %d parses: %s", k, ctx->error);
            continue;
        }
        CHECK(ff_rtp_twcc_read_start(&r, &ctx->packets[0]) == 0, "report %d read", k);
        nb = ff_rtp_twcc_read(log, &r, VIDEO, out, 8);
        CHECK(nb == 4, "report %d: %d packets of 4", k, nb);
        for (int i = 0; i < nb; i++) {
            if (i == 2) {
                CHECK(out[i].arrival == -1, "report %d: packet 2 lost", k);
                continue;
            }
            CHECK(out[i].arrival >= 0, "report %d packet %d: arrival %"PRId64" positive", k, i,
                  out[i].arrival);
            /* 10 ms (40 x 250 us) after the last one within a report; the
             * reports 64 ms apart (the last two 128 ms, the wrap between
             * the third and the fourth 64 ms) */
            if (last >= 0) {
                int64_t want = i ? 10000 : (k == 4 ? 128000 : k == 2 ? 0 : 64000) - 30000 + 10000;
                if (k != 2 || i)
                    CHECK(out[i].arrival - last == want, "report %d packet %d: %"PRId64" us "
                          "after the last, expected %"PRId64, k, i, out[i].arrival - last, want);
            }
            last = out[i].arrival;
        }
    }
end:
    ff_rtp_twcc_log_free(&log);
    lcv_rtcp_context_free(&ctx);
}

int main(void)
{
    FFWhipTransportConfig cfg = {
        .fd = 0, .max_size = 65507, .suite = SUITE,
        .send_params = SEND_KEY, .recv_params = RECV_KEY,
        .ssrc = { VIDEO, RTX, AUDIO },
        .binding_request = on_request,
    };
    FFWhipTransport *t = NULL;
    int ret;

    CHECK(ff_whip_ext_open(&t, NULL, &(FFWhipTransportConfig){ .fd = -1 }) == AVERROR(EINVAL) && !t,
          "no socket: refused");
    cfg.send_params = "short";
    CHECK(ff_whip_ext_open(&t, NULL, &cfg) < 0 && !t, "a bad key: refused");
    cfg.send_params = SEND_KEY;
    ret = ff_whip_ext_open(&t, NULL, &cfg);
    CHECK(ret == 0 && t, "open: %d", ret);
    if (!t)
        return 1;
    CHECK(!ff_whip_ext_reads(t), "nothing reads before a muxer is attached");
    test_protect(t);
    test_incoming(t);
    ff_whip_ext_free(&t);
    CHECK(!t, "freed");
    test_options();
    test_twcc_reference_time();

    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf("whip_ext: all passed\n");
    return 0;
}

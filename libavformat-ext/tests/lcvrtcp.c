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
 * lcv_rtcp tests: hand-made golden vectors of every packet type decoded
 * field by field, byte-exact rebuilds, build -> parse round trips, a table
 * of malformed datagrams (one per known bug class), the parse options, the
 * context pool, and (with the preload shim) allocation counts and an
 * out-of-memory loop.
 *
 *   lcvrtcp                 all checks
 *   lcvrtcp alloc N         allocations per parse over N and 2N parses
 *   lcvrtcp oom             fail the n-th allocation, n = 1, 2, ...
 *   lcvrtcp corpus DIR      write the golden vectors as fuzzing seeds
 *   lcvrtcp rebuild FILE... parse, rebuild and compare the fields of each
 *                           file as the fuzzer does, naming the packets that
 *                           differ
 *   lcvrtcp tshark PCAP     write the golden vectors as UDP datagrams to
 *                           127.0.0.1:5005 in a pcap, and print what this
 *                           library decodes in tshark's field names, for
 *                           tests/tshark/cross-check.sh to compare
 */

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/error.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/macros.h"
#include "libavformat/lcvrtcp.h"


/* The tests parse into contexts of their own, views over a packet array
 * on the stack: the library's size promise is for programs, which take
 * their contexts from lcv_rtcp_context_alloc() or a pool (checked in
 * check_context_alloc()). */
#define TEST_CTX(name) \
    LCVRTCPPacket name##_pk[LCV_RTCP_MAX_PACKETS]; LCVRTCPContext name = { .packets = name##_pk }

static int failures;

#define CHECK(cond) do {                                                    \
    if (!(cond)) {                                                          \
        printf("FAIL %s:%d: %s\n", __func__, __LINE__, #cond);              \
        failures++;                                                         \
    }                                                                       \
} while (0)

/* ------------------------------------------------------------------------
 * golden vectors, written by hand from the RFC layouts */

static const uint8_t v_sr[] = {     /* SR, 1 report block */
    0x81, 0xc8, 0x00, 0x0c,  0x12, 0x34, 0x56, 0x78,
    0x83, 0xaa, 0x7e, 0x80, 0x00, 0x00, 0x00, 0x01,   /* NTP */
    0x00, 0x01, 0xe2, 0x40,  0x00, 0x00, 0x00, 0x64,  0x00, 0x01, 0x86, 0xa0,
    0x9a, 0xbc, 0xde, 0xf0,  0x19, 0xff, 0xff, 0xfe,  0x00, 0x01, 0x00, 0x10,
    0x00, 0x00, 0x00, 0x20,  0x7e, 0x80, 0x00, 0x00,  0x00, 0x01, 0x00, 0x00,
};
static const uint8_t v_rr_sdes_bye[] = {
    0x80, 0xc9, 0x00, 0x01,  0x12, 0x34, 0x56, 0x78,                   /* RR */
    0x81, 0xca, 0x00, 0x03,  0x12, 0x34, 0x56, 0x78,                   /* SDES */
    0x01, 0x05, 'h', 'e', 'l', 'l', 'o', 0x00,
    0x81, 0xcb, 0x00, 0x03,  0x12, 0x34, 0x56, 0x78,                   /* BYE */
    0x04, 'd', 'o', 'n', 'e', 0x00, 0x00, 0x00,
};
static const uint8_t v_app[] = {
    0x82, 0xcc, 0x00, 0x03,  0x12, 0x34, 0x56, 0x78,  'N', 'A', 'M', 'E',
    0xde, 0xad, 0xbe, 0xef,
};
static const uint8_t v_nack[] = {   /* PID 100, BLP bits 0 and 2: 100, 101, 103 */
    0x81, 0xcd, 0x00, 0x03,  0, 0, 0, 1,  0, 0, 0, 2,  0x00, 0x64, 0x00, 0x05,
};
static const uint8_t v_tmmbr[] = {  /* 1 Mbit/s = 125000 << 3, overhead 40 */
    0x83, 0xcd, 0x00, 0x04,  0, 0, 0, 1,  0, 0, 0, 0,  0, 0, 0, 2,  0x0f, 0xd0, 0x90, 0x28,
};
static const uint8_t v_tmmbn[] = { 0x84, 0xcd, 0x00, 0x02,  0, 0, 0, 1,  0, 0, 0, 0 };
static const uint8_t v_rrr[]   = { 0x85, 0xcd, 0x00, 0x02,  0, 0, 0, 1,  0, 0, 0, 2 };
static const uint8_t v_twcc[] = {
    0x8f, 0xcd, 0x00, 0x07,  0, 0, 0, 1,  0, 0, 0, 2,
    0x00, 0x0a, 0x00, 0x05,  0x00, 0x00, 0x01, 0x07,  /* base 10, 5 packets, ref 64 ms, count 7 */
    0x20, 0x03,                                       /* run: 3 x small delta */
    0xc8, 0x00,                                       /* 2-bit vector: not received, large delta */
    0x04, 0x08, 0x0c,  0xff, 0xf0,                    /* deltas 1, 2, 3 ms and -4 ms */
    0x00, 0x00, 0x00,
};
static const uint8_t v_ccfb[] = {
    0x8b, 0xcd, 0x00, 0x06,  0, 0, 0, 1,
    0, 0, 0, 2,  0x00, 0x64, 0x00, 0x03,              /* stream 2, seq 100, 3 reports */
    0x80, 0x10,  0x00, 0x00,  0xa0, 0x20,  0x00, 0x00,
    0x12, 0x34, 0x56, 0x78,                           /* report timestamp */
};
static const uint8_t v_pli[] = { 0x81, 0xce, 0x00, 0x02,  0, 0, 0, 1,  0, 0, 0, 2 };
static const uint8_t v_sli[] = {    /* first 5, number 10, picture 3 */
    0x82, 0xce, 0x00, 0x03,  0, 0, 0, 1,  0, 0, 0, 2,  0x00, 0x28, 0x02, 0x83,
};
static const uint8_t v_rpsi[] = {   /* PT 96, 24 bits abcdef, 24 padding bits */
    0x83, 0xce, 0x00, 0x04,  0, 0, 0, 1,  0, 0, 0, 2,  0x18, 0x60, 0xab, 0xcd,  0xef, 0, 0, 0,
};
static const uint8_t v_fir[] = {
    0x84, 0xce, 0x00, 0x04,  0, 0, 0, 1,  0, 0, 0, 0,  0, 0, 0, 2,  0x07, 0, 0, 0,
};
static const uint8_t v_tstr[] = {
    0x85, 0xce, 0x00, 0x04,  0, 0, 0, 1,  0, 0, 0, 0,  0, 0, 0, 2,  0x03, 0, 0, 0x05,
};
static const uint8_t v_tstn[] = {
    0x86, 0xce, 0x00, 0x04,  0, 0, 0, 1,  0, 0, 0, 0,  0, 0, 0, 2,  0x03, 0, 0, 0x05,
};
static const uint8_t v_vbcm[] = {
    0x87, 0xce, 0x00, 0x05,  0, 0, 0, 1,  0, 0, 0, 0,
    0, 0, 0, 2,  0x01, 0x60, 0x00, 0x03,  0xaa, 0xbb, 0xcc, 0x00,
};
static const uint8_t v_remb[] = {   /* 1 Mbit/s = 250000 << 2, one SSRC */
    0x8f, 0xce, 0x00, 0x05,  0, 0, 0, 1,  0, 0, 0, 0,
    'R', 'E', 'M', 'B',  0x01, 0x0b, 0xd0, 0x90,  0, 0, 0, 2,
};
static const uint8_t v_xr[] = {
    0x80, 0xcf, 0x00, 0x24,  0, 0, 0, 1,
    0x04, 0x00, 0x00, 0x02,  0x83, 0xaa, 0x7e, 0x80, 0x00, 0x00, 0x00, 0x01,     /* RRTR */
    0x05, 0x00, 0x00, 0x03,  0, 0, 0, 2,  0x7e, 0x80, 0, 0,  0, 0, 0x10, 0x00,   /* DLRR */
    0x01, 0x00, 0x00, 0x03,  0, 0, 0, 2,  0x00, 0x0a, 0x00, 0x14,                /* LRLE 10..20 */
    0x40, 0x05, 0xbf, 0xff,
    0x03, 0x00, 0x00, 0x04,  0, 0, 0, 2,  0xff, 0xff, 0x00, 0x01,                /* PRT 65535..1 */
    0, 0, 0x10, 0,  0, 0, 0x20, 0,
    0x06, 0xe0, 0x00, 0x09,  0, 0, 0, 2,  0, 10, 0, 20,                          /* stats */
    0, 0, 0, 1,  0, 0, 0, 2,  0, 0, 0, 3,  0, 0, 0, 4,  0, 0, 0, 5,  0, 0, 0, 6,
    0x40, 0x0a, 0x05, 0x01,
    0x07, 0x00, 0x00, 0x08,  0, 0, 0, 2,                                         /* VoIP */
    1, 2, 3, 4,  0, 5, 0, 6,  0, 7, 0, 8,  0, 9, 0, 10,  11, 12, 13, 14,
    15, 16, 17, 18,  19, 0, 0, 20,
};

/* a compound of the six packets of pion/rtcp's BenchmarkUnmarshal datagram
 * (see ../shared/data/rtcp/README.md), written here: RR with one report
 * block, SDES with a 38-byte CNAME, BYE, PLI, RRR, APP */
static const uint8_t v_six[] = {
    0x81, 0xc9, 0x00, 0x07,  0x90, 0x2f, 0x9e, 0x2e,  0xbc, 0x5e, 0x9a, 0x40,
    0x00, 0x00, 0x00, 0x00,  0x00, 0x00, 0x46, 0xe1,  0x00, 0x00, 0x01, 0x11,
    0x09, 0xf3, 0x64, 0x32,  0x00, 0x02, 0x4a, 0x79,
    0x81, 0xca, 0x00, 0x0c,  0x90, 0x2f, 0x9e, 0x2e,  0x01, 0x26,
    '{', '9', 'c', '0', '0', 'e', 'b', '9', '2', '-', '1', 'a', 'f', 'b', '-', '9', 'd', '4', '9',
    '-', 'a', '4', '7', 'd', '-', '9', '1', 'f', '6', '4', 'e', 'e', 'e', '6', '9', 'f', '5', '}',
    0x00, 0x00, 0x00, 0x00,
    0x81, 0xcb, 0x00, 0x01,  0x90, 0x2f, 0x9e, 0x2e,
    0x81, 0xce, 0x00, 0x02,  0x90, 0x2f, 0x9e, 0x2e,  0x90, 0x2f, 0x9e, 0x2e,
    0x85, 0xcd, 0x00, 0x02,  0x90, 0x2f, 0x9e, 0x2e,  0x90, 0x2f, 0x9e, 0x2e,
    0x81, 0xcc, 0x00, 0x03,  0x90, 0x2f, 0x9e, 0x2e,  'N', 'A', 'M', 'E',  0x00, 0x00, 0x00, 0x01,
};

typedef struct Vector {
    const char *name;
    const uint8_t *data;
    int size;
    int flags;
    int rebuild;     /* the writer reproduces the bytes exactly (TWCC: the
                      * writer may pick other chunk types; the statuses and
                      * deltas must match) */
} Vector;

#define V(name, flags, rebuild) { #name, name, sizeof(name), flags, rebuild }
#define RS LCV_RTCP_FLAG_REDUCED_SIZE
static const Vector vectors[] = {
    V(v_sr, 0, 1), V(v_rr_sdes_bye, 0, 1), V(v_app, RS, 1), V(v_nack, RS, 1),
    V(v_tmmbr, RS, 1), V(v_tmmbn, RS, 1), V(v_rrr, RS, 1), V(v_twcc, RS, 0),
    V(v_ccfb, RS, 1), V(v_pli, RS, 1), V(v_sli, RS, 1), V(v_rpsi, RS, 1),
    V(v_fir, RS, 1), V(v_tstr, RS, 1), V(v_tstn, RS, 1), V(v_vbcm, RS, 1),
    V(v_remb, RS, 1), V(v_xr, RS, 1), V(v_six, 0, 1),
};

static const LCVRTCPPacket *parse_one(LCVRTCPContext *ctx, const uint8_t *d, int size, int flags)
{
    int ret = lcv_rtcp_parse(ctx, d, size, flags);
    if (ret < 1) {
        printf("FAIL: parse: %s at %d\n", ctx->error, ctx->error_offset);
        failures++;
        return NULL;
    }
    return &ctx->packets[0];
}

/* Decode each golden vector and check every field against the values the
 * vector was written with. */
static void check_golden(void)
{
    TEST_CTX(ctx);
    const LCVRTCPPacket *p;
    LCVRTCPIter it;
    LCVRTCPReportBlock rb;
    LCVRTCPSdesItem si;
    uint16_t seq, seqs[8];
    int n;


    if ((p = parse_one(&ctx, v_sr, sizeof(v_sr), 0))) {
        CHECK(ctx.nb_packets == 1 && p->type == LCV_RTCP_SR && p->ssrc == 0x12345678);
        CHECK(p->rr.ntp == 0x83aa7e8000000001ULL && p->rr.rtp_ts == 123456);
        CHECK(p->rr.packets == 100 && p->rr.octets == 100000 && p->rr.nb_reports == 1);
        lcv_rtcp_report_block(p, 0, &rb);
        CHECK(rb.ssrc == 0x9abcdef0 && rb.fraction_lost == 0x19 && rb.cumulative_lost == -2);
        CHECK(rb.highest_seq == 0x10010 && rb.jitter == 32 && rb.lsr == 0x7e800000 && rb.dlsr == 65536);
    }

    if ((p = parse_one(&ctx, v_rr_sdes_bye, sizeof(v_rr_sdes_bye), 0))) {
        CHECK(ctx.nb_packets == 3 && p->type == LCV_RTCP_RR && p->rr.nb_reports == 0);
        p = &ctx.packets[1];
        CHECK(p->type == LCV_RTCP_SDES && p->sdes.nb_chunks == 1);
        lcv_rtcp_iter_init(&it, p);
        n = 0;
        while (lcv_rtcp_sdes_next(&it, &si)) {
            CHECK(si.ssrc == 0x12345678 && si.type == LCV_SDES_CNAME &&
                  si.len == 5 && !memcmp(si.value, "hello", 5));
            n++;
        }
        CHECK(n == 1);
        p = &ctx.packets[2];
        CHECK(p->type == LCV_RTCP_BYE && p->bye.nb_ssrc == 1 && p->ssrc == 0x12345678);
        CHECK(p->bye.reason_len == 4 && !memcmp(p->bye.reason, "done", 4));
    }

    if ((p = parse_one(&ctx, v_app, sizeof(v_app), RS))) {
        CHECK(p->type == LCV_RTCP_APP && p->fmt == 2 && !strcmp(p->app.name, "NAME"));
        CHECK(p->app.payload_size == 4 && AV_RB32(p->app.payload) == 0xdeadbeef);
    }

    if ((p = parse_one(&ctx, v_nack, sizeof(v_nack), RS))) {
        CHECK(p->fmt == LCV_RTPFB_NACK && p->ssrc == 1 && p->fb.media_ssrc == 2);
        lcv_rtcp_iter_init(&it, p);
        n = 0;
        while (lcv_rtcp_nack_next(&it, &seq) && n < 8)
            seqs[n++] = seq;
        CHECK(n == 3 && seqs[0] == 100 && seqs[1] == 101 && seqs[2] == 103);
    }

    if ((p = parse_one(&ctx, v_tmmbr, sizeof(v_tmmbr), RS))) {
        LCVRTCPTmmbItem t;
        lcv_rtcp_iter_init(&it, p);
        CHECK(lcv_rtcp_tmmb_next(&it, &t) && t.ssrc == 2 && t.bitrate == 1000000 && t.overhead == 40);
        CHECK(!lcv_rtcp_tmmb_next(&it, &t));
    }
    if ((p = parse_one(&ctx, v_tmmbn, sizeof(v_tmmbn), RS))) {
        LCVRTCPTmmbItem t;
        lcv_rtcp_iter_init(&it, p);
        CHECK(p->fmt == LCV_RTPFB_TMMBN && !lcv_rtcp_tmmb_next(&it, &t));
    }
    if ((p = parse_one(&ctx, v_rrr, sizeof(v_rrr), RS)))
        CHECK(p->type == LCV_RTCP_RTPFB && p->fmt == LCV_RTPFB_RRR && p->fb.media_ssrc == 2);

    if ((p = parse_one(&ctx, v_twcc, sizeof(v_twcc), RS))) {
        static const struct { int status, delta; int64_t arrival; } want[] = {
            { 1, 4, 65000 }, { 1, 8, 67000 }, { 1, 12, 70000 }, { 0, 0, 0 }, { 2, -16, 66000 },
        };
        LCVRTCPTwcc tw;
        LCVRTCPTwccItem ti;
        lcv_rtcp_twcc(p, &tw);
        CHECK(tw.base_seq == 10 && tw.status_count == 5 && tw.reference_time == 1 && tw.fb_count == 7);
        lcv_rtcp_iter_init(&it, p);
        n = 0;
        while (lcv_rtcp_twcc_next(&it, &ti) && n < 5) {
            CHECK(ti.seq == 10 + n && ti.status == want[n].status &&
                  ti.delta == want[n].delta && ti.arrival_us == want[n].arrival);
            n++;
        }
        CHECK(n == 5);
    }

    if ((p = parse_one(&ctx, v_ccfb, sizeof(v_ccfb), RS))) {
        LCVRTCPCcfbItem ci;
        CHECK(p->fmt == LCV_RTPFB_CCFB && p->ssrc == 1 && p->ccfb.report_timestamp == 0x12345678);
        lcv_rtcp_iter_init(&it, p);
        CHECK(lcv_rtcp_ccfb_next(&it, &ci) && ci.ssrc == 2 && ci.seq == 100 && ci.received && !ci.ecn && ci.ato == 16);
        CHECK(lcv_rtcp_ccfb_next(&it, &ci) && ci.seq == 101 && !ci.received);
        CHECK(lcv_rtcp_ccfb_next(&it, &ci) && ci.seq == 102 && ci.received && ci.ecn == 1 && ci.ato == 32);
        CHECK(!lcv_rtcp_ccfb_next(&it, &ci));
    }

    if ((p = parse_one(&ctx, v_pli, sizeof(v_pli), RS)))
        CHECK(p->type == LCV_RTCP_PSFB && p->fmt == LCV_PSFB_PLI && p->ssrc == 1 && p->fb.media_ssrc == 2);
    if ((p = parse_one(&ctx, v_sli, sizeof(v_sli), RS))) {
        LCVRTCPSliItem s;
        lcv_rtcp_iter_init(&it, p);
        CHECK(lcv_rtcp_sli_next(&it, &s) && s.first == 5 && s.number == 10 && s.picture_id == 3);
    }
    if ((p = parse_one(&ctx, v_rpsi, sizeof(v_rpsi), RS))) {
        LCVRTCPRpsi r;
        lcv_rtcp_rpsi(p, &r);
        CHECK(r.payload_type == 96 && r.nb_bits == 24 && r.bits[0] == 0xab && r.bits[2] == 0xef);
    }
    if ((p = parse_one(&ctx, v_fir, sizeof(v_fir), RS))) {
        LCVRTCPFirItem f;
        lcv_rtcp_iter_init(&it, p);
        CHECK(lcv_rtcp_fir_next(&it, &f) && f.ssrc == 2 && f.seq == 7 && !lcv_rtcp_fir_next(&it, &f));
    }
    if ((p = parse_one(&ctx, v_tstr, sizeof(v_tstr), RS))) {
        LCVRTCPFirItem f;
        lcv_rtcp_iter_init(&it, p);
        CHECK(p->fmt == LCV_PSFB_TSTR && lcv_rtcp_fir_next(&it, &f) && f.seq == 3 && f.index == 5);
    }
    if ((p = parse_one(&ctx, v_vbcm, sizeof(v_vbcm), RS))) {
        LCVRTCPVbcmItem vb;
        lcv_rtcp_iter_init(&it, p);
        CHECK(lcv_rtcp_vbcm_next(&it, &vb) && vb.ssrc == 2 && vb.seq == 1 && vb.payload_type == 96 &&
              vb.len == 3 && vb.data[0] == 0xaa && vb.data[2] == 0xcc);
        CHECK(!lcv_rtcp_vbcm_next(&it, &vb));
    }
    if ((p = parse_one(&ctx, v_remb, sizeof(v_remb), RS))) {
        LCVRTCPRemb r;
        CHECK(lcv_rtcp_remb(p, &r) && r.bitrate == 1000000 && r.nb_ssrc == 1 && AV_RB32(r.ssrcs) == 2);
    }
    if ((p = parse_one(&ctx, v_xr, sizeof(v_xr), RS))) {
        LCVRTCPXrBlock b;
        LCVRTCPXrRange r;
        LCVRTCPDlrrItem d;
        int types = 0;
        lcv_rtcp_iter_init(&it, p);
        while (lcv_rtcp_xr_next(&it, &b)) {
            types = types * 10 + b.type;
            switch (b.type) {
            case LCV_XR_RRTR: CHECK(AV_RB64(b.data) == 0x83aa7e8000000001ULL); break;
            case LCV_XR_DLRR:
                lcv_rtcp_xr_dlrr(&b, 0, &d);
                CHECK(b.size == 12 && d.ssrc == 2 && d.lrr == 0x7e800000 && d.dlrr == 0x1000);
                break;
            case LCV_XR_LRLE:
                lcv_rtcp_xr_range(&b, &r);
                CHECK(r.ssrc == 2 && r.begin_seq == 10 && r.end_seq == 20 && AV_RB16(b.data + 8) == 0x4005);
                break;
            case LCV_XR_PRT:
                lcv_rtcp_xr_range(&b, &r);
                CHECK(r.begin_seq == 65535 && r.end_seq == 1 && AV_RB32(b.data + 12) == 0x2000);
                break;
            case LCV_XR_STATS: {
                LCVRTCPXrStats st;
                lcv_rtcp_xr_stats(&b, &st);
                CHECK(st.flags == 0xe0 && st.ssrc == 2 && st.begin_seq == 10 && st.end_seq == 20 &&
                      st.lost == 1 && st.dup == 2 && st.min_jitter == 3 && st.max_jitter == 4 &&
                      st.mean_jitter == 5 && st.dev_jitter == 6 && st.min_ttl == 0x40 &&
                      st.max_ttl == 0x0a && st.mean_ttl == 5 && st.dev_ttl == 1);
                break;
            }
            case LCV_XR_VOIP: {
                LCVRTCPXrVoip vo;
                lcv_rtcp_xr_voip(&b, &vo);
                CHECK(vo.ssrc == 2 && vo.loss_rate == 1 && vo.gap_density == 4 && vo.burst_duration == 5 &&
                      vo.end_system_delay == 8 && vo.signal_level == 0 && vo.noise_level == 9 &&
                      vo.gmin == 10 && vo.r_factor == 11 && vo.mos_cq == 14 && vo.rx_config == 15 &&
                      vo.jb_nominal == 0x1112 && vo.jb_maximum == 0x1300 && vo.jb_abs_max == 20);
                break;
            }
            }
        }
        CHECK(types == 451367);
    }

    if ((p = parse_one(&ctx, v_six, sizeof(v_six), 0))) {
        static const int types[] = { 201, 202, 203, 206, 205, 204 };
        CHECK(ctx.nb_packets == 6);
        for (int i = 0; i < FFMIN(6, ctx.nb_packets); i++)
            CHECK(ctx.packets[i].type == types[i]);
        lcv_rtcp_report_block(p, 0, &rb);
        CHECK(rb.ssrc == 0xbc5e9a40 && rb.highest_seq == 0x46e1 && rb.jitter == 273);
        lcv_rtcp_iter_init(&it, &ctx.packets[1]);
        CHECK(lcv_rtcp_sdes_next(&it, &si) && si.len == 38 && si.value[0] == '{');
    }
    printf("golden vectors: %d decoded field by field\n", (int)FF_ARRAY_ELEMS(vectors));
}

/* Rebuild every golden vector with the writer from its parsed fields: the
 * bytes must come out identical. */
#define NO_WRITER INT_MIN   /* no typed writer for this packet */

/* The lists of one packet, sized for the largest datagram (65535 bytes), so
 * that no list is cut short: the smallest item of each kind sets the bound
 * (a NACK FCI names up to 17 numbers in 4 bytes, a TWCC run-length chunk up
 * to 8191 packets, but status_count stops at 65535). Not thread-safe: the
 * test and the fuzzer rebuild from one thread. */
static union {
    LCVRTCPSdesItem  sdes[65536 / 2];
    uint16_t         seqs[17 * (65536 / 4)];
    LCVRTCPTmmbItem  tmmb[65536 / 8];
    LCVRTCPTwccItem  twcc[65536];
    LCVRTCPCcfbItem  ccfb[65536 / 2];
    LCVRTCPSliItem   sli[65536 / 4];
    LCVRTCPFirItem   fir[65536 / 8];
    LCVRTCPVbcmItem  vbcm[65536 / 8];
    LCVRTCPXrBlock   xr[65536 / 4];
} scratch;

static int rebuild(const LCVRTCPContext *ctx, uint8_t *buf, int size)
{
    LCVRTCPWriter w;

    lcv_rtcp_writer_init(&w, buf, size);
    for (int i = 0; i < ctx->nb_packets; i++) {
        const LCVRTCPPacket *p = &ctx->packets[i];
        LCVRTCPIter it;
        int ret = NO_WRITER;

        lcv_rtcp_iter_init(&it, p);
        switch (p->type) {
        case LCV_RTCP_SR:
        case LCV_RTCP_RR: {
            LCVRTCPReportBlock rb[31];
            for (int k = 0; k < p->rr.nb_reports; k++)
                lcv_rtcp_report_block(p, k, &rb[k]);
            ret = p->type == LCV_RTCP_SR ?
                  lcv_rtcp_write_sr(&w, p->ssrc, p->rr.ntp, p->rr.rtp_ts, p->rr.packets,
                                    p->rr.octets, rb, p->rr.nb_reports) :
                  lcv_rtcp_write_rr(&w, p->ssrc, rb, p->rr.nb_reports);
            break;
        }
        case LCV_RTCP_SDES: {
            LCVRTCPSdesItem *items = scratch.sdes;
            int n = 0;
            while (n < FF_ARRAY_ELEMS(scratch.sdes) && lcv_rtcp_sdes_next(&it, &items[n]))
                n++;
            ret = lcv_rtcp_write_sdes(&w, items, n);
            break;
        }
        case LCV_RTCP_BYE: {
            uint32_t ssrcs[31];
            char reason[256];
            for (int k = 0; k < p->bye.nb_ssrc; k++)
                ssrcs[k] = AV_RB32(p->bye.ssrcs + 4 * k);
            if (p->bye.reason) {
                memcpy(reason, p->bye.reason, p->bye.reason_len);
                reason[p->bye.reason_len] = 0;
            }
            ret = lcv_rtcp_write_bye(&w, ssrcs, p->bye.nb_ssrc, p->bye.reason ? reason : NULL);
            break;
        }
        case LCV_RTCP_APP:
            ret = lcv_rtcp_write_app(&w, p->fmt, p->ssrc, p->app.name, p->app.payload, p->app.payload_size);
            break;
        case LCV_RTCP_RTPFB:
            switch (p->fmt) {
            case LCV_RTPFB_NACK: {
                uint16_t *seqs = scratch.seqs;
                int n = 0;
                while (n < FF_ARRAY_ELEMS(scratch.seqs) && lcv_rtcp_nack_next(&it, &seqs[n]))
                    n++;
                ret = lcv_rtcp_write_nack(&w, p->ssrc, p->fb.media_ssrc, seqs, n);
                break;
            }
            case LCV_RTPFB_TMMBR:
            case LCV_RTPFB_TMMBN: {
                LCVRTCPTmmbItem *t = scratch.tmmb;
                int n = 0;
                while (n < FF_ARRAY_ELEMS(scratch.tmmb) && lcv_rtcp_tmmb_next(&it, &t[n]))
                    n++;
                ret = lcv_rtcp_write_tmmb(&w, p->fmt, p->ssrc, t, n);
                break;
            }
            case LCV_RTPFB_RRR:
                ret = lcv_rtcp_write_rrr(&w, p->ssrc, p->fb.media_ssrc);
                break;
            case LCV_RTPFB_TWCC: {
                LCVRTCPTwcc tw;
                LCVRTCPTwccItem *items = scratch.twcc;
                int n = 0;
                lcv_rtcp_twcc(p, &tw);
                while (n < FF_ARRAY_ELEMS(scratch.twcc) && lcv_rtcp_twcc_next(&it, &items[n]))
                    n++;
                tw.status_count = n;
                ret = lcv_rtcp_write_twcc(&w, p->ssrc, p->fb.media_ssrc, &tw, items);
                break;
            }
            case LCV_RTPFB_CCFB: {
                LCVRTCPCcfbItem *items = scratch.ccfb;
                int n = 0;
                while (n < FF_ARRAY_ELEMS(scratch.ccfb) && lcv_rtcp_ccfb_next(&it, &items[n]))
                    n++;
                ret = lcv_rtcp_write_ccfb(&w, p->ssrc, p->ccfb.report_timestamp, items, n);
                break;
            }
            }
            break;
        case LCV_RTCP_PSFB:
            switch (p->fmt) {
            case LCV_PSFB_PLI:
                ret = lcv_rtcp_write_pli(&w, p->ssrc, p->fb.media_ssrc);
                break;
            case LCV_PSFB_SLI: {
                LCVRTCPSliItem *s = scratch.sli;
                int n = 0;
                while (n < FF_ARRAY_ELEMS(scratch.sli) && lcv_rtcp_sli_next(&it, &s[n]))
                    n++;
                ret = lcv_rtcp_write_sli(&w, p->ssrc, p->fb.media_ssrc, s, n);
                break;
            }
            case LCV_PSFB_RPSI: {
                LCVRTCPRpsi r;
                lcv_rtcp_rpsi(p, &r);
                ret = lcv_rtcp_write_rpsi(&w, p->ssrc, p->fb.media_ssrc, &r);
                break;
            }
            case LCV_PSFB_FIR:
            case LCV_PSFB_TSTR:
            case LCV_PSFB_TSTN: {
                LCVRTCPFirItem *f = scratch.fir;
                int n = 0;
                while (n < FF_ARRAY_ELEMS(scratch.fir) && lcv_rtcp_fir_next(&it, &f[n]))
                    n++;
                ret = lcv_rtcp_write_fir(&w, p->fmt, p->ssrc, f, n);
                break;
            }
            case LCV_PSFB_VBCM: {
                LCVRTCPVbcmItem *v = scratch.vbcm;
                int n = 0;
                while (n < FF_ARRAY_ELEMS(scratch.vbcm) && lcv_rtcp_vbcm_next(&it, &v[n]))
                    n++;
                ret = lcv_rtcp_write_vbcm(&w, p->ssrc, v, n);
                break;
            }
            case LCV_PSFB_AFB: {
                LCVRTCPRemb r;
                uint32_t ssrcs[255];
                if (lcv_rtcp_remb(p, &r)) {
                    for (int k = 0; k < r.nb_ssrc; k++)
                        ssrcs[k] = AV_RB32(r.ssrcs + 4 * k);
                    ret = lcv_rtcp_write_remb(&w, p->ssrc, r.bitrate, ssrcs, r.nb_ssrc);
                }
                break;
            }
            }
            break;
        case LCV_RTCP_XR: {
            LCVRTCPXrBlock *b = scratch.xr;
            int n = 0;
            while (n < FF_ARRAY_ELEMS(scratch.xr) && lcv_rtcp_xr_next(&it, &b[n]))
                n++;
            ret = lcv_rtcp_write_xr(&w, p->ssrc, b, n);
            break;
        }
        }
        /* a packet no typed writer covers goes out raw; a typed writer that
         * fails is an error of its own, not hidden behind the raw bytes */
        if (ret == NO_WRITER)
            ret = lcv_rtcp_write_raw(&w, p->type, p->fmt, p->data + 4, p->size - 4);
        if (ret < 0)
            return ret;
    }
    return lcv_rtcp_writer_finish(&w, 4);
}

/* one item of any list, for the walks below */
typedef union AnyItem {
    LCVRTCPReportBlock rb; LCVRTCPSdesItem sdes; LCVRTCPTmmbItem tmmb;
    LCVRTCPFirItem fir; LCVRTCPSliItem sli; LCVRTCPRpsi rpsi; LCVRTCPVbcmItem vbcm;
    LCVRTCPRemb remb; LCVRTCPTwcc twcc; LCVRTCPTwccItem twcc_item; LCVRTCPCcfbItem ccfb;
    LCVRTCPXrBlock xr; LCVRTCPXrRange range; LCVRTCPDlrrItem dlrr;
} AnyItem;

/* Read everything every accessor can reach; returns a checksum so that
 * nothing is optimized away. Used by the fuzzer too. */
static av_unused uint64_t walk(const LCVRTCPContext *ctx)
{
    uint64_t sum = 0;

    for (int i = 0; i < ctx->nb_packets; i++) {
        const LCVRTCPPacket *p = &ctx->packets[i];
        LCVRTCPIter it;
        AnyItem u;
        uint16_t seq;

        sum += p->type + p->fmt + p->size + p->ssrc;
        lcv_rtcp_iter_init(&it, p);
        switch (p->type) {
        case LCV_RTCP_SR:
        case LCV_RTCP_RR:
            for (int k = 0; k < p->rr.nb_reports; k++) {
                lcv_rtcp_report_block(p, k, &u.rb);
                sum += u.rb.ssrc + u.rb.cumulative_lost + u.rb.dlsr;
            }
            for (int k = 0; k < p->rr.ext_size; k++)
                sum += p->rr.ext[k];
            break;
        case LCV_RTCP_SDES:
            while (lcv_rtcp_sdes_next(&it, &u.sdes))
                for (int k = 0; k < u.sdes.len; k++)
                    sum += u.sdes.value[k] + (u.sdes.prefix_len ? u.sdes.prefix[0] : 0);
            break;
        case LCV_RTCP_BYE:
            for (int k = 0; k < 4 * p->bye.nb_ssrc; k++)
                sum += p->bye.ssrcs[k];
            for (int k = 0; k < p->bye.reason_len; k++)
                sum += p->bye.reason[k];
            break;
        case LCV_RTCP_APP:
            for (int k = 0; k < p->app.payload_size; k++)
                sum += p->app.payload[k];
            break;
        case LCV_RTCP_RTPFB:
            switch (p->fmt) {
            case LCV_RTPFB_NACK:  while (lcv_rtcp_nack_next(&it, &seq)) sum += seq; break;
            case LCV_RTPFB_TMMBR:
            case LCV_RTPFB_TMMBN: while (lcv_rtcp_tmmb_next(&it, &u.tmmb)) sum += u.tmmb.bitrate; break;
            case LCV_RTPFB_TWCC:
                lcv_rtcp_twcc(p, &u.twcc);
                sum += u.twcc.base_seq;
                while (lcv_rtcp_twcc_next(&it, &u.twcc_item))
                    sum += u.twcc_item.arrival_us;
                break;
            case LCV_RTPFB_CCFB:  while (lcv_rtcp_ccfb_next(&it, &u.ccfb)) sum += u.ccfb.ato + u.ccfb.seq; break;
            }
            break;
        case LCV_RTCP_PSFB:
            switch (p->fmt) {
            case LCV_PSFB_SLI:  while (lcv_rtcp_sli_next(&it, &u.sli)) sum += u.sli.first; break;
            case LCV_PSFB_RPSI:
                lcv_rtcp_rpsi(p, &u.rpsi);
                for (int k = 0; k < (u.rpsi.nb_bits + 7) / 8; k++)
                    sum += u.rpsi.bits[k];
                break;
            case LCV_PSFB_FIR:
            case LCV_PSFB_TSTR:
            case LCV_PSFB_TSTN: while (lcv_rtcp_fir_next(&it, &u.fir)) sum += u.fir.seq; break;
            case LCV_PSFB_VBCM:
                while (lcv_rtcp_vbcm_next(&it, &u.vbcm))
                    for (int k = 0; k < u.vbcm.len; k++)
                        sum += u.vbcm.data[k];
                break;
            case LCV_PSFB_AFB:
                if (lcv_rtcp_remb(p, &u.remb))
                    for (int k = 0; k < 4 * u.remb.nb_ssrc; k++)
                        sum += u.remb.ssrcs[k];
                break;
            }
            break;
        case LCV_RTCP_XR:
            while (lcv_rtcp_xr_next(&it, &u.xr)) {
                LCVRTCPXrBlock b = u.xr;
                for (int k = 0; k < b.size; k++)
                    sum += b.data[k];
                if (b.type == LCV_XR_LRLE || b.type == LCV_XR_DRLE || b.type == LCV_XR_PRT) {
                    lcv_rtcp_xr_range(&b, &u.range);
                    sum += u.range.end_seq;
                } else if (b.type == LCV_XR_DLRR) {
                    for (int k = 0; k < b.size / 12; k++) {
                        lcv_rtcp_xr_dlrr(&b, k, &u.dlrr);
                        sum += u.dlrr.dlrr;
                    }
                }
            }
            break;
        default:
            for (int k = 0; k < p->raw.payload_size; k++)
                sum += p->raw.payload[k];
        }
    }
    return sum;
}

/* What a reader of the packets sees, field by field, as a running hash and
 * a count: build(parse(x)) must keep every field. Left out, as the writers
 * may change them without changing what a reader learns: packet sizes and
 * padding, the profile-specific extension of SR/RR (no writer takes one),
 * how NACK numbers are grouped into FCIs (they are compared as a set), and
 * reserved fields the writers zero (XR's header bits, FIR's reserved bytes,
 * REMB's media SSRC). */
typedef struct Fields {
    uint64_t hash;
    int      count;
} Fields;

static void put(Fields *f, uint64_t v)
{
    f->hash = (f->hash ^ v) * 0x100000001b3ULL;
    f->hash ^= f->hash >> 29;
    f->count++;
}

static void put_all(Fields *f, const uint64_t *v, int n)
{
    for (int k = 0; k < n; k++)
        put(f, v[k]);
}
#define PUT(f, ...) put_all(f, (const uint64_t[]){ __VA_ARGS__ }, \
                            sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))

static void put_bytes(Fields *f, const uint8_t *p, int n)
{
    put(f, n);
    for (int k = 0; k < n; k++)
        put(f, p[k]);
}

static int cmp_u16(const void *a, const void *b)
{
    return *(const uint16_t *)a - *(const uint16_t *)b;
}

static Fields fields(const LCVRTCPContext *ctx)
{
    static uint16_t nacked[17 * (65536 / 4)];
    int n;
    Fields f = { 0xcbf29ce484222325ULL, 0 };

    put(&f, ctx->nb_packets);
    for (int i = 0; i < ctx->nb_packets; i++) {
        const LCVRTCPPacket *p = &ctx->packets[i];
        LCVRTCPIter it;
        AnyItem u;
        put(&f, p->type);
        /* XR: reserved bits; SDES: the chunk count, and the writer merges
         * adjacent chunks of one SSRC (the items are compared) */
        if (p->type != LCV_RTCP_XR && p->type != LCV_RTCP_SDES)
            put(&f, p->fmt);
        if (p->type != LCV_RTCP_BYE)   /* a BYE without SSRCs: reason bytes */
            put(&f, p->ssrc);
        lcv_rtcp_iter_init(&it, p);
        switch (p->type) {
        case LCV_RTCP_SR:
        case LCV_RTCP_RR:
            PUT(&f, p->rr.ntp, p->rr.rtp_ts, p->rr.packets, p->rr.octets, p->rr.nb_reports);
            for (int k = 0; k < p->rr.nb_reports; k++) {
                lcv_rtcp_report_block(p, k, &u.rb);
                PUT(&f, u.rb.ssrc, u.rb.fraction_lost, (uint32_t)u.rb.cumulative_lost,
                    u.rb.highest_seq, u.rb.jitter, u.rb.lsr, u.rb.dlsr);
            }
            break;
        case LCV_RTCP_SDES:
            while (lcv_rtcp_sdes_next(&it, &u.sdes)) {
                PUT(&f, u.sdes.ssrc, u.sdes.type);
                put_bytes(&f, u.sdes.value, u.sdes.len);
                put_bytes(&f, u.sdes.prefix, u.sdes.prefix_len);
            }
            break;
        case LCV_RTCP_BYE:
            put_bytes(&f, p->bye.ssrcs, 4 * p->bye.nb_ssrc);
            /* the writer takes the reason as a C string: up to a NUL */
            put(&f, !!p->bye.reason);
            if (p->bye.reason) {
                const uint8_t *nul = memchr(p->bye.reason, 0, p->bye.reason_len);
                put_bytes(&f, p->bye.reason, nul ? nul - p->bye.reason : p->bye.reason_len);
            }
            break;
        case LCV_RTCP_APP:
            put_bytes(&f, (const uint8_t *)p->app.name, 4);
            put_bytes(&f, p->app.payload, p->app.payload_size);
            break;
        case LCV_RTCP_RTPFB:
            if (p->fmt != LCV_RTPFB_TMMBR && p->fmt != LCV_RTPFB_TMMBN && p->fmt != LCV_RTPFB_CCFB)
                put(&f, p->fb.media_ssrc);
            switch (p->fmt) {
            case LCV_RTPFB_NACK:
                n = 0;
                while (n < FF_ARRAY_ELEMS(nacked) && lcv_rtcp_nack_next(&it, &nacked[n]))
                    n++;
                qsort(nacked, n, sizeof(*nacked), cmp_u16);
                for (int k = 0; k < n; k++)
                    if (!k || nacked[k] != nacked[k - 1])
                        put(&f, nacked[k]);
                break;
            case LCV_RTPFB_TMMBR:
            case LCV_RTPFB_TMMBN:
                while (lcv_rtcp_tmmb_next(&it, &u.tmmb)) {
                    PUT(&f, u.tmmb.ssrc, u.tmmb.bitrate, u.tmmb.overhead);
                }
                break;
            case LCV_RTPFB_RRR:
                break;
            case LCV_RTPFB_TWCC:
                lcv_rtcp_twcc(p, &u.twcc);
                PUT(&f, u.twcc.base_seq, u.twcc.status_count, (uint32_t)u.twcc.reference_time,
                    u.twcc.fb_count);
                while (lcv_rtcp_twcc_next(&it, &u.twcc_item)) {
                    PUT(&f, u.twcc_item.seq, u.twcc_item.status, (uint32_t)u.twcc_item.delta,
                        (uint64_t)u.twcc_item.arrival_us);
                }
                break;
            case LCV_RTPFB_CCFB:
                put(&f, p->ccfb.report_timestamp);
                while (lcv_rtcp_ccfb_next(&it, &u.ccfb)) {
                    PUT(&f, u.ccfb.ssrc, u.ccfb.seq, u.ccfb.received, u.ccfb.ecn, u.ccfb.ato);
                }
                break;
            default:
                put_bytes(&f, p->fb.fci, p->fb.fci_size);
            }
            break;
        case LCV_RTCP_PSFB:
            /* FIR, TSTR/TSTN and VBCM name the media in their FCIs; REMB's
             * media SSRC is always 0 on the wire (the writer writes 0) */
            if (p->fmt != LCV_PSFB_FIR && p->fmt != LCV_PSFB_TSTR && p->fmt != LCV_PSFB_TSTN &&
                p->fmt != LCV_PSFB_VBCM && !(p->fmt == LCV_PSFB_AFB && lcv_rtcp_remb(p, &u.remb)))
                put(&f, p->fb.media_ssrc);
            switch (p->fmt) {
            case LCV_PSFB_PLI:
                break;
            case LCV_PSFB_SLI:
                while (lcv_rtcp_sli_next(&it, &u.sli)) {
                    PUT(&f, u.sli.first, u.sli.number, u.sli.picture_id);
                }
                break;
            case LCV_PSFB_RPSI:
                lcv_rtcp_rpsi(p, &u.rpsi);
                PUT(&f, u.rpsi.payload_type, u.rpsi.nb_bits);
                for (int k = 0; k < u.rpsi.nb_bits; k++)
                    put(&f, u.rpsi.bits[k >> 3] >> (7 - (k & 7)) & 1);
                break;
            case LCV_PSFB_FIR:
            case LCV_PSFB_TSTR:
            case LCV_PSFB_TSTN:
                while (lcv_rtcp_fir_next(&it, &u.fir)) {
                    PUT(&f, u.fir.ssrc, u.fir.seq);
                    if (p->fmt != LCV_PSFB_FIR)     /* FIR: reserved bits */
                        put(&f, u.fir.index);
                }
                break;
            case LCV_PSFB_VBCM:
                while (lcv_rtcp_vbcm_next(&it, &u.vbcm)) {
                    PUT(&f, u.vbcm.ssrc, u.vbcm.seq, u.vbcm.payload_type);
                    put_bytes(&f, u.vbcm.data, u.vbcm.len);
                }
                break;
            case LCV_PSFB_AFB:
                if (lcv_rtcp_remb(p, &u.remb)) {
                    put(&f, u.remb.bitrate);
                    put_bytes(&f, u.remb.ssrcs, 4 * u.remb.nb_ssrc);
                } else {
                    put_bytes(&f, p->fb.fci, p->fb.fci_size);
                }
                break;
            default:
                put_bytes(&f, p->fb.fci, p->fb.fci_size);
            }
            break;
        case LCV_RTCP_XR:
            while (lcv_rtcp_xr_next(&it, &u.xr)) {
                PUT(&f, u.xr.type, u.xr.type_specific);
                put_bytes(&f, u.xr.data, u.xr.size);
            }
            break;
        default:
            put_bytes(&f, p->raw.payload, p->raw.payload_size);
        }
    }
    return f;
}

static void check_rebuild(void)
{
    TEST_CTX(ctx);
    uint8_t buf[2048];
    int ok = 0;

    for (int i = 0; i < FF_ARRAY_ELEMS(vectors); i++) {
        const Vector *v = &vectors[i];
        int size;
        if (lcv_rtcp_parse(&ctx, v->data, v->size, v->flags) < 0) {
            printf("FAIL: %s does not parse: %s\n", v->name, ctx.error);
            failures++;
            continue;
        }
        size = rebuild(&ctx, buf, sizeof(buf));
        if (!v->rebuild && size >= 0) {
            TEST_CTX(ctx2);
            Fields a = fields(&ctx), b;
            int n = lcv_rtcp_parse(&ctx2, buf, size, v->flags);
            b = fields(&ctx2);
            if (n != ctx.nb_packets || a.hash != b.hash || a.count != b.count) {
                printf("FAIL: %s rebuilt decodes differently (%d of %d fields)\n", v->name,
                       b.count, a.count);
                failures++;
                continue;
            }
        } else if (size < 0) {
            printf("FAIL: %s: a writer refused what was parsed: %s\n", v->name, av_err2str(size));
            failures++;
            continue;
        } else if (size != v->size || memcmp(buf, v->data, size)) {
            printf("FAIL: %s rebuilt differs (%d bytes, want %d)\n", v->name, size, v->size);
            failures++;
            continue;
        }
        ok++;
    }
    printf("build(parse(bytes)) == bytes: %d of %d vectors\n", ok, (int)FF_ARRAY_ELEMS(vectors));
}

/* parse(build(x)) == x for values the vectors do not cover: many report
 * blocks, long NACK lists, long TWCC reports, padding, writer errors */
static void check_roundtrip(void)
{
    uint8_t buf[4096];
    LCVRTCPWriter w;
    TEST_CTX(ctx);
    LCVRTCPReportBlock rb[31], got;
    LCVRTCPIter it;
    uint16_t seqs[300], seq;
    LCVRTCPTwcc tw = { .base_seq = 65500, .status_count = 200, .reference_time = -5, .fb_count = 255 };
    LCVRTCPTwccItem ti[200], t;
    int size, n, ok;

    for (int i = 0; i < 31; i++)
        rb[i] = (LCVRTCPReportBlock){ .ssrc = 1000 + i, .fraction_lost = i * 8,
            .cumulative_lost = i - 15, .highest_seq = 70000 + i, .jitter = 3 * i,
            .lsr = 0x10000 * i, .dlsr = 77 * i };
    for (int i = 0; i < 300; i++)       /* losses across the 16-bit wrap */
        seqs[i] = (uint16_t)(65400 + i * 3 + (i % 7 == 0));
    for (int i = 0; i < 200; i++) {
        ti[i].status = i % 11 == 0 ? 0 : i % 13 == 0 ? 2 : 1;
        ti[i].delta  = ti[i].status == 2 ? -300 - i : ti[i].status ? i % 256 : 0;
    }

    lcv_rtcp_writer_init(&w, buf, sizeof(buf));
    CHECK(lcv_rtcp_write_sr(&w, 7, 1ULL << 40, 9, 10, 11, rb, 31) == 4 + 24 + 31 * 24);
    CHECK(lcv_rtcp_write_nack(&w, 7, 8, seqs, 300) > 0);
    CHECK(lcv_rtcp_write_twcc(&w, 7, 8, &tw, ti) > 0);
    CHECK(lcv_rtcp_write_bye(&w, (const uint32_t[]){ 7, 8 }, 2, "bye now") == 20);
    size = lcv_rtcp_writer_finish(&w, 16);
    CHECK(size > 0 && size % 16 == 0);

    CHECK(lcv_rtcp_parse(&ctx, buf, size, 0) == 4);
    CHECK(ctx.packets[0].rr.nb_reports == 31);
    for (int i = 0; i < 31; i++) {
        lcv_rtcp_report_block(&ctx.packets[0], i, &got);
        CHECK(got.ssrc == rb[i].ssrc && got.fraction_lost == rb[i].fraction_lost &&
              got.cumulative_lost == rb[i].cumulative_lost && got.highest_seq == rb[i].highest_seq &&
              got.jitter == rb[i].jitter && got.lsr == rb[i].lsr && got.dlsr == rb[i].dlsr);
    }
    lcv_rtcp_iter_init(&it, &ctx.packets[1]);
    n = 0; ok = 1;
    while (lcv_rtcp_nack_next(&it, &seq)) {
        ok &= n < 300 && seq == seqs[n];
        n++;
    }
    CHECK(ok && n == 300);
    lcv_rtcp_iter_init(&it, &ctx.packets[2]);
    n = 0; ok = 1;
    while (lcv_rtcp_twcc_next(&it, &t)) {
        ok &= n < 200 && t.seq == (uint16_t)(65500 + n) && t.status == ti[n].status &&
              t.delta == ti[n].delta;
        n++;
    }
    CHECK(ok && n == 200);
    CHECK(ctx.packets[3].padding > 0 && ctx.packets[3].bye.reason_len == 7);

    /* typed XR blocks */
    {
        static const LCVRTCPDlrrItem dl[2] = { { 5, 6, 7 }, { 8, 9, 10 } };
        static const LCVRTCPXrRange rg = { .ssrc = 3, .begin_seq = 65530, .end_seq = 2, .thinning = 1 };
        static const uint32_t chunks[3] = { 0x4005, 0x8123, 0xbfff }, times[4] = { 1, 2, 3, 4 };
        static const LCVRTCPXrStats st = { .ssrc = 4, .begin_seq = 1, .end_seq = 9, .flags = 0xe8,
            .lost = 2, .dup = 1, .min_jitter = 3, .max_jitter = 9, .mean_jitter = 5, .dev_jitter = 2,
            .min_ttl = 60, .max_ttl = 64, .mean_ttl = 62, .dev_ttl = 1 };
        static const LCVRTCPXrVoip vo = { .ssrc = 5, .loss_rate = 12, .burst_duration = 300,
            .round_trip_delay = 80, .signal_level = -20, .noise_level = -70, .mos_lq = 41,
            .jb_abs_max = 500 };
        uint8_t store[5][128];
        LCVRTCPXrBlock blk[5], b;
        LCVRTCPXrRange r;
        LCVRTCPDlrrItem d;
        LCVRTCPXrStats st2;
        LCVRTCPXrVoip vo2;
        int k = 0;

        CHECK(lcv_rtcp_xr_make_rrtr(&blk[0], store[0], 128, 0x0123456789abcdefULL) == 8);
        CHECK(lcv_rtcp_xr_make_dlrr(&blk[1], store[1], 128, dl, 2) == 24);
        CHECK(lcv_rtcp_xr_make_range(&blk[2], store[2], 128, LCV_XR_LRLE, &rg, chunks, 3) == 16);
        CHECK(lcv_rtcp_xr_make_stats(&blk[3], store[3], 128, &st) == 36);
        CHECK(lcv_rtcp_xr_make_voip(&blk[4], store[4], 128, &vo) == 32);
        CHECK(lcv_rtcp_xr_make_range(&b, store[0], 8, LCV_XR_PRT, &rg, times, 4) == AVERROR(ENOSPC));
        lcv_rtcp_writer_init(&w, buf, sizeof(buf));
        CHECK(lcv_rtcp_write_rr(&w, 1, NULL, 0) == 8);
        CHECK(lcv_rtcp_write_xr(&w, 1, blk, 5) == 8 + 4 * 5 + 8 + 24 + 16 + 36 + 32);
        size = lcv_rtcp_writer_finish(&w, 4);
        CHECK(lcv_rtcp_parse(&ctx, buf, size, 0) == 2);
        lcv_rtcp_iter_init(&it, &ctx.packets[1]);
        while (lcv_rtcp_xr_next(&it, &b)) {
            switch (k++) {
            case 0: CHECK(b.type == LCV_XR_RRTR && AV_RB64(b.data) == 0x0123456789abcdefULL); break;
            case 1:
                lcv_rtcp_xr_dlrr(&b, 1, &d);
                CHECK(b.type == LCV_XR_DLRR && b.size == 24 && d.ssrc == 8 && d.lrr == 9 && d.dlrr == 10);
                break;
            case 2:
                lcv_rtcp_xr_range(&b, &r);
                CHECK(r.ssrc == 3 && r.begin_seq == 65530 && r.end_seq == 2 && r.thinning == 1 &&
                      AV_RB16(b.data + 12) == 0xbfff && !AV_RB16(b.data + 14));
                break;
            case 3:
                lcv_rtcp_xr_stats(&b, &st2);
                CHECK(st2.flags == 0xe8 && st2.lost == 2 && st2.dev_jitter == 2 && st2.mean_ttl == 62);
                break;
            case 4:
                lcv_rtcp_xr_voip(&b, &vo2);
                CHECK(vo2.loss_rate == 12 && vo2.burst_duration == 300 && vo2.signal_level == -20 &&
                      vo2.noise_level == -70 && vo2.mos_lq == 41 && vo2.jb_abs_max == 500);
                break;
            }
        }
        CHECK(k == 5);
    }

    /* no partial packets: a writer that runs out of room writes nothing */
    lcv_rtcp_writer_init(&w, buf, 40);
    CHECK(lcv_rtcp_write_rr(&w, 1, rb, 1) == 32);
    CHECK(lcv_rtcp_write_pli(&w, 1, 2) == AVERROR(ENOSPC) && w.pos == 32);
    CHECK(lcv_rtcp_write_sr(&w, 1, 0, 0, 0, 0, rb, 32) == AVERROR(EINVAL));
    CHECK(lcv_rtcp_writer_finish(&w, 24) == AVERROR(ENOSPC));
    printf("parse(build(x)) == x: 31 report blocks, 300 NACKed sequence numbers across the wrap, "
           "200 TWCC statuses, BYE reason and padding, typed XR blocks\n");
}

/* ------------------------------------------------------------------------
 * malformed datagrams: each must be refused with the right reason */

typedef struct Bad {
    const char *bug;            /* the bug class it stands for */
    const uint8_t *data;
    int size, flags;
    const char *why;            /* part of the expected reason */
} Bad;

#define B(bug, flags, why, ...) { bug, (const uint8_t[]){ __VA_ARGS__ }, \
    sizeof((const uint8_t[]){ __VA_ARGS__ }), flags, why }

static const uint8_t rr_hdr[] = { 0x80, 0xc9, 0x00, 0x01, 0, 0, 0, 1 };

/* libwebrtc's transport-cc feedback, reduced-size: 4 packets received
 * (one run-length chunk, small deltas 4, 8, 12, 16 x 250 us), 26 bytes
 * padded to 28 with a padding count of 2, as libwebrtc writes it */
static void test_twcc_padding(void)
{
    static const uint8_t d[] = {
        0xaf, 0xcd, 0x00, 0x06, 0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x22, 0x22,
        0x00, 0x10, 0x00, 0x04, 0x12, 0x34, 0x56, 0x07, 0x20, 0x04, 4, 8, 12, 16, 0x00, 0x02,
    };
    LCVRTCPContext *ctx = lcv_rtcp_context_alloc();
    LCVRTCPIter it;
    LCVRTCPTwccItem item;
    LCVRTCPTwcc tw;
    int n = 0, ret;

    if (!ctx)
        return;
    ret = lcv_rtcp_parse(ctx, d, sizeof(d), LCV_RTCP_FLAG_REDUCED_SIZE);
    CHECK(ret == 1);
    if (ret == 1) {
        CHECK(ctx->packets[0].padding == 2 && ctx->packets[0].size == 26);
        lcv_rtcp_twcc(&ctx->packets[0], &tw);
        CHECK(tw.base_seq == 16 && tw.status_count == 4 && tw.fb_count == 7);
        lcv_rtcp_iter_init(&it, &ctx->packets[0]);
        while (lcv_rtcp_twcc_next(&it, &item) > 0) {
            CHECK(item.seq == 16 + n && item.status == 1 && item.delta == 4 * (n + 1));
            n++;
        }
        CHECK(n == 4);
    }
    lcv_rtcp_context_free(&ctx);
}

static const Bad bad[] = {
    B("length past the end",              0, "past the end of the datagram", 0x80, 0xc9, 0x00, 0x07, 0, 0, 0, 1),
    B("version 1",                        0, "version", 0x40, 0xc9, 0x00, 0x01, 0, 0, 0, 1),
    B("first packet not SR/RR",           0, "neither SR nor RR", 0x81, 0xce, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 2),
    B("Janus: count vs compound",         0, "report count past the end of the packet",
      0x81, 0xc9, 0x00, 0x01, 0, 0, 0, 1,
      0x80, 0xcc, 0x00, 0x06, 0, 0, 0, 1, 'N', 'A', 'M', 'E', 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16),
    B("padding not on the last packet",   0, "padding on a packet",
      0xa0, 0xc9, 0x00, 0x01, 0, 0, 0, 4,  0x80, 0xc9, 0x00, 0x01, 0, 0, 0, 1),
    B("padding count 0",                  0, "bad padding", 0xa0, 0xc9, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 0),
    B("padding count 3",                  0, "bad padding", 0xa0, 0xc9, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 3),
    B("padding count past the packet",    0, "bad padding", 0xa0, 0xc9, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 16),
    B("SR shorter than sender info",      0, "sender info", 0x80, 0xc8, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 0),
    B("PJSIP: SDES item length",          0, "SDES item length",
      0x80, 0xc9, 0x00, 0x01, 0, 0, 0, 1,  0x81, 0xca, 0x00, 0x02, 0, 0, 0, 1, 0x01, 0x40, 'a', 'b'),
    B("SDES without END",                 0, "without END",
      0x80, 0xc9, 0x00, 0x01, 0, 0, 0, 1,  0x81, 0xca, 0x00, 0x02, 0, 0, 0, 1, 0x01, 0x02, 'a', 'b'),
    B("SDES PRIV prefix",                 0, "PRIV",
      0x80, 0xc9, 0x00, 0x01, 0, 0, 0, 1,  0x81, 0xca, 0x00, 0x03, 0, 0, 0, 1, 0x08, 0x02, 0x05, 'a', 0, 0, 0, 0),
    B("SDES chunk count",                 0, "SDES chunk SSRC",
      0x80, 0xc9, 0x00, 0x01, 0, 0, 0, 1,  0x82, 0xca, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 0),
    B("CVE-2021-43804: BYE reason length", 0, "BYE reason length",
      0x80, 0xc9, 0x00, 0x01, 0, 0, 0, 1,  0x81, 0xcb, 0x00, 0x02, 0, 0, 0, 1, 0xff, 'x', 'y', 'z'),
    B("BYE count",                        0, "BYE source count",
      0x80, 0xc9, 0x00, 0x01, 0, 0, 0, 1,  0x85, 0xcb, 0x00, 0x01, 0, 0, 0, 1),
    B("APP without name",                 0, "APP shorter",
      0x80, 0xc9, 0x00, 0x01, 0, 0, 0, 1,  0x80, 0xcc, 0x00, 0x01, 0, 0, 0, 1),
    B("CVE-2024-35434: XR block length",  RS, "XR block length",
      0x80, 0xcf, 0x00, 0x03, 0, 0, 0, 1,  0x04, 0x00, 0x00, 0x40, 0, 0, 0, 0),
    B("XR RRTR length",                   RS, "RRTR",
      0x80, 0xcf, 0x00, 0x02, 0, 0, 0, 1,  0x04, 0x00, 0x00, 0x00),
    B("XR PRT range across the wrap",     RS, "PRT receipt times",
      0x80, 0xcf, 0x00, 0x05, 0, 0, 0, 1,  0x03, 0x00, 0x00, 0x03, 0, 0, 0, 2, 0xff, 0xf0, 0x00, 0x10, 0, 0, 0, 1),
    B("XR DLRR length",                   RS, "DLRR",
      0x80, 0xcf, 0x00, 0x03, 0, 0, 0, 1,  0x05, 0x00, 0x00, 0x01, 0, 0, 0, 2),
    B("NACK without FCI",                 RS, "NACK FCI", 0x81, 0xcd, 0x00, 0x02, 0, 0, 0, 1, 0, 0, 0, 2),
    B("FIR item count overflow",          RS, "FIR/TSTR/TSTN",
      0x84, 0xce, 0x00, 0x05, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0, 0, 0, 0, 0, 3),
    B("TWCC truncated chunks",            RS, "chunks past the end",
      0x8f, 0xcd, 0x00, 0x04, 0, 0, 0, 1, 0, 0, 0, 2, 0x00, 0x01, 0x00, 0x64, 0, 0, 0, 0),
    B("TWCC deltas past the end",         RS, "deltas past the end",
      0x8f, 0xcd, 0x00, 0x05, 0, 0, 0, 1, 0, 0, 0, 2, 0x00, 0x01, 0x00, 0x20, 0, 0, 0, 0, 0x40, 0x20, 0, 0),
    B("TWCC run length 0",                RS, "length 0",
      0x8f, 0xcd, 0x00, 0x05, 0, 0, 0, 1, 0, 0, 0, 2, 0x00, 0x01, 0x00, 0x01, 0, 0, 0, 0, 0x20, 0x00, 0, 0),
    B("TWCC reserved status",             RS, "reserved status",
      0x8f, 0xcd, 0x00, 0x05, 0, 0, 0, 1, 0, 0, 0, 2, 0x00, 0x01, 0x00, 0x01, 0, 0, 0, 0, 0x60, 0x01, 0, 0),
    B("pion CCFB: num_reports wrap",      RS, "num_reports",
      0x8b, 0xcd, 0x00, 0x05, 0, 0, 0, 1, 0, 0, 0, 2, 0xff, 0xf0, 0xff, 0xff, 0, 0, 0, 0, 1, 2, 3, 4),
    B("CCFB metrics past the end",        RS, "metric blocks",
      0x8b, 0xcd, 0x00, 0x05, 0, 0, 0, 1, 0, 0, 0, 2, 0x00, 0x01, 0x00, 0x09, 0, 0, 0, 0, 1, 2, 3, 4),
    B("REMB SSRC count",                  RS, "REMB SSRC count",
      0x8f, 0xce, 0x00, 0x04, 0, 0, 0, 1, 0, 0, 0, 0, 'R', 'E', 'M', 'B', 0x09, 0x00, 0x00, 0x01),
    B("VBCM length",                      RS, "VBCM bit string",
      0x87, 0xce, 0x00, 0x04, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0x60, 0x01, 0x00),
    B("RPSI padding bits",                RS, "RPSI padding",
      0x83, 0xce, 0x00, 0x03, 0, 0, 0, 1, 0, 0, 0, 2, 0xff, 0x60, 0, 0),
    B("PLI with FCI",                     RS, "PLI with FCI",
      0x81, 0xce, 0x00, 0x03, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0),
    B("GPAC: unknown type past the end",  RS, "past the end of the datagram",
      0x80, 0xd0, 0x40, 0x00, 1, 2, 3, 4),
    B("not a multiple of 4",              0, "multiple of 4", 0x80, 0xc9, 0x00, 0x01, 0, 0, 0, 1, 0),
};

static void check_malformed(void)
{
    TEST_CTX(ctx);
    int ok = 0, n = FF_ARRAY_ELEMS(bad);
    uint8_t many[65 * 8];

    for (int i = 0; i < n; i++) {
        int ret = lcv_rtcp_parse(&ctx, bad[i].data, bad[i].size, bad[i].flags);
        if (ret != AVERROR_INVALIDDATA || !ctx.error || !strstr(ctx.error, bad[i].why) ||
            ctx.nb_packets) {
            printf("FAIL: %s: %d, '%s'\n", bad[i].bug, ret, ctx.error ? ctx.error : "");
            failures++;
        } else {
            printf("refused %-36s: %s (offset %d)\n", bad[i].bug, ctx.error, ctx.error_offset);
            ok++;
        }
    }
    /* zero length, NULL, too short, too many packets */
    CHECK(lcv_rtcp_parse(&ctx, NULL, 0, 0) == AVERROR_INVALIDDATA);
    CHECK(lcv_rtcp_parse(&ctx, rr_hdr, 0, 0) == AVERROR_INVALIDDATA);
    CHECK(lcv_rtcp_parse(&ctx, rr_hdr, 2, 0) == AVERROR_INVALIDDATA);
    for (int i = 0; i < 65; i++)
        memcpy(many + 8 * i, rr_hdr, 8);
    CHECK(lcv_rtcp_parse(&ctx, many, 64 * 8, 0) == 64);
    CHECK(lcv_rtcp_parse(&ctx, many, 65 * 8, 0) == AVERROR_INVALIDDATA &&
          strstr(ctx.error, "more packets"));
    printf("malformed: %d of %d refused with the expected reason\n", ok, n);
}

/* Values a hostile peer chooses. Each datagram is RR + SDES + the packet
 * under test, as reported against an earlier version of the library. */
static int from_hex(uint8_t *out, int max, const char *hex)
{
    int n = 0;
    for (; hex[0] && hex[1] && n < max; hex += 2)
        sscanf(hex, "%2hhx", &out[n++]);
    return n;
}

/* SDES as the iterator reads it, written back: two chunks, a PRIV item
 * with its prefix, and a chunk without items (the END item); and an SDES
 * without chunks. Each parses back to the same items. */
static void check_sdes_chunks(void)
{
    static const uint8_t cname[] = "a@b", note[] = "value", prefix[] = "pre";
    const LCVRTCPSdesItem in[] = {
        { .ssrc = 1, .type = LCV_SDES_CNAME, .value = cname, .len = 3 },
        { .ssrc = 1, .type = LCV_SDES_PRIV, .value = note, .len = 5, .prefix = prefix, .prefix_len = 3 },
        /* a chunk without items between chunks of its SSRC stays a chunk */
        { .ssrc = 1, .type = LCV_SDES_END },
        { .ssrc = 1, .type = LCV_SDES_NOTE, .value = note, .len = 5 },
        { .ssrc = 2, .type = LCV_SDES_END },
        { .ssrc = 3, .type = LCV_SDES_NOTE, .value = note, .len = 5 },
    };
    TEST_CTX(ctx);
    LCVRTCPSdesItem out[8];
    LCVRTCPIter it;
    LCVRTCPWriter w;
    uint8_t buf[256];
    int size, n = 0;

    lcv_rtcp_writer_init(&w, buf, sizeof(buf));
    CHECK(lcv_rtcp_write_sdes(&w, in, FF_ARRAY_ELEMS(in)) > 0);
    size = lcv_rtcp_writer_finish(&w, 4);
    CHECK(size > 0 && lcv_rtcp_parse(&ctx, buf, size, LCV_RTCP_FLAG_REDUCED_SIZE) == 1);
    CHECK(ctx.nb_packets == 1 && ctx.packets[0].sdes.nb_chunks == 5);
    lcv_rtcp_iter_init(&it, &ctx.packets[0]);
    while (n < 8 && lcv_rtcp_sdes_next(&it, &out[n]))
        n++;
    CHECK(n == FF_ARRAY_ELEMS(in));
    for (int i = 0; i < n && i < FF_ARRAY_ELEMS(in); i++)
        CHECK(out[i].ssrc == in[i].ssrc && out[i].type == in[i].type && out[i].len == in[i].len &&
              (!in[i].len || !memcmp(out[i].value, in[i].value, in[i].len)) &&
              out[i].prefix_len == in[i].prefix_len &&
              (!in[i].prefix_len || !memcmp(out[i].prefix, in[i].prefix, in[i].prefix_len)));
    /* no items: an SDES without chunks, 4 bytes */
    lcv_rtcp_writer_init(&w, buf, sizeof(buf));
    CHECK(lcv_rtcp_write_sdes(&w, NULL, 0) == 4 && buf[0] == 0x80 && buf[1] == LCV_RTCP_SDES);
    /* still refused: END with a length, a PRIV prefix that does not fit */
    {
        LCVRTCPSdesItem bad = { .ssrc = 1, .type = LCV_SDES_END, .value = note, .len = 1 };
        LCVRTCPSdesItem big = { .ssrc = 1, .type = LCV_SDES_PRIV, .value = buf, .len = 250,
                                .prefix = prefix, .prefix_len = 5 };
        lcv_rtcp_writer_init(&w, buf, sizeof(buf));
        CHECK(lcv_rtcp_write_sdes(&w, &bad, 1) == AVERROR(EINVAL));
        CHECK(lcv_rtcp_write_sdes(&w, &big, 1) == AVERROR(EINVAL));
    }
    printf("SDES: chunks with a PRIV item, chunks without items (one between chunks of its SSRC) and an "
           "empty SDES written and read back\n");
}

static void check_hostile_values(void)
{
    static const char tmmbr_exp63[] = /* TMMBR mantissa 2, exponent 63: wrapped to 0 */
        "81c90007222222221111111110000003000102030000002aaabbccdd0001000081ca000622222222"
        "010e636e616d652d32323232323232320000000083cd0004222222220000000011111111fc000428";
    static const char remb_exp62[] = /* REMB mantissa 4, exponent 62: wrapped to 0 */
        "81c90007222222221111111110000003000102030000002aaabbccdd0001000081ca000622222222"
        "010e636e616d652d3232323232323232000000008fce0005222222220000000052454d4201f8000411111111";
    static const char bye_trailing[] = /* BYE reason "x", its padding, then 8 more bytes */
        "81c90007222222221111111110000003000102030000002aaabbccdd0001000081ca000622222222"
        "010e636e616d652d32323232323232320000000081cb00042222222201780000deadbeefcafebabe";
    TEST_CTX(ctx);
    LCVRTCPIter it;
    LCVRTCPTmmbItem t;
    LCVRTCPRemb r;
    uint8_t d[128];
    int n;

    n = from_hex(d, sizeof(d), tmmbr_exp63);
    CHECK(lcv_rtcp_parse(&ctx, d, n, 0) == 3 && ctx.packets[2].fmt == LCV_RTPFB_TMMBR);
    if (ctx.nb_packets == 3) {
        lcv_rtcp_iter_init(&it, &ctx.packets[2]);
        CHECK(lcv_rtcp_tmmb_next(&it, &t) && t.bitrate == UINT64_MAX && t.overhead == 40);
        printf("TMMBR 2 << 63 reads as %"PRIu64"\n", t.bitrate);
    }
    /* the largest exact value: mantissa 1, exponent 63 */
    d[n - 4] = 0xfc;
    d[n - 3] = 0x00;
    d[n - 2] = 0x02;
    CHECK(lcv_rtcp_parse(&ctx, d, n, 0) == 3);
    if (ctx.nb_packets == 3) {
        lcv_rtcp_iter_init(&it, &ctx.packets[2]);
        CHECK(lcv_rtcp_tmmb_next(&it, &t) && t.bitrate == 1ULL << 63);
    }

    n = from_hex(d, sizeof(d), remb_exp62);
    CHECK(lcv_rtcp_parse(&ctx, d, n, 0) == 3 && lcv_rtcp_remb(&ctx.packets[2], &r) &&
          r.bitrate == UINT64_MAX && r.nb_ssrc == 1);
    printf("REMB 4 << 62 reads as %"PRIu64"\n", r.bitrate);
    /* mantissa 2, exponent 62: 2^63, exact */
    d[n - 7] = 0xf8;
    d[n - 6] = 0x00;
    d[n - 5] = 0x02;
    CHECK(lcv_rtcp_parse(&ctx, d, n, 0) == 3 && lcv_rtcp_remb(&ctx.packets[2], &r) &&
          r.bitrate == 1ULL << 63);

    n = from_hex(d, sizeof(d), bye_trailing);
    CHECK(lcv_rtcp_parse(&ctx, d, n, 0) == AVERROR_INVALIDDATA && ctx.error &&
          strstr(ctx.error, "BYE longer than its reason"));
    printf("BYE with trailing bytes: %s\n", ctx.error ? ctx.error : "accepted");
    /* the same BYE without the 8 bytes, its length fixed: accepted */
    d[n - 17] = 2;
    CHECK(lcv_rtcp_parse(&ctx, d, n - 8, 0) == 3 && ctx.packets[2].bye.reason_len == 1 &&
          ctx.packets[2].bye.reason[0] == 'x');
    /* one word more: refused */
    d[n - 17] = 3;
    CHECK(lcv_rtcp_parse(&ctx, d, n - 4, 0) == AVERROR_INVALIDDATA);

    /* the saturated value written back reads as saturated again, and the
     * largest exact values stay exact */
    {
        static const uint64_t rates[] = { UINT64_MAX, 1ULL << 63, 0x1ffffULL << 47, 12345 };
        for (int k = 0; k < FF_ARRAY_ELEMS(rates); k++) {
            LCVRTCPTmmbItem in = { 7, rates[k], 40 };
            LCVRTCPWriter w;
            lcv_rtcp_writer_init(&w, d, sizeof(d));
            CHECK(lcv_rtcp_write_tmmb(&w, LCV_RTPFB_TMMBR, 1, &in, 1) > 0 &&
                  lcv_rtcp_write_remb(&w, 1, rates[k], NULL, 0) > 0);
            n = lcv_rtcp_writer_finish(&w, 4);
            CHECK(lcv_rtcp_parse(&ctx, d, n, LCV_RTCP_FLAG_REDUCED_SIZE) == 2);
            if (ctx.nb_packets == 2) {
                lcv_rtcp_iter_init(&it, &ctx.packets[0]);
                CHECK(lcv_rtcp_tmmb_next(&it, &t) && t.bitrate == rates[k]);
                CHECK(lcv_rtcp_remb(&ctx.packets[1], &r) && r.bitrate == rates[k]);
            }
        }
    }
}

/* the largest value of each field the vectors leave small, written and read back */
static void check_field_limits(void)
{
    const LCVRTCPTmmbItem tmmb = { .ssrc = 5, .bitrate = 1000000, .overhead = 511 };
    const LCVRTCPSliItem sli = { .first = 8191, .number = 8191, .picture_id = 63 };
    TEST_CTX(ctx);
    LCVRTCPTmmbItem t;
    LCVRTCPSliItem l;
    LCVRTCPIter it;
    LCVRTCPWriter w;
    uint8_t buf[128];
    int size;

    lcv_rtcp_writer_init(&w, buf, sizeof(buf));
    CHECK(lcv_rtcp_write_tmmb(&w, LCV_RTPFB_TMMBN, 1, &tmmb, 1) > 0);
    CHECK(lcv_rtcp_write_sli(&w, 1, 2, &sli, 1) > 0);
    size = lcv_rtcp_writer_finish(&w, 4);
    CHECK(lcv_rtcp_parse(&ctx, buf, size, LCV_RTCP_FLAG_REDUCED_SIZE) == 2);
    if (ctx.nb_packets == 2) {
        lcv_rtcp_iter_init(&it, &ctx.packets[0]);
        CHECK(lcv_rtcp_tmmb_next(&it, &t) && t.ssrc == 5 && t.bitrate == 1000000 && t.overhead == 511);
        lcv_rtcp_iter_init(&it, &ctx.packets[1]);
        CHECK(lcv_rtcp_sli_next(&it, &l) && l.first == 8191 && l.number == 8191 && l.picture_id == 63);
    }
    printf("field limits: TMMBN overhead 511, SLI 8191/8191/63 written and read back\n");
}

static void check_options(void)
{
    TEST_CTX(ctx);
    uint8_t d[sizeof(v_rr_sdes_bye)];

    /* reduced-size: a lone PLI */
    CHECK(lcv_rtcp_parse(&ctx, v_pli, sizeof(v_pli), 0) == AVERROR_INVALIDDATA);
    CHECK(lcv_rtcp_parse(&ctx, v_pli, sizeof(v_pli), LCV_RTCP_FLAG_REDUCED_SIZE) == 1);
    /* keep the valid packets before a bad one: break the BYE's reason */
    memcpy(d, v_rr_sdes_bye, sizeof(d));
    d[32] = 40;
    CHECK(lcv_rtcp_parse(&ctx, d, sizeof(d), 0) == AVERROR_INVALIDDATA && ctx.nb_packets == 0);
    CHECK(lcv_rtcp_parse(&ctx, d, sizeof(d), LCV_RTCP_FLAG_KEEP_VALID) == AVERROR_INVALIDDATA &&
          ctx.nb_packets == 2 && ctx.error_offset == 24 && ctx.packets[1].type == LCV_RTCP_SDES);
    printf("options: reduced-size accepts a lone PLI; keep-valid keeps 2 packets before a bad BYE\n");
}

static void check_pool(void)
{
    LCVRTCPPool *pool = lcv_rtcp_pool_alloc(4);
    LCVRTCPContext *c[5];

    CHECK(pool);
    if (!pool)
        return;
    for (int i = 0; i < 4; i++)
        CHECK((c[i] = lcv_rtcp_pool_get(pool)));
    CHECK(!(c[4] = lcv_rtcp_pool_get(pool)));   /* the cap: no unbounded growth */
    CHECK(lcv_rtcp_parse(c[0], v_six, sizeof(v_six), 0) == 6);
    lcv_rtcp_context_release(&c[3]);
    CHECK(!c[3] && (c[3] = lcv_rtcp_pool_get(pool)) && !c[3]->nb_packets);
    /* free the pool with contexts out: they stay usable until released */
    lcv_rtcp_pool_free(&pool);
    CHECK(!pool);
    CHECK(c[0]->nb_packets == 6 && c[0]->packets[5].type == LCV_RTCP_APP);
    CHECK(lcv_rtcp_parse(c[1], v_sr, sizeof(v_sr), 0) == 1);
    for (int i = 0; i < 4; i++)
        lcv_rtcp_context_release(&c[i]);
    printf("pool: capped at 4 contexts, contexts outlive the pool\n");
}

/* A context of its own: the packets fit (the most a datagram holds), a
 * failed parse leaves it empty, and each one is apart from the others */
static void check_context_alloc(void)
{
    LCVRTCPContext *a = lcv_rtcp_context_alloc(), *b = lcv_rtcp_context_alloc();
    uint8_t many[LCV_RTCP_MAX_PACKETS * 8];

    CHECK(a && b && a->packets && b->packets && a->packets != b->packets && !a->nb_packets);
    if (!a || !b) {
        lcv_rtcp_context_free(&a);
        lcv_rtcp_context_free(&b);
        return;
    }
    /* LCV_RTCP_MAX_PACKETS empty RRs (SSRC 1, 2, ...): every slot written */
    for (int i = 0; i < LCV_RTCP_MAX_PACKETS; i++) {
        memcpy(many + 8 * i, "\x80\xc9\x00\x01", 4);
        AV_WB32(many + 8 * i + 4, i + 1);
    }
    CHECK(lcv_rtcp_parse(a, many, sizeof(many), 0) == LCV_RTCP_MAX_PACKETS);
    CHECK(a->packets[LCV_RTCP_MAX_PACKETS - 1].ssrc == LCV_RTCP_MAX_PACKETS);
    CHECK(lcv_rtcp_parse(b, v_sr, sizeof(v_sr), 0) == 1 && a->nb_packets == LCV_RTCP_MAX_PACKETS &&
          a->packets[0].ssrc == 1);
    CHECK(lcv_rtcp_parse(a, v_sr, 3, 0) == AVERROR_INVALIDDATA && !a->nb_packets && a->error);
    lcv_rtcp_context_free(&a);
    lcv_rtcp_context_free(&b);
    CHECK(!a && !b);
    printf("context: %d packets fit a context of its own, two are apart, a bad parse empties one\n",
           LCV_RTCP_MAX_PACKETS);
}

/* POOL_THREADS threads share one pool, more than it has per-thread slots
 * (8), so both the slots and the shared spare are used. Each thread parses
 * its own vector, checks that nobody else wrote into the context it holds,
 * and swaps contexts with its neighbour through a mailbox, so contexts are
 * released by threads that did not get them. */
#define POOL_THREADS 12
#define POOL_ITERS   20000

typedef struct ThreadArg {
    LCVRTCPPool *pool;
    const Vector *v;
    _Atomic(LCVRTCPContext *) *mailbox;
    int errors, swaps;
} ThreadArg;

static int holds(const LCVRTCPContext *c, const Vector *v)
{
    return c->nb_packets >= 1 && c->packets[0].data == v->data &&
           c->packets[c->nb_packets - 1].data + c->packets[c->nb_packets - 1].size +
           c->packets[c->nb_packets - 1].padding == v->data + v->size;
}

static void *pool_worker(void *opaque)
{
    ThreadArg *arg = opaque;
    LCVRTCPContext *held[2] = { NULL };

    for (int i = 0; i < POOL_ITERS; i++) {
        LCVRTCPContext **c = &held[i & 1];
        if (*c) {
            if (!holds(*c, arg->v))
                arg->errors++;
            lcv_rtcp_context_release(c);
        }
        if (!(*c = lcv_rtcp_pool_get(arg->pool)) ||
            lcv_rtcp_parse(*c, arg->v->data, arg->v->size, arg->v->flags) < 1) {
            arg->errors++;
            continue;
        }
        if (i % 7 == 3) {
            /* hand this context to the neighbour, release whatever it left */
            LCVRTCPContext *other = atomic_exchange(arg->mailbox, *c);
            *c = NULL;
            if (other) {
                arg->swaps++;
                lcv_rtcp_context_release(&other);
            }
        }
    }
    lcv_rtcp_context_release(&held[0]);
    lcv_rtcp_context_release(&held[1]);
    return NULL;
}

static void check_pool_threads(void)
{
    LCVRTCPPool *pool = lcv_rtcp_pool_alloc(64);
    _Atomic(LCVRTCPContext *) mailbox[POOL_THREADS / 2];
    pthread_t tid[POOL_THREADS];
    ThreadArg arg[POOL_THREADS];
    int errors = 0, swaps = 0;

    CHECK(pool);
    if (!pool)
        return;
    for (int i = 0; i < POOL_THREADS / 2; i++)
        atomic_init(&mailbox[i], NULL);
    for (int i = 0; i < POOL_THREADS; i++) {
        arg[i] = (ThreadArg){ .pool = pool, .v = &vectors[i], .mailbox = &mailbox[i / 2] };
        CHECK(!pthread_create(&tid[i], NULL, pool_worker, &arg[i]));
    }
    for (int i = 0; i < POOL_THREADS; i++) {
        pthread_join(tid[i], NULL);
        errors += arg[i].errors;
        swaps  += arg[i].swaps;
    }
    for (int i = 0; i < POOL_THREADS / 2; i++) {
        LCVRTCPContext *c = atomic_exchange(&mailbox[i], NULL);
        lcv_rtcp_context_release(&c);
    }
    lcv_rtcp_pool_free(&pool);
    CHECK(!errors && swaps > POOL_THREADS);
    printf("pool: %d threads x %d get/parse/release on one pool, %d contexts handed "
           "between threads, %d errors\n", POOL_THREADS, POOL_ITERS, swaps, errors);
}

/* releases racing with lcv_rtcp_pool_free(): every round, four threads
 * release a context each while the main thread frees the pool. A context
 * that parks after the pool's sweep would never be freed; the leak checkers
 * (valgrind and LeakSanitizer in make check, and malloc_count_live() when
 * the shim is preloaded) see it. */
typedef struct RaceArg {
    LCVRTCPPool *pool;
    pthread_barrier_t *barrier;
    int rounds, errors;
} RaceArg;

static void *race_worker(void *opaque)
{
    RaceArg *arg = opaque;

    for (int r = 0; r < arg->rounds; r++) {
        LCVRTCPContext *c;
        pthread_barrier_wait(&arg->barrier[0]);     /* the pool is new */
        c = lcv_rtcp_pool_get(arg->pool);
        if (!c || lcv_rtcp_parse(c, v_six, sizeof(v_six), 0) != 6)
            arg->errors++;
        pthread_barrier_wait(&arg->barrier[1]);     /* all got theirs */
        lcv_rtcp_context_release(&c);               /* races with the free */
        pthread_barrier_wait(&arg->barrier[2]);     /* round done */
    }
    return NULL;
}

static void check_pool_free_race(int rounds)
{
    int64_t (*live)(void) = (int64_t (*)(void))dlsym(RTLD_DEFAULT, "malloc_count_live");
    pthread_barrier_t barrier[3];
    pthread_t tid[4];
    RaceArg arg[4];
    int64_t before = 0, after = 0;
    int errors = 0;

    for (int i = 0; i < 3; i++)
        pthread_barrier_init(&barrier[i], NULL, 5);
    for (int i = 0; i < 4; i++) {
        arg[i] = (RaceArg){ .barrier = barrier, .rounds = rounds };
        CHECK(!pthread_create(&tid[i], NULL, race_worker, &arg[i]));
    }
    /* after pthread_create(), whose first use allocates thread bookkeeping */
    if (live)
        before = live();
    for (int r = 0; r < rounds; r++) {
        LCVRTCPPool *pool = lcv_rtcp_pool_alloc(8);
        CHECK(pool);
        for (int i = 0; i < 4; i++)
            arg[i].pool = pool;
        pthread_barrier_wait(&barrier[0]);
        pthread_barrier_wait(&barrier[1]);
        lcv_rtcp_pool_free(&pool);                  /* races with the releases */
        pthread_barrier_wait(&barrier[2]);
    }
    if (live)
        after = live();
    for (int i = 0; i < 4; i++) {
        pthread_join(tid[i], NULL);
        errors += arg[i].errors;
    }
    for (int i = 0; i < 3; i++)
        pthread_barrier_destroy(&barrier[i]);
    CHECK(!errors);
    CHECK(after == before);
    printf("pool: %d rounds of 4 releases racing with the pool's free, %d errors%s\n",
           rounds, errors,
           !live ? "" : after == before ? ", no allocation left live" : ", ALLOCATIONS LEFT LIVE");
}

/* ------------------------------------------------------------------------
 * with the preload shim */

static void *shim(const char *name)
{
    void *f = dlsym(RTLD_DEFAULT, name);
    if (!f)
        fprintf(stderr, "run with LD_PRELOAD=malloc_count.so (no %s)\n", name);
    return f;
}

static int alloc_main(int n)
{
    uint64_t (*count)(void) = shim("malloc_count_get");
    LCVRTCPPool *pool;
    uint64_t a[2];

    if (!count || !(pool = lcv_rtcp_pool_alloc(0)))
        return 1;
    for (int k = -1; k < 2; k++) {     /* k = -1: one warm-up parse */
        uint64_t start = count();
        for (int i = 0; i < (k < 0 ? 1 : n << k); i++) {
            LCVRTCPContext *ctx = lcv_rtcp_pool_get(pool);
            LCVRTCPIter it;
            LCVRTCPSdesItem si;
            if (!ctx || lcv_rtcp_parse(ctx, v_six, sizeof(v_six), 0) != 6)
                return 1;
            lcv_rtcp_iter_init(&it, &ctx->packets[1]);
            while (lcv_rtcp_sdes_next(&it, &si));
            lcv_rtcp_context_release(&ctx);
        }
        if (k >= 0)
            a[k] = count() - start;
    }
    lcv_rtcp_pool_free(&pool);
    printf("pool get + parse + walk + release, after one warm-up: %"PRIu64" allocations for %d, "
           "%"PRIu64" for %d: %.3f per parse\n", a[0], n, a[1], 2 * n, ((double)a[1] - a[0]) / n);
    return a[1] != a[0] || a[0];
}

/* Fail the n-th allocation for n = 1, 2, ... until a run needs no more:
 * every run must fail cleanly or succeed, and leave no allocation live. */
static int oom_main(void)
{
    void (*fail_after)(int64_t) = shim("malloc_count_fail_after");
    int64_t (*live)(void) = shim("malloc_count_live");
    int runs = 0, enomem = 0;

    if (!fail_after || !live)
        return 1;
    for (int n = 1; n < 100; n++) {
        int64_t before = live();
        int failed = 0, ret = 0;
        LCVRTCPPool *pool;
        LCVRTCPContext *c[3] = { NULL };

        fail_after(n);
        pool = lcv_rtcp_pool_alloc(8);
        if (!pool) {
            failed = 1;
        } else {
            for (int i = 0; i < 3; i++) {
                c[i] = lcv_rtcp_pool_get(pool);
                failed |= !c[i];
                if (c[i])
                    ret |= lcv_rtcp_parse(c[i], v_six, sizeof(v_six), 0) != 6;
            }
            lcv_rtcp_context_release(&c[1]);
            c[1] = lcv_rtcp_pool_get(pool);
            failed |= !c[1];
            lcv_rtcp_pool_free(&pool);
            for (int i = 0; i < 3; i++)
                lcv_rtcp_context_release(&c[i]);
        }
        fail_after(0);
        runs++;
        if (ret || live() != before) {
            printf("FAIL: oom at allocation %d: parse %d, %"PRId64" allocations left live\n",
                   n, ret, live() - before);
            return 1;
        }
        enomem += failed;
        if (!failed)
            break;
    }
    printf("oom: %d runs, %d ended in a clean allocation failure, the last succeeded; no leaks\n",
           runs, enomem);
    return !(runs > 1 && enomem == runs - 1);
}

/* lcvrtcp rebuild FILE...: parse each file as the fuzzer does, rebuild it,
 * and name the packets whose fields differ after the rebuild */
static int rebuild_main(int nb, char **files)
{
    static const int modes[] = { 0, LCV_RTCP_FLAG_REDUCED_SIZE | LCV_RTCP_FLAG_KEEP_VALID };
    static uint8_t in[65536], out[65536 + 64];
    static LCVRTCPPacket ctx_pk[LCV_RTCP_MAX_PACKETS], again_pk[LCV_RTCP_MAX_PACKETS];
    static LCVRTCPContext ctx = { .packets = ctx_pk }, again = { .packets = again_pk };
    int bad = 0;

    for (int i = 0; i < nb; i++) {
        FILE *f = fopen(files[i], "rb");
        int size = f ? fread(in, 1, sizeof(in), f) : -1;
        if (f)
            fclose(f);
        if (size < 0) {
            printf("%s: cannot read\n", files[i]);
            bad++;
            continue;
        }
        for (int m = 0; m < 2; m++) {
            int n = lcv_rtcp_parse(&ctx, in, size, modes[m]), rebuilt;
            if (n < 0 && !ctx.nb_packets) {
                printf("%s mode %d: refused: %s\n", files[i], m, ctx.error);
                continue;
            }
            rebuilt = rebuild(&ctx, out, sizeof(out));
            if (rebuilt < 0) {
                printf("%s mode %d: a writer refused: %s\n", files[i], m, av_err2str(rebuilt));
                bad++;
                continue;
            }
            n = lcv_rtcp_parse(&again, out, rebuilt, modes[m] | LCV_RTCP_FLAG_REDUCED_SIZE);
            printf("%s mode %d: %d packets, rebuilt %d\n", files[i], m, ctx.nb_packets, n);
            bad += n != ctx.nb_packets;
            for (int k = 0; k < FFMIN(n, ctx.nb_packets); k++) {
                LCVRTCPContext one = { .nb_packets = 1, .packets = &ctx.packets[k] };
                LCVRTCPContext two = { .nb_packets = 1, .packets = &again.packets[k] };
                Fields a, b;
                a = fields(&one);
                b = fields(&two);
                if (a.hash != b.hash || a.count != b.count) {
                    printf("  packet %d (type %d fmt %d, %d bytes): fields differ after the "
                           "rebuild (%d, then %d; rebuilt %d bytes)\n", k, ctx.packets[k].type,
                           ctx.packets[k].fmt, ctx.packets[k].size, a.count, b.count,
                           again.packets[k].size);
                    bad++;
                }
            }
        }
    }
    return !!bad;
}

static int corpus_main(const char *dir)
{
    for (int i = 0; i < FF_ARRAY_ELEMS(vectors); i++) {
        char path[1024];
        FILE *f;
        snprintf(path, sizeof(path), "%s/%s", dir, vectors[i].name);
        if (!(f = fopen(path, "wb")))
            return 1;
        fwrite(vectors[i].data, 1, vectors[i].size, f);
        fclose(f);
    }
    return 0;
}

static void put16(FILE *f, int v) { fputc(v >> 8, f); fputc(v & 255, f); }

/* one Ethernet/IPv4/UDP frame per golden vector */
static int write_pcap(const char *path)
{
    static const uint8_t global[24] = {
        0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0xff, 0xff, 0, 0, 1, 0, 0, 0,                       /* LINKTYPE_ETHERNET */
    };
    FILE *f = fopen(path, "wb");

    if (!f)
        return 1;
    fwrite(global, 1, sizeof(global), f);
    for (int i = 0; i < FF_ARRAY_ELEMS(vectors); i++) {
        const int len = 14 + 20 + 8 + vectors[i].size;
        uint8_t ip[20] = { 0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1 };
        uint32_t sum = 0;
        uint8_t rec[16] = { 0 };

        AV_WL32(rec, i + 1);                    /* seconds */
        AV_WL32(rec + 8, len);
        AV_WL32(rec + 12, len);
        fwrite(rec, 1, 16, f);
        fwrite((const uint8_t[]){ 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0x08, 0x00 }, 1, 14, f);
        AV_WB16(ip + 2, 20 + 8 + vectors[i].size);
        for (int k = 0; k < 20; k += 2)
            sum += AV_RB16(ip + k);
        sum = (sum & 0xffff) + (sum >> 16);
        AV_WB16(ip + 10, ~(sum + (sum >> 16)) & 0xffff);
        fwrite(ip, 1, 20, f);
        put16(f, 5004);                         /* source port */
        put16(f, 5005);                         /* RTCP port */
        put16(f, 8 + vectors[i].size);
        put16(f, 0);                            /* no UDP checksum */
        fwrite(vectors[i].data, 1, vectors[i].size, f);
    }
    return fclose(f) ? 1 : 0;
}

/* What we decode, as "frame<TAB>field<TAB>values" with tshark's names and
 * number formats (several occurrences joined with commas). */
static int tshark_main(const char *pcap)
{
    TEST_CTX(ctx);

    if (write_pcap(pcap))
        return 1;
    for (int i = 0; i < FF_ARRAY_ELEMS(vectors); i++) {
        const Vector *v = &vectors[i];
        const int frame = i + 1;
        char types[256] = "", texts[512] = "";

        if (lcv_rtcp_parse(&ctx, v->data, v->size, v->flags) < 0)
            return 1;
        for (int k = 0; k < ctx.nb_packets; k++)
            snprintf(types + strlen(types), sizeof(types) - strlen(types), "%s%d", k ? "," : "", ctx.packets[k].type);
        printf("%d\trtcp.pt\t%s\n", frame, types);
        /* tshark shows SDES items and BYE reasons in one field */
        for (int k = 0; k < ctx.nb_packets; k++) {
            const LCVRTCPPacket *p = &ctx.packets[k];
            LCVRTCPIter it;
            LCVRTCPSdesItem si;
            lcv_rtcp_iter_init(&it, p);
            if (p->type == LCV_RTCP_SDES)
                while (lcv_rtcp_sdes_next(&it, &si))
                    snprintf(texts + strlen(texts), sizeof(texts) - strlen(texts), "%s%.*s",
                             *texts ? "," : "", si.len, si.value);
            if (p->type == LCV_RTCP_BYE && p->bye.reason)
                snprintf(texts + strlen(texts), sizeof(texts) - strlen(texts), "%s%.*s",
                         *texts ? "," : "", p->bye.reason_len, p->bye.reason);
        }
        if (*texts)
            printf("%d\trtcp.sdes.text\t%s\n", frame, texts);
        for (int k = 0; k < ctx.nb_packets; k++) {
            const LCVRTCPPacket *p = &ctx.packets[k];
            LCVRTCPIter it;
            lcv_rtcp_iter_init(&it, p);
            switch (p->type) {
            case LCV_RTCP_SR: {
                LCVRTCPReportBlock rb;
                printf("%d\trtcp.senderssrc\t0x%08x\n", frame, p->ssrc);
                printf("%d\trtcp.timestamp.ntp.msw\t%u\n", frame, (unsigned)(p->rr.ntp >> 32));
                printf("%d\trtcp.timestamp.ntp.lsw\t%u\n", frame, (unsigned)p->rr.ntp);
                printf("%d\trtcp.timestamp.rtp\t%u\n", frame, p->rr.rtp_ts);
                printf("%d\trtcp.sender.packetcount\t%u\n", frame, p->rr.packets);
                printf("%d\trtcp.sender.octetcount\t%u\n", frame, p->rr.octets);
                lcv_rtcp_report_block(p, 0, &rb);
                printf("%d\trtcp.ssrc.identifier\t0x%08x\n", frame, rb.ssrc);
                printf("%d\trtcp.ssrc.fraction\t%d\n", frame, rb.fraction_lost);
                printf("%d\trtcp.ssrc.cum_nr\t%d\n", frame, rb.cumulative_lost);
                printf("%d\trtcp.ssrc.ext_high\t%u\n", frame, rb.highest_seq);
                printf("%d\trtcp.ssrc.jitter\t%u\n", frame, rb.jitter);
                printf("%d\trtcp.ssrc.lsr\t%u\n", frame, rb.lsr);
                printf("%d\trtcp.ssrc.dlsr\t%u\n", frame, rb.dlsr);
                break;
            }
            case LCV_RTCP_APP:
                printf("%d\trtcp.app.name\t%s\n", frame, p->app.name);
                break;
            case LCV_RTCP_RTPFB:
                switch (p->fmt) {
                case LCV_RTPFB_NACK: {
                    /* tshark lists every lost sequence number in nack_pid */
                    char lost[512] = "";
                    uint16_t seq;
                    while (lcv_rtcp_nack_next(&it, &seq))
                        snprintf(lost + strlen(lost), sizeof(lost) - strlen(lost), "%s%d", *lost ? "," : "", seq);
                    printf("%d\trtcp.rtpfb.nack_pid\t%s\n", frame, lost);
                    break;
                }
                case LCV_RTPFB_TMMBR: {
                    LCVRTCPTmmbItem t;
                    lcv_rtcp_tmmb_next(&it, &t);
                    printf("%d\trtcp.rtpfb.tmmbr.fci.ssrc\t0x%08x\n", frame, t.ssrc);
                    printf("%d\t=rtcp.rtpfb.tmmbr.fci.mantissa<<rtcp.rtpfb.tmmbr.fci.exp\t%"PRIu64"\n", frame, t.bitrate);
                    printf("%d\trtcp.rtpfb.tmmbr.fci.measuredoverhead\t%d\n", frame, t.overhead);
                    break;
                }
                case LCV_RTPFB_TWCC: {
                    LCVRTCPTwcc tw;
                    lcv_rtcp_twcc(p, &tw);
                    printf("%d\trtcp.rtpfb.transportcc.baseseq\t%d\n", frame, tw.base_seq);
                    printf("%d\trtcp.rtpfb.transportcc.statuscount\t%d\n", frame, tw.status_count);
                    printf("%d\trtcp.rtpfb.transportcc.reftime\t%d\n", frame, tw.reference_time);
                    printf("%d\trtcp.rtpfb.transportcc.pktcount\t%d\n", frame, tw.fb_count);
                    break;
                }
                }
                break;
            case LCV_RTCP_PSFB:
                switch (p->fmt) {
                case LCV_PSFB_SLI: {
                    LCVRTCPSliItem sl;
                    lcv_rtcp_sli_next(&it, &sl);
                    printf("%d\trtcp.psfb.fir.sli.first\t%d\n", frame, sl.first);
                    printf("%d\trtcp.psfb.fir.sli.number\t%d\n", frame, sl.number);
                    printf("%d\trtcp.psfb.fir.sli.picture_id\t%d\n", frame, sl.picture_id);
                    break;
                }
                case LCV_PSFB_FIR: {
                    LCVRTCPFirItem fi;
                    lcv_rtcp_fir_next(&it, &fi);
                    printf("%d\trtcp.psfb.fir.fci.ssrc\t0x%08x\n", frame, fi.ssrc);
                    printf("%d\trtcp.psfb.fir.fci.csn\t%d\n", frame, fi.seq);
                    break;
                }
                case LCV_PSFB_AFB: {
                    LCVRTCPRemb r;
                    if (lcv_rtcp_remb(p, &r)) {
                        printf("%d\trtcp.psfb.remb.fci.number_ssrcs\t%d\n", frame, r.nb_ssrc);
                        printf("%d\t=rtcp.psfb.remb.fci.br_mantissa<<rtcp.psfb.remb.fci.br_exp\t%"PRIu64"\n", frame, r.bitrate);
                    }
                    break;
                }
                }
                break;
            case LCV_RTCP_XR: {
                LCVRTCPXrBlock b;
                char bt[64] = "", lrr[64] = "";
                while (lcv_rtcp_xr_next(&it, &b)) {
                    snprintf(bt + strlen(bt), sizeof(bt) - strlen(bt), "%s%d", *bt ? "," : "", b.type);
                    if (b.type == LCV_XR_DLRR) {
                        LCVRTCPDlrrItem d;
                        lcv_rtcp_xr_dlrr(&b, 0, &d);
                        snprintf(lrr, sizeof(lrr), "%u", d.lrr);
                        printf("%d\trtcp.xr.dlrr\t%u\n", frame, d.dlrr);
                    } else if (b.type == LCV_XR_STATS) {
                        LCVRTCPXrStats st;
                        lcv_rtcp_xr_stats(&b, &st);
                        printf("%d\trtcp.xr.stats.lost\t%u\n", frame, st.lost);
                        printf("%d\trtcp.xr.stats.dups\t%u\n", frame, st.dup);
                        printf("%d\trtcp.xr.stats.minjitter\t%u\n", frame, st.min_jitter);
                        printf("%d\trtcp.xr.stats.maxjitter\t%u\n", frame, st.max_jitter);
                        printf("%d\trtcp.xr.stats.meanjitter\t%u\n", frame, st.mean_jitter);
                        printf("%d\trtcp.xr.stats.devjitter\t%u\n", frame, st.dev_jitter);
                        printf("%d\trtcp.xr.stats.minttl\t%u\n", frame, st.min_ttl);
                        printf("%d\trtcp.xr.stats.maxttl\t%u\n", frame, st.max_ttl);
                        printf("%d\trtcp.xr.stats.meanttl\t%u\n", frame, st.mean_ttl);
                        printf("%d\trtcp.xr.stats.devttl\t%u\n", frame, st.dev_ttl);
                    } else if (b.type == LCV_XR_VOIP) {
                        LCVRTCPXrVoip vo;
                        lcv_rtcp_xr_voip(&b, &vo);
                        printf("%d\trtcp.xr.voipmetrics.burstdensity\t%u\n", frame, vo.burst_density);
                        printf("%d\trtcp.xr.voipmetrics.gapdensity\t%u\n", frame, vo.gap_density);
                        printf("%d\trtcp.xr.voipmetrics.burstduration\t%u\n", frame, vo.burst_duration);
                        printf("%d\trtcp.xr.voipmetrics.gapduration\t%u\n", frame, vo.gap_duration);
                        printf("%d\trtcp.xr.voipmetrics.rtdelay\t%u\n", frame, vo.round_trip_delay);
                        printf("%d\trtcp.xr.voipmetrics.esdelay\t%u\n", frame, vo.end_system_delay);
                        printf("%d\trtcp.xr.voipmetrics.gmin\t%u\n", frame, vo.gmin);
                        printf("%d\trtcp.xr.voipmetrics.rfactor\t%u\n", frame, vo.r_factor);
                        printf("%d\trtcp.xr.voipmetrics.extrfactor\t%u\n", frame, vo.ext_r_factor);
                        printf("%d\trtcp.xr.voipmetrics.jbnominal\t%u\n", frame, vo.jb_nominal);
                        printf("%d\trtcp.xr.voipmetrics.jbmax\t%u\n", frame, vo.jb_maximum);
                        printf("%d\trtcp.xr.voipmetrics.jbabsmax\t%u\n", frame, vo.jb_abs_max);
                    }
                }
                printf("%d\trtcp.xr.bt\t%s\n", frame, bt);
                printf("%d\trtcp.xr.lrr\t%s\n", frame, lrr);
                break;
            }
            }
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && !strcmp(argv[1], "tshark"))
        return tshark_main(argv[2]);
    if (argc > 2 && !strcmp(argv[1], "alloc"))
        return alloc_main(atoi(argv[2]) > 0 ? atoi(argv[2]) : 1000);
    if (argc > 1 && !strcmp(argv[1], "oom"))
        return oom_main();
    if (argc > 2 && !strcmp(argv[1], "race")) {
        int rounds = atoi(argv[2]) > 0 ? atoi(argv[2]) : 1000;
        check_pool_free_race(rounds);
        return !!failures;
    }
    if (argc > 2 && !strcmp(argv[1], "corpus"))
        return corpus_main(argv[2]);
    if (argc > 2 && !strcmp(argv[1], "rebuild"))
        return rebuild_main(argc - 2, argv + 2);

    check_golden();
    check_rebuild();
    check_roundtrip();
    check_malformed();
    test_twcc_padding();
    check_hostile_values();
    check_sdes_chunks();
    check_field_limits();
    check_options();
    check_context_alloc();
    check_pool();
    check_pool_threads();
    check_pool_free_race(1000);
    if (failures)
        printf("%d check(s) failed\n", failures);
    return !!failures;
}

/*
 * Unit test of the RTP demuxer's loss recovery (rtpdec_ext.c): the NACKs it
 * sends are parsed back with lcv_rtcp and compared with the numbers the
 * test left out; RTX packets are checked byte for byte against the packet
 * they carry; hostile sequences must keep the state bounded; access units
 * gathered at the marker bit are compared with the pieces put in.
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

#include <stdio.h>
#include <string.h>

#include "libavutil/intreadwrite.h"
#include "libavutil/mem.h"
#include "libavutil/time.h"
#include "libavformat/avformat.h"
#include "libavformat/avio.h"
#include "libavformat/internal.h"
#include "libavformat/lcvrtcp.h"
#include "libavformat/rtpdec.h"
#include "libavformat/rtpdec_ext.h"
#include "libavformat/rtpnack.h"

#define MEDIA_SSRC 0x11223344u
#define RTX_SSRC   0x55667788u

static int failures;

#define CHECK(cond) do {                                                    \
    if (!(cond)) {                                                          \
        printf("FAIL %s:%d: %s\n", __func__, __LINE__, #cond);              \
        failures++;                                                         \
    }                                                                       \
} while (0)

static int make_rtp(uint8_t *buf, int pt, uint16_t seq, uint32_t ssrc,
                    const uint8_t *payload, int size)
{
    buf[0] = 0x80;
    buf[1] = pt;
    AV_WB16(buf + 2, seq);
    AV_WB32(buf + 4, 90000);
    AV_WB32(buf + 8, ssrc);
    memcpy(buf + 12, payload, size);
    return 12 + size;
}

/* a media packet; returns what the demuxer is told (1: drop a duplicate) */
static int packet(RTPDemuxContext *s, uint16_t seq)
{
    uint8_t buf[64];
    int len = make_rtp(buf, 96, seq, MEDIA_SSRC, (const uint8_t *)"data", 4);
    int ret = ff_rtpdec_ext_packet(s, buf, &len);
    CHECK(ret >= 0 && len == 16);
    return ret;
}

/* Run the feedback step; the NACKed numbers go to seqs (sorted as sent),
 * and whether a PLI/FIR went with them to *pli / *fir. */
static int feedback(RTPDemuxContext *s, uint16_t *seqs, int max, int *pli, int *fir)
{
    AVIOContext *pb;
    uint8_t *data = NULL;
    LCVRTCPPacket pk[LCV_RTCP_MAX_PACKETS];
    LCVRTCPContext ctx = { .packets = pk };
    int size, n = 0;

    *pli = *fir = 0;
    if (avio_open_dyn_buf(&pb) < 0)
        return -1;
    ff_rtpdec_ext_feedback(s, NULL, pb);
    size = avio_close_dyn_buf(pb, &data);
    if (size > 0) {
        int np = lcv_rtcp_parse(&ctx, data, size, 0);
        CHECK(np >= 3);     /* RR, SDES, then feedback: a valid compound */
        CHECK(size <= 1200);
        for (int i = 0; i < ctx.nb_packets; i++) {
            const LCVRTCPPacket *p = &ctx.packets[i];
            LCVRTCPIter it;
            uint16_t seq;
            if (p->type == LCV_RTCP_RTPFB && p->fmt == LCV_RTPFB_NACK) {
                CHECK(p->fb.media_ssrc == MEDIA_SSRC && p->ssrc == MEDIA_SSRC + 1);
                lcv_rtcp_iter_init(&it, p);
                while (lcv_rtcp_nack_next(&it, &seq))
                    if (n < max)
                        seqs[n++] = seq;
            }
            *pli |= p->type == LCV_RTCP_PSFB && p->fmt == LCV_PSFB_PLI;
            *fir |= p->type == LCV_RTCP_PSFB && p->fmt == LCV_PSFB_FIR;
        }
        CHECK(ctx.packets[0].type == LCV_RTCP_RR && ctx.packets[1].type == LCV_RTCP_SDES);
    }
    av_free(data);
    return n;
}

static int open_ctx(RTPDemuxContext *s, int fb, int max_retries)
{
    FFRTPDecExtSdp sdp = { 0 };
    FFRTPDecExtOpts opts = { .nack = -1, .max_delay = -1, .nack_max_retries = max_retries };
    static const char *lines[] = {
        "rtpmap:97 rtx/90000", "fmtp:97 apt=96", "rtcp-fb:96 nack", "rtcp-fb:96 nack pli",
        "rtcp-fb:96 ccm fir", "fmtp:96 packetization-mode=1",
    };

    memset(s, 0, sizeof(*s));
    s->payload_type = 96;
    s->ssrc = MEDIA_SSRC;
    strcpy(s->hostname, "test");
    for (int i = 0; i < FF_ARRAY_ELEMS(lines); i++) {
        int consumed = ff_rtpdec_ext_sdp_a_line(&sdp, 96, lines[i]);
        CHECK(consumed == (i < 5));     /* the media fmtp is FFmpeg's */
    }
    CHECK(sdp.seen_rtx && sdp.rtx_pt == 97 && sdp.rtx_apt == 96);
    if (!fb)
        sdp.fb = FF_RTPDEC_FB_NACK | FF_RTPDEC_FB_FIR;
    return ff_rtpdec_ext_open(s, &sdp, &opts, 1);
}

/* Gaps across the wrap, all of them in one NACK packet, RTX restore,
 * retries, giving up. */
static void check_nack(void)
{
    RTPDemuxContext s;
    LCVRTPReceiveStats st;
    uint16_t seqs[600], want[600];
    int n, nw = 0, pli, fir;
    uint8_t buf[64], orig[64];
    int len, olen;

    int64_t t0;

    CHECK(open_ctx(&s, 1, 3) == 0);
    CHECK(ff_rtpdec_ext_active(&s));
    /* 65500 .. 65535, 0 .. 300 with every third number from 65520 missing
     * (the last one, 300, arrives: it shows the gap before it) */
    t0 = av_gettime_relative();
    for (int i = 65500; i <= 65536 + 300; i++) {
        uint16_t seq = i;
        if (i >= 65520 && i % 3 == 0) {
            want[nw++] = seq;
            continue;
        }
        CHECK(packet(&s, seq) == 0);
    }
    n = feedback(&s, seqs, 600, &pli, &fir);
    if (av_gettime_relative() - t0 < 2000)
        CHECK(n == 0);                  /* the reorder allowance first */
    av_usleep(5000);
    n += feedback(&s, seqs + n, 600 - n, &pli, &fir);
    printf("one NACK packet for %d numbers across the wrap (want %d)\n", n, nw);
    CHECK(n == nw && !memcmp(seqs, want, nw * sizeof(*want)) && !pli && !fir);

    /* an RTX packet carrying the first missing number */
    olen = make_rtp(orig, 96, want[0], MEDIA_SSRC, (const uint8_t *)"payload!", 8);
    {
        uint8_t pl[10] = { want[0] >> 8, want[0] & 0xff, 'p', 'a', 'y', 'l', 'o', 'a', 'd', '!' };
        len = make_rtp(buf, 97, 4000, RTX_SSRC, pl, 10);
    }
    buf[1] |= 0x80;     /* the marker bit stays */
    orig[1] |= 0x80;
    AV_WB32(buf + 4, 90000);
    CHECK(ff_rtpdec_ext_packet(&s, buf, &len) == 0);
    CHECK(len == olen && !memcmp(buf, orig, olen));
    /* another RTX SSRC (a restarted sender) is followed: a copy of a packet
     * received, restored, then dropped as a copy */
    len = make_rtp(buf, 97, 4001, RTX_SSRC + 1, (const uint8_t *)"\xff\xf0xx", 4);
    CHECK(ff_rtpdec_ext_packet(&s, buf, &len) == 1 && len == 14 && AV_RB16(buf + 2) == 0xfff0 &&
          buf[1] == 96 && AV_RB32(buf + 8) == MEDIA_SSRC);
    /* too short to carry an OSN */
    len = make_rtp(buf, 97, 4002, RTX_SSRC, (const uint8_t *)"", 1);
    CHECK(ff_rtpdec_ext_packet(&s, buf, &len) == AVERROR_INVALIDDATA);

    ff_rtpdec_ext_get_stats(&s, &st);
    CHECK(st.recovered == 1 && st.rtx_packets == 2 && st.rtt_ms > 0 && st.rtt_ms < 1000);
    CHECK(st.pending == nw - 1 && st.missing == nw && st.nack_packets >= 1);

    /* the rest is asked for again each retry interval, 3 times in all,
     * then given up: within 4 retry intervals of the measured RTT, which
     * is long under valgrind on a busy machine (72 ms seen), so the loop
     * is bounded by 10 s, not by a count of rounds alone */
    t0 = av_gettime_relative();
    for (int round = 0; round < 5000 && st.pending && av_gettime_relative() - t0 < 10000000; round++) {
        av_usleep(2000);
        feedback(&s, seqs, 600, &pli, &fir);
        ff_rtpdec_ext_get_stats(&s, &st);
    }
    printf("retries: %"PRIu64" NACK packets for %"PRIu64" numbers, %"PRIu64" lost, rtt %.1f ms\n",
           st.nack_packets, st.nacked, st.lost, st.rtt_ms);
    CHECK(st.pending == 0 && st.lost == nw - 1);
    /* every number 3 times (one recovered after 1); on a slow machine a
     * number may run out of time after 2 */
    CHECK(st.nacked <= nw + 2 * (nw - 1) && st.nacked >= nw + (nw - 1));

    /* a packet after its number was given up goes on (the demuxer may not
     * have skipped it yet); a second copy, or a copy of a packet received,
     * is dropped: FFmpeg's queue would hold it twice and stall behind it */
    CHECK(packet(&s, want[1]) == 0);
    ff_rtpdec_ext_get_stats(&s, &st);
    CHECK(st.late == 1 && st.duplicates == 1);
    CHECK(packet(&s, want[1]) == 1);
    CHECK(packet(&s, 300) == 1 && packet(&s, 298) == 1);
    CHECK(packet(&s, 301) == 0);
    ff_rtpdec_ext_get_stats(&s, &st);
    CHECK(st.late == 1 && st.duplicates == 4);
    ff_rtpdec_ext_close(&s);
    CHECK(!s.ext);
}

/* A skipped gap asks for a keyframe: PLI, or FIR where only ccm fir was
 * negotiated; at most one per interval. */
static void check_keyframe(void)
{
    RTPDemuxContext s;
    LCVRTPReceiveStats st;
    uint16_t seqs[16];
    int pli, fir;

    for (int fb = 1; fb >= 0; fb--) {
        CHECK(open_ctx(&s, fb, 3) == 0);
        packet(&s, 10);
        packet(&s, 12);
        ff_rtpdec_ext_skip(&s, 12);
        feedback(&s, seqs, 16, &pli, &fir);
        CHECK(fb ? pli && !fir : fir && !pli);
        packet(&s, 14);
        ff_rtpdec_ext_skip(&s, 14);
        feedback(&s, seqs, 16, &pli, &fir);
        CHECK(!pli && !fir);            /* rate limited */
        ff_rtpdec_ext_get_stats(&s, &st);
        CHECK(st.skipped == 2 && st.lost == 2 && (fb ? st.plis == 1 : st.firs == 1));
        ff_rtpdec_ext_close(&s);
    }
    printf("keyframe requests: PLI with nack pli, FIR with ccm fir only, one per interval\n");
}

/* Jumps, duplicates and floods of gaps: state bounded, nothing asked for
 * that did not go missing within the last MAX_GAP numbers. */
static void check_hostile(void)
{
    RTPDemuxContext s;
    LCVRTPReceiveStats st;
    uint16_t seqs[300];
    int pli, fir, n;
    uint32_t r = 1;

    CHECK(open_ctx(&s, 1, 3) == 0);
    for (int i = 0; i < 200000; i++) {
        r = r * 1664525 + 1013904223;
        switch (i % 4) {
        case 0: packet(&s, r >> 16); break;            /* anywhere */
        case 1: packet(&s, (uint16_t)(i * 2)); break;  /* a gap every time */
        case 2: packet(&s, (uint16_t)(i * 2)); break;  /* a duplicate */
        case 3: packet(&s, (uint16_t)(i * 2 - 999)); break;
        }
        if (!(i % 10000)) {
            n = feedback(&s, seqs, 300, &pli, &fir);
            CHECK(n <= 256);
        }
    }
    ff_rtpdec_ext_get_stats(&s, &st);
    printf("hostile: %"PRIu64" packets, %"PRIu64" jumps, %"PRIu64" pending (at most 1024)\n",
           st.packets, st.seq_jumps, st.pending);
    CHECK(st.packets == 200000 && st.pending <= 1024 && st.seq_jumps > 0);
    /* and a normal stream afterwards is followed again */
    for (int i = 0; i < 100; i++)
        packet(&s, 30000 + i + (i >= 50));
    av_usleep(5000);
    n = feedback(&s, seqs, 300, &pli, &fir);
    CHECK(n >= 1 && seqs[n - 1] == 30050);
    ff_rtpdec_ext_close(&s);
}

/* FFmpeg's RTP demuxer context itself (patches: rtpdec.c), no
 * depacketizer: the payload is handed on as it is, each packet its own
 * frame of 3000 ticks. feed() sends seq (timestamp 90000 + 3000 * (seq -
 * 1000), or ts if not 0: FFmpeg takes a timestamp 0 for none) and collects
 * what comes out; end_wait(): the demuxer's reorder wait ran out (rtsp.c
 * then asks for the head of the queue) */
static int64_t out_pts[512];
static uint16_t out_seq[512];
static int nb_out;

static void take(RTPDemuxContext *s, AVPacket *pkt, int ret)
{
    for (int k = 0; ret >= 0 && k < 64; k++) {
        if (pkt->size >= 2 && nb_out < FF_ARRAY_ELEMS(out_pts)) {
            out_pts[nb_out]   = pkt->pts;
            out_seq[nb_out++] = AV_RB16(pkt->data);
        }
        av_packet_unref(pkt);
        if (ret != 1)
            break;
        ret = ff_rtp_parse_packet(s, pkt, NULL, 0);
    }
    av_packet_unref(pkt);
}

static void feed(RTPDemuxContext *s, AVPacket *pkt, uint16_t seq, uint32_t ts)
{
    uint8_t *buf = av_mallocz(64 + AV_INPUT_BUFFER_PADDING_SIZE), *b = buf;
    uint8_t payload[2];
    int len;

    if (!buf)
        return;
    AV_WB16(payload, seq);
    len = make_rtp(buf, 96, seq, MEDIA_SSRC, payload, 2);
    AV_WB32(buf + 4, ts ? ts : 90000 + 3000u * (uint16_t)(seq - 1000));
    take(s, pkt, ff_rtp_parse_packet(s, pkt, &b, len));
    av_free(b);     /* unless the queue took it */
}

static void end_wait(RTPDemuxContext *s, AVPacket *pkt)
{
    take(s, pkt, ff_rtp_parse_packet(s, pkt, NULL, 0));
}

/* the real stream's packets came out in order, each 3000 ticks after the
 * one before by its number: the timeline was kept */
static int timeline_kept(int from)
{
    for (int i = from + 1; i < nb_out; i++)
        if (out_pts[i] - out_pts[i - 1] != 3000 * (int64_t)(uint16_t)(out_seq[i] - out_seq[i - 1]) ||
            (int16_t)(out_seq[i] - out_seq[i - 1]) <= 0)
            return 0;
    return 1;
}

/* FFmpeg's demuxer context for one data stream of PT 96 (NULL on failure) */
static RTPDemuxContext *open_demuxer(AVFormatContext **pic, AVPacket **ppkt)
{
    AVStream *st;

    *pic  = avformat_alloc_context();
    *ppkt = av_packet_alloc();
    if (!*pic || !*ppkt || !(st = avformat_new_stream(*pic, NULL)))
        return NULL;
    st->codecpar->codec_type = AVMEDIA_TYPE_DATA;
    avpriv_set_pts_info(st, 32, 1, 90000);
    return ff_rtp_parse_open(*pic, st, 96, 500);
}

static void close_demuxer(RTPDemuxContext *s, AVFormatContext *ic, AVPacket *pkt)
{
    if (s)
        ff_rtp_parse_close(s);
    av_packet_free(&pkt);
    avformat_free_context(ic);
}

/* two packets 30,000 ahead (timestamps far away) while the stream goes on:
 * dropped as strays when the wait runs out after 8 or more of the stream
 * came in order behind them; handed on if the wait runs out sooner, and
 * then 8 of the stream in a row behind them take it back (resync) */
static void check_strays(void)
{
    int level = av_log_get_level();

    av_log_set_level(AV_LOG_FATAL);     /* the demuxer's warnings are expected */
    for (int late = 0; late < 2; late++) {
        AVFormatContext *ic;
        AVPacket *pkt;
        RTPDemuxContext *s = open_demuxer(&ic, &pkt);
        int n = 0, ahead = 0, first_real_after;

        nb_out = 0;
        if (!s) {
            CHECK(0);
            goto end;
        }
        for (n = 1000; n < 1050; n++)
            feed(s, pkt, n, 0);
        feed(s, pkt, 31000, 0x40000000);
        feed(s, pkt, 31001, 0x40000000);
        if (late) {
            /* the wait runs out after 3 of the stream: the strays go on */
            for (; n < 1053; n++)
                feed(s, pkt, n, 0);
            end_wait(s, pkt);
            end_wait(s, pkt);
        } else {
            for (; n < 1058; n++)
                feed(s, pkt, n, 0);
            end_wait(s, pkt);
        }
        first_real_after = nb_out;
        for (; n < 1100; n++)
            feed(s, pkt, n, 0);
        for (int i = 0; i < nb_out; i++)
            ahead += out_seq[i] >= 31000;
        printf("strays (wait over after %d of the stream): %d handed on, %d of the stream's "
               "100 out, strays %"PRIu64", resyncs %"PRIu64"\n", late ? 3 : 8, ahead,
               nb_out - ahead, s->strays, s->resyncs);
        if (!late) {
            CHECK(s->strays == 2 && ahead == 0 && s->resyncs == 0);
            CHECK(nb_out >= 98);        /* the first two: RFC 3550's probation */
            CHECK(timeline_kept(0));
        } else {
            /* the second stray passes the probation and is handed on; 8
             * late packets in a row resync, RFC 3550's check costs two more */
            CHECK(s->strays == 0 && ahead >= 1 && s->resyncs == 1);
            CHECK(nb_out - first_real_after >= 1100 - 1053 - 10);
            CHECK(out_seq[nb_out - 1] == 1099);
            /* after the resync the stream's timeline again */
            CHECK(timeline_kept(nb_out - 20));
        }
    end:
        close_demuxer(s, ic, pkt);
    }
    av_log_set_level(level);
}

/* how long rtsp.c holds a head far ahead (ff_rtpdec_ext_wait_end(), loss
 * tracking on): two packets 30,000 ahead that nothing continues are held
 * for the longest wait, whatever the stream's rate, so that 8 of the
 * stream can come in order behind them; once 8 follow the head in a row
 * (a sender that restarted) the wait is the time the stream's rate takes
 * for twice 8, shorter */
static void check_far_wait(void)
{
    int level = av_log_get_level();
    FFRTPDecExtSdp sdp = { .seen_fb = 1, .fb = FF_RTPDEC_FB_NACK };
    FFRTPDecExtOpts opts = { .nack = -1, .max_delay = -1 };
    AVFormatContext *ic;
    AVPacket *pkt;
    RTPDemuxContext *s = open_demuxer(&ic, &pkt);
    int64_t t0, lone, run;

    av_log_set_level(AV_LOG_FATAL);
    nb_out = 0;
    if (!s || ff_rtpdec_ext_open(s, &sdp, &opts, 1) < 0) {
        CHECK(0);
        goto end;
    }
    for (int n = 1000; n < 1050; n++)
        feed(s, pkt, n, 0);
    feed(s, pkt, 31000, 0x40000000);
    feed(s, pkt, 31001, 0x40000000);
    t0   = av_gettime_relative();
    lone = ff_rtpdec_ext_wait_end(s, t0, 100000) - t0;
    for (int n = 31002; n < 31008; n++)
        feed(s, pkt, n, 0x40000000);
    run  = ff_rtpdec_ext_wait_end(s, t0, 100000) - t0;
    printf("far head: held %"PRId64" ms with 2 in a row (stream at 58 packets a second), "
           "%"PRId64" ms with 8\n", lone / 1000, run / 1000);
    CHECK(s->queue_len == 8 && nb_out == 50);
    CHECK(lone == FF_RTP_NACK_JUMP_WAIT_MAX);
    /* 2 * 8 packets at the 58 of the last second: 276 ms (less than the
     * longest wait however slowly the test runs) */
    CHECK(run >= FF_RTP_NACK_JUMP_WAIT_MIN && run < FF_RTP_NACK_JUMP_WAIT_MAX);
end:
    close_demuxer(s, ic, pkt);
    av_log_set_level(level);
}

/* a packet reordered far (but within RTP_STRAY_GAP), then 8 of the stream
 * in order and two lost: when the wait ends it is handed on, the two
 * skipped, not dropped as a stray */
static void check_reordered(void)
{
    int level = av_log_get_level();
    AVFormatContext *ic;
    AVPacket *pkt;
    RTPDemuxContext *s = open_demuxer(&ic, &pkt);
    int found = 0;

    av_log_set_level(AV_LOG_FATAL);
    nb_out = 0;
    if (!s) {
        CHECK(0);
        goto end;
    }
    for (int n = 1000; n < 1010; n++)
        feed(s, pkt, n, 0);
    feed(s, pkt, 1020, 0);
    for (int n = 1010; n < 1018; n++)
        feed(s, pkt, n, 0);
    end_wait(s, pkt);
    for (int n = 1021; n < 1030; n++)
        feed(s, pkt, n, 0);
    for (int i = 0; i < nb_out; i++)
        found += out_seq[i] == 1020;
    printf("reordered: 1020 before 1010..1017, 1018-1019 lost: %d out, 1020 %s, strays %"PRIu64"\n",
           nb_out, found ? "handed on" : "missing", s->strays);
    CHECK(found == 1 && s->strays == 0 && nb_out == 28 && timeline_kept(0));
end:
    close_demuxer(s, ic, pkt);
    av_log_set_level(level);
}

/* one depacketized piece: a start code and NAL header byte(s) nal (none:
 * an FU continuation), then n bytes counting from fill; the RTP timestamp
 * and marker; returns what ff_rtpdec_ext_au() returns, pkt as it leaves */
static int piece(RTPDemuxContext *s, AVPacket *pkt, uint8_t *ref, int *ref_len,
                 int nal, int n, int fill, uint32_t ts, int marker)
{
    int hdr = nal >= 0 ? 5 : 0;
    av_packet_unref(pkt);
    if (av_new_packet(pkt, hdr + n) < 0)
        return AVERROR(ENOMEM);
    if (hdr) {
        AV_WB32(pkt->data, 1);
        pkt->data[4] = nal;
    }
    for (int i = 0; i < n; i++)
        pkt->data[hdr + i] = 0x80 | ((fill + i) & 0x7f);    /* never a start code */
    pkt->pts = ts;
    pkt->stream_index = 0;
    if (ref) {
        memcpy(ref + *ref_len, pkt->data, pkt->size);
        *ref_len += pkt->size;
    }
    return ff_rtpdec_ext_au(s, pkt, ts, marker ? RTP_FLAG_MARKER : 0, 0);
}

static void check_au(void)
{
    RTPDemuxContext s;
    FFRTPDecExtSdp sdp = { 0 };
    FFRTPDecExtOpts opts = { .nack = -1, .max_delay = -1, .nack_max_retries = 10, .au_marker = 1 };
    AVFormatContext *ic = avformat_alloc_context();
    AVStream *st = ic ? avformat_new_stream(ic, NULL) : NULL;
    AVPacket *pkt = av_packet_alloc();
    static uint8_t ref[300000];
    int ref_len = 0, ret;

    if (!st || !pkt) {
        CHECK(0);
        goto end;
    }
    memset(&s, 0, sizeof(s));
    s.ic = ic;
    s.st = st;
    s.payload_type = 96;
    st->codecpar->codec_id = AV_CODEC_ID_H264;
    ffstream(st)->need_parsing = AVSTREAM_PARSE_FULL;
    CHECK(ff_rtpdec_ext_open(&s, &sdp, &opts, 0) >= 0);
    CHECK(ffstream(st)->need_parsing == AVSTREAM_PARSE_HEADERS);

    /* parameter sets with a marker bit of their own (no slice: the access
     * unit goes on), a slice in 150 FU pieces (the buffer grows under
     * them), the marker on the last: one packet, the pieces in order */
    CHECK(piece(&s, pkt, ref, &ref_len, 0x67, 20, 0, 1000, 1) == AVERROR(EAGAIN) && !pkt->size);
    CHECK(piece(&s, pkt, ref, &ref_len, 0x68, 4, 50, 1000, 0) == AVERROR(EAGAIN));
    CHECK(piece(&s, pkt, ref, &ref_len, 0x65, 1195, 7, 1000, 0) == AVERROR(EAGAIN));
    for (int i = 0; i < 148; i++)
        CHECK(piece(&s, pkt, ref, &ref_len, -1, 1198, i * 3, 1000, 0) == AVERROR(EAGAIN));
    ret = piece(&s, pkt, ref, &ref_len, -1, 300, 11, 1000, 1);
    CHECK(ret == 0 && pkt->size == ref_len && !memcmp(pkt->data, ref, ref_len) && pkt->pts == 1000);

    /* a lost marker: the next timestamp ends the access unit, and begins
     * the next one, which its own marker (on that same piece) ends with
     * the packet after it */
    ref_len = 0;
    CHECK(piece(&s, pkt, ref, &ref_len, 0x41, 900, 1, 4000, 0) == AVERROR(EAGAIN));
    CHECK(piece(&s, pkt, ref, &ref_len, -1, 500, 2, 4000, 0) == AVERROR(EAGAIN));
    ret = piece(&s, pkt, NULL, NULL, 0x41, 700, 3, 7000, 1);
    CHECK(ret == 0 && pkt->size == ref_len && !memcmp(pkt->data, ref, ref_len) && pkt->pts == 4000);
    ret = piece(&s, pkt, NULL, NULL, 0x41, 10, 4, 10000, 1);
    CHECK(ret == 0 && pkt->size == 705 && pkt->pts == 7000 && pkt->data[4] == 0x41);
    ret = piece(&s, pkt, NULL, NULL, 0x41, 10, 5, 10000, 0);  /* no marker: gathered */
    CHECK(ret == AVERROR(EAGAIN));
    ff_rtpdec_ext_close(&s);

    /* HEVC: slice types 0-31 (an IDR_W_RADL is 19: header byte 0x26) */
    st->codecpar->codec_id = AV_CODEC_ID_HEVC;
    ffstream(st)->need_parsing = AVSTREAM_PARSE_FULL;
    CHECK(ff_rtpdec_ext_open(&s, &sdp, &opts, 0) >= 0);
    CHECK(piece(&s, pkt, NULL, NULL, 0x40, 20, 0, 1000, 1) == AVERROR(EAGAIN));  /* a VPS */
    CHECK(piece(&s, pkt, NULL, NULL, 0x26, 20, 0, 1000, 1) == 0 && pkt->size == 50);
    ff_rtpdec_ext_close(&s);

    /* au_marker 0: the depacketizer's pieces pass, the parser stays */
    opts.au_marker = 0;
    ffstream(st)->need_parsing = AVSTREAM_PARSE_FULL;
    CHECK(ff_rtpdec_ext_open(&s, &sdp, &opts, 0) >= 0);
    CHECK(ffstream(st)->need_parsing == AVSTREAM_PARSE_FULL);
    CHECK(piece(&s, pkt, NULL, NULL, 0x67, 20, 0, 1000, 0) == 0 && pkt->size == 25);
    ff_rtpdec_ext_close(&s);
    printf("access units: 151 pieces gathered into one at the marker, a lost marker ended by the next timestamp\n");
end:
    av_packet_free(&pkt);
    avformat_free_context(ic);
}

int main(void)
{
    check_nack();
    check_keyframe();
    check_hostile();
    check_au();
    check_strays();
    check_reordered();
    check_far_wait();
    if (failures)
        printf("%d check(s) failed\n", failures);
    return !!failures;
}

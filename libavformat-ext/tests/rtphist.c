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
 * The packet history (libavformat/rtphist.c) on a made-up clock: what a
 * NACK gets (the packet byte for byte, RFC 4588 RTX built here by hand
 * from RFC 4588 section 4, with and without a header extension), the
 * answers for numbers not sent yet, gone, or resent less than a round trip
 * ago, and the resend budget: its size (a quarter second of max_share of
 * the media rate, at least 8 packets) and its refill, counted here from
 * the figures, not read from the history; second copies of resends under
 * loss, against a loss estimate computed here from the event times.
 */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/buffer.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/macros.h"

#include "libavformat/rtphist.h"

static int failures;

#define CHECK(cond, ...) do {                                               \
    if (!(cond)) {                                                          \
        printf("FAIL %s:%d: ", __func__, __LINE__);                         \
        printf(__VA_ARGS__);                                                \
        printf("\n");                                                       \
        failures++;                                                         \
    }                                                                       \
} while (0)

#define SIZE 1000

/** An RTP packet of size bytes: seq, ts, marker, X with an 8-byte extension. */
static AVBufferRef *packet(uint16_t seq, uint32_t ts, int marker, int ext, int size)
{
    AVBufferRef *b = av_buffer_allocz(size);
    if (!b)
        exit(1);
    b->data[0] = 0x80 | (ext ? 0x10 : 0);
    b->data[1] = 96 | (marker ? 0x80 : 0);
    AV_WB16(b->data + 2, seq);
    AV_WB32(b->data + 4, ts);
    AV_WB32(b->data + 8, 0xcafe0001);
    if (ext) {
        AV_WB16(b->data + 12, 0xBEDE);
        AV_WB16(b->data + 14, 1);
        b->data[16] = 0x11;
        AV_WB16(b->data + 17, seq ^ 0x5555);
    }
    for (int i = ext ? 20 : 12; i < size; i++)
        b->data[i] = (seq + i) & 0xff;
    return b;
}

/** Add n packets from seq0, one per ms from t0, 10 per RTP timestamp. */
static void add(FFRTPHist *h, uint16_t seq0, int n, int64_t t0, int ext, uint8_t copies[][SIZE])
{
    for (int i = 0; i < n; i++) {
        uint16_t seq = seq0 + i;
        AVBufferRef *b = packet(seq, 3600 * (seq / 10), i == n - 1, ext, SIZE);
        int size = SIZE;
        if (copies)
            memcpy(copies[i], b->data, SIZE);
        ff_rtp_hist_add(h, &b, &size, 1, t0 + 1000LL * i);
        CHECK(!b, "packet %d not taken", seq);
        av_buffer_unref(&b);
    }
}

static FFRTPHist *hist(int rtx_pt, int history_ms, double max_share)
{
    FFRTPHist *h;
    FFRTPHistConfig cfg = {
        .history_ms = history_ms, .clock_rate = 90000, .rtx_pt = rtx_pt, .rtx_ssrc = 0x1234abcd,
        .rtx_seq = 500, .max_share = max_share, .max_packet = 1200,
    };
    if (ff_rtp_hist_alloc(&h, &cfg) < 0)
        exit(1);
    return h;
}

static void test_answers(void)
{
    static uint8_t copies[100][SIZE];
    FFRTPHist *h = hist(-1, 1000, 0.3);
    const uint8_t *pkt;
    int len;

    add(h, 1000, 100, 0, 0, copies);
    /* a packet in the history: the original, byte for byte */
    CHECK(ff_rtp_hist_nack(h, 1050, 100000, 1e6, 0, &pkt, &len) == FF_RTP_HIST_RESEND &&
          len == SIZE && !memcmp(pkt, copies[50], SIZE), "1050 not resent as it was");
    ff_rtp_hist_resent(h, 1050, 100000);
    /* again within the shortest round trip: on its way */
    CHECK(ff_rtp_hist_nack(h, 1050, 110000, 1e6, 20000, &pkt, &len) == FF_RTP_HIST_EARLY,
          "a repeat 10 ms after the resend, RTT 20 ms, not early");
    CHECK(ff_rtp_hist_nack(h, 1050, 121000, 1e6, 20000, &pkt, &len) == FF_RTP_HIST_RESEND,
          "a repeat 21 ms after the resend, RTT 20 ms, not resent");
    /* not sent yet, and before the oldest */
    CHECK(ff_rtp_hist_nack(h, 1100, 100000, 1e6, 0, &pkt, &len) == FF_RTP_HIST_AHEAD, "1100: not ahead");
    CHECK(ff_rtp_hist_nack(h, 999, 100000, 1e6, 0, &pkt, &len) == FF_RTP_HIST_GONE, "999: not gone");
    /* the newest, for the tail probe */
    CHECK(ff_rtp_hist_newest(h, &pkt, &len) && len == SIZE && !memcmp(pkt, copies[99], SIZE),
          "newest is not 1099");
    /* a gap in the sequence numbers empties it (1102 after 1099: its
     * timestamp is 36,000 after the oldest, within history_ms of media) */
    add(h, 1102, 1, 200000, 0, NULL);
    CHECK(ff_rtp_hist_nack(h, 1050, 200000, 1e6, 0, &pkt, &len) == FF_RTP_HIST_GONE,
          "1050 still answered after a gap");
    /* older than history_ms by the clock */
    add(h, 1103, 1, 1200001, 0, NULL);
    CHECK(ff_rtp_hist_nack(h, 1102, 1200001, 1e6, 0, &pkt, &len) == FF_RTP_HIST_GONE,
          "1102 answered 1000 ms after it left");
    CHECK(ff_rtp_hist_nack(h, 1103, 1200001, 1e6, 0, &pkt, &len) == FF_RTP_HIST_RESEND, "1103 gone");
    /* a packet above max_packet is not kept */
    {
        AVBufferRef *b = packet(1104, 0, 0, 0, 1300);
        int size = 1300;
        ff_rtp_hist_add(h, &b, &size, 1, 1200002);
        CHECK(b, "a 1300-byte packet kept by a history of 1200-byte packets");
        av_buffer_unref(&b);
    }
    ff_rtp_hist_free(&h);
    CHECK(!h, "not freed");

    /* older than history_ms by the media (a source faster than real time):
     * 1 s of 90 kHz is 90000; packets 10 apart in seq are 3600 apart */
    h = hist(-1, 1000, 0.3);
    add(h, 0, 300, 0, 0, NULL);     /* timestamps 0 .. 29 x 3600 = 104400, in 300 ms */
    CHECK(ff_rtp_hist_nack(h, 0, 300000, 1e6, 0, &pkt, &len) == FF_RTP_HIST_GONE,
          "packet 0 kept with 1.16 s of media after it");
    CHECK(ff_rtp_hist_nack(h, 50, 300000, 1e6, 0, &pkt, &len) == FF_RTP_HIST_RESEND,
          "packet 50 (0.96 s of media before the newest) gone");
    ff_rtp_hist_free(&h);
    printf("answers: resend byte for byte, early within a round trip, ahead, gone (gap, age by "
           "clock and by media), oversized not kept\n");
}

/* RFC 4588 4: payload type and SSRC of the RTX stream, its own sequence
 * numbers, the original timestamp and marker, the OSN first in the payload
 * (after a header extension, which stays) */
static void test_rtx(void)
{
    static uint8_t copies[10][SIZE];
    for (int ext = 0; ext < 2; ext++) {
        FFRTPHist *h = hist(97, 1000, 0.3);
        int hdr = ext ? 20 : 12;
        const uint8_t *pkt;
        int len;

        add(h, 3000, 10, 0, ext, copies);
        for (int k = 0; k < 2; k++) {
            uint16_t seq = 3003 + 4 * k;
            const uint8_t *o = copies[seq - 3000];
            CHECK(ff_rtp_hist_nack(h, seq, 20000 + k, 1e6, 0, &pkt, &len) == FF_RTP_HIST_RESEND &&
                  len == SIZE + 2, "RTX of %d: length %d", seq, len);
            CHECK(pkt[0] == o[0] && pkt[1] == ((o[1] & 0x80) | 97), "RTX header byte 1 %02x", pkt[1]);
            CHECK(AV_RB16(pkt + 2) == 500 + k && AV_RB32(pkt + 4) == AV_RB32(o + 4) &&
                  AV_RB32(pkt + 8) == 0x1234abcd, "RTX seq %d ts %u ssrc %08x", AV_RB16(pkt + 2),
                  AV_RB32(pkt + 4), AV_RB32(pkt + 8));
            CHECK(!memcmp(pkt + 12, o + 12, hdr - 12) && AV_RB16(pkt + hdr) == seq &&
                  !memcmp(pkt + hdr + 2, o + hdr, SIZE - hdr), "RTX of %d: extension, OSN or payload", seq);
        }
        /* the marker of the last packet of the unit survives */
        CHECK(ff_rtp_hist_newest(h, &pkt, &len) && (pkt[1] & 0x80) && len == SIZE + 2 &&
              AV_RB16(pkt + hdr) == 3009, "newest as RTX");
        ff_rtp_hist_free(&h);
    }
    printf("RTX: PT, SSRC, own sequence, timestamp, marker, OSN after the extension\n");
}

/* the budget: full at first, at most a quarter second of max_share x the
 * media rate, never less than 8 packets (of max_packet + 2), refilled at
 * max_share x the media rate */
static void test_budget(void)
{
    const uint8_t *pkt;
    int len, n;

    for (int round = 0; round < 2; round++) {
        /* 1 MB/s: 0.3 x 1e6 / 4 = 75,000 bytes; 1 kB/s: 8 x 1202 = 9,616 */
        double rate = round ? 1000 : 1e6;
        int want = round ? 9616 / SIZE : 75000 / SIZE;
        FFRTPHist *h = hist(-1, 1000, 0.3);

        /* 500 packets, 2 s of media: 250..499 are the last second */
        add(h, 0, 500, 0, 0, NULL);
        for (n = 0; n < 200; n++)
            if (ff_rtp_hist_nack(h, 250 + n, 600000, rate, 0, &pkt, &len) != FF_RTP_HIST_RESEND)
                break;
        CHECK(n == want, "%.0f B/s: %d resends at once, %d expected", rate, n, want);
        CHECK(ff_rtp_hist_nack(h, 499, 600000, rate, 0, &pkt, &len) == FF_RTP_HIST_OVER_BUDGET,
              "over budget not said");
        if (!round) {
            /* 10 ms later: 0.3 x 1e6 x 0.01 = 3,000 bytes more, and what
             * was left (75,000 - 75 x 1000 = 0) */
            int m = 0;
            for (int k = 0; k < 20; k++)
                m += ff_rtp_hist_nack(h, 400 + k, 610000, rate, 0, &pkt, &len) == FF_RTP_HIST_RESEND;
            CHECK(m == 3, "%d resends after 10 ms of refill, 3 expected", m);
            /* a second later the bucket is full again, not fuller */
            m = 0;
            for (int k = 0; k < 200; k++)
                m += ff_rtp_hist_nack(h, 250 + k, 1610000 - 500000, rate, 0, &pkt, &len) == FF_RTP_HIST_RESEND;
            CHECK(m == 75, "%d resends with a full bucket, 75 expected", m);
        }
        ff_rtp_hist_free(&h);
    }
    /* max_share 0: no refill, but the floor of 8 packets is always there */
    {
        FFRTPHist *h = hist(-1, 1000, 0);
        add(h, 0, 50, 0, 0, NULL);
        for (n = 0; n < 50; n++)
            if (ff_rtp_hist_nack(h, n, 60000, 1e6, 0, &pkt, &len) != FF_RTP_HIST_RESEND)
                break;
        CHECK(n == 9, "max_share 0: %d resends, 9 (9,616 bytes) expected", n);
        ff_rtp_hist_free(&h);
    }
    /* datagrams as well as bytes: 1200- and 100-byte packets in turn (mean
     * 650 bytes), 650 kB/s of media x 0.3: 48,750 bytes, 75 datagrams. NACKs
     * for the small ones alone: 75 (bytes alone would give 487); for the
     * big ones: 40 (48,750 / 1,200), the bytes */
    for (int big = 0; big < 2; big++) {
        FFRTPHist *h = hist(-1, 1000, 0.3);
        for (int i = 0; i < 1000; i++) {
            int size = i & 1 ? 100 : 1200;
            AVBufferRef *b = packet(i, 90 * i, 0, 0, size);
            ff_rtp_hist_add(h, &b, &size, 1, 1000LL * i);
            av_buffer_unref(&b);
        }
        for (n = 0; n < 600; n++)
            if (ff_rtp_hist_nack(h, 200 + 2 * n + !big, 1000000, 650e3, 0, &pkt, &len) != FF_RTP_HIST_RESEND)
                break;
        CHECK(n == (big ? 40 : 75), "%s packets: %d resends at once, %d expected",
              big ? "1200-byte" : "100-byte", n, big ? 40 : 75);
        /* 100 ms later: 19,500 bytes more, 30 datagrams of 650 (the bytes
         * alone would be 195 small ones) */
        if (!big) {
            int m = 0;
            for (int k = 0; k < 100; k++)
                m += ff_rtp_hist_nack(h, 200 + 2 * (n + k) + 1, 1100000, 650e3, 0, &pkt, &len) == FF_RTP_HIST_RESEND;
            CHECK(m == 30, "%d small resends after 100 ms of refill, 30 expected", m);
        } else {
            /* the big ones: 19,500 bytes are 16 of 1200 (the datagrams
             * alone would be 30) */
            int m = 0;
            for (int k = 0; k < 100; k++)
                m += ff_rtp_hist_nack(h, 200 + 2 * (n + k), 1100000, 650e3, 0, &pkt, &len) == FF_RTP_HIST_RESEND;
            CHECK(m == 16, "%d big resends after 100 ms of refill, 16 expected", m);
        }
        ff_rtp_hist_free(&h);
    }
    printf("budget: 75 of 1000 bytes at 1 MB/s x 0.3, then 3 per 10 ms, full again not fuller; "
           "9 at the 8-packet floor; 75 small datagrams where bytes alone allow 487, 40 big; "
           "100 ms later 30 small, 16 big\n");
}

/* Second copies of resends under loss: the loss estimate (first NACKs over
 * packets sent, both decaying with a 2 s time constant) computed here from
 * the event times, a copy only from dup_loss on and after 50 packets, the
 * next RTX sequence number with the same OSN, one per resend, and only
 * while the budget keeps half of itself (simulated here from the figures). */
static FFRTPHist *hist_dup(double dup_loss)
{
    FFRTPHist *h;
    FFRTPHistConfig cfg = {
        .history_ms = 2000, .clock_rate = 90000, .rtx_pt = 97, .rtx_ssrc = 0x1234abcd,
        .rtx_seq = 500, .max_share = 0.3, .max_packet = 1200, .dup_loss = dup_loss,
    };
    if (ff_rtp_hist_alloc(&h, &cfg) < 0)
        exit(1);
    return h;
}

static void test_copies(void)
{
    const int64_t T = 1000000;
    const double cap = 0.3 * 1e6 / 4, pcap = cap / SIZE;   /* 75,000 bytes, 75 datagrams */
    double sent = 0, tokens = cap, ptokens = pcap, loss, before;
    const uint8_t *pkt;
    int len, rtx_seq = 500, resends = 0, copies = 0, first_copy = -1;
    FFRTPHist *h = hist_dup(0.02);

    /* fewer than 50 packets: no estimate, no copy, at 25 % */
    add(h, 0, 40, 0, 0, NULL);
    for (int k = 0; k < 10; k++) {
        CHECK(ff_rtp_hist_nack(h, 10 + k, 40000, 1e6, 0, &pkt, &len) == FF_RTP_HIST_RESEND, "40: %d", k);
        ff_rtp_hist_resent(h, 10 + k, 40000);
        CHECK(!ff_rtp_hist_copy(h, 10 + k, 40000, &pkt, &len), "a copy after 40 packets");
    }
    CHECK(ff_rtp_hist_loss(h) == 0, "loss %f after 40 packets", ff_rtp_hist_loss(h));
    ff_rtp_hist_free(&h);

    /* 1000 packets, one per ms, then NACKs at 1 s for 900, 901, ... each
     * answered: the loss goes up by 1/sent per NACK, sent = 787.0 */
    h = hist_dup(0.02);
    add(h, 0, 1000, 0, 0, NULL);
    for (int i = 0; i < 1000; i++)
        sent += exp(-(T - 1000.0 * i) / 2e6);
    for (int k = 0; k < 200; k++) {
        uint16_t seq = 900 + k % 100;
        enum FFRTPHistAnswer a = ff_rtp_hist_nack(h, seq, T, 1e6, 0, &pkt, &len);
        int want_copy;

        if (k >= 100) {
            /* the same packets again: counted once, so the loss stays */
            CHECK(fabs(ff_rtp_hist_loss(h) - loss) < 1e-9, "a repeated NACK changed the loss");
            break;
        }
        loss = (k + 1) / sent;
        CHECK(fabs(ff_rtp_hist_loss(h) - loss) < 1e-9, "NACK %d: loss %f, %f expected",
              k, ff_rtp_hist_loss(h), loss);
        if (tokens < SIZE + 2 || ptokens < 1) {
            CHECK(a == FF_RTP_HIST_OVER_BUDGET, "NACK %d: answered past the budget", k);
            k = 99;
            continue;
        }
        CHECK(a == FF_RTP_HIST_RESEND && AV_RB16(pkt + 2) == rtx_seq && AV_RB16(pkt + 12) == seq,
              "NACK %d: answer %d, RTX seq %d", k, a, AV_RB16(pkt + 2));
        tokens -= SIZE + 2;
        ptokens--;
        rtx_seq++;
        resends++;
        /* a copy before the resend is known to have gone: none */
        CHECK(!ff_rtp_hist_copy(h, seq, T, &pkt, &len), "a copy before the resend went out");
        ff_rtp_hist_resent(h, seq, T);
        want_copy = loss >= 0.02 && tokens - (SIZE + 2) >= cap / 2 && ptokens - 1 >= pcap / 2;
        if (ff_rtp_hist_copy(h, seq, T, &pkt, &len)) {
            CHECK(want_copy, "NACK %d: a copy at loss %.4f, tokens %.0f", k, loss, tokens);
            CHECK(len == SIZE + 2 && AV_RB16(pkt + 2) == rtx_seq && AV_RB16(pkt + 12) == seq,
                  "copy of %d: RTX seq %d (%d expected), OSN %d", seq, AV_RB16(pkt + 2), rtx_seq,
                  AV_RB16(pkt + 12));
            tokens -= SIZE + 2;
            ptokens--;
            rtx_seq++;
            copies++;
            if (first_copy < 0)
                first_copy = k;
            CHECK(!ff_rtp_hist_copy(h, seq, T, &pkt, &len), "two copies of one resend");
        } else {
            CHECK(!want_copy, "NACK %d: no copy at loss %.4f, tokens %.0f", k, loss, tokens);
        }
    }
    /* 16 / 787 is the first at 2 %; copies stop when half the 75 kB is spent */
    CHECK(first_copy == 15 && copies >= 5 && copies <= 15 && resends + copies == 74,
          "first copy at NACK %d, %d copies, %d resends", first_copy, copies, resends);

    /* 2 s later, one packet more: both sums decay by 1/e */
    before = ff_rtp_hist_loss(h) * sent;
    add(h, 1000, 1, T + 2000000, 0, NULL);
    loss = before * exp(-1) / (sent * exp(-1) + 1);
    CHECK(fabs(ff_rtp_hist_loss(h) - loss) < 1e-9, "decayed loss %f, %f expected",
          ff_rtp_hist_loss(h), loss);
    ff_rtp_hist_free(&h);

    /* dup_loss 0: never a copy, at 10 % */
    h = hist_dup(0);
    add(h, 0, 1000, 0, 0, NULL);
    for (int k = 0; k < 79; k++) {
        ff_rtp_hist_nack(h, 900 + k, T, 1e6, 0, &pkt, &len);
        ff_rtp_hist_resent(h, 900 + k, T);
        CHECK(!ff_rtp_hist_copy(h, 900 + k, T, &pkt, &len), "dup_loss 0: a copy");
    }
    CHECK(ff_rtp_hist_loss(h) > 0.09, "dup_loss 0: loss %f, still estimated", ff_rtp_hist_loss(h));
    ff_rtp_hist_free(&h);

    for (int i = 0; i < 3; i++) {
        FFRTPHistConfig bad = { .history_ms = 1000, .max_packet = 1200, .clock_rate = 90000,
                                .dup_loss = i == 0 ? 1.5 : i == 1 ? -0.1 : NAN };
        CHECK(ff_rtp_hist_alloc(&h, &bad) < 0 && !h, "dup_loss %f taken", bad.dup_loss);
    }
    printf("copies: loss within 1e-9 of its reference, first copy at 16/787 = 2.03 %%, %d copies "
           "beside %d resends until half the budget, none below 50 packets or with dup_loss 0\n",
           copies, resends);
}

int main(void)
{
    FFRTPHist *h;
    FFRTPHistConfig bad = { .history_ms = -1, .max_packet = 1200 };

    CHECK(ff_rtp_hist_alloc(&h, &bad) < 0 && !h, "history_ms -1 taken");
    test_answers();
    test_rtx();
    test_budget();
    test_copies();
    if (failures) {
        printf("%d checks failed\n", failures);
        return 1;
    }
    printf("rtphist: all checks passed\n");
    return 0;
}

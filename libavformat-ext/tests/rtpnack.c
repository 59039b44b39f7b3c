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
 * The receiver's NACK generator (libavformat/rtpnack.c) on a made-up
 * clock. The times each case expects are worked out here from the rules
 * (a 3 ms reorder allowance before the first request, 100 ms between
 * requests until an RTT is measured, then srtt + max(4 rttvar, 5 ms);
 * Karn's rule; given up one retry after the last request or at the hold
 * cap: 500 ms before any RTT, 200 ms once a number went unanswered), not
 * read from the generator: gaps of several packets, reordering, the RTT,
 * retries and giving up, skipping, restarts and jumps, duplicates, the
 * bound on what is tracked, and the reorder queue's wait.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/macros.h"

#include "libavformat/rtpnack.h"

static int failures;

#define CHECK(cond, ...) do {                                               \
    if (!(cond)) {                                                          \
        printf("FAIL %s:%d: ", __func__, __LINE__);                         \
        printf(__VA_ARGS__);                                                \
        printf("\n");                                                       \
        failures++;                                                         \
    }                                                                       \
} while (0)

static FFRTPNack g;
static uint16_t seqs[2048];

static int due(int64_t now, int64_t *next)
{
    return ff_rtp_nack_due(&g, now, seqs, FF_ARRAY_ELEMS(seqs), next);
}

static void test_gap(void)
{
    int64_t next;
    int n;

    ff_rtp_nack_init(&g, 1, 10, 1000000, NULL);
    for (int s = 0; s < 10; s++)
        CHECK(!ff_rtp_nack_packet(&g, s, 0), "packet %d a duplicate", s);
    /* 10..14 lost: shown at 10 ms by 15 */
    ff_rtp_nack_packet(&g, 15, 10000);
    CHECK(g.st.missing == 5 && g.nb_miss == 5, "%"PRIu64" missing, %d pursued", g.st.missing, g.nb_miss);
    n = due(12000, &next);
    CHECK(n == 0 && next == 13000, "before the reorder allowance: %d due, next %"PRId64, n, next);
    /* 11 arrives reordered before any request */
    ff_rtp_nack_packet(&g, 11, 12500);
    CHECK(g.st.reordered == 1 && g.nb_miss == 4, "reordered %"PRIu64, g.st.reordered);
    n = due(13000, &next);
    CHECK(n == 4 && seqs[0] == 10 && seqs[1] == 12 && seqs[2] == 13 && seqs[3] == 14,
          "%d due at 13 ms (10, 12, 13, 14 expected)", n);
    CHECK(next == 113000, "next request at %"PRId64", 113000 expected (100 ms without an RTT)", next);
    CHECK(due(50000, &next) == 0, "asked again before the retry interval");
    /* 12 arrives 30 ms after its only request: an RTT sample */
    ff_rtp_nack_packet(&g, 12, 43000);
    CHECK(g.st.recovered == 1 && g.srtt == 30000 && g.rttvar == 15000,
          "srtt %"PRId64" rttvar %"PRId64" (30000 and 15000 expected)", g.srtt, g.rttvar);
    CHECK(ff_rtp_nack_retry_interval(&g) == 30000 + 60000, "retry interval %"PRId64", 90000 expected",
          ff_rtp_nack_retry_interval(&g));
    /* so the others are due again 90 ms after their request */
    CHECK(due(102999, &next) == 0 && next == 103000, "next %"PRId64", 103000 expected", next);
    n = due(103000, &next);
    CHECK(n == 3 && seqs[0] == 10 && seqs[1] == 13 && seqs[2] == 14, "%d due at 103 ms", n);
    /* 13 arrives after two requests: recovered, but no RTT sample (Karn) */
    ff_rtp_nack_packet(&g, 13, 110000);
    CHECK(g.st.recovered == 2 && g.srtt == 30000, "a twice-asked number gave an RTT sample");
    /* a copy of a number handed on already: a duplicate, to be dropped */
    CHECK(ff_rtp_nack_packet(&g, 13, 111000) == 1 && g.st.duplicates == 1, "second 13 not a duplicate");
    CHECK(ff_rtp_nack_packet(&g, 5, 111000) == 1 && g.st.duplicates == 2, "old 5 not a duplicate");
    printf("gap: 5 missing, one reordered, 4 asked for at +3 ms, RTT 30 ms from a once-asked number, "
           "retry at 90 ms, Karn's rule, duplicates\n");
}

static void test_give_up(void)
{
    int64_t next, t;
    int n, asked = 0;

    /* 2 retries, no RTT: asked at +3 ms and +103 ms, given up 100 ms after
     * the second request, within the 500 ms hold cap */
    ff_rtp_nack_init(&g, 1, 2, 1000000, NULL);
    ff_rtp_nack_packet(&g, 100, 0);
    ff_rtp_nack_packet(&g, 102, 0);
    for (t = 0; t <= 400000; t += 1000) {
        n = due(t, &next);
        asked += n;
        if (!g.nb_miss)
            break;
    }
    CHECK(asked == 2 && t == 203000 && g.st.lost == 1, "asked %d times, given up at %"PRId64" (2 and "
          "203000 expected), lost %"PRIu64, asked, t, g.st.lost);
    /* arriving after that: late */
    ff_rtp_nack_packet(&g, 101, 210000);
    CHECK(g.st.late == 1, "late %"PRIu64, g.st.late);
    /* once a number went unanswered the hold cap is 200 ms: a new loss with
     * many retries left is given up at detection + 200 ms */
    ff_rtp_nack_init(&g, 1, 10, 1000000, NULL);
    ff_rtp_nack_packet(&g, 0, 0);
    ff_rtp_nack_packet(&g, 2, 0);           /* 1 missing */
    for (t = 0; t <= 600000 && g.nb_miss; t += 1000)
        due(t, &next);
    CHECK(t == 501000 && g.st.lost == 1, "without an RTT, held %"PRId64" us (500 ms expected)", t - 1000);
    ff_rtp_nack_packet(&g, 4, 600000);      /* 3 missing */
    for (t = 600000; t <= 1200000 && g.nb_miss; t += 1000)
        due(t, &next);
    CHECK(t == 801000, "after an unanswered number, held %"PRId64" us (200 ms expected)", t - 601000);
    /* the demuxer skips: what is before the number skipped to is given up */
    ff_rtp_nack_packet(&g, 10, 900000);     /* 5..9 missing */
    ff_rtp_nack_skip(&g, 8);
    CHECK(g.nb_miss == 2 && g.miss[0].seq == 8 && g.st.skipped == 1 && g.st.lost == 5,
          "skip to 8: %d pursued, lost %"PRIu64, g.nb_miss, g.st.lost);
    printf("give up: after 2 requests + a retry (203 ms), hold cap 500 ms then 200 ms, skip\n");
}

static void test_wait_end(void)
{
    int64_t next;

    /* the reorder queue waits for 5..7 (its head is 8) while they are
     * pursued: the latest give-up time among them */
    ff_rtp_nack_init(&g, 1, 3, 1000000, NULL);
    ff_rtp_nack_packet(&g, 4, 0);
    ff_rtp_nack_packet(&g, 8, 1000);        /* 5, 6, 7 missing */
    ff_rtp_nack_packet(&g, 12, 2000);       /* 9, 10, 11 missing */
    CHECK(ff_rtp_nack_wait_end(&g, 5, 8) == 1000 + 500000, "wait end %"PRId64", 501000 expected",
          ff_rtp_nack_wait_end(&g, 5, 8));
    CHECK(ff_rtp_nack_wait_end(&g, 9, 12) == 2000 + 500000, "second gap's wait end");
    CHECK(ff_rtp_nack_wait_end(&g, 13, 14) == 0, "nothing pursued there");
    due(5000, &next);                       /* all six asked once (the second gap at +3 ms too) */
    CHECK(g.miss[0].retries == 1 && g.miss[5].retries == 1, "not asked");
    printf("wait end: the give-up time of the numbers before the queue's head\n");
}

static void test_bounds(void)
{
    int64_t next;

    /* a jump over 1000 is a restart, not loss: nothing to ask for */
    ff_rtp_nack_init(&g, 1, 10, 1000000, NULL);
    ff_rtp_nack_packet(&g, 100, 0);
    ff_rtp_nack_packet(&g, 103, 0);
    ff_rtp_nack_packet(&g, 103 + 1002, 1000);
    CHECK(g.nb_miss == 0 && g.st.seq_jumps == 1 && g.st.lost == 2, "jump: %d pursued", g.nb_miss);
    /* far behind, then followed: a restart there; a stray one alone is not */
    ff_rtp_nack_packet(&g, 50, 2000);
    CHECK(g.st.seq_jumps == 1 && g.st.duplicates == 1, "a stray packet taken as a restart");
    ff_rtp_nack_packet(&g, 51, 3000);
    CHECK(g.st.seq_jumps == 2 && g.highest == 51 + 0 * 65536, "restart at 51 not followed (%"PRId64")",
          g.highest);
    /* at most 1024 numbers pursued: the oldest go first (after 1000
     * arrivals in half a second, gaps of 900 are plausible) */
    ff_rtp_nack_init(&g, 1, 10, 1000000, NULL);
    for (int i = 0; i < 1000; i++)
        ff_rtp_nack_packet(&g, i, i * 500);
    ff_rtp_nack_packet(&g, 1900, 500000);   /* 900 missing */
    ff_rtp_nack_packet(&g, 2801, 500000);   /* 900 more */
    CHECK(g.nb_miss == FF_RTP_NACK_MAX_MISSING && g.st.lost == 1800 - FF_RTP_NACK_MAX_MISSING &&
          g.miss[0].seq == 1776,    /* of 1000..1899 and 1901..2800 the first 776 went */
          "bounded: %d pursued, lost %"PRIu64", oldest %"PRId64, g.nb_miss, g.st.lost, g.miss[0].seq);
    /* requests per call are bounded by the caller's room */
    CHECK(ff_rtp_nack_due(&g, 510000, seqs, 256, &next) == 256, "more than 256 in one request");
    /* across the 16-bit wrap */
    ff_rtp_nack_init(&g, 1, 10, 1000000, NULL);
    ff_rtp_nack_packet(&g, 65534, 0);
    ff_rtp_nack_packet(&g, 1, 0);           /* 65535 and 0 missing */
    CHECK(due(5000, &next) == 2 && seqs[0] == 65535 && seqs[1] == 0, "across the wrap: %d", g.nb_miss);
    /* NACKs off: losses counted, nothing asked for, copies not dropped */
    ff_rtp_nack_init(&g, 0, 10, 1000000, NULL);
    ff_rtp_nack_packet(&g, 0, 0);
    ff_rtp_nack_packet(&g, 5, 0);
    CHECK(g.st.missing == 4 && !g.nb_miss && due(10000, &next) == 0, "NACKs off: %d pursued", g.nb_miss);
    CHECK(ff_rtp_nack_packet(&g, 5, 1) == 0, "a copy dropped with NACKs off");
    printf("bounds: restart over 1000, stray packet, 1024 pursued at most, the wrap, NACKs off\n");
}

/* a gap no larger than what arrived in the last second (at least 128) is
 * asked for; a larger one is a jump: nothing asked, counted once */
static void test_plausible(void)
{
    int64_t next;

    ff_rtp_nack_init(&g, 1, 10, 1000000, NULL);
    ff_rtp_nack_packet(&g, 0, 0);
    ff_rtp_nack_packet(&g, 129, 1000);      /* 128 missing: the floor */
    CHECK(g.nb_miss == 128 && g.st.seq_jumps == 0, "a gap of 128: %d pursued", g.nb_miss);
    ff_rtp_nack_packet(&g, 129 + 130, 2000); /* 129 missing, 3 arrived */
    CHECK(g.nb_miss == 128 && g.st.seq_jumps == 1, "a gap of 129 after 3 packets: %d pursued "
          "(the 128 before kept), %"PRIu64" jumps", g.nb_miss, g.st.seq_jumps);
    /* 300 arrivals within a second: a gap of 250 is asked for, 400 not */
    ff_rtp_nack_init(&g, 1, 10, 1000000, NULL);
    for (int i = 0; i < 300; i++)
        ff_rtp_nack_packet(&g, i, i * 3000);
    ff_rtp_nack_packet(&g, 299 + 251, 900000);
    CHECK(g.nb_miss == 250, "a gap of 250 after 300 packets: %d pursued", g.nb_miss);
    ff_rtp_nack_packet(&g, 550 + 401, 910000);
    CHECK(g.nb_miss == 250 && g.st.seq_jumps == 1, "a gap of 400 after 302 packets: %d pursued",
          g.nb_miss);
    /* the count is of the last second: 2 s later, 3 arrivals, the floor again */
    ff_rtp_nack_packet(&g, 952, 2900000);
    ff_rtp_nack_packet(&g, 953, 4000000);
    ff_rtp_nack_packet(&g, 953 + 201, 4000000);
    CHECK(g.st.seq_jumps == 2, "a gap of 200 after an idle second taken as loss");
    /* the storm: a packet 999 ahead every 5 ms (200 a second): never a NACK */
    ff_rtp_nack_init(&g, 1, 10, 1000000, NULL);
    for (int i = 0; i < 400; i++)
        ff_rtp_nack_packet(&g, (uint16_t)(999 * i), i * 5000);
    CHECK(!g.nb_miss && ff_rtp_nack_due(&g, 2000000, seqs, 256, &next) == 0,
          "packets 999 apart at 200/s: %d pursued", g.nb_miss);
    printf("plausible gaps: 128 after 1 packet, 250 after 300 in a second, not 129 after 3, "
           "400 after 302, nor 999 at 200 a second\n");
}

/* how long a packet far ahead is held: twice 8 packets at the rate of the
 * last second, within 20 and 500 ms */
static void test_jump_wait(void)
{
    static const struct { int rate; int64_t wait; } cases[] = {
        { 0, 500000 }, { 10, 500000 }, { 100, 160000 }, { 400, 40000 }, { 2000, 20000 },
    };
    for (int c = 0; c < FF_ARRAY_ELEMS(cases); c++) {
        int64_t w;
        ff_rtp_nack_init(&g, 1, 10, 1000000, NULL);
        /* a second at the rate, then the start of the next */
        for (int i = 0; i < cases[c].rate; i++)
            ff_rtp_nack_packet(&g, i, 1000 + i * (1000000 / cases[c].rate));
        ff_rtp_nack_packet(&g, cases[c].rate, 1001000);
        w = ff_rtp_nack_jump_wait(&g, 8);
        CHECK(llabs(w - cases[c].wait) <= cases[c].wait / 50,
              "%d packets a second: a jump held %"PRId64" us, %"PRId64" expected",
              cases[c].rate, w, cases[c].wait);
    }
    printf("jump wait: 500 ms at 0 and 10 packets a second, 160 ms at 100, 40 ms at 400, "
           "20 ms at 2000\n");
}

/* the receiver's RTCP budget: 3.75 % of the media bytes of the last
 * second, never below 1000 B/s, a quarter second banked (at least 1400
 * bytes) */
static void test_budget(void)
{
    FFRTPRtcpBudget b = { 0 };
    int64_t media = 0, spent = 0, t;

    CHECK(ff_rtp_rtcp_budget_left(&b, 1000) == FF_RTP_RTCP_DEPTH, "not full at first");
    ff_rtp_rtcp_budget_spend(&b, 1400, 1000);
    /* 1000 B/s at the floor: 100 bytes take 100 ms */
    t = ff_rtp_rtcp_budget_wait(&b, 100, 1000);
    CHECK(t >= 99000 && t <= 101000, "the floor: 100 bytes after %"PRId64" us, 100 ms expected", t);
    /* 2 MB/s of media for 3 s, a sender of 1000-byte compounds as often as
     * the budget lets it: after the first second, 75 kB/s */
    for (t = 2000; t < 3000000; t += 1000) {
        for (int k = 0; k < 2; k++) {
            ff_rtp_rtcp_budget_media(&b, 1000, t);
            if (t >= 1000000)
                media += 1000;
        }
        if (!ff_rtp_rtcp_budget_wait(&b, 1000, t)) {
            ff_rtp_rtcp_budget_spend(&b, 1000, t);
            if (t >= 1000000)
                spent += 1000;
        }
    }
    printf("budget: %"PRId64" bytes of RTCP for %"PRId64" of media over 2 s (%.2f %%)\n",
           spent, media, 100.0 * spent / media);
    CHECK(spent <= 0.0375 * media + 18750 + 1000, "%"PRId64" bytes of RTCP for %"PRId64" of media",
          spent, media);
    CHECK(spent >= 0.035 * media, "only %"PRId64" of %"PRId64" used", spent, media);
    /* nothing spent for a second at that rate: a quarter second banked
     * (75 kB/s: 18,750 bytes), no more */
    for (; t < 4000000; t += 1000)
        ff_rtp_rtcp_budget_media(&b, 2000, t);
    {
        double left = ff_rtp_rtcp_budget_left(&b, t);
        printf("budget: %.0f bytes banked after an idle second at 75 kB/s\n", left);
        CHECK(left >= 18000 && left <= 19500, "%.0f bytes banked, 18750 expected", left);
    }
}

int main(void)
{
    test_gap();
    test_give_up();
    test_wait_end();
    test_bounds();
    test_plausible();
    test_budget();
    test_jump_wait();
    if (failures) {
        printf("%d checks failed\n", failures);
        return 1;
    }
    printf("rtpnack: all checks passed\n");
    return 0;
}

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
 * The pacer (libavformat/rtppacer.c) driven by a made-up clock: a camera
 * that hands it access units at 25 fps, and a loop that wakes exactly when
 * the pacer says its next burst is due. Every packet carries a sequence
 * number, so each departure is traced back to its unit. What each case
 * expects is computed here from the scenario (the stream's rate, the
 * options), not read from the pacer: the budget per burst, the spacing at
 * pace_factor x the media rate, the link's cap, the due time of a keyframe
 * asked for, forced drains at max_delay, resends ahead of the media, the
 * resend queue's bound, a source faster than real time, the kernel's
 * departure times, and the drain at the end.
 */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/buffer.h"
#include "libavutil/error.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/macros.h"

#include "libavformat/rtppacer.h"

#define PKT       1200
#define CLOCK     90000
#define FRAME     40000             /* µs: 25 fps */
#define MAX_PKTS  100000
#define MAX_BURST 256
#define LATE_CREDIT 1000            /* µs of a late wake-up the pacer makes up for (rtppacer.c) */

static int failures;

#define CHECK(cond, ...) do {                                               \
    if (!(cond)) {                                                          \
        printf("FAIL %s:%d: ", __func__, __LINE__);                         \
        printf(__VA_ARGS__);                                                \
        printf("\n");                                                       \
        failures++;                                                         \
    }                                                                       \
} while (0)

typedef struct Departure {
    int64_t time;                   /* when it left (its departure time if handed out ahead) */
    int64_t handed;                 /* when the pacer handed it out */
    int burst;                      /* index of its burst */
} Departure;

typedef struct Sim {
    FFRTPPacer *p;
    FFRTPPacerConfig cfg;
    int64_t now;
    uint16_t seq;
    int64_t pushed_at[MAX_PKTS];    /* by sequence number */
    Departure dep[MAX_PKTS];
    int nb_pushed, nb_dep, in_order;
    int nb_bursts;
    int64_t burst_time[MAX_PKTS], burst_handed[MAX_PKTS];
    int burst_bytes[MAX_PKTS], burst_resent[MAX_PKTS], burst_media_pkts[MAX_PKTS];
    int burst_after_idle[MAX_PKTS]; /* the first burst after the pacer was empty */
    int idle;
    int resends_sent;
    int64_t resend_time[1024];
    int resend_burst[1024];
} Sim;

static Sim sim;

static void sim_init(const FFRTPPacerConfig *cfg)
{
    memset(&sim, 0, sizeof(sim));
    sim.cfg = *cfg;
    sim.in_order = 1;
    sim.idle = 1;
    if (ff_rtp_pacer_alloc(&sim.p, cfg) < 0) {
        printf("FAIL: ff_rtp_pacer_alloc\n");
        exit(1);
    }
}

/** One access unit of nb packets of size bytes, RTP timestamp ts, now. */
static int push_unit(int nb, int size, uint32_t ts)
{
    AVBufferRef *bufs[2048];
    int sizes[2048] = { 0 }, ret;

    if (nb <= 0 || nb > FF_ARRAY_ELEMS(bufs))
        exit(1);
    for (int i = 0; i < nb; i++) {
        bufs[i] = av_buffer_allocz(size);
        if (!bufs[i])
            exit(1);
        bufs[i]->data[0] = 0x80;
        AV_WB16(bufs[i]->data + 2, sim.seq);
        AV_WB32(bufs[i]->data + 4, ts);
        sizes[i] = size;
        sim.pushed_at[sim.seq] = sim.now;
        sim.seq++;
    }
    ret = ff_rtp_pacer_push(sim.p, bufs, sizes, nb, sim.now);
    for (int i = 0; i < nb; i++)
        av_buffer_unref(&bufs[i]);  /* not taken: the caller's to send */
    if (ret == 1)
        sim.nb_pushed += nb;
    else
        sim.seq -= nb;
    return ret;
}

/** Run every burst due now; returns when the next one is due. */
static int64_t run_bursts(void)
{
    FFRTPPacerBurst b;
    int64_t next = INT64_MAX;

    for (int guard = 0; guard < 1000 && ff_rtp_pacer_burst_start(sim.p, sim.now, &b, &next); guard++) {
        AVBufferRef *bufs[MAX_BURST];
        int sizes[MAX_BURST], nb, bytes = 0, i = sim.nb_bursts;
        uint8_t *data;
        int len;

        while (ff_rtp_pacer_resend_peek(sim.p, &b, &data, &len)) {
            if (sim.resends_sent < FF_ARRAY_ELEMS(sim.resend_time)) {
                sim.resend_time[sim.resends_sent]  = sim.now;
                sim.resend_burst[sim.resends_sent] = i;
            }
            sim.resends_sent++;
            ff_rtp_pacer_resend_done(sim.p, &b);
        }
        nb = ff_rtp_pacer_take(sim.p, &b, bufs, sizes, MAX_BURST);
        for (int k = 0; k < nb; k++) {
            uint16_t seq = AV_RB16(bufs[k]->data + 2);
            if (sim.nb_dep < MAX_PKTS) {
                Departure *d = &sim.dep[sim.nb_dep];
                if (seq != (uint16_t)sim.nb_dep)
                    sim.in_order = 0;
                d->time   = b.depart ? b.depart : sim.now;
                d->handed = sim.now;
                d->burst  = i;
            }
            sim.nb_dep++;
            bytes += sizes[k];
            av_buffer_unref(&bufs[k]);
        }
        ff_rtp_pacer_burst_end(sim.p, &b);
        if (i < MAX_PKTS) {
            sim.burst_time[i]       = b.depart ? b.depart : sim.now;
            sim.burst_handed[i]     = sim.now;
            sim.burst_bytes[i]      = bytes + b.resent;
            sim.burst_resent[i]     = b.resent;
            sim.burst_media_pkts[i] = nb;
            sim.burst_after_idle[i] = sim.idle;
        }
        sim.idle = 0;
        sim.nb_bursts++;
    }
    if (next == INT64_MAX)
        sim.idle = 1;
    return next;
}

/**
 * A camera: units of nb x PKT bytes every FRAME µs from the clock's time
 * now until `until`, on time by their timestamps (ts0 at now); special
 * units pushed by hook at their time. The pacer runs in between.
 */
typedef int (*UnitHook)(int index, int64_t *nb, int *urgent);

static uint32_t camera(int64_t until, int nb, uint32_t ts0, UnitHook hook)
{
    int64_t start = sim.now, next_unit = sim.now;
    uint32_t ts = ts0;

    for (int index = 0, guard = 0; guard < 10000000; guard++) {
        int64_t next = run_bursts();

        if (next_unit >= until && next == INT64_MAX)
            break;
        if (next_unit < until && next_unit <= next) {
            int64_t n = nb;
            int urgent = 0;

            sim.now = next_unit;
            if (hook)
                hook(index, &n, &urgent);
            if (urgent)
                ff_rtp_pacer_urgent(sim.p, urgent);
            push_unit(n, PKT, ts);
            index++;
            ts        = ts0 + (uint32_t)((next_unit + FRAME - start) * CLOCK / 1000000);
            next_unit += FRAME;
        } else {
            if (next == INT64_MAX)
                break;
            sim.now = FFMAX(next, sim.now);
        }
    }
    return ts;
}

static FFRTPPacerConfig default_cfg(void)
{
    return (FFRTPPacerConfig){
        .factor     = 1.5,
        .burst      = 16384,
        .max_delay  = 500000,
        .clock_rate = CLOCK,
        .max_resend = PKT + 16,
    };
}

/** Departures of the packets pushed at or after t0: first and last. */
static void unit_span(int64_t t0, int64_t t1, int64_t *first, int64_t *last, int *count)
{
    *first = INT64_MAX;
    *last  = INT64_MIN;
    *count = 0;
    for (int i = 0; i < FFMIN(sim.nb_dep, MAX_PKTS); i++) {
        if (sim.pushed_at[(uint16_t)i] < t0 || sim.pushed_at[(uint16_t)i] >= t1)
            continue;
        *first = FFMIN(*first, sim.dep[i].time);
        *last  = FFMAX(*last, sim.dep[i].time);
        (*count)++;
    }
}

/**
 * The gaps between bursts of one backlog (the next burst was due before
 * the one after the gap left): each gap is the bytes of the burst before
 * it over the pacing rate, less up to 1 ms of a late wake-up that the
 * pacer makes up for after the first burst that follows an idle time (it
 * cannot tell idle from late). Checks the rate of every gap after `from` against want
 * (bytes/s) within tol; returns how many were checked.
 */
static int check_spacing(int64_t from, double want, double tol, const char *what)
{
    int checked = 0, bad = 0;
    double worst = 1;

    for (int i = 1; i < FFMIN(sim.nb_bursts, MAX_PKTS); i++) {
        int64_t gap = sim.burst_time[i] - sim.burst_time[i - 1];
        double rate;

        if (sim.burst_time[i - 1] < from || gap <= 0)
            continue;
        rate = sim.burst_bytes[i - 1] * 1e6 / gap;
        /* after idle: up to LATE_CREDIT early (less when the idle time
         * was shorter) */
        if (sim.burst_after_idle[i - 1] && rate > want * (1 + tol))
            rate = FFMAX(sim.burst_bytes[i - 1] * 1e6 / (gap + LATE_CREDIT), want);
        /* a gap longer than the rate asks is idle time (no backlog) */
        if (rate < want * (1 - tol) && gap > 2 * sim.burst_bytes[i - 1] * 1e6 / want)
            continue;
        checked++;
        if (fabs(rate / want - 1) > tol) {
            if (!bad++ || fabs(rate / want - 1) > fabs(worst - 1))
                worst = rate / want;
        }
    }
    CHECK(!bad, "%s: %d of %d gaps off the rate %.0f B/s by more than %.0f %% (worst %.3f x)",
          what, bad, checked, want, tol * 100, worst);
    return checked;
}

/* 25 fps of 40 x 1200 bytes: 1.2 MB/s (9.6 Mbit/s), paced at 1.5x in
 * bursts of 16384 bytes (13 packets) */
static void test_steady(void)
{
    const double media = 40.0 * PKT * 1e6 / FRAME;
    int64_t first, last, max_wait = 0;
    int count, checked;

    /* the encoder's bit rate known: no slow first second */
    sim_init(&(FFRTPPacerConfig){ .factor = 1.5, .burst = 16384, .max_delay = 500000,
                                  .bit_rate = 9600000, .clock_rate = CLOCK, .max_resend = PKT + 16 });
    camera(4000000, 40, 1234, NULL);
    CHECK(sim.nb_dep == sim.nb_pushed && sim.nb_pushed == 100 * 40,
          "%d of %d packets left (100 units of 40)", sim.nb_dep, sim.nb_pushed);
    CHECK(sim.in_order, "packets left out of order");
    CHECK(ff_rtp_pacer_empty(sim.p), "not empty at the end");
    /* the budget: no burst above pace_burst */
    for (int i = 0; i < sim.nb_bursts; i++)
        CHECK(sim.burst_bytes[i] <= 16384, "burst %d: %d bytes > pace_burst 16384", i, sim.burst_bytes[i]);
    /* each unit in ceil(48000 / 15600) = 4 bursts: 13 + 13 + 13 + 1 packets */
    CHECK(sim.nb_bursts == 400, "%d bursts, 400 expected", sim.nb_bursts);
    /* after the first second (the rate window full): 1.5 x the media rate;
     * the window is sampled between units, so within 5 % */
    checked = check_spacing(1200000, 1.5 * media, 0.05, "steady");
    CHECK(checked >= 200, "only %d gaps checked", checked);
    /* a unit leaves within (48000 - the last burst) / rate less 1 ms
     * (after idle): 25 ms at 1.5x, less than a frame interval */
    for (int k = 30; k < 100; k++) {
        unit_span(k * FRAME, (k + 1) * FRAME, &first, &last, &count);
        CHECK(count == 40, "unit %d: %d packets", k, count);
        CHECK(first == k * FRAME, "unit %d: first burst at +%"PRId64" us, not at once", k, first - k * FRAME);
        max_wait = FFMAX(max_wait, last - k * FRAME);
    }
    CHECK(max_wait > 0.9 * ((48000 - 1200) / (1.5 * media) * 1e6 - LATE_CREDIT) &&
          max_wait < 1.1 * ((48000 - 1200) / (1.5 * media) * 1e6 - LATE_CREDIT),
          "a unit took %"PRId64" us to leave, %.0f expected", max_wait,
          (48000 - 1200) / (1.5 * media) * 1e6 - LATE_CREDIT);
    {
        FFRTPPacerStats st;
        ff_rtp_pacer_get_stats(sim.p, &st);
        CHECK(!st.forced_drains && !st.urgent_units && !st.unpaced_units,
              "%"PRIu64" forced, %"PRIu64" urgent, %"PRIu64" unpaced", st.forced_drains,
              st.urgent_units, st.unpaced_units);
        CHECK(st.bursts == 400, "%"PRIu64" bursts counted", st.bursts);
        /* the media rate the sender reports (the resend budget's): 1.2 MB/s,
         * the window sampled up to 5 % high; gone a second after the last */
        CHECK(fabs(ff_rtp_pacer_media_rate(sim.p, 99 * FRAME + 20000) / media - 1.025) < 0.03,
              "media rate %.0f B/s, %.0f expected", ff_rtp_pacer_media_rate(sim.p, 99 * FRAME + 20000), media);
        CHECK(ff_rtp_pacer_media_rate(sim.p, 99 * FRAME + 1000001) == 0, "media rate after a second idle");
        /* waits of 0, 7.7, 16.3 and 25 ms (13, 13, 13 and 1 packets: the
         * second burst 1 ms early, see check_spacing()), the rate up to
         * 5 % above 1.5x by the window's sampling */
        CHECK(st.delay_max_ms < 26.5 && st.delay_p50_ms > 7 && st.delay_p50_ms <= 8,
              "waits p50 %.2f ms max %.2f ms (7.7 and 25 expected)", st.delay_p50_ms, st.delay_max_ms);
    }
    ff_rtp_pacer_free(&sim.p);
    printf("steady: 4000 packets in 400 bursts of <= 16384 bytes, %d gaps at 1.5x the media rate, "
           "a unit out in %.1f ms\n", checked, max_wait / 1000.0);
}

/* a camera at 40 packets a frame with the link's rate set to link x its
 * media rate: the bursts must go at want x the media rate */
static void link_case(double link, double want, const char *what)
{
    const double media = 40.0 * PKT * 1e6 / FRAME;
    int checked;

    sim_init(&(FFRTPPacerConfig){ .factor = 1.5, .burst = 16384, .max_delay = 500000,
                                  .clock_rate = CLOCK, .max_resend = PKT + 16 });
    ff_rtp_pacer_set_link_rate(sim.p, link * media);
    camera(3000000, 40, 0, NULL);
    checked = check_spacing(1200000, want * media, 0.05, what);
    CHECK(checked >= 100, "%s: only %d gaps checked", what, checked);
    ff_rtp_pacer_free(&sim.p);
}

/* factor x the link's rate is the pacing rate (never below the media rate) */
static void test_link_rate(void)
{
    const double media = 40.0 * PKT * 1e6 / FRAME;
    int checked;

    /* a link at the media rate, as when the encoder follows the target:
     * still factor x the media rate, so that a good link adds no delay */
    link_case(1, 1.5, "link 1x");
    /* a source below the target: 1.5 x 2 = 3 x the media rate */
    link_case(2, 3, "link 2x");
    /* an encoder over the target: 1.5 x 0.8 = 1.2 x the media rate */
    link_case(0.8, 1.2, "link 0.8x");

    sim_init(&(FFRTPPacerConfig){ .factor = 1.5, .burst = 16384, .max_delay = 500000,
                                  .clock_rate = CLOCK, .max_resend = PKT + 16 });
    ff_rtp_pacer_set_link_rate(sim.p, 0.3 * media);
    camera(3000000, 40, 0, NULL);
    /* below the media rate: paced at the media rate (a queue that only
     * grows helps nobody): each unit out within 2.5 frame intervals,
     * where 0.45x (factor x the link) would queue 0.3 s more each second */
    {
        int64_t worst = 0;
        checked = 0;
        for (int i = 0; i < sim.nb_dep && i < MAX_PKTS; i++) {
            if (sim.pushed_at[i] < 1200000)
                continue;
            worst = FFMAX(worst, sim.dep[i].time - sim.pushed_at[i]);
            checked++;
        }
        CHECK(checked >= 1000, "only %d packets checked", checked);
        CHECK(worst <= 100000, "link 0.3x: a packet waited %"PRId64" us (100 ms at most)", worst);
    }
    CHECK(sim.nb_dep == sim.nb_pushed, "%d of %d left", sim.nb_dep, sim.nb_pushed);
    ff_rtp_pacer_free(&sim.p);
    printf("link rate: factor x the link's rate (3x, 1.5x, 1.2x), floored at the media rate (0.3x)\n");
}

static int big_at = -1, big_packets, big_urgent;

static int keyframe_hook(int index, int64_t *nb, int *urgent)
{
    if (index == big_at) {
        *nb = big_packets;
        *urgent = big_urgent;
    }
    return 0;
}

/* a 300 KB keyframe asked for by a receiver: due within 30 ms */
static int64_t keyframe_run(int urgent, int64_t max_delay, FFRTPPacerStats *st)
{
    int64_t first, last;
    int count;

    /* the encoder's bit rate known (12,000 bytes per frame): no slow first
     * second, whose backlog would be forced out too */
    sim_init(&(FFRTPPacerConfig){ .factor = 1.5, .burst = 16384, .max_delay = max_delay,
                                  .bit_rate = 2400000, .clock_rate = CLOCK, .max_resend = PKT + 16 });
    big_at = 50;                /* at 2 s */
    big_packets = 250;          /* 300,000 bytes */
    big_urgent = urgent;
    camera(3000000, 10, 0, keyframe_hook);
    unit_span(50 * FRAME, 51 * FRAME, &first, &last, &count);
    CHECK(count == 250, "keyframe: %d of 250 packets", count);
    CHECK(sim.nb_dep == sim.nb_pushed, "%d of %d left", sim.nb_dep, sim.nb_pushed);
    ff_rtp_pacer_get_stats(sim.p, st);
    ff_rtp_pacer_free(&sim.p);
    big_at = -1;
    return last - 50 * FRAME;
}

static void test_keyframe_due(void)
{
    FFRTPPacerStats st;
    int64_t t_urgent, t_plain, t_forced;

    t_urgent = keyframe_run(30000, 500000, &st);
    /* the last burst may leave up to a burst's time (16384 bytes at the
     * raised rate: 300 KB in 30 ms is 10 MB/s, 1.6 ms) after the due time */
    CHECK(t_urgent <= 30000 + 2000, "urgent keyframe out in %"PRId64" us, due in 30000", t_urgent);
    CHECK(st.urgent_units == 1 && st.forced_drains == 0,
          "%"PRIu64" urgent, %"PRIu64" forced (1 and 0 expected)", st.urgent_units, st.forced_drains);
    /* the same keyframe not asked for: at 1.5x the media rate (about 460 KB/s
     * with it in the window), hundreds of ms */
    t_plain = keyframe_run(0, 500000, &st);
    CHECK(t_plain > 100000, "plain keyframe out in %"PRId64" us: no slower than an urgent one?", t_plain);
    CHECK(st.urgent_units == 0 && st.forced_drains == 0,
          "%"PRIu64" urgent, %"PRIu64" forced (0 and 0 expected)", st.urgent_units, st.forced_drains);
    /* with max_delay 100 ms the same unit is a forced drain, out by then */
    t_forced = keyframe_run(0, 100000, &st);
    CHECK(t_forced <= 100000 + 2000 && t_forced > 30000,
          "forced keyframe out in %"PRId64" us, due in 100000", t_forced);
    CHECK(st.forced_drains == 1 && st.urgent_units == 0,
          "%"PRIu64" forced, %"PRIu64" urgent (1 and 0 expected)", st.forced_drains, st.urgent_units);
    printf("keyframe: asked for out in %.1f ms (due 30), not asked for %.1f ms, "
           "max_delay 100 ms: %.1f ms (forced)\n", t_urgent / 1000.0, t_plain / 1000.0,
           t_forced / 1000.0);
}

/* resends: at once on credit, else first in the next burst; bounded */
static void test_resends(void)
{
    const double media = 40.0 * PKT * 1e6 / FRAME, rate = 1.5 * media;
    uint8_t pkt[PKT + 16] = { 0x80 };
    FFRTPPacerBurst b;
    FFRTPPacerStats st;
    int64_t next, before;
    int ret, queued = 0, dropped = 0, at_once = 0;

    sim_init(&(FFRTPPacerConfig){ .factor = 1.5, .burst = 16384, .max_delay = 500000,
                                  .clock_rate = CLOCK, .max_resend = PKT + 16 });
    /* before any burst no rate is known: at once */
    CHECK(ff_rtp_pacer_resend(sim.p, pkt, PKT, 0) == 1, "first resend not sent at once");
    camera(2000000, 40, 0, NULL);
    /* idle between units: credit left, so at once; three of them put the
     * next burst 3 x PKT at the rate ahead, less the 1 ms of a late wake-up
     * that the pacer makes up for */
    sim.now += 5000;
    CHECK(!ff_rtp_pacer_burst_start(sim.p, sim.now, &b, &next) && next == INT64_MAX,
          "pacer not idle after the units");
    ff_rtp_pacer_get_stats(sim.p, &st);
    for (int k = 0; k < 3; k++) {
        ret = ff_rtp_pacer_resend(sim.p, pkt, PKT, sim.now);
        CHECK(ret == 1, "resend %d with credit: %d, 1 expected", k, ret);
    }
    push_unit(40, PKT, (uint32_t)(sim.now * CLOCK / 1000000));
    before = sim.now;
    CHECK(!ff_rtp_pacer_burst_start(sim.p, sim.now, &b, &next), "burst at once after 3 resends");
    CHECK(llabs(next - before - (int64_t)(3 * PKT * 8e6 / st.rate - 1000)) <= 20,
          "next burst %"PRId64" us after 3 resends of %d bytes, %.0f expected", next - before,
          PKT, 3 * PKT * 8e6 / st.rate - 1000);
    CHECK(fabs(st.rate / 8 / rate - 1) < 0.05, "paced at %.0f B/s, %.0f expected", st.rate / 8, rate);
    /* run that first burst, then resends within its credit: once the
     * credit is spent beyond a burst, queued */
    sim.now = next;
    CHECK(ff_rtp_pacer_burst_start(sim.p, sim.now, &b, &next), "no burst");
    {
        AVBufferRef *bufs[MAX_BURST];
        int sizes[MAX_BURST], nb = ff_rtp_pacer_take(sim.p, &b, bufs, sizes, MAX_BURST);
        for (int k = 0; k < nb; k++)
            av_buffer_unref(&bufs[k]);
        ff_rtp_pacer_burst_end(sim.p, &b);
    }
    for (int k = 0; k < 300; k++) {
        ret = ff_rtp_pacer_resend(sim.p, pkt, PKT, sim.now);
        if (ret == 1)
            at_once++;
        else if (!ret)
            queued++;
        else if (ret == AVERROR(EAGAIN))
            dropped++;
        else
            CHECK(0, "resend: unexpected %d", ret);
        if (ret != 1 && at_once == k)
            CHECK(at_once <= 1, "%d resends at once after a burst of 15600 bytes: "
                  "the credit is one burst (16384 bytes)", at_once);
    }
    /* 862 slots of PKT + 16 would fit 1 MiB: the queue holds 256 at most */
    CHECK(queued == 256 && at_once + queued + dropped == 300 && dropped >= 40,
          "%d at once, %d queued, %d dropped of 300 (256 queued expected)", at_once, queued, dropped);
    CHECK(ff_rtp_pacer_resend(sim.p, pkt, PKT + 17, sim.now) == AVERROR(EAGAIN),
          "a resend above max_resend was taken");
    ff_rtp_pacer_get_stats(sim.p, &st);
    CHECK(st.resends_queued == 256 && st.resends_dropped == (uint64_t)dropped + 1,
          "stats: %"PRIu64" queued, %"PRIu64" dropped", st.resends_queued, st.resends_dropped);
    /* the queued resends go first, no more than a burst's budget each
     * time, before the media left of the unit */
    sim.resends_sent = 0;
    sim.nb_bursts = 0;
    for (int guard = 0; guard < 10000 && !ff_rtp_pacer_empty(sim.p); guard++) {
        next = run_bursts();
        if (next == INT64_MAX)
            break;
        sim.now = next;
    }
    CHECK(sim.resends_sent == 256, "%d of 256 queued resends left", sim.resends_sent);
    for (int i = 0; i < sim.nb_bursts; i++) {
        CHECK(sim.burst_resent[i] <= 16384, "burst %d carried %d bytes of resends", i, sim.burst_resent[i]);
        if (sim.burst_resent[i] && i && !sim.burst_resent[i - 1])
            CHECK(0, "burst %d: resends after media", i);
        if (sim.burst_media_pkts[i] && i + 1 < sim.nb_bursts && sim.burst_resent[i + 1])
            CHECK(0, "burst %d: media ahead of queued resends", i);
    }
    /* 256 x 1200 at 13 per burst: 20 bursts of resends, then the media */
    CHECK(sim.burst_resent[0] && sim.nb_bursts >= 20, "%d bursts", sim.nb_bursts);
    CHECK(ff_rtp_pacer_empty(sim.p), "not drained");
    ff_rtp_pacer_free(&sim.p);
    printf("resends: at once on credit (next burst %.0f us later), %d queued then sent first, "
           "%d refused when full\n", PKT * 1e6 / rate, queued, dropped);
}

/* a source faster than real time (no -re) is not paced */
static void test_not_live(void)
{
    FFRTPPacerStats st;
    int paced = 0, unpaced = 0;

    sim_init(&(FFRTPPacerConfig){ .factor = 1.5, .burst = 16384, .max_delay = 500000,
                                  .clock_rate = CLOCK, .max_resend = PKT + 16 });
    /* 1 ms of clock per 40 ms of media */
    for (int k = 0; k < 200; k++) {
        int ret;
        sim.now = k * 1000;
        run_bursts();
        ret = push_unit(10, PKT, k * 3600);
        paced   += ret == 1;
        unpaced += ret == 0;
    }
    /* live while media time <= 2 x elapsed + 1 s: unit k has 40k ms of
     * media after k ms, so up to k = 26 */
    CHECK(paced == 27 && unpaced == 173, "%d paced, %d not (27 and 173 expected)", paced, unpaced);
    ff_rtp_pacer_get_stats(sim.p, &st);
    CHECK(st.unpaced_units == 173, "%"PRIu64" unpaced units counted", st.unpaced_units);
    /* units not paced count for the media rate too: 200 x 12,000 bytes in
     * 200 ms (the shortest span) */
    CHECK(fabs(ff_rtp_pacer_media_rate(sim.p, 199000) - 200 * 12000 / 0.2) < 1,
          "media rate %.0f B/s, %.0f expected", ff_rtp_pacer_media_rate(sim.p, 199000), 200 * 12000 / 0.2);
    /* what it holds still leaves, in large bursts */
    for (int guard = 0; guard < 10000 && !ff_rtp_pacer_empty(sim.p); guard++) {
        int64_t next = run_bursts();
        if (next == INT64_MAX)
            break;
        sim.now = FFMAX(next, sim.now + 1);
    }
    CHECK(sim.nb_dep == sim.nb_pushed && ff_rtp_pacer_empty(sim.p),
          "%d of %d held packets left", sim.nb_dep, sim.nb_pushed);
    ff_rtp_pacer_free(&sim.p);
    printf("not live: %d units paced, then %d sent by the caller\n", paced, unpaced);
}

/* a source that comes ahead of its time (ffmpeg -re reads its first half
 * second at once): paced over the media time the window covers, not the
 * few ms of clock it came in (which would be 2.2x as fast) */
static void test_early(void)
{
    const double want = 1.5 * 12 * 20 * PKT / 0.44;     /* 12 units, 440 ms of media */
    int checked;

    sim_init(&(FFRTPPacerConfig){ .factor = 1.5, .burst = 16384, .max_delay = 500000,
                                  .clock_rate = CLOCK, .max_resend = PKT + 16 });
    for (int k = 0; k < 12; k++) {
        sim.now = k * 1000;
        run_bursts();
        push_unit(20, PKT, k * 3600);
    }
    for (int guard = 0; guard < 10000; guard++) {
        int64_t next = run_bursts();
        if (next == INT64_MAX)
            break;
        sim.now = next;
    }
    CHECK(sim.nb_dep == 240 && sim.in_order, "%d of 240 left", sim.nb_dep);
    checked = check_spacing(20000, want, 0.05, "early");
    CHECK(checked >= 10, "only %d gaps checked", checked);
    ff_rtp_pacer_free(&sim.p);
    printf("early source: paced at 1.5x over its 440 ms of media, %d gaps\n", checked);
}

/* kernel pacing: bursts handed out up to `ahead` before their departure
 * times, which keep the spacing */
static void test_ahead(void)
{
    const double media = 40.0 * PKT * 1e6 / FRAME;
    int64_t worst = 0;
    int checked;

    sim_init(&(FFRTPPacerConfig){ .factor = 1.5, .burst = 16384, .max_delay = 500000,
                                  .clock_rate = CLOCK, .max_resend = PKT + 16, .ahead = 20000 });
    camera(3000000, 40, 0, NULL);
    for (int i = 0; i < sim.nb_bursts; i++) {
        int64_t a = sim.burst_time[i] - sim.burst_handed[i];
        CHECK(a >= 0 && a <= 20000, "burst %d handed out %"PRId64" us ahead", i, a);
        worst = FFMAX(worst, a);
    }
    CHECK(worst > 10000, "bursts handed out at most %"PRId64" us ahead: not ahead", worst);
    checked = check_spacing(1200000, 1.5 * media, 0.05, "ahead");
    CHECK(checked >= 100, "only %d gaps checked", checked);
    CHECK(sim.nb_dep == sim.nb_pushed && sim.in_order, "%d of %d left", sim.nb_dep, sim.nb_pushed);
    ff_rtp_pacer_set_ahead(sim.p, 0);
    ff_rtp_pacer_free(&sim.p);
    printf("ahead: handed out up to %.1f ms before departure, spacing kept\n", worst / 1000.0);
}

/* bad configurations and room */
static void test_config(void)
{
    FFRTPPacerConfig cfg = default_cfg();
    FFRTPPacer *p;

    cfg.factor = 0.5;
    CHECK(ff_rtp_pacer_alloc(&p, &cfg) == AVERROR(EINVAL) && !p, "factor 0.5 taken");
    cfg = default_cfg();
    cfg.burst = 0;
    CHECK(ff_rtp_pacer_alloc(&p, &cfg) == AVERROR(EINVAL) && !p, "burst 0 taken");
    cfg = default_cfg();
    CHECK(ff_rtp_pacer_alloc(&p, &cfg) == 0 && p, "default config refused");
    CHECK(ff_rtp_pacer_has_room(p, FF_RTP_PACER_MAX_PACKETS, 1000, 1), "empty pacer has no room");
    CHECK(!ff_rtp_pacer_has_room(p, FF_RTP_PACER_MAX_PACKETS + 1, 1000, 1), "room beyond the ring");
    CHECK(!ff_rtp_pacer_has_room(p, 1, FF_RTP_PACER_MAX_BYTES + 1, 1), "room beyond the bytes");
    CHECK(!ff_rtp_pacer_has_room(p, 1, 1, FF_RTP_PACER_MAX_UNITS + 1), "room beyond the units");
    ff_rtp_pacer_free(&p);
    CHECK(!p, "not freed");
}

int main(void)
{
    test_config();
    test_steady();
    test_link_rate();
    test_keyframe_due();
    test_resends();
    test_not_live();
    test_early();
    test_ahead();
    if (failures) {
        printf("%d checks failed\n", failures);
        return 1;
    }
    printf("rtppacer: all checks passed\n");
    return 0;
}

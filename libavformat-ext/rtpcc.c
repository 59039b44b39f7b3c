/*
 * Sender-side congestion control for the RTP muxer
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

/**
 * @file
 * The design of Google Congestion Control (draft-ietf-rmcat-gcc-02, and
 * libwebrtc's goog_cc), written for this muxer:
 *
 * - Delay: packets are grouped by send time (5 ms bursts). Between two
 *   groups, the arrival gap minus the send gap is the delay gradient. Its
 *   running sum is smoothed and a line fitted over the last 20 groups; the
 *   slope, scaled by the number of groups seen (at most 60) and a gain of 4,
 *   is the trend. Above an adaptive threshold for more than 10 ms the link
 *   is overused, below its negative underused.
 * - Start-up: from a start rate below the maximum the rate doubles every
 *   response time (RTT + 100 ms), never above 1.5 x what was acknowledged
 *   plus 10 kbit/s, until the queue shows (the smoothed delay 20 ms above
 *   its lowest, or the trend past half the threshold: the rate then holds
 *   at what got through), the first overuse, the first cut for loss or the
 *   maximum: 1 to 3 Mbit/s in about a second where the AIMD increase of
 *   12 % a second would take ten.
 * - Probing, as GCC's probe controller does: the first transport feedback
 *   asks for clusters at 3 and 6 x the start rate (15 ms and 5 packets at
 *   least, each at its rate; the sender sends copies of its newest
 *   packets). Every packet sent during a cluster counts in it; once a later
 *   packet is reported, its receive rate against its send rate is the
 *   measure (0.85 x the receive rate if it fell short of 0.9 x the send
 *   rate: the link is full; else the smaller), which raises the rate at
 *   once (a full link's also lowers it) and holds against the acknowledged
 *   rate's cap for FF_RTPCC_PROBE_HOLD; a measure of 70 % of the highest
 *   rate asked for or more asks for a cluster at twice it, full or not (a
 *   receiver held up for 2 ms makes a 15 ms cluster look full); a full
 *   link below that, with no higher cluster out, ends the probing and the
 *   start-up. While clusters
 *   are out the doubling waits for them. The start-up alone is limited by
 *   1.5 x what was acknowledged each response time (in the unit test, a
 *   12 Mbit/s target 0.96 s after the start, 0.21 s with probing; live
 *   through 12 Mbit/s 3.0-3.4 Mbit/s over the first second, 6.0-9.4 with).
 *   After a large drop of the target (below 0.66 x its high of the last
 *   2 s) that came with 30 % loss or more (a burst of loss, not the
 *   detector's cuts on a link the video fills: probing after those lost
 *   1.87 % in a router queue under whip, in 3 of 16 runs), once the loss
 *   is over and no overuse shows,
 *   one cluster at 0.85 x the target before the drop, within 5 s of it
 *   (libwebrtc probes after a large drop too): beside a TCP upload whose
 *   slow start took 71 % of the video's datagrams for a moment, the AIMD
 *   alone took 15 s to come back from 0.27 Mbit/s.
 *   A receiver without transport feedback within a second of the first
 *   packet leaves nothing to measure: the delay-based rate is the maximum
 *   (RR loss and REMB still bring the target down), until transport
 *   feedback starts the start-up over.
 * - AIMD: overuse sets the rate to 0.85 x what the receiver got over the last
 *   300 ms plus a packet (once per 300 ms at most: cuts every RTT compound), less the
 *   queue built up beyond 100 ms (the smoothed delay above its lowest, in
 *   s; 0.5 x at least: 0.85 x alone drains a full 64 KB queue of a link
 *   that fell from 6 to 2 Mbit/s in 1.7 s); normal use increases it by
 *   four packets per response time (RTT + 100 ms), a fifth of the link
 *   estimate a second at most, near the rate of the last decreases (the
 *   link estimate); past it 12 % a second. The estimate is forgotten when
 *   the acknowledged rate passes it by three deviations (the link grew)
 *   or 2 s after the last decrease; without one the rate doubles every 8
 *   response times while the queue does not show (as the start-up does,
 *   slower: a link that grew from 2 to 5 Mbit/s is taken within a few
 *   seconds, where GCC's 8 % a second takes ten and probes instead), or
 *   grows 12 % a second if it does, and also after an age-out until the
 *   acknowledged rate passes the old estimate by 15 % (a full link with
 *   an encoder a second late shows neither a queue nor more
 *   throughput while the target runs ahead); underuse holds. Never
 *   above 1.5 x what was acknowledged, plus 10 kbit/s. The additive part is
 *   what makes two senders converge to equal shares (each cut takes 15 %,
 *   each increase the same few packets): at one packet per response time
 *   (GCC's) two senders through one link were still 59/41 after 30 s in the
 *   unit test's simulation and 67/33 live, at four 51/49.
 * - Loss: over at least 20 packets and 500 ms, more than 10 % lost cuts
 *   the loss-based rate by half the fraction lost (at most once per RTT +
 *   300 ms, and not below 0.85 x the acknowledged rate: the losses reported
 *   lag the cuts), less than 2 % lets it grow 8 % a second, and at least
 *   to the delay-based rate (a burst of loss does not hold the target down
 *   once it has passed).
 * - The target is the smallest of the two, and of a receiver's REMB. A
 *   REMB holds FF_RTPCC_REMB_TIMEOUT after the last one (a receiver that
 *   means it sends one every second or more often), and a REMB below the
 *   target brings it down at most by half every FF_RTPCC_REMB_HALVING (a
 *   single REMB, spoofed or wrong, cannot take the rate to its floor at
 *   once); a REMB above the cap raises the cap at once.
 */

#include <math.h>
#include <string.h>

#include "libavutil/common.h"
#include "libavutil/mem.h"

#include "rtpcc.h"

#define GROUP_SPAN      5000        ///< µs of send time in one packet group
#define TREND_WINDOW    20          ///< groups in the line fit
#define SMOOTHING       0.9
#define TREND_GAIN      4.0
#define MAX_DELTAS      60
#define OVERUSE_TIME    10.0        ///< ms over the threshold before overuse
#define K_UP            0.0087
#define K_DOWN          0.039
#define MAX_ADAPT       15.0        ///< ms: larger trends do not move the threshold
#define THRESH_MIN      6.0
#define THRESH_MAX      600.0
#define THRESH_INIT     12.5
#define BETA            0.85
#define CUT_ADD         (1200 * 8e6 / ACK_WINDOW) ///< bit/s: a packet per window, added to what a cut keeps
#define MULT_INCREASE   1.12        ///< per second, far from the link estimate with a queue (GCC: 1.08)
#define PROBE_RESPONSES 8.0         ///< response times to double in, far from the link estimate, no queue
#define ADD_PACKETS     4.0         ///< packets per response time, near the link estimate
#define ADD_SHARE       0.2         ///< of the link estimate per second, the additive step at most
#define PROBE_AHEAD     1.2         ///< x the acknowledged rate that probing grows to at most
#define QUEUE_CUT_FROM  100.0       ///< ms of queue above which a cut for overuse takes more
#define ACK_WINDOW      300000      ///< µs of arrival time for the acknowledged rate
#define ACK_SLOTS       4096
#define LINK_MARGIN     0.15        ///< above an estimate forgotten for its age, the acked rate shows the link grew
#define LOSS_MIN_PKTS   20
#define LOSS_MIN_SPAN   500000      ///< µs: a loss figure covers at least this (or 1000 packets)
#define LOSS_LOW        0.02
#define LOSS_HIGH       0.10
#define DEFAULT_RTT     100000
#define LINK_STALE      2000000     ///< µs without a decrease: the link estimate is forgotten
#define STARTUP_EXIT_DELAY 20.0     ///< ms of queue built up (smoothed) that ends the start-up
#define PROBE_DURATION  15000       ///< µs a probe cluster lasts at least
#define PROBE_MIN_PKTS  5
#define PROBE_FIRST     3.0         ///< x the start rate, the first cluster
#define PROBE_SECOND    6.0         ///< and the second
#define PROBE_FURTHER   0.7         ///< measured / the highest rate asked: probe on at twice the measure
#define PROBE_WAIT      1000000     ///< µs after a cluster went out without its result: given up
#define PROBE_MIN_RECV  0.8         ///< share of a cluster's packets that must be reported received
#define PROBE_FULL      0.9         ///< receive rate / send rate below which the link is full
#define PROBE_USE       BETA        ///< of a full link's receive rate (GCC: 0.95; with keyframes and the
                                    ///< encoder's overshoot 0.95 x a 3 Mbit/s link kept its queue full for 1 s)
#define DROP_LARGE      0.66        ///< the target / its recent high below which a drop is large
#define DROP_HIGH_SPAN  2000000     ///< µs the recent high is kept
#define RECOVERY_WINDOW 5000000     ///< µs after a large drop in which a recovery probe may go
#define RECOVERY_AT     BETA        ///< x the target before the drop, the recovery probe's rate
#define RECOVERY_LOSS   0.3         ///< loss that must have come with the drop
#define MAX_CLUSTERS    4
#define MAX_PENDING     4

/** A probe cluster: every packet sent in [start, end] counts. */
typedef struct Cluster {
    int id;
    double bitrate;                 ///< asked for
    int64_t start, end;             ///< send times; end INT64_MAX while it goes out
    int64_t first_send, last_send, first_arrival, last_arrival;
    int last_send_size, first_arrival_size;
    int64_t bytes;                  ///< received
    int received, lost;
} Cluster;

typedef struct Group {
    int64_t first_send, last_send;
    int64_t last_arrival;
    int valid;
} Group;

struct FFRTPCC {
    FFRTPCCConfig cfg;

    /* delay: the trendline over packet groups */
    Group cur, prev;
    int64_t first_arrival;
    double acc_delay, smoothed;
    double tx[TREND_WINDOW], ty[TREND_WINDOW];
    int t_start, t_count;
    int num_deltas;
    double trend, prev_trend, modified;
    double threshold;
    int64_t last_thresh_update;
    double time_over;               ///< ms, -1: not over
    int over_count;
    enum FFRTPCCUsage usage;

    double min_smoothed;            ///< ms, the lowest smoothed delay yet: an empty queue

    /* AIMD */
    int startup;                    ///< doubling per response time, until congestion
    enum FFRTPCCState state;
    double rate;                    ///< delay-based, bit/s
    int64_t last_change;            ///< µs, the last time the rate moved
    int64_t last_decrease;
    double link_avg, link_var;      ///< kbit/s, of the acked rate at decreases; avg < 0: none
    double link_stale;              ///< kbit/s, the estimate last forgotten for age; < 0: none
    int64_t rtt;

    /* acknowledged rate: received packets by arrival time */
    int64_t ack_time[ACK_SLOTS];
    int ack_size[ACK_SLOTS];
    int ack_start, ack_count;
    int64_t ack_bytes;
    double acked;                   ///< bit/s, 0 unknown

    /* loss */
    double loss_rate;               ///< bit/s
    int loss_pkts, loss_lost;
    int64_t loss_start, loss_last_update, last_loss_decrease;
    int loss_decreased;
    double loss;

    int64_t first_input;            ///< µs, the first call with a clock: media began
    int started;                    ///< first_input is set
    int fallback;                   ///< no transport feedback in time: at max_bitrate

    /* probing */
    Cluster clusters[MAX_CLUSTERS]; ///< going out or awaiting their result
    int nb_clusters;
    double pending[MAX_PENDING];    ///< bit/s of the clusters to send next
    int nb_pending;
    int probing;                    ///< the exponential probing goes on
    double probe_asked;             ///< bit/s, the highest rate asked for
    int next_cluster_id;
    int64_t probe_ask_time;         ///< when the last cluster was asked for
    double probe_est;               ///< bit/s, the last measure that raised the rate
    int64_t probe_time;             ///< when
    int64_t reported_send;          ///< the latest send time reported yet
    int recovering;                 ///< the clusters out are a recovery probe's: no more asked

    /* large drops of the target */
    double high;                    ///< bit/s, the target's high over the last DROP_HIGH_SPAN
    int64_t high_time;
    double drop_from;               ///< bit/s, the high the last large drop fell from
    int64_t drop_time;              ///< µs, when (0: none)
    int recovery_asked;             ///< a recovery probe went for that drop
    double drop_loss;               ///< the highest loss figure since

    int64_t remb;                   ///< bit/s, 0 none
    int64_t remb_time;              ///< µs, the last REMB
    double remb_cap;                ///< bit/s the REMB lets through now, on its way down to remb
    int64_t remb_cap_time;
    FFRTPCCStats st;
};

FFRTPCC *ff_rtpcc_alloc(const FFRTPCCConfig *cfg)
{
    FFRTPCC *cc = av_mallocz(sizeof(*cc));

    if (!cc)
        return NULL;
    cc->cfg = *cfg;
    if (cc->cfg.max_bitrate < cc->cfg.min_bitrate)
        cc->cfg.max_bitrate = cc->cfg.min_bitrate;
    cc->rate      = av_clip64(cfg->start_bitrate, cc->cfg.min_bitrate, cc->cfg.max_bitrate);
    cc->startup   = cc->rate < cc->cfg.max_bitrate;
    cc->loss_rate = cc->cfg.max_bitrate;
    cc->threshold = THRESH_INIT;
    cc->time_over = -1;
    cc->link_avg  = -1;
    cc->link_stale = -1;
    cc->rtt       = DEFAULT_RTT;
    cc->state     = FF_RTPCC_INCREASE;
    return cc;
}

void ff_rtpcc_free(FFRTPCC **pcc)
{
    av_freep(pcc);
}

const char *ff_rtpcc_state_name(enum FFRTPCCState state)
{
    switch (state) {
    case FF_RTPCC_HOLD:     return "hold";
    case FF_RTPCC_INCREASE: return "increase";
    case FF_RTPCC_DECREASE: return "decrease";
    }
    return "?";
}

/* ---- acknowledged rate ---- */

static void ack_add(FFRTPCC *cc, int64_t arrival, int size)
{
    int i;

    if (cc->ack_count == ACK_SLOTS) {
        cc->ack_bytes -= cc->ack_size[cc->ack_start];
        cc->ack_start = (cc->ack_start + 1) % ACK_SLOTS;
        cc->ack_count--;
    }
    i = (cc->ack_start + cc->ack_count++) % ACK_SLOTS;
    cc->ack_time[i] = arrival;
    cc->ack_size[i] = size;
    cc->ack_bytes  += size;
}

static void ack_update(FFRTPCC *cc, int64_t latest)
{
    int64_t span;

    while (cc->ack_count && latest - cc->ack_time[cc->ack_start] > ACK_WINDOW) {
        cc->ack_bytes -= cc->ack_size[cc->ack_start];
        cc->ack_start = (cc->ack_start + 1) % ACK_SLOTS;
        cc->ack_count--;
    }
    if (!cc->ack_count)
        return;
    span = latest - cc->ack_time[cc->ack_start];
    /* a short span overstates a burst: wait for 150 ms of arrivals */
    if (span < 150000)
        return;
    /* the span runs from the first arrival to the last: the bytes that
     * came after the first (n packets, n - 1 gaps; counting the first
     * too read a steady 150 kbit/s as 187.5 and 1.5 Mbit/s as 1.53, as
     * the probe clusters' measure already does not) */
    cc->acked = (cc->ack_bytes - cc->ack_size[cc->ack_start]) * 8e6 / span;
}

/* ---- the delay-based detector ---- */

static void threshold_update(FFRTPCC *cc, double m, int64_t now)
{
    double k, dt;

    if (!cc->last_thresh_update)
        cc->last_thresh_update = now;
    if (fabs(m) > cc->threshold + MAX_ADAPT) {
        /* a spike (a route change, a stall): not a reason to move */
        cc->last_thresh_update = now;
        return;
    }
    k  = fabs(m) < cc->threshold ? K_DOWN : K_UP;
    dt = FFMIN((now - cc->last_thresh_update) / 1000.0, 100.0);
    cc->threshold += k * (fabs(m) - cc->threshold) * dt;
    cc->threshold  = av_clipd(cc->threshold, THRESH_MIN, THRESH_MAX);
    cc->last_thresh_update = now;
}

static void detect(FFRTPCC *cc, double ts_delta_ms, int64_t now)
{
    double m;

    if (cc->num_deltas < 2) {
        cc->usage = FF_RTPCC_NORMAL;
        return;
    }
    m = FFMIN(cc->num_deltas, MAX_DELTAS) * cc->trend * TREND_GAIN;
    cc->modified = m;
    if (m > cc->threshold) {
        cc->time_over = cc->time_over < 0 ? ts_delta_ms / 2 : cc->time_over + ts_delta_ms;
        cc->over_count++;
        if (cc->time_over > OVERUSE_TIME && cc->over_count > 1 && cc->trend >= cc->prev_trend) {
            cc->time_over  = 0;
            cc->over_count = 0;
            if (cc->usage != FF_RTPCC_OVERUSE)
                cc->st.overuses++;
            cc->usage = FF_RTPCC_OVERUSE;
        }
    } else if (m < -cc->threshold) {
        cc->time_over  = -1;
        cc->over_count = 0;
        cc->usage = FF_RTPCC_UNDERUSE;
    } else {
        cc->time_over  = -1;
        cc->over_count = 0;
        cc->usage = FF_RTPCC_NORMAL;
    }
    cc->prev_trend = cc->trend;
    threshold_update(cc, m, now);
}

/** The least-squares slope of the window, 0 if it is degenerate. */
static double fit_slope(const FFRTPCC *cc)
{
    double sx = 0, sy = 0, num = 0, den = 0;

    for (int i = 0; i < cc->t_count; i++) {
        int k = (cc->t_start + i) % TREND_WINDOW;
        sx += cc->tx[k];
        sy += cc->ty[k];
    }
    sx /= cc->t_count;
    sy /= cc->t_count;
    for (int i = 0; i < cc->t_count; i++) {
        int k = (cc->t_start + i) % TREND_WINDOW;
        num += (cc->tx[k] - sx) * (cc->ty[k] - sy);
        den += (cc->tx[k] - sx) * (cc->tx[k] - sx);
    }
    return den > 0 ? num / den : 0;
}

/** Two complete groups: one more delay gradient. */
static void group_delta(FFRTPCC *cc, const Group *a, const Group *b, int64_t now)
{
    double send_delta = (b->last_send - a->last_send) / 1000.0;
    double arr_delta  = (b->last_arrival - a->last_arrival) / 1000.0;
    double d = arr_delta - send_delta;
    int k;

    if (arr_delta < 0)          /* reordered across groups: no sample */
        return;
    cc->num_deltas = FFMIN(cc->num_deltas + 1, 1000);
    cc->acc_delay += d;
    cc->smoothed   = SMOOTHING * cc->smoothed + (1 - SMOOTHING) * cc->acc_delay;
    cc->min_smoothed = FFMIN(cc->min_smoothed, cc->smoothed);
    if (cc->t_count == TREND_WINDOW) {
        cc->t_start = (cc->t_start + 1) % TREND_WINDOW;
        cc->t_count--;
    }
    k = (cc->t_start + cc->t_count++) % TREND_WINDOW;
    cc->tx[k] = (b->last_arrival - cc->first_arrival) / 1000.0;
    cc->ty[k] = cc->smoothed;
    if (cc->t_count == TREND_WINDOW)
        cc->trend = fit_slope(cc);
    detect(cc, send_delta, now);
}

static void delay_packet(FFRTPCC *cc, const FFRTPCCPacket *p, int64_t now)
{
    if (!cc->first_arrival)
        cc->first_arrival = p->arrival;
    if (cc->cur.valid && p->send_time < cc->cur.first_send)
        return;                 /* reordered before the group: ignore */
    if (!cc->cur.valid || p->send_time - cc->cur.first_send > GROUP_SPAN) {
        if (cc->cur.valid) {
            if (cc->prev.valid)
                group_delta(cc, &cc->prev, &cc->cur, now);
            cc->prev = cc->cur;
        }
        cc->cur.valid      = 1;
        cc->cur.first_send = p->send_time;
        cc->cur.last_send  = p->send_time;
        cc->cur.last_arrival = p->arrival;
        return;
    }
    cc->cur.last_send    = FFMAX(cc->cur.last_send, p->send_time);
    cc->cur.last_arrival = FFMAX(cc->cur.last_arrival, p->arrival);
}

/* ---- probing ---- */

/** A probe's measure while it holds (FF_RTPCC_PROBE_HOLD), else 0: the
 *  encoder has not caught up with it, so the acknowledged rate is no cap */
static double probe_hold(const FFRTPCC *cc, int64_t now)
{
    return cc->probe_time && now - cc->probe_time < FF_RTPCC_PROBE_HOLD ? cc->probe_est : 0;
}

/** How high the rate may grow: 1.5 x what was acknowledged plus 10 kbit/s,
 *  or a probe's measure while it holds. */
static double ack_cap(const FFRTPCC *cc, int64_t now)
{
    return FFMAX(1.5 * cc->acked + 10000, probe_hold(cc, now));
}

static void probe_ask(FFRTPCC *cc, double bitrate, int64_t now)
{
    bitrate = FFMIN(bitrate, cc->cfg.max_bitrate);
    if (cc->nb_pending == MAX_PENDING || bitrate <= cc->probe_asked || bitrate <= cc->rate)
        return;
    cc->pending[cc->nb_pending++] = bitrate;
    cc->probe_asked = bitrate;
    cc->probe_ask_time = now;
}

/** Probe clusters are going out, or awaiting their results, or were asked
 *  for lately (a sender that takes none lets them go after PROBE_WAIT). */
static int probes_out(const FFRTPCC *cc, int64_t now)
{
    return cc->probing && (cc->nb_clusters || (cc->nb_pending && now - cc->probe_ask_time < PROBE_WAIT));
}

/** The first transport feedback (at the start, or late): probe from the start rate. */
static void probe_start(FFRTPCC *cc, int64_t now)
{
    cc->nb_pending  = 0;
    cc->nb_clusters = 0;
    cc->probe_asked = 0;
    cc->probing     = cc->cfg.probe && cc->rate < cc->cfg.max_bitrate;
    if (!cc->probing)
        return;
    probe_ask(cc, PROBE_FIRST  * cc->rate, now);
    probe_ask(cc, PROBE_SECOND * cc->rate, now);
}

/** A decrease: the link is found; what is still in flight is not used. */
static void probe_stop(FFRTPCC *cc)
{
    cc->probing    = 0;
    cc->nb_pending = 0;
    cc->recovering = 0;
}

/** Large drops of the target (below DROP_LARGE x its high of the last
 *  DROP_HIGH_SPAN): where it fell from, and when. */
static void drop_track(FFRTPCC *cc, int64_t now)
{
    double t = ff_rtpcc_target(cc);

    if (t >= cc->high || now - cc->high_time > DROP_HIGH_SPAN) {
        cc->high      = t;
        cc->high_time = now;
    }
    if (t < DROP_LARGE * cc->high && cc->drop_from != cc->high) {
        cc->drop_from      = cc->high;
        cc->drop_time      = now;
        cc->recovery_asked = 0;
        cc->drop_loss      = cc->loss;
    }
}

/**
 * After a large drop that came with RECOVERY_LOSS or more, once that loss
 * is over and the detector sees no overuse, one cluster at RECOVERY_AT x the target before
 * the drop (libwebrtc's probe controller probes after a large drop too):
 * a burst of loss (a TCP upload's slow start into the queue took 71 % of
 * the video's datagrams for a moment) cuts both rates to a fraction of the
 * link, and the AIMD's 12 % a second then took 15 s to come back. Its
 * measure raises the rate at once; a full link's measure is what the link
 * gives now. Within RECOVERY_WINDOW of the drop, once per drop.
 */
static void recovery_check(FFRTPCC *cc, int64_t now)
{
    if (!cc->cfg.probe || !cc->drop_time || cc->recovery_asked ||
        now - cc->drop_time > RECOVERY_WINDOW || probes_out(cc, now) || cc->nb_clusters ||
        cc->usage == FF_RTPCC_OVERUSE || cc->loss_last_update <= cc->drop_time ||
        cc->loss >= LOSS_LOW || cc->drop_loss < RECOVERY_LOSS ||
        ff_rtpcc_target(cc) >= DROP_LARGE * cc->drop_from)
        return;
    cc->recovery_asked = 1;
    cc->probing     = 1;
    cc->recovering  = 1;
    cc->probe_asked = 0;
    cc->nb_pending  = 0;
    probe_ask(cc, RECOVERY_AT * cc->drop_from, now);
    if (cc->nb_pending)
        cc->st.recovery_probes++;
    else
        probe_stop(cc);
}

int ff_rtpcc_probe_due(FFRTPCC *cc, int64_t now, FFRTPCCProbe *p)
{
    Cluster *c;

    if (!cc->probing || !cc->nb_pending || cc->nb_clusters == MAX_CLUSTERS)
        return 0;
    for (int i = 0; i < cc->nb_clusters; i++)
        if (cc->clusters[i].end == INT64_MAX)
            return 0;
    c = &cc->clusters[cc->nb_clusters++];
    memset(c, 0, sizeof(*c));
    c->id      = cc->next_cluster_id++;
    c->bitrate = cc->pending[0];
    c->start   = now;
    c->end     = INT64_MAX;
    memmove(cc->pending, cc->pending + 1, --cc->nb_pending * sizeof(*cc->pending));
    p->id      = c->id;
    p->bitrate = llrint(c->bitrate);
    p->bytes   = FFMAX(llrint(c->bitrate * PROBE_DURATION / 8e6), 1);
    p->packets = PROBE_MIN_PKTS;
    cc->st.probes++;
    return 1;
}

static void cluster_drop(FFRTPCC *cc, int i)
{
    cc->clusters[i] = cc->clusters[--cc->nb_clusters];
}

void ff_rtpcc_probe_sent(FFRTPCC *cc, int id, int64_t last)
{
    for (int i = 0; i < cc->nb_clusters; i++) {
        Cluster *c = &cc->clusters[i];

        if (c->id != id || c->end != INT64_MAX)
            continue;
        if (last < c->start) {
            cc->st.probe_failures++;
            cluster_drop(cc, i);
        } else {
            c->end = last;
        }
        return;
    }
}

/** A reported packet: into the clusters whose span its send time falls in. */
static void probe_packet(FFRTPCC *cc, const FFRTPCCPacket *p)
{
    cc->reported_send = FFMAX(cc->reported_send, p->send_time);
    for (int i = 0; i < cc->nb_clusters; i++) {
        Cluster *c = &cc->clusters[i];

        if (p->send_time < c->start || p->send_time > c->end)
            continue;
        if (p->arrival < 0) {
            c->lost++;
            continue;
        }
        if (!c->received) {
            c->first_send    = c->last_send    = p->send_time;
            c->first_arrival = c->last_arrival = p->arrival;
            c->last_send_size = c->first_arrival_size = p->size;
        }
        if (p->send_time < c->first_send)
            c->first_send = p->send_time;
        if (p->send_time >= c->last_send) {
            c->last_send      = p->send_time;
            c->last_send_size = p->size;
        }
        if (p->arrival < c->first_arrival) {
            c->first_arrival      = p->arrival;
            c->first_arrival_size = p->size;
        }
        c->last_arrival = FFMAX(c->last_arrival, p->arrival);
        c->bytes += p->size;
        c->received++;
    }
}

/**
 * What a cluster measured (bit/s), 0 if it says nothing: too few packets,
 * too many lost. The send rate is its bytes over the send span (the last
 * packet's left out: it ends the span), the receive rate the same over the
 * arrival span (the first packet's left out); a receive rate short of
 * PROBE_FULL x the send rate means the link is full, and PROBE_USE x it
 * is the measure, else the smaller of the two.
 */
static double cluster_measure(const Cluster *c, int *full)
{
    int64_t send_span = c->last_send - c->first_send;
    int64_t recv_span = c->last_arrival - c->first_arrival;
    double send_rate, recv_rate;

    *full = 0;
    if (c->received < PROBE_MIN_PKTS || c->received < PROBE_MIN_RECV * (c->received + c->lost) ||
        send_span <= 0)
        return 0;
    send_rate = (c->bytes - c->last_send_size) * 8e6 / send_span;
    if (recv_span <= 0)         /* within the feedback's resolution: the link is faster */
        return send_rate;
    recv_rate = (c->bytes - c->first_arrival_size) * 8e6 / recv_span;
    if (recv_rate < PROBE_FULL * send_rate) {
        *full = 1;
        return PROBE_USE * recv_rate;
    }
    return FFMIN(send_rate, recv_rate);
}

/** The clusters whose packets have all been reported (a later packet was):
 *  their measures raise the rate; those without a result in PROBE_WAIT go. */
static void probe_finish(FFRTPCC *cc, int64_t now)
{
    for (int i = 0; i < cc->nb_clusters; i++) {
        Cluster *c = &cc->clusters[i];
        double est;
        int full;

        if (c->end == INT64_MAX)
            continue;
        if (cc->reported_send <= c->end) {
            if (now - c->end > PROBE_WAIT) {
                cc->st.probe_failures++;
                cluster_drop(cc, i--);
            }
            continue;
        }
        if ((est = cluster_measure(c, &full)) <= 0) {
            cc->st.probe_failures++;
            cluster_drop(cc, i--);
            continue;
        }
        cc->st.probe_results++;
        cc->st.probe_estimate = llrint(est);
        if (cc->probing && cc->usage != FF_RTPCC_OVERUSE) {
            est = FFMIN(est, cc->cfg.max_bitrate);
            /* a full link also brings the rate down to its measure: the
             * start-up may have doubled past it since */
            if (est > cc->rate || full) {
                cc->rate       = est;
                cc->probe_est  = est;
                cc->probe_time = now;
            }
            /* a recovery probe: asked for once the loss was over; the
             * loss-based rate has nothing against its measure either */
            if (cc->recovering) {
                if (cc->loss < LOSS_LOW)
                    cc->loss_rate = av_clipd(FFMAX(cc->loss_rate, cc->rate), cc->cfg.min_bitrate,
                                             cc->cfg.max_bitrate);
                probe_stop(cc);
                cluster_drop(cc, i--);
                continue;
            }
            /* if the link took most of the highest rate asked for, ask
             * for more, even if the cluster looked full: a receiver held
             * up for 2 ms stretches a 15 ms cluster's arrivals past 1 /
             * 0.9 of its send span (a loaded host: a 12 Mbit/s link taken
             * for a full one at 5 Mbit/s, its first second at 4.4), and
             * the next cluster tells (libwebrtc's probe controller goes on
             * from the measure alone too). Else a full link is found once
             * no higher cluster is out to say otherwise: the start-up's
             * doubling would only fill its queue (it took a 3 Mbit/s link
             * to 4 and 150 ms of queue) */
            if (est >= PROBE_FURTHER * cc->probe_asked) {
                probe_ask(cc, 2 * est, now);
            } else if (full && cc->nb_clusters == 1 && !cc->nb_pending) {
                cc->startup = 0;
                probe_stop(cc);
            }
        }
        cluster_drop(cc, i--);
    }
    /* a recovery probe whose cluster measured nothing (or never went):
     * over, as when it measured */
    if (cc->recovering && !cc->nb_clusters && !cc->nb_pending)
        probe_stop(cc);
}

/* ---- AIMD ---- */

static void link_update(FFRTPCC *cc, double acked_kbps)
{
    const double alpha = 0.05;
    double norm, err;

    if (cc->link_avg < 0) {
        cc->link_avg = acked_kbps;
        cc->link_var = 0.4;
        return;
    }
    cc->link_avg = (1 - alpha) * cc->link_avg + alpha * acked_kbps;
    norm = FFMAX(cc->link_avg, 1.0);
    err  = cc->link_avg - acked_kbps;
    cc->link_var = (1 - alpha) * cc->link_var + alpha * err * err / norm;
    cc->link_var = av_clipd(cc->link_var, 0.4, 2.5);
}

/** The queue has begun to grow: the smoothed delay STARTUP_EXIT_DELAY above
 *  its lowest, or the trend past half the threshold. */
static int queue_shows(const FFRTPCC *cc)
{
    return (cc->num_deltas >= 2 && cc->modified > cc->threshold / 2) ||
           cc->smoothed - cc->min_smoothed > STARTUP_EXIT_DELAY;
}

static void aimd(FFRTPCC *cc, int64_t now)
{
    double dt, acked_kbps = cc->acked / 1000.0;

    if (!cc->last_change)
        cc->last_change = now;
    dt = FFMIN((now - cc->last_change) / 1e6, 1.0);

    switch (cc->usage) {
    case FF_RTPCC_OVERUSE:
        cc->state = FF_RTPCC_DECREASE;
        break;
    case FF_RTPCC_UNDERUSE:
        cc->state = FF_RTPCC_HOLD;
        break;
    default:
        if (cc->state != FF_RTPCC_INCREASE)
            cc->state = FF_RTPCC_INCREASE;
        break;
    }
    /* the acked rate well above the link estimate: the link grew, forget
     * it; also when nothing confirmed it for LINK_STALE while increasing,
     * but keep it then as link_stale */
    if (cc->link_avg >= 0 && acked_kbps > cc->link_avg + 3 * sqrt(cc->link_var * cc->link_avg)) {
        cc->link_avg   = -1;
        cc->link_stale = -1;
    } else if (cc->link_avg >= 0 && cc->state == FF_RTPCC_INCREASE && now - cc->last_decrease > LINK_STALE) {
        cc->link_stale = cc->link_avg;
        cc->link_avg   = -1;
    }
    /* an estimate forgotten for its age only says the link may have grown:
     * until the acknowledged rate shows it did (LINK_MARGIN above the old
     * estimate), the increase is GCC's multiplicative one, not the
     * doubling. On a full 1.5 Mbit/s link (whip.sh bottleneck) the hold
     * while the queue drained after a cut outlasted LINK_STALE; doubling
     * from the age alone then took the target from 1.38 to 1.72 Mbit/s
     * in 0.5 s, libx264 followed a second later, and the router dropped
     * 20-35 datagrams each time (unit test rtpcc: hold_on_full_link) */
    if (cc->link_stale >= 0 && acked_kbps > (1 + LINK_MARGIN) * cc->link_stale)
        cc->link_stale = -1;

    switch (cc->state) {
    case FF_RTPCC_INCREASE:
        if (cc->startup) {
            double response = (cc->rtt + 100000) / 1e6;
            /* the queue has begun to grow: the link is found; hold at
             * what gets through rather than wait for overuse, which would
             * come with the queue full */
            if (queue_shows(cc)) {
                cc->startup = 0;
                if (cc->acked > 0)
                    cc->rate = FFMIN(cc->rate, FFMAX(cc->acked, probe_hold(cc, now)));
                break;
            }
            /* while probe clusters are out, they lead: their measures
             * come sooner than the doubling (which took a 3 Mbit/s link
             * to 3.5 while a cluster that found it full was on its way) */
            if (probes_out(cc, now))
                break;
            cc->rate *= exp2(dt / response);
            if (cc->acked > 0)
                cc->rate = FFMIN(cc->rate, ack_cap(cc, now));
            if (cc->rate >= cc->cfg.max_bitrate)
                cc->startup = 0;
            break;
        }
        if (cc->link_avg >= 0 &&
            cc->rate / 1000.0 < cc->link_avg + 3 * sqrt(cc->link_var * cc->link_avg) + 1) {
            /* near the link's rate: about one packet more per response time */
            double response = (cc->rtt + 100000) / 1e6;
            double step = ADD_PACKETS * 1200 * 8 / response;
            /* on a slow link four packets per response time are more
             * than the link a second (320 kbit/s a second at 250 kbit/s
             * and a 20 ms RTT): each cut was undone within 0.3 s and 260
             * ms of queue stood; a fifth of the link a second, 130 ms.
             * From about 1.6 Mbit/s up the packets are the smaller step */
            step = FFMIN(step, ADD_SHARE * 1000 * cc->link_avg);
            cc->rate += FFMAX(1000.0, step) * dt;
        } else if (!queue_shows(cc) && cc->link_avg < 0 && cc->link_stale < 0) {
            /* no link estimate and the queue still empty: the link may
             * have grown; find out as the start-up does, at an eighth of
             * its pace (doubling in about a second at 20 ms RTT). Past an
             * estimate that holds, the multiplicative increase below: an
             * encoder a second late leaves the queue empty while the
             * target runs on, and doubling there took it to 1.9 Mbit/s on
             * the 1.5 Mbit/s link before the queue showed */
            double response = (cc->rtt + 100000) / 1e6;
            double grown = cc->rate * exp2(dt / (PROBE_RESPONSES * response));
            /* it grows to a fifth above what gets through at most: on a
             * full link the queue then grows by a fifth of its rate until
             * the detector sees it (at 1.5 x, 3 Mbit/s with keyframes lost
             * 2.8 % of the datagrams in one of three runs) */
            if (cc->acked > 0)
                grown = FFMIN(grown, FFMAX(PROBE_AHEAD * cc->acked + 10000, cc->rate));
            cc->rate = grown;
        } else {
            cc->rate *= pow(MULT_INCREASE, dt);
        }
        if (cc->acked > 0)
            cc->rate = FFMIN(cc->rate, ack_cap(cc, now));
        break;
    case FF_RTPCC_DECREASE:
        cc->startup = 0;
        probe_stop(cc);
        /* one cut per window of the acknowledged rate: a cut sooner would
         * start from a rate that does not show the last one yet, and
         * compound (beside a TCP upload, cuts every RTT took the video
         * from 4.8 Mbit/s to 0.33 in 1.5 s) */
        if (now - cc->last_decrease >= FFMAX(FFMIN(cc->rtt, 200000), ACK_WINDOW) && cc->acked > 0) {
            /* and by the queue that built up beyond QUEUE_CUT_FROM (the
             * smoothed delay above its lowest, in s): 0.85 x what got
             * through drains a full 64 KB queue of a link that fell from
             * 6 to 2 Mbit/s in 1.7 s, this in about 1 s. Only a long
             * queue counts: the lowest delay a sender saw depends on when
             * it started (one that started beside another never saw the
             * queue empty), and cuts by all of it gave a second sender
             * 66 % of the link. What a cut keeps has a packet per
             * window added (CUT_ADD): more of a small sender's rate than
             * of a large one's, so two senders converge (it came from
             * the acknowledged rate, which counted one packet too many
             * until 2026-12-06; without it, two senders with keyframes
             * in the unit test split 70/30 and 68/32 in 2 of 32 phases) */
            double q = FFMAX(cc->smoothed - cc->min_smoothed - QUEUE_CUT_FROM, 0) / 1000.0;
            double r = FFMAX(BETA - q, 0.5) * (cc->acked + CUT_ADD);
            if (r < cc->rate) {
                cc->rate = r;
                cc->st.decreases++;
            }
            /* far below the link estimate: the link shrank, start over */
            if (cc->link_avg >= 0 &&
                acked_kbps < cc->link_avg - 3 * sqrt(cc->link_var * cc->link_avg))
                cc->link_avg = -1;
            link_update(cc, acked_kbps);
            cc->link_stale = -1;
            cc->last_decrease = now;
        }
        cc->state = FF_RTPCC_HOLD;
        break;
    case FF_RTPCC_HOLD:
        break;
    }
    cc->rate = av_clipd(cc->rate, cc->cfg.min_bitrate, cc->cfg.max_bitrate);
    cc->last_change = now;
}

/* ---- loss ---- */

static void loss_update(FFRTPCC *cc, double fraction, int64_t now)
{
    double dt;

    if (!cc->loss_last_update)
        cc->loss_last_update = now;
    dt = FFMIN((now - cc->loss_last_update) / 1e6, 1.0);
    cc->loss = fraction;
    if (cc->drop_time && now - cc->drop_time <= RECOVERY_WINDOW)
        cc->drop_loss = FFMAX(cc->drop_loss, fraction);
    if (fraction > LOSS_HIGH) {
        /* once per response time: the last cut has not shown yet */
        if (!cc->loss_decreased || now - cc->last_loss_decrease >= cc->rtt + 300000) {
            double base = FFMIN(cc->loss_rate, ff_rtpcc_target(cc));
            /* not below what got through: losses reported now were caused
             * by a rate the last cut has already lowered */
            cc->loss_rate = FFMAX(base * (1 - 0.5 * fraction), FFMIN(BETA * cc->acked, base));
            cc->last_loss_decrease = now;
            cc->loss_decreased = 1;
            cc->startup = 0;
            probe_stop(cc);
            cc->st.decreases++;
        }
    } else if (fraction < LOSS_LOW) {
        /* and no lower than the delay-based rate: without loss this part
         * has nothing to say (after a burst of loss, as when a TCP upload
         * starts, 8 % a second held the video under 1 Mbit/s for 10 s
         * while the delay-based rate had come back) */
        cc->loss_rate = FFMAX(cc->loss_rate * pow(1.08, dt), cc->rate);
    }
    cc->loss_rate = av_clipd(cc->loss_rate, cc->cfg.min_bitrate, cc->cfg.max_bitrate);
    cc->loss_last_update = now;
}

static void loss_packet(FFRTPCC *cc, int lost, int64_t now)
{
    if (!cc->loss_pkts)
        cc->loss_start = now;
    cc->loss_pkts++;
    cc->loss_lost += lost;
    if (cc->loss_pkts >= LOSS_MIN_PKTS &&
        (cc->loss_pkts >= 1000 || now - cc->loss_start >= LOSS_MIN_SPAN)) {
        loss_update(cc, (double)cc->loss_lost / cc->loss_pkts, now);
        cc->loss_pkts = cc->loss_lost = 0;
    }
}

/* ---- input ---- */

/* A receiver that sends no transport feedback (RRs, REMB or nothing) gives
 * the delay-based rate nothing to measure: FF_RTPCC_FEEDBACK_WAIT after the
 * media began it is max_bitrate, and the loss-based rate and REMB are all
 * there is. Transport feedback that comes later (a receiver that joined
 * late) starts the start-up over from the start rate. */
static void feedback_wait(FFRTPCC *cc, int64_t now)
{
    /* the clock starts with the media (ff_rtpcc_update()), not with RTCP
     * that may come before it (from anyone) */
    if (cc->started && !cc->st.feedbacks && !cc->fallback &&
        now - cc->first_input >= FF_RTPCC_FEEDBACK_WAIT) {
        cc->fallback = 1;
        cc->rate     = cc->cfg.max_bitrate;
        cc->startup  = 0;
        cc->st.feedback_timeouts++;
    }
}

/* the REMB cap at now: gone after the timeout, halving towards the REMB */
static void remb_update(FFRTPCC *cc, int64_t now)
{
    if (!cc->remb)
        return;
    if (now - cc->remb_time > FF_RTPCC_REMB_TIMEOUT) {
        cc->remb = 0;
        cc->st.remb_expired++;
        return;
    }
    if (now > cc->remb_cap_time)
        cc->remb_cap = FFMAX(cc->remb, cc->remb_cap * exp2(-(double)(now - cc->remb_cap_time) /
                                                           FF_RTPCC_REMB_HALVING));
    cc->remb_cap_time = FFMAX(cc->remb_cap_time, now);
}

void ff_rtpcc_feedback(FFRTPCC *cc, const FFRTPCCPacket *pkts, int nb, int64_t now)
{
    int64_t latest = INT64_MIN;

    remb_update(cc, now);
    if (!cc->st.feedbacks && cc->fallback) {
        cc->rate    = av_clip64(cc->cfg.start_bitrate, cc->cfg.min_bitrate, cc->cfg.max_bitrate);
        cc->startup = cc->rate < cc->cfg.max_bitrate;
    }
    if (!cc->st.feedbacks)
        probe_start(cc, now);
    cc->st.feedbacks++;
    for (int i = 0; i < nb; i++) {
        const FFRTPCCPacket *p = &pkts[i];
        loss_packet(cc, p->arrival < 0, now);
        probe_packet(cc, p);
        if (p->arrival < 0)
            continue;
        ack_add(cc, p->arrival, p->size);
        latest = FFMAX(latest, p->arrival);
        delay_packet(cc, p, now);
    }
    if (latest != INT64_MIN)
        ack_update(cc, latest);
    aimd(cc, now);
    probe_finish(cc, now);
    drop_track(cc, now);
    recovery_check(cc, now);
}

void ff_rtpcc_loss_report(FFRTPCC *cc, double fraction, int64_t now)
{
    feedback_wait(cc, now);
    remb_update(cc, now);
    cc->st.loss_reports++;
    loss_update(cc, av_clipd(fraction, 0, 1), now);
    drop_track(cc, now);
}

void ff_rtpcc_remb(FFRTPCC *cc, int64_t bitrate, int64_t now)
{
    double below;

    feedback_wait(cc, now);
    below = FFMIN(cc->rate, cc->loss_rate);
    remb_update(cc, now);
    if (bitrate <= 0)
        return;
    /* the first (or the first after one expired) starts from the target */
    if (!cc->remb) {
        cc->remb_cap      = below;
        cc->remb_cap_time = now;
    }
    cc->remb      = bitrate;
    cc->remb_time = now;
    if (bitrate >= cc->remb_cap)
        cc->remb_cap = bitrate;
}

void ff_rtpcc_update(FFRTPCC *cc, int64_t now)
{
    if (!cc->started) {
        cc->started     = 1;
        cc->first_input = now;
    }
    feedback_wait(cc, now);
    remb_update(cc, now);
}

void ff_rtpcc_rtt(FFRTPCC *cc, int64_t rtt)
{
    if (rtt > 0)
        cc->rtt = FFMIN(rtt, 2000000);
}

int ff_rtpcc_estimating(const FFRTPCC *cc)
{
    return !cc->fallback || cc->st.feedbacks;
}

int64_t ff_rtpcc_target(const FFRTPCC *cc)
{
    double t = FFMIN(cc->rate, cc->loss_rate);

    if (cc->remb > 0)
        t = FFMIN(t, cc->remb_cap);
    return av_clip64(llrint(t), cc->cfg.min_bitrate, cc->cfg.max_bitrate);
}

void ff_rtpcc_get_stats(const FFRTPCC *cc, FFRTPCCStats *st)
{
    *st = cc->st;
    st->target        = ff_rtpcc_target(cc);
    st->delay_based   = llrint(cc->rate);
    st->loss_based    = llrint(cc->loss_rate);
    st->acked         = llrint(cc->acked);
    st->link_estimate = cc->link_avg >= 0 ? llrint(cc->link_avg * 1000) : 0;
    st->state         = cc->state;
    st->usage         = cc->usage;
    st->trend         = cc->modified;
    st->threshold     = cc->threshold;
    st->loss          = cc->loss;
}

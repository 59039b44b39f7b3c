/*
 * RTP receiver: which missing packets to ask for, and when (RFC 4585 NACK)
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

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "libavutil/common.h"
#include "libavutil/log.h"

#include "rtpnack.h"

#define DEFAULT_RTT 100000          ///< µs, until the first sample
#define FIRST_WAIT  500000          ///< µs: the hold cap before any retransmission arrived
#define NO_RTT_WAIT 200000          ///< µs: the hold cap once a number was given up unanswered

void ff_rtp_nack_init(FFRTPNack *g, int nack, int max_retries, int64_t max_wait, void *logctx)
{
    memset(g, 0, sizeof(*g));
    g->nack        = nack;
    g->max_retries = max_retries;
    g->max_wait    = max_wait;
    g->logctx      = logctx;
}

static int64_t unwrap(const FFRTPNack *g, uint16_t seq)
{
    return g->highest + (int16_t)(seq - (uint16_t)g->highest);
}

/** Index of the first entry with seq >= v. */
static int find(const FFRTPNack *g, int64_t v)
{
    int lo = 0, hi = g->nb_miss;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (g->miss[mid].seq < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void drop_entries(FFRTPNack *g, int from, int n)
{
    memmove(&g->miss[from], &g->miss[from + n], (g->nb_miss - from - n) * sizeof(*g->miss));
    g->nb_miss -= n;
}

int64_t ff_rtp_nack_retry_interval(const FFRTPNack *g)
{
    if (!g->srtt)
        return DEFAULT_RTT;
    return g->srtt + FFMAX(4 * g->rttvar, 5000);
}

/** The longest a missing number is held: max_wait; before any
 *  retransmission has arrived FIRST_WAIT (several rounds at a long RTT),
 *  and NO_RTT_WAIT once a number has been given up unanswered (a sender
 *  that does not answer NACKs must not stall every gap for long). */
static int64_t hold_cap(const FFRTPNack *g)
{
    if (g->srtt)
        return g->max_wait;
    return FFMIN(g->max_wait, g->st.lost ? NO_RTT_WAIT : FIRST_WAIT);
}

int64_t ff_rtp_nack_reorder_wait(const FFRTPNack *g)
{
    int64_t w = FF_RTP_NACK_REORDER + g->max_retries * ff_rtp_nack_retry_interval(g);
    return FFMIN(w, hold_cap(g));
}

int64_t ff_rtp_nack_jump_wait(const FFRTPNack *g, int run)
{
    int rate = FFMAX(g->win_prev, g->win_count);
    int64_t w;

    if (rate <= 0)
        return FF_RTP_NACK_JUMP_WAIT_MAX;
    w = 2 * (int64_t)run * 1000000 / rate;
    return av_clip64(w, FF_RTP_NACK_JUMP_WAIT_MIN, FF_RTP_NACK_JUMP_WAIT_MAX);
}

/** When a missing number is given up: one retry interval after its last
 *  request, or when it has been held for the cap. */
static int64_t give_up_at(const FFRTPNack *g, const FFRTPNackMissing *m, int64_t retry)
{
    int64_t cap = hold_cap(g);
    if (m->retries >= g->max_retries)
        return FFMIN(m->sent + retry, m->detected + cap);
    return m->detected + cap;
}

static void rtt_sample(FFRTPNack *g, int64_t r)
{
    if (r <= 0)
        return;
    if (!g->srtt) {
        g->srtt   = r;
        g->rttvar = r / 2;
    } else {
        g->rttvar += (FFABS(g->srtt - r) - g->rttvar) / 4;
        g->srtt   += (r - g->srtt) / 8;
    }
    g->wake = 0;                /* retry times changed */
}

static void give_up(FFRTPNack *g, int n)
{
    for (int i = 0; i < n; i++)
        g->gave_up[g->miss[i].seq & (FF_RTP_NACK_MAX_MISSING - 1)] = g->miss[i].seq + 1;
    g->st.lost += n;
    drop_entries(g, 0, n);
}

/* arrivals in the last second, roughly: the last whole second's or, if
 * more, this one's so far */
static int recent_arrivals(FFRTPNack *g, int64_t now)
{
    if (now - g->win_start >= 1000000) {
        g->win_prev  = now - g->win_start < 2000000 ? g->win_count : 0;
        g->win_start = now;
        g->win_count = 0;
    }
    g->win_count++;
    return FFMAX(g->win_prev, g->win_count);
}

int ff_rtp_nack_packet(FFRTPNack *g, uint16_t seq, int64_t now)
{
    int64_t v;
    int plausible = recent_arrivals(g, now);

    plausible = FFMAX(plausible, FF_RTP_NACK_MIN_PLAUSIBLE);

    g->st.packets++;
    if (!g->started) {
        g->started = 1;
        g->highest = seq;
        return 0;
    }
    v = unwrap(g, seq);
    if (v > g->highest) {
        int64_t gap = v - g->highest - 1;
        if (gap > plausible && gap <= FF_RTP_NACK_MAX_GAP && g->nack) {
            /* more lost than the stream sends: not asked for, what is
             * pursued stays */
            av_log(g->logctx, AV_LOG_DEBUG, "RTP: a gap of %"PRId64" after %d packets in the last "
                   "second: not asked for\n", gap, plausible);
            g->st.seq_jumps++;
        } else if (gap > FF_RTP_NACK_MAX_GAP) {
            /* a restart or a hostile jump: nothing to ask for */
            av_log(g->logctx, AV_LOG_DEBUG, "RTP: sequence jump of %"PRId64", %d missing numbers dropped\n",
                   gap, g->nb_miss);
            g->st.lost += g->nb_miss;
            g->nb_miss = 0;
            g->st.seq_jumps++;
        } else if (gap > 0 && g->nack) {
            g->st.missing += gap;
            if (gap > FF_RTP_NACK_MAX_MISSING)
                gap = FF_RTP_NACK_MAX_MISSING;
            if (g->nb_miss + gap > FF_RTP_NACK_MAX_MISSING) {
                /* bounded: the oldest go first */
                give_up(g, g->nb_miss + gap - FF_RTP_NACK_MAX_MISSING);
            }
            for (int64_t q = v - gap; q < v; q++) {
                FFRTPNackMissing *m = &g->miss[g->nb_miss++];
                m->seq      = q;
                m->detected = now;
                m->sent     = 0;
                m->retries  = 0;
            }
            g->wake = FFMIN(g->wake, now + FF_RTP_NACK_REORDER);
        } else if (gap > 0) {
            g->st.missing += gap;
        }
        g->highest = v;
    } else if (v < g->highest - FF_RTP_NACK_MAX_GAP) {
        /* far behind: a restart if the next packet follows it (as
         * RFC 3550 A.1 resynchronizes), else a stray packet */
        if (seq == g->bad_seq) {
            av_log(g->logctx, AV_LOG_DEBUG, "RTP: sequence restarted at %d\n", seq);
            g->st.lost += g->nb_miss;
            g->nb_miss = 0;
            g->highest = v;
            g->st.seq_jumps++;
        } else {
            g->bad_seq = (uint16_t)(seq + 1);
            g->st.duplicates++;
        }
    } else {
        int i = find(g, v);
        if (i < g->nb_miss && g->miss[i].seq == v) {
            const FFRTPNackMissing *m = &g->miss[i];
            if (m->retries) {
                g->st.recovered++;
                if (m->retries == 1)
                    rtt_sample(g, now - m->sent);
            } else {
                g->st.reordered++;
            }
            drop_entries(g, i, 1);
        } else if (g->gave_up[v & (FF_RTP_NACK_MAX_MISSING - 1)] == v + 1) {
            g->gave_up[v & (FF_RTP_NACK_MAX_MISSING - 1)] = 0;     /* counted once */
            g->st.late++;
        } else {
            /* a second retransmission of one number, or a copy: with NACKs
             * on, every number not pursued at or below the highest has been
             * handed on or queued already (FFmpeg's queue would hold it twice
             * and stall behind it) */
            g->st.duplicates++;
            return g->nack;
        }
    }
    return 0;
}

int ff_rtp_nack_due(FFRTPNack *g, int64_t now, uint16_t *seqs, int max, int64_t *next)
{
    int64_t retry = ff_rtp_nack_retry_interval(g);
    int nb = 0, i, j;

    *next = INT64_MAX;
    /* one pass: give up what is over, ask for what is due, keep the rest */
    for (i = j = 0; i < g->nb_miss; i++) {
        FFRTPNackMissing m = g->miss[i];
        int64_t end = give_up_at(g, &m, retry);
        if (now >= end) {
            g->gave_up[m.seq & (FF_RTP_NACK_MAX_MISSING - 1)] = m.seq + 1;
            g->st.lost++;
            continue;
        }
        *next = FFMIN(*next, end);
        if (m.retries < g->max_retries) {
            int64_t due = m.retries ? m.sent + retry : m.detected + FF_RTP_NACK_REORDER;
            if (due <= now && nb < max) {
                seqs[nb++] = m.seq;
                m.sent = now;
                m.retries++;
                due = now + retry;
            }
            *next = FFMIN(*next, due);
        }
        g->miss[j++] = m;
    }
    g->nb_miss = j;
    g->wake = *next;
    return nb;
}

void ff_rtp_nack_skip(FFRTPNack *g, uint16_t seq)
{
    if (!g->started)
        return;
    give_up(g, find(g, unwrap(g, seq)));
    g->st.skipped++;
}

int64_t ff_rtp_nack_wait_end(const FFRTPNack *g, uint16_t from, uint16_t head)
{
    int64_t h = unwrap(g, head), retry = ff_rtp_nack_retry_interval(g), end = 0;

    for (int i = find(g, unwrap(g, from)); i < g->nb_miss && g->miss[i].seq < h; i++)
        end = FFMAX(end, give_up_at(g, &g->miss[i], retry));
    return end;
}

/* ---- the receiver's RTCP budget ---- */

static double budget_rate(const FFRTPRtcpBudget *b)
{
    return FFMAX(FF_RTP_RTCP_FLOOR, FF_RTP_RTCP_SHARE * FFMAX(b->prev_bytes, b->win_bytes));
}

static void budget_update(FFRTPRtcpBudget *b, int64_t now)
{
    double rate = budget_rate(b), depth = FFMAX(rate / 4, FF_RTP_RTCP_DEPTH);

    b->tokens = b->time ? FFMIN(depth, b->tokens + rate * (now - b->time) / 1e6) : depth;
    b->time   = FFMAX(b->time, now);
}

void ff_rtp_rtcp_budget_media(FFRTPRtcpBudget *b, int bytes, int64_t now)
{
    if (now - b->win_start >= 1000000) {
        b->prev_bytes = now - b->win_start < 2000000 ? b->win_bytes : 0;
        b->win_start  = now;
        b->win_bytes  = 0;
    }
    b->win_bytes += bytes;
}

double ff_rtp_rtcp_budget_left(FFRTPRtcpBudget *b, int64_t now)
{
    budget_update(b, now);
    return b->tokens;
}

int64_t ff_rtp_rtcp_budget_wait(FFRTPRtcpBudget *b, int bytes, int64_t now)
{
    budget_update(b, now);
    if (b->tokens >= bytes)
        return 0;
    return (int64_t)ceil((bytes - b->tokens) / budget_rate(b) * 1e6);
}

void ff_rtp_rtcp_budget_spend(FFRTPRtcpBudget *b, int bytes, int64_t now)
{
    budget_update(b, now);
    b->tokens -= bytes;
}

/*
 * RTP pacer: when each packet of the muxer may leave
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
 * Each access unit goes into a ring of packets and leaves in bursts of at
 * most `burst` bytes, the next burst when the last one would have left at
 * the pacing rate: factor x the media rate of the last second (or the
 * encoder's bit rate, if higher), or factor x the link's rate when
 * congestion control knows it. Each unit is due max_delay after its time by its RTP
 * timestamp; the rate rises when one would be late (a forced drain).
 * Resends go ahead of the media, at once while a burst of credit is left,
 * else first in the next burst. A source faster than real time is not
 * paced. See rtppacer.h: no clock, no lock, no socket here.
 */

#include <math.h>
#include <string.h>

#include "libavutil/common.h"
#include "libavutil/error.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/mathematics.h"
#include "libavutil/mem.h"

#include "rtppacer.h"
#include "rtprate.h"

#define RATE_WINDOW     FF_RTP_RATE_WINDOW
#define EARLY           100000      ///< µs ahead of its time an access unit is early
#define LATE_CREDIT     1000        ///< µs of a late wake-up made up for
#define DELAY_BIN       250         ///< µs per bin of the delay histogram
#define DELAY_BINS      4000        ///< 1 s of bins, then one for everything above
#define RESEND_BYTES    (1 << 20)   ///< resends held at most (and 256 packets)
#define UNPACED_BURST   (1 << 20)   ///< bytes per burst of a source faster than real time

typedef struct Paced {
    AVBufferRef *buf;
    int size;
    int64_t time;                   ///< when it was pushed
} Paced;

typedef struct PacedAU {
    int64_t due;                    ///< when it should have left, at the latest
    uint64_t end;                   ///< enq_bytes after its last packet
    int forced;
} PacedAU;

struct FFRTPPacer {
    FFRTPPacerConfig cfg;
    FFRTPPacerStats st;

    Paced *ring;
    int ring_start, ring_count, ring_bytes;
    PacedAU aus[FF_RTP_PACER_MAX_UNITS];
    int au_start, au_count;
    uint64_t enq_bytes, sent_bytes; ///< since the start
    FFRTPRate media;                ///< the media rate: every unit pushed
    int64_t t_free;                 ///< when the next burst may leave
    int64_t media_time;             ///< µs, from the RTP timestamps
    int64_t first_time;             ///< when the first access unit came
    int64_t ref, ref_time;          ///< clock - media time of the latest unit, decaying
    int live;                       ///< the source keeps to real time
    int early;                      ///< its last access unit came ahead of its time
    uint32_t last_ts;
    int have_ts;
    double rate;                    ///< bytes/s of the last burst
    int64_t urgent_within;          ///< µs: the next unit's due time, 0: as usual
    double link_rate;               ///< bytes/s the link takes, 0: unknown
    uint32_t delay_hist[DELAY_BINS + 1];
    uint64_t delay_count;
    int64_t delay_max;

    uint8_t *prio;                  ///< resends beyond one burst of credit
    int *prio_size;
    int prio_slot, prio_slots, prio_start, prio_count;
};

int ff_rtp_pacer_alloc(FFRTPPacer **pp, const FFRTPPacerConfig *cfg)
{
    FFRTPPacer *p;

    *pp = NULL;
    if (cfg->factor < 1 || cfg->burst < 1 || cfg->max_delay < 0 || cfg->max_resend < 1 ||
        cfg->ahead < 0)
        return AVERROR(EINVAL);
    if (!(p = av_mallocz(sizeof(*p))))
        return AVERROR(ENOMEM);
    p->cfg        = *cfg;
    p->prio_slot  = cfg->max_resend;
    p->prio_slots = av_clip(RESEND_BYTES / p->prio_slot, 8, 256);
    p->prio       = av_malloc_array(p->prio_slots, p->prio_slot);
    p->prio_size  = av_calloc(p->prio_slots, sizeof(*p->prio_size));
    p->ring       = av_calloc(FF_RTP_PACER_MAX_PACKETS, sizeof(*p->ring));
    if (!p->prio || !p->prio_size || !p->ring) {
        ff_rtp_pacer_free(&p);
        return AVERROR(ENOMEM);
    }
    *pp = p;
    return 0;
}

void ff_rtp_pacer_free(FFRTPPacer **pp)
{
    FFRTPPacer *p = *pp;

    if (!p)
        return;
    if (p->ring)
        for (int i = 0; i < p->ring_count; i++)
            av_buffer_unref(&p->ring[(p->ring_start + i) % FF_RTP_PACER_MAX_PACKETS].buf);
    av_freep(&p->ring);
    av_freep(&p->prio);
    av_freep(&p->prio_size);
    av_freep(pp);
}

int ff_rtp_pacer_has_room(const FFRTPPacer *p, int nb, int bytes, int units)
{
    return FF_RTP_PACER_MAX_PACKETS - p->ring_count >= nb &&
           p->ring_bytes + (int64_t)bytes <= FF_RTP_PACER_MAX_BYTES &&
           p->au_count + units <= FF_RTP_PACER_MAX_UNITS;
}

int ff_rtp_pacer_empty(const FFRTPPacer *p)
{
    return !p->ring_count && !p->prio_count;
}

int ff_rtp_pacer_queued(const FFRTPPacer *p)
{
    return p->ring_count;
}

int ff_rtp_pacer_live(const FFRTPPacer *p)
{
    return p->live;
}

void ff_rtp_pacer_urgent(FFRTPPacer *p, int64_t within)
{
    p->urgent_within = within;
}

double ff_rtp_pacer_media_rate(FFRTPPacer *p, int64_t now)
{
    return ff_rtp_rate_get(&p->media, now, p->live && p->early);
}

/**
 * Bytes per second for the next burst: factor times the media rate (the
 * last second's, or the encoder's bit rate if higher), or factor times the
 * link's rate when congestion control knows it and the encoder follows it
 * (but never below the last second's media rate),
 * and faster when an access unit would otherwise leave after its due time.
 */
static double pace_rate(FFRTPPacer *p, int64_t now)
{
    double rate, media;

    /* over the time the window covers: the clock since its oldest access
     * unit (less than the window in the first second: a camera's stream
     * is not underestimated while it starts), or the media time, if longer
     * (a source that came early, as ffmpeg -re's first half second). A
     * source faster than real time is paced by the clock. */
    media = ff_rtp_pacer_media_rate(p, now);
    if (p->link_rate <= 0)
        media = FFMAX(media, p->cfg.bit_rate / 8.0);
    rate  = media * p->cfg.factor;
    /* with congestion control: factor x the rate it found, as GCC paces
     * at its pacing factor x the target (the encoder follows the target,
     * so a good link adds no more wait than without; a source below it
     * drains its keyframes as fast), never slower than the media rate
     * (an encoder late to follow a lower target) */
    if (p->link_rate > 0)
        rate = FFMAX(p->link_rate * p->cfg.factor, media);
    for (int i = 0; i < p->au_count; i++) {
        PacedAU *au = &p->aus[(p->au_start + i) % FF_RTP_PACER_MAX_UNITS];
        double left = (double)(au->end - p->sent_bytes);
        int64_t until = au->due - now;
        double need = left * 1e6 / FFMAX(until, 1000);

        if (need > rate) {
            rate = need;
            if (!au->forced) {
                au->forced = 1;
                p->st.forced_drains++;
            }
        }
    }
    return rate;
}

/**
 * When an access unit of timestamp ts is due out, at the latest: max_delay
 * after its time by its RTP timestamp, on the clock of the unit that came
 * latest for its timestamp (its lateness: the clock less its media time).
 * The reference follows later units at once and earlier ones by 250 ms per
 * second at most, so that clocks that drift apart are followed and due
 * times do not move back. A unit that comes on time is due max_delay after
 * it came; one that came early (the first half second ffmpeg -re reads at
 * once) is not hurried out ahead of its time, 1 s at most. A source faster
 * than real time (media time more than twice the clock and a second: no
 * -re) is not live: due max_delay after it came.
 */
static int64_t pace_due(FFRTPPacer *p, uint32_t ts, int64_t now)
{
    int64_t ref, sched, elapsed;
    int live;

    if (p->have_ts) {
        /* a jump of more than 10 s is a discontinuity, not media time */
        int64_t d = av_rescale((int32_t)(ts - p->last_ts), 1000000, FFMAX(p->cfg.clock_rate, 1));
        if (d > -10000000 && d < 10000000)
            p->media_time += d;
    } else {
        p->first_time = now;
    }
    ref = now - p->media_time;
    if (p->have_ts)
        ref = FFMAX(ref, p->ref - (now - p->ref_time) / 4);
    p->ref      = ref;
    p->ref_time = now;
    p->last_ts  = ts;
    p->have_ts  = 1;
    sched   = p->media_time + ref;
    elapsed = now - p->first_time;
    live    = p->live = p->media_time <= 2 * elapsed + RATE_WINDOW;
    p->early = sched - now > EARLY;
    return (live ? FFMIN(sched, now + RATE_WINDOW) : now) + p->cfg.max_delay;
}

int ff_rtp_pacer_push(FFRTPPacer *p, AVBufferRef **bufs, const int *sizes, int nb,
                      int64_t now)
{
    int64_t due;
    int urgent, bytes = 0;

    if (nb <= 0)
        return AVERROR(EINVAL);
    for (int i = 0; i < nb; i++)
        bytes += sizes[i];
    due = pace_due(p, AV_RB32(bufs[0]->data + 4), now);
    urgent = p->urgent_within && p->live;
    if (urgent) {
        due = FFMIN(due, now + p->urgent_within);
        p->st.urgent_units++;
    }
    p->urgent_within = 0;
    /* every unit counts for the media rate, paced or not */
    ff_rtp_rate_add(&p->media, now, bytes, p->media_time);
    if (!p->live) {
        p->st.unpaced_units++;
        return 0;
    }
    if (!ff_rtp_pacer_has_room(p, nb, bytes, 1))
        return AVERROR(ENOSPC);
    for (int i = 0; i < nb; i++) {
        Paced *q = &p->ring[(p->ring_start + p->ring_count++) % FF_RTP_PACER_MAX_PACKETS];
        q->buf  = bufs[i];
        q->size = sizes[i];
        q->time = now;
        bufs[i] = NULL;
    }
    p->ring_bytes += bytes;
    p->enq_bytes  += bytes;
    /* an urgent unit's speed-up is no forced drain */
    p->aus[(p->au_start + p->au_count++) % FF_RTP_PACER_MAX_UNITS] = (PacedAU){ due, p->enq_bytes, urgent };
    return 1;
}

int ff_rtp_pacer_burst_start(FFRTPPacer *p, int64_t now, FFRTPPacerBurst *b, int64_t *next)
{
    /* ahead of its time with that time (the kernel paces); resends, sent
     * at once, wait for their credit as without it */
    int64_t ahead = p->live && !p->prio_count ? p->cfg.ahead : 0;

    if (now + ahead < p->t_free || ff_rtp_pacer_empty(p)) {
        *next = ff_rtp_pacer_empty(p) ? INT64_MAX : p->t_free - ahead;
        return 0;
    }
    memset(b, 0, sizeof(*b));
    b->now    = now;
    b->depart = ahead ? FFMAX(p->t_free, now) : 0;
    b->rate   = p->rate = pace_rate(p, now);
    /* a source faster than real time has no rate to pace at: what is
     * queued goes in large batches */
    b->limit  = p->live ? p->cfg.burst : UNPACED_BURST;
    return 1;
}

int ff_rtp_pacer_resend_peek(FFRTPPacer *p, const FFRTPPacerBurst *b, uint8_t **data, int *len)
{
    int size;

    if (!p->prio_count)
        return 0;
    size = p->prio_size[p->prio_start];
    if (b->resent && b->resent + size > p->cfg.burst)
        return 0;
    *data = p->prio + (size_t)p->prio_start * p->prio_slot;
    *len  = size;
    return 1;
}

void ff_rtp_pacer_resend_done(FFRTPPacer *p, FFRTPPacerBurst *b)
{
    if (!p->prio_count)
        return;
    b->resent += p->prio_size[p->prio_start];
    p->prio_start = (p->prio_start + 1) % p->prio_slots;
    p->prio_count--;
}

int ff_rtp_pacer_take(FFRTPPacer *p, FFRTPPacerBurst *b, AVBufferRef **bufs, int *sizes, int max)
{
    int nb = 0;

    while (p->ring_count && nb < max &&
           (!(nb || b->resent) || b->resent + b->bytes + p->ring[p->ring_start].size <= b->limit)) {
        Paced *q = &p->ring[p->ring_start];
        int64_t delay = (b->depart ? b->depart : b->now) - q->time;

        bufs[nb]    = q->buf;
        sizes[nb++] = q->size;
        b->bytes   += q->size;
        q->buf = NULL;
        p->ring_start = (p->ring_start + 1) % FF_RTP_PACER_MAX_PACKETS;
        p->ring_count--;
        p->ring_bytes -= q->size;
        p->delay_hist[FFMIN(FFMAX(delay, 0) / DELAY_BIN, DELAY_BINS)]++;
        p->delay_count++;
        p->delay_max = FFMAX(p->delay_max, delay);
    }
    return nb;
}

void ff_rtp_pacer_burst_end(FFRTPPacer *p, FFRTPPacerBurst *b)
{
    p->sent_bytes += b->bytes;
    while (p->au_count && p->aus[p->au_start].end <= p->sent_bytes) {
        p->au_start = (p->au_start + 1) % FF_RTP_PACER_MAX_UNITS;
        p->au_count--;
    }
    /* a wake-up a little late is made up for; a long idle time is not
     * banked as a burst */
    if (p->live)
        p->t_free = FFMAX(p->t_free, b->now - LATE_CREDIT) + (b->resent + b->bytes) * 1e6 / b->rate;
    p->st.bursts++;
}

int ff_rtp_pacer_resend(FFRTPPacer *p, const uint8_t *buf, int len, int64_t now)
{
    double burst_time = p->rate > 0 ? p->cfg.burst * 1e6 / p->rate : 0;

    if (p->prio_count || (p->rate > 0 && p->t_free - now > burst_time)) {
        /* more than a burst of credit spent: it goes first thing in the
         * next burst, so that a NACK for many packets is no burst either */
        if (p->prio_count == p->prio_slots || len > p->prio_slot || len < 0) {
            p->st.resends_dropped++;
            return AVERROR(EAGAIN);
        }
        memcpy(p->prio + (size_t)((p->prio_start + p->prio_count) % p->prio_slots) * p->prio_slot,
               buf, len);
        p->prio_size[(p->prio_start + p->prio_count++) % p->prio_slots] = len;
        p->st.resends_queued++;
        return 0;
    }
    /* it goes ahead of the paced media, which waits for it */
    if (p->rate > 0)
        p->t_free = FFMAX(p->t_free, now - LATE_CREDIT) + len * 1e6 / p->rate;
    return 1;
}

void ff_rtp_pacer_set_link_rate(FFRTPPacer *p, double rate)
{
    p->link_rate = rate;
}

void ff_rtp_pacer_set_clock_rate(FFRTPPacer *p, int clock_rate)
{
    p->cfg.clock_rate = clock_rate;
}

void ff_rtp_pacer_set_ahead(FFRTPPacer *p, int64_t ahead)
{
    p->cfg.ahead = FFMAX(ahead, 0);
}

/** The delay below which a share q of the packets waited, in ms. */
static double delay_quantile(const FFRTPPacer *p, double q)
{
    uint64_t need = ceil(p->delay_count * q), sum = 0;

    if (!p->delay_count)
        return 0;
    for (int i = 0; i <= DELAY_BINS; i++) {
        sum += p->delay_hist[i];
        if (sum >= need)
            return i == DELAY_BINS ? p->delay_max / 1000.0 : (i + 1) * DELAY_BIN / 1000.0;
    }
    return p->delay_max / 1000.0;
}

void ff_rtp_pacer_get_stats(const FFRTPPacer *p, FFRTPPacerStats *st)
{
    *st = p->st;
    st->rate         = p->rate * 8;
    st->delay_p50_ms = delay_quantile(p, 0.5);
    st->delay_p95_ms = delay_quantile(p, 0.95);
    st->delay_max_ms = p->delay_max / 1000.0;
}

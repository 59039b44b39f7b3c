/*
 * RTP packet history: what a NACK can be answered from, RTX, the resend budget
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

#include <math.h>
#include <string.h>

#include "libavutil/common.h"
#include "libavutil/error.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/mem.h"

#include "rtphdrext.h"
#include "rtphist.h"

typedef struct HistEntry {
    AVBufferRef *buf;
    int size;
    uint16_t seq;
    uint32_t ts;                ///< RTP timestamp
    int64_t time;
    int64_t resent;             ///< when it was last resent, 0: never
    int nacked;                 ///< a NACK asked for it
} HistEntry;

#define LOSS_TAU       2000000  ///< us, the loss estimate's time constant
#define LOSS_MIN_SENT  50       ///< packets sent before it is trusted

struct FFRTPHist {
    FFRTPHistConfig cfg;
    HistEntry *e;
    int start, count;
    int64_t bytes;
    int32_t media_limit;        ///< history_ms in RTP timestamp units
    double tokens;              ///< bytes the budget has left
    double ptokens;             ///< datagrams it has left
    int64_t tokens_time;
    double cap, pcap;           ///< the budget's size at the last NACK, in bytes and datagrams
    uint16_t rtx_seq;
    uint8_t *rtx_buf;
    /* the loss estimate: packets sent and first NACKs, decaying */
    double loss_sent, loss_nacked;
    int64_t loss_time;
    int64_t added;              ///< packets added in all
    int just_resent;            ///< the seq ff_rtp_hist_resent() was last told of, -1: none since
};

static void loss_decay(FFRTPHist *h, int64_t now)
{
    double k;

    if (h->added && now <= h->loss_time)  /* the same moment, or a clock read a little earlier */
        return;
    if (h->added) {
        k = exp(-(now - h->loss_time) / (double)LOSS_TAU);
        h->loss_sent   *= k;
        h->loss_nacked *= k;
    }
    h->loss_time = now;
}

int ff_rtp_hist_alloc(FFRTPHist **ph, const FFRTPHistConfig *cfg)
{
    FFRTPHist *h;

    *ph = NULL;
    if (cfg->history_ms < 0 || cfg->max_packet < 12 || cfg->max_share < 0 ||
        !(cfg->dup_loss >= 0 && cfg->dup_loss <= 1))
        return AVERROR(EINVAL);
    if (!(h = av_mallocz(sizeof(*h))))
        return AVERROR(ENOMEM);
    h->cfg         = *cfg;
    h->rtx_seq     = cfg->rtx_seq;
    h->just_resent = -1;
    h->media_limit = FFMIN((int64_t)cfg->history_ms * cfg->clock_rate / 1000, INT32_MAX);
    h->e           = av_calloc(FF_RTP_HIST_MAX_PACKETS, sizeof(*h->e));
    h->rtx_buf     = av_malloc(cfg->max_packet + 2);
    if (!h->e || !h->rtx_buf) {
        ff_rtp_hist_free(&h);
        return AVERROR(ENOMEM);
    }
    *ph = h;
    return 0;
}

static void pop(FFRTPHist *h)
{
    HistEntry *e = &h->e[h->start];

    h->bytes -= e->size;
    av_buffer_unref(&e->buf);
    h->start = (h->start + 1) % FF_RTP_HIST_MAX_PACKETS;
    h->count--;
}

void ff_rtp_hist_free(FFRTPHist **ph)
{
    FFRTPHist *h = *ph;

    if (!h)
        return;
    if (h->e)
        while (h->count)
            pop(h);
    av_freep(&h->e);
    av_freep(&h->rtx_buf);
    av_freep(ph);
}

static HistEntry *newest(FFRTPHist *h)
{
    return &h->e[(h->start + h->count - 1) % FF_RTP_HIST_MAX_PACKETS];
}

void ff_rtp_hist_add(FFRTPHist *h, AVBufferRef **bufs, const int *sizes, int nb, int64_t now)
{
    if (!h->cfg.history_ms)
        return;
    loss_decay(h, now);
    h->loss_sent += nb;
    h->added     += nb;
    for (int i = 0; i < nb; i++) {
        HistEntry *e;
        uint16_t seq;
        uint32_t ts;

        if (sizes[i] < 12 || sizes[i] > h->cfg.max_packet)
            continue;
        seq = AV_RB16(bufs[i]->data + 2);
        ts  = AV_RB32(bufs[i]->data + 4);
        /* the sequence numbers of the history must stay contiguous */
        if (h->count && newest(h)->seq != (uint16_t)(seq - 1))
            while (h->count)
                pop(h);
        /* older than history_ms by the clock, or by the media: a sender
         * faster than real time keeps history_ms of media, not the whole
         * file (B-frames make timestamps go back a little: signed) */
        while (h->count &&
               (h->count == FF_RTP_HIST_MAX_PACKETS || h->bytes + sizes[i] > FF_RTP_HIST_MAX_BYTES ||
                now - h->e[h->start].time > h->cfg.history_ms * 1000LL ||
                (int32_t)(ts - h->e[h->start].ts) > h->media_limit))
            pop(h);
        e = &h->e[(h->start + h->count++) % FF_RTP_HIST_MAX_PACKETS];
        e->buf    = bufs[i];        /* steal the reference: no copy */
        e->size   = sizes[i];
        e->seq    = seq;
        e->ts     = ts;
        e->time   = now;
        e->resent = 0;
        e->nacked = 0;
        bufs[i] = NULL;
        h->bytes += sizes[i];
    }
}

/** Entry e as it goes out again: plain, or RFC 4588 RTX in the scratch buffer. */
static void build(FFRTPHist *h, const HistEntry *e, const uint8_t **pkt, int *len)
{
    const uint8_t *o = e->buf->data;
    uint8_t *p = h->rtx_buf;
    int hdr;

    if (h->cfg.rtx_pt < 0) {
        *pkt = o;
        *len = e->size;
        return;
    }
    /* own PT, SSRC and sequence, the original timestamp, and the original
     * sequence number before the payload; the header extension (the
     * transport-wide sequence number) stays in the header, numbered anew
     * by the sender, and the OSN follows it */
    hdr = FFMAX(ff_rtp_header_size(o, e->size), 12);
    memcpy(p, o, hdr);
    p[1] = (o[1] & 0x80) | h->cfg.rtx_pt;
    AV_WB16(p + 2, h->rtx_seq++);
    AV_WB32(p + 8, h->cfg.rtx_ssrc);
    AV_WB16(p + hdr, e->seq);
    memcpy(p + hdr + 2, o + hdr, e->size - hdr);
    *pkt = p;
    *len = e->size + 2;
}

enum FFRTPHistAnswer ff_rtp_hist_nack(FFRTPHist *h, uint16_t seq, int64_t now, double media_rate,
                                      int64_t min_rtt, const uint8_t **pkt, int *len)
{
    HistEntry *e;
    double rate, cap, mean;
    int idx, size;

    if (!h->count || (idx = (uint16_t)(seq - h->e[h->start].seq)) >= h->count) {
        /* after the newest packet: not sent yet (GStreamer's receiver asks
         * for the packet it expects next when it is late) */
        if (h->count && (int16_t)(seq - newest(h)->seq) > 0)
            return FF_RTP_HIST_AHEAD;
        return FF_RTP_HIST_GONE;
    }
    e = &h->e[(h->start + idx) % FF_RTP_HIST_MAX_PACKETS];
    if (e->seq != seq || !e->buf)
        return FF_RTP_HIST_GONE;
    if (!e->nacked) {
        e->nacked = 1;
        loss_decay(h, now);
        h->loss_nacked++;
    }
    /* resent less than the shortest round trip ago: that copy is still on
     * its way, and a request for it again is early (GStreamer's receiver
     * asks again sooner than a round trip at 100 ms; at 10 % loss those
     * copies took a fifth of the budget and real repeats went unanswered);
     * a receiver asks again for a copy that was lost a round trip later */
    if (e->resent && now - e->resent < min_rtt)
        return FF_RTP_HIST_EARLY;
    /* the budget: max_share of the media rate; at most a quarter second's
     * worth banked, but always room for FF_RTP_HIST_MIN_BURST packets (a
     * low-rate stream must still be able to repair a burst, and receivers
     * such as GStreamer's ask again for packets already on their way: with
     * 4, a 470 kbit/s stream at 5 % loss sometimes went over budget); full
     * at first */
    rate = media_rate * h->cfg.max_share;
    cap  = FFMAX(rate / 4, FF_RTP_HIST_MIN_BURST * (h->cfg.max_packet + 2));
    /* and in datagrams: as many as the bytes make in packets of the
     * history's mean size (a flood of NACKs for the small packets alone
     * took four times the media's packet rate within the bytes) */
    mean  = h->count ? FFMAX((double)h->bytes / h->count, 12) : h->cfg.max_packet;
    h->tokens  = h->tokens_time ? FFMIN(cap, h->tokens + rate * (now - h->tokens_time) / 1e6)
                                : cap;
    h->ptokens = h->tokens_time ? FFMIN(cap / mean, h->ptokens + rate / mean * (now - h->tokens_time) / 1e6)
                                : cap / mean;
    h->tokens_time = now;
    h->cap  = cap;
    h->pcap = cap / mean;
    size = e->size + (h->cfg.rtx_pt >= 0 ? 2 : 0);
    if (h->tokens < size || h->ptokens < 1)
        return FF_RTP_HIST_OVER_BUDGET;
    h->tokens  -= size;
    h->ptokens -= 1;
    build(h, e, pkt, len);
    return FF_RTP_HIST_RESEND;
}

void ff_rtp_hist_resent(FFRTPHist *h, uint16_t seq, int64_t now)
{
    int idx;

    if (h->count && (idx = (uint16_t)(seq - h->e[h->start].seq)) < h->count) {
        h->e[(h->start + idx) % FF_RTP_HIST_MAX_PACKETS].resent = now;
        h->just_resent = seq;
    }
}

double ff_rtp_hist_loss(const FFRTPHist *h)
{
    if (h->added < LOSS_MIN_SENT || h->loss_sent <= 0)
        return 0;
    return FFMIN(h->loss_nacked / h->loss_sent, 1);
}

int ff_rtp_hist_copy(FFRTPHist *h, uint16_t seq, int64_t now, const uint8_t **pkt, int *len)
{
    HistEntry *e;
    int idx, size;

    if (h->cfg.dup_loss <= 0 || h->just_resent != seq || !h->count ||
        (idx = (uint16_t)(seq - h->e[h->start].seq)) >= h->count)
        return 0;
    e = &h->e[(h->start + idx) % FF_RTP_HIST_MAX_PACKETS];
    h->just_resent = -1;        /* one copy per resend */
    if (e->seq != seq || !e->buf || e->resent != now || now != h->tokens_time ||
        ff_rtp_hist_loss(h) < h->cfg.dup_loss)
        return 0;
    /* the budget went to the first copy already; the second one only from
     * its upper half, so that a burst of NACKs still gets every packet once */
    size = e->size + (h->cfg.rtx_pt >= 0 ? 2 : 0);
    if (h->tokens - size < h->cap / 2 || h->ptokens - 1 < h->pcap / 2)
        return 0;
    h->tokens  -= size;
    h->ptokens -= 1;
    build(h, e, pkt, len);
    return 1;
}

int ff_rtp_hist_newest(FFRTPHist *h, const uint8_t **pkt, int *len)
{
    if (!h->count || !newest(h)->buf)
        return 0;
    build(h, newest(h), pkt, len);
    return 1;
}

int ff_rtp_hist_probe(FFRTPHist *h, int n, const uint8_t **pkt, int *len)
{
    int span = FFMIN(h->count, 16), a, b;
    const HistEntry *e;

    if (!span)
        return 0;
    a = h->count - 1 - n % span;
    b = FFMIN(a + 1, h->count - 1);
    e = &h->e[(h->start + a) % FF_RTP_HIST_MAX_PACKETS];
    if (!e->buf || (h->e[(h->start + b) % FF_RTP_HIST_MAX_PACKETS].buf &&
                    h->e[(h->start + b) % FF_RTP_HIST_MAX_PACKETS].size > e->size))
        e = &h->e[(h->start + b) % FF_RTP_HIST_MAX_PACKETS];
    if (!e->buf)
        return 0;
    build(h, e, pkt, len);
    return 1;
}

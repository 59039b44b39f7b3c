/*
 * Transport-wide congestion control feedback: the send log, and feedback
 * turned into packets for the congestion controller
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

#include <string.h>

#include "libavutil/error.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/mathematics.h"
#include "libavutil/mem.h"
#include "libavutil/thread.h"

#include "rtphdrext.h"
#include "rtptwcc.h"

#define CCFB_EPOCH (1LL << 40)      ///< µs added to RFC 8888 arrival times: never negative

typedef struct Sent {
    int64_t time;
    int size;
    int seq;                        ///< -1: none
} Sent;

struct FFRTPTwccLog {
    AVMutex lock;
    uint32_t ssrc;
    uint16_t next;                  ///< the next transport-wide number
    Sent by_twcc[FF_RTP_TWCC_LOG];
    Sent by_seq[FF_RTP_TWCC_LOG];   ///< packets of ssrc, by RTP sequence number
};

int ff_rtp_twcc_log_alloc(FFRTPTwccLog **plog, uint32_t media_ssrc)
{
    FFRTPTwccLog *log = av_mallocz(sizeof(*log));
    int ret;

    *plog = NULL;
    if (!log)
        return AVERROR(ENOMEM);
    if ((ret = ff_mutex_init(&log->lock, NULL))) {
        av_free(log);
        return AVERROR(ret);
    }
    log->ssrc = media_ssrc;
    for (int i = 0; i < FF_RTP_TWCC_LOG; i++)
        log->by_twcc[i].seq = log->by_seq[i].seq = -1;
    *plog = log;
    return 0;
}

void ff_rtp_twcc_log_free(FFRTPTwccLog **plog)
{
    if (!*plog)
        return;
    ff_mutex_destroy(&(*plog)->lock);
    av_freep(plog);
}

void ff_rtp_twcc_sent(FFRTPTwccLog *log, uint8_t *const *pkts, const int *sizes, int nb,
                      int64_t now)
{
    ff_mutex_lock(&log->lock);
    for (int i = 0; i < nb; i++) {
        uint8_t *data = pkts[i];
        int size = sizes[i], off, len;
        Sent *e;

        if (size >= 12 && AV_RB32(data + 8) == log->ssrc) {
            e = &log->by_seq[AV_RB16(data + 2) % FF_RTP_TWCC_LOG];
            e->time = now;
            e->size = size;
            e->seq  = AV_RB16(data + 2);
        }
        if ((off = ff_rtp_hdrext_find(data, size, FF_RTP_HDREXT_TWCC_ID, &len)) < 0 || len != 2)
            continue;
        AV_WB16(data + off, log->next);
        e = &log->by_twcc[log->next % FF_RTP_TWCC_LOG];
        e->time = now;
        e->size = size;
        e->seq  = log->next++;
    }
    ff_mutex_unlock(&log->lock);
}

int ff_rtp_twcc_lookup(FFRTPTwccLog *log, uint16_t seq, int by_rtp_seq,
                       int64_t *send_time, int *size)
{
    const Sent *e = by_rtp_seq ? &log->by_seq[seq % FF_RTP_TWCC_LOG] :
                                 &log->by_twcc[seq % FF_RTP_TWCC_LOG];
    int ret = AVERROR(ENOENT);

    ff_mutex_lock(&log->lock);
    if (e->seq == seq) {
        *send_time = e->time;
        *size      = e->size;
        ret = 0;
    }
    ff_mutex_unlock(&log->lock);
    return ret;
}

int ff_rtp_twcc_read_start(FFRTPTwccReader *r, const LCVRTCPPacket *p)
{
    if (p->type != LCV_RTCP_RTPFB || (p->fmt != LCV_RTPFB_TWCC && p->fmt != LCV_RTPFB_CCFB))
        return AVERROR(EINVAL);
    r->p = p;
    lcv_rtcp_iter_init(&r->it, p);
    if (p->fmt == LCV_RTPFB_TWCC) {
        /* 24 bits of 64 ms: the difference to the last report, taken as a
         * signed 24-bit number, moves the unwrapped time, which starts at
         * 2^24 + the raw value so that it stays positive (-1 means lost) */
        LCVRTCPTwcc tw;
        int64_t raw, d;

        lcv_rtcp_twcc(p, &tw);
        raw = tw.reference_time & 0xffffff;
        if (!r->twcc_seen) {
            r->twcc_ref  = (1 << 24) + raw;
            r->twcc_seen = 1;
        } else {
            d = (raw - r->twcc_ref) & 0xffffff;
            r->twcc_ref += d >= (1 << 23) ? d - (1 << 24) : d;
        }
        r->twcc_offset = (r->twcc_ref - tw.reference_time) * 64000;
    }
    if (p->fmt == LCV_RTPFB_CCFB) {
        /* arrival times are offsets before the report's timestamp (the
         * receiver's NTP clock, 16.16), unwrapped against the last report
         * (compact NTP wraps every 18 h) */
        r->ts = r->ccfb_ts + (int32_t)(p->ccfb.report_timestamp - (uint32_t)r->ccfb_ts);
        if (!r->ccfb_seen)
            r->ts = p->ccfb.report_timestamp;
        r->ccfb_ts = r->ts;
    }
    return 0;
}

static int read_twcc(FFRTPTwccLog *log, FFRTPTwccReader *r, FFRTPCCPacket *out, int max)
{
    LCVRTCPTwccItem item;
    int nb = 0;

    while (nb < max && lcv_rtcp_twcc_next(&r->it, &item) > 0) {
        FFRTPCCPacket *c = &out[nb];
        if (ff_rtp_twcc_lookup(log, item.seq, 0, &c->send_time, &c->size) < 0)
            continue;           /* not ours, or too old */
        c->arrival = item.status ? item.arrival_us + r->twcc_offset : -1;
        nb++;
    }
    return nb;
}

static int read_ccfb(FFRTPTwccLog *log, FFRTPTwccReader *r, uint32_t ssrc,
                     FFRTPCCPacket *out, int max)
{
    LCVRTCPCcfbItem item;
    int nb = 0;

    while (nb < max && lcv_rtcp_ccfb_next(&r->it, &item) > 0) {
        FFRTPCCPacket *c = &out[nb];
        if (item.ssrc != ssrc)
            continue;
        if (r->ccfb_seen && (int16_t)(item.seq - r->ccfb_last_seq) <= 0)
            continue;           /* reported before */
        if (ff_rtp_twcc_lookup(log, item.seq, 1, &c->send_time, &c->size) < 0)
            continue;
        r->ccfb_seen     = 1;
        r->ccfb_last_seq = item.seq;
        if (!item.received) {
            c->arrival = -1;
        } else if (item.ato == 0x1fff) {
            continue;           /* arrived, time unknown (over range) */
        } else {
            c->arrival = av_rescale(r->ts, 1000000, 65536) - av_rescale(item.ato, 1000000, 1024);
            /* the estimator takes arrival times >= 0 as received */
            c->arrival = FFMAX(c->arrival + CCFB_EPOCH, 0);
        }
        nb++;
    }
    return nb;
}

int ff_rtp_twcc_read(FFRTPTwccLog *log, FFRTPTwccReader *r, uint32_t media_ssrc,
                     FFRTPCCPacket *out, int max)
{
    if (!r->p)
        return 0;
    return r->p->fmt == LCV_RTPFB_CCFB ? read_ccfb(log, r, media_ssrc, out, max) :
                                         read_twcc(log, r, out, max);
}

/* ---- the receiving side ---- */

#define TWCC_RX         8192        ///< arrival times kept (a power of 2)
#define TWCC_MAX_REPORT 400         ///< packets per report (about 1 KB at most)

struct FFRTPTwccRecv {
    int id;
    int64_t *arrival;               ///< by unwrapped number % TWCC_RX; 0: not received
    int64_t highest;                ///< unwrapped highest number seen
    int64_t next;                   ///< first number not reported yet
    int started;
    int64_t epoch;                  ///< the first arrival: reference times count from it
    int64_t due;
    uint8_t fb_count;
    LCVRTCPTwccItem items[TWCC_MAX_REPORT];
};

int ff_rtp_twcc_recv_alloc(FFRTPTwccRecv **pr, int id)
{
    FFRTPTwccRecv *r;

    *pr = NULL;
    if (id < 1 || id > 14)
        return AVERROR(EINVAL);
    if (!(r = av_mallocz(sizeof(*r))) || !(r->arrival = av_calloc(TWCC_RX, sizeof(*r->arrival)))) {
        av_free(r);
        return AVERROR(ENOMEM);
    }
    r->id = id;
    *pr = r;
    return 0;
}

void ff_rtp_twcc_recv_free(FFRTPTwccRecv **pr)
{
    if (!*pr)
        return;
    av_freep(&(*pr)->arrival);
    av_freep(pr);
}

void ff_rtp_twcc_recv_packet(FFRTPTwccRecv *r, const uint8_t *pkt, int size, int64_t now)
{
    int off, l;
    int64_t v;
    uint16_t seq;

    if ((off = ff_rtp_hdrext_find(pkt, size, r->id, &l)) < 0 || l != 2)
        return;
    seq = AV_RB16(pkt + off);
    if (!r->started) {
        r->started = 1;
        r->highest = r->next = seq;
        r->epoch   = now;
        r->due     = now + FF_RTP_TWCC_INTERVAL;
    }
    v = r->highest + (int16_t)(seq - (uint16_t)r->highest);
    if (v < r->next - TWCC_RX / 2 || v >= r->next + TWCC_RX) {
        /* far off: a restarted sender; what was not reported is lost */
        memset(r->arrival, 0, TWCC_RX * sizeof(*r->arrival));
        r->highest = r->next = v;
    }
    if (v < r->next)
        return;             /* reported already (as lost) */
    if (v > r->highest) {
        /* clear the slots the jump passes over: packets not (yet) received */
        for (int64_t q = FFMAX(r->highest + 1, v - TWCC_RX + 1); q < v; q++)
            r->arrival[q & (TWCC_RX - 1)] = 0;
        r->highest = v;
    }
    r->arrival[v & (TWCC_RX - 1)] = now - r->epoch + 1;
}

int64_t ff_rtp_twcc_recv_due(const FFRTPTwccRecv *r)
{
    return r->started ? r->due : INT64_MAX;
}

/**
 * One report of the packets not reported yet (at most TWCC_MAX_REPORT):
 * the lost ones between received ones are reported lost.
 */
static int write_report(FFRTPTwccRecv *r, LCVRTCPWriter *w, uint32_t me, uint32_t media_ssrc)
{
    LCVRTCPTwcc tw = { 0 };
    int64_t ref = -1, prev;
    int n = 0;

    /* the reference: the first received packet's arrival, in 64 ms units */
    for (int64_t q = r->next; q <= r->highest && q < r->next + TWCC_MAX_REPORT; q++)
        if (r->arrival[q & (TWCC_RX - 1)]) {
            ref = (r->arrival[q & (TWCC_RX - 1)] - 1) / 64000;
            break;
        }
    if (ref < 0 || ref >= 1 << 23)
        return -1;
    prev = ref * 64000;
    for (int64_t q = r->next; q <= r->highest && n < TWCC_MAX_REPORT; q++) {
        LCVRTCPTwccItem *it = &r->items[n];
        int64_t a = r->arrival[q & (TWCC_RX - 1)];

        memset(it, 0, sizeof(*it));
        if (a) {
            int64_t d = (a - 1 - prev) / 250;
            if (d < INT16_MIN || d > INT16_MAX)
                break;          /* the next report starts here */
            it->status = d >= 0 && d <= 255 ? 1 : 2;
            it->delta  = d;
            prev += d * 250;    /* quantized: no drift */
        }
        n++;
    }
    /* end on a received packet: the rest may still arrive */
    while (n && !r->items[n - 1].status)
        n--;
    if (!n)
        return -1;
    tw.base_seq       = (uint16_t)r->next;
    tw.status_count   = n;
    tw.reference_time = ref;
    tw.fb_count       = r->fb_count;
    if (lcv_rtcp_write_twcc(w, me, media_ssrc, &tw, r->items) < 0)
        return -1;
    r->fb_count++;
    r->next += n;
    return 0;
}

int ff_rtp_twcc_recv_write(FFRTPTwccRecv *r, LCVRTCPWriter *w, uint32_t me,
                           uint32_t media_ssrc, int64_t now)
{
    int sent = 0;

    /* a report when there is something to report; the rest, if it did not
     * fit, at the next call */
    if (r->next <= r->highest && !write_report(r, w, me, media_ssrc))
        sent = 1;
    r->due = r->next <= r->highest && sent ? now : now + FF_RTP_TWCC_INTERVAL;
    return sent;
}

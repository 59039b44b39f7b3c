/*
 * RTCP feedback for the RTP muxer: receiver reports, NACK, PLI/FIR, SRs
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
 * The sender's thread (rtpsend.c) reads the RTCP socket with poll() and
 * hands each datagram here, so a NACK is answered as soon as it arrives,
 * between frames too, and ahead of the media the pacer holds. It parses with
 * lcv_rtcp (a pooled context: no allocation), keeps per-receiver statistics
 * from report blocks, REMB and transport-cc, answers NACKs from the history,
 * raises keyframe requests on PLI and new FIRs, and sends the SRs on the
 * RFC 3550 schedule (or a fixed interval), packets or not. Everything it
 * sends leaves through the sender (one error policy, one set of counters);
 * the SR is built there.
 *
 * The history holds the references the send path hands over as packets
 * leave (after the pacer, if it paces), in send order, so sequence number n sits at
 * (n - first) from the oldest entry. Entries leave it when older than
 * history_ms or when it is full; their buffers go back to the send path's
 * pool. A retransmission is sent from the history's buffer under the lock
 * (plain), or rebuilt into one scratch buffer as RFC 4588 RTX: no
 * allocation per NACK. A token bucket refilled at max_share of the media
 * bitrate over the history window limits what is resent.
 */

#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "libavutil/avassert.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/lfg.h"
#include "libavutil/mathematics.h"
#include "libavutil/mem.h"
#include "libavutil/random_seed.h"
#include "libavutil/thread.h"
#include "libavutil/time.h"

#include "avio.h"
#include "internal.h"
#include "rtpcc.h"
#include "rtpfb.h"

#define HIST_MAX_PACKETS 32768
#define HIST_MAX_BYTES   (64 << 20)
#define NACK_MIN_BURST   8          ///< packets the resend budget always has room for
#define CC_BATCH         1024       ///< transport feedback packets handed on at once
#define CCFB_EPOCH       (1LL << 40) ///< µs added to RFC 8888 arrival times: never negative

typedef struct HistEntry {
    AVBufferRef *buf;
    int size;
    uint16_t seq;
    uint32_t ts;                ///< RTP timestamp
    int64_t time;
    int64_t resent;             ///< when it was last resent, 0: never
} HistEntry;

typedef struct RateSample {
    int64_t time;
    int bytes;
} RateSample;

typedef struct Receiver {
    int fir_seen;
    uint8_t fir_seq;
    uint64_t rtt_samples;       ///< round trips measured (JSON and log only: not in the public struct)
} Receiver;

struct FFRTPFeedback {
    void *logctx;
    FFRTPSender *sender;
    FFRTPFeedbackConfig cfg;
    char *cname;
    AVIOContext *stats_file;
    int attached;               ///< a client of the sender's thread
    pthread_mutex_t lock;
    int lock_init;

    /* everything below: under lock */
    HistEntry *hist;
    int hist_start, hist_count;
    int64_t hist_bytes;
    int32_t hist_media_limit;       ///< history_ms in RTP timestamp units
    double tokens;
    int64_t tokens_time;
    /* media bytes sent in the last second: per send, in a ring */
    RateSample win[512];
    int win_start, win_count;
    int64_t win_bytes;
    uint16_t rtx_seq;

    uint32_t sr_mid[8];             ///< middle 32 bits of the last SRs' NTP times
    int sr_idx;
    int64_t next_sr, next_stats;
    double avg_rtcp_size;

    LCVRTPSenderStats st;
    Receiver rx[LCV_RTP_MAX_RECEIVERS];
    int64_t last_kf_request;
    atomic_int kf_pending;
    atomic_int kf_awaited;          ///< a keyframe was asked for, and none has gone out since

    LCVRTCPPool *pool;
    AVLFG lfg;
    uint8_t *rtx_buf;
    int64_t malformed_log_time;
    int64_t first_sent;             ///< when the first packet was sent
    int64_t last_nack;              ///< when the last NACK for a packet sent arrived
    int nack_ahead;                 ///< numbers NACKed before they were sent
    int nack_early;                 ///< NACKed again within min_rtt of a resend
    int kf_unrepairable;            ///< NACKs not in the history that asked for a keyframe
    int64_t min_rtt;                ///< us, the smallest RTT of any receiver, 0: none yet
    int tail_probes;                ///< see ff_rtpfb_tail_probe()

    FFRTPCC *cc;                    ///< NULL without congestion control
    FFRTPCCPacket *cc_pkts;
    int twcc_seen;                  ///< a receiver sends transport feedback
    atomic_int_least64_t target;    ///< bit/s, for the encoder's thread: the
                                    ///< controller's less the retransmissions
    int ccfb_seen;                  ///< an RFC 8888 report was consumed
    uint16_t ccfb_last_seq;         ///< the last sequence number it fed on
    int64_t ccfb_ts;                ///< the last report timestamp, unwrapped
    double rtx_ewma;                ///< bytes retransmitted, about the last second's
    int64_t rtx_ewma_time;
};

#if CONFIG_NETWORK
/* ---- history (called from the muxer thread through the send path) ---- */

static void hist_pop(FFRTPFeedback *fb)
{
    HistEntry *e = &fb->hist[fb->hist_start];

    fb->hist_bytes -= e->size;
    av_buffer_unref(&e->buf);
    fb->hist_start = (fb->hist_start + 1) % HIST_MAX_PACKETS;
    fb->hist_count--;
}

/** Drop the sends older than a second from the rate window. */
static void window_trim(FFRTPFeedback *fb, int64_t now)
{
    while (fb->win_count && now - fb->win[fb->win_start].time > 1000000) {
        fb->win_bytes -= fb->win[fb->win_start].bytes;
        fb->win_start = (fb->win_start + 1) % FF_ARRAY_ELEMS(fb->win);
        fb->win_count--;
    }
}

static void on_sent(void *opaque, AVBufferRef **bufs, const int *sizes, int nb)
{
    FFRTPFeedback *fb = opaque;
    int64_t now = av_gettime_relative();
    int bytes = 0;

    pthread_mutex_lock(&fb->lock);
    if (!fb->first_sent)
        fb->first_sent = now;
    for (int i = 0; i < nb; i++)
        bytes += sizes[i];
    window_trim(fb, now);
    if (fb->win_count == FF_ARRAY_ELEMS(fb->win)) {
        /* more than 512 sends in a second: fold into the newest */
        fb->win[(fb->win_start + fb->win_count - 1) % FF_ARRAY_ELEMS(fb->win)].bytes += bytes;
    } else {
        RateSample *w = &fb->win[(fb->win_start + fb->win_count++) % FF_ARRAY_ELEMS(fb->win)];
        w->time  = now;
        w->bytes = bytes;
    }
    fb->win_bytes += bytes;
    for (int i = 0; i < nb; i++) {
        HistEntry *e;
        uint16_t seq = AV_RB16(bufs[i]->data + 2);
        uint32_t ts  = AV_RB32(bufs[i]->data + 4);

        fb->st.packets++;
        fb->st.octets += sizes[i] - 12;
        if (!fb->cfg.nack || !fb->cfg.history_ms)
            continue;
        /* the sequence numbers of the history must stay contiguous */
        if (fb->hist_count &&
            fb->hist[(fb->hist_start + fb->hist_count - 1) % HIST_MAX_PACKETS].seq != (uint16_t)(seq - 1))
            while (fb->hist_count)
                hist_pop(fb);
        /* older than history_ms by the clock, or by the media: a sender
         * faster than real time keeps history_ms of media, not the whole
         * file (B-frames make timestamps go back a little: signed) */
        while (fb->hist_count &&
               (fb->hist_count == HIST_MAX_PACKETS || fb->hist_bytes + sizes[i] > HIST_MAX_BYTES ||
                now - fb->hist[fb->hist_start].time > fb->cfg.history_ms * 1000LL ||
                (int32_t)(ts - fb->hist[fb->hist_start].ts) > fb->hist_media_limit))
            hist_pop(fb);
        e = &fb->hist[(fb->hist_start + fb->hist_count++) % HIST_MAX_PACKETS];
        e->buf  = bufs[i];          /* steal the reference: no copy */
        e->size = sizes[i];
        e->seq  = seq;
        e->ts   = ts;
        e->time = now;
        e->resent = 0;
        bufs[i] = NULL;
        fb->hist_bytes += sizes[i];
    }
    pthread_mutex_unlock(&fb->lock);
}

/* ---- the feedback thread ---- */

static LCVRTPReceiverStats *receiver(FFRTPFeedback *fb, uint32_t ssrc, Receiver **priv)
{
    for (int i = 0; i < fb->st.nb_receivers; i++)
        if (fb->st.receivers[i].ssrc == ssrc) {
            *priv = &fb->rx[i];
            return &fb->st.receivers[i];
        }
    if (fb->st.nb_receivers == LCV_RTP_MAX_RECEIVERS)
        return NULL;
    memset(&fb->st.receivers[fb->st.nb_receivers], 0, sizeof(fb->st.receivers[0]));
    fb->st.receivers[fb->st.nb_receivers].ssrc   = ssrc;
    fb->st.receivers[fb->st.nb_receivers].rtt_ms     = -1;
    fb->st.receivers[fb->st.nb_receivers].rtt_min_ms = -1;
    memset(&fb->rx[fb->st.nb_receivers], 0, sizeof(fb->rx[0]));
    *priv = &fb->rx[fb->st.nb_receivers];
    return &fb->st.receivers[fb->st.nb_receivers++];
}

static void request_keyframe(FFRTPFeedback *fb, int64_t now)
{
    if (fb->last_kf_request && now - fb->last_kf_request < fb->cfg.kf_min_interval)
        return;
    fb->last_kf_request = now;
    fb->st.keyframe_requests++;
    atomic_store(&fb->kf_pending, 1);
    atomic_store(&fb->kf_awaited, 1);
}

/** Bytes per second of media: what was sent in the last second; in the
 *  first second, what was sent so far over the time so far (at least
 *  200 ms): a first keyframe at 10 % loss went over a budget computed as if
 *  the stream had sent nothing before it, and its frames were lost. */
static double media_rate(FFRTPFeedback *fb)
{
    int64_t now = av_gettime_relative();

    window_trim(fb, now);
    if (fb->first_sent && now - fb->first_sent < 1000000)
        return fb->win_bytes * 1e6 / FFMAX(now - fb->first_sent, 200000);
    return fb->win_bytes;
}

/* A NACK for a packet sent that is no longer in the history: its frame
 * cannot be repaired, and the receiver would ask for a keyframe only once
 * it gives the packet up (FFmpeg's after its reorder wait, hundreds of ms);
 * the keyframe is asked for now (keyframe_min_interval applies). */
static void unrepairable(FFRTPFeedback *fb, int64_t now)
{
    fb->kf_unrepairable++;
    request_keyframe(fb, now);
}

/** Send history entry e again (plain, or RFC 4588 RTX); len: its size on
 *  the wire. Under lock. */
static int resend(FFRTPFeedback *fb, const HistEntry *e, int len)
{
    uint16_t seq = e->seq;

    if (fb->cfg.rtx_pt >= 0) {
        /* RFC 4588: own PT, SSRC and sequence, the original timestamp, and
         * the original sequence number before the payload */
        const uint8_t *o = e->buf->data;
        uint8_t *p = fb->rtx_buf;
        int hdr = 12;
        /* the header extension (transport-wide sequence number) stays in
         * the header, numbered anew by the sender; the OSN follows it */
        if ((o[0] & 0x10) && e->size >= 16)
            hdr = FFMIN(16 + 4 * AV_RB16(o + 14), e->size);
        memcpy(p, o, hdr);
        p[1] = (o[1] & 0x80) | fb->cfg.rtx_pt;
        AV_WB16(p + 2, fb->rtx_seq++);
        AV_WB32(p + 8, fb->cfg.rtx_ssrc);
        AV_WB16(p + hdr, seq);
        memcpy(p + hdr + 2, o + hdr, e->size - hdr);
        return ff_rtp_sender_send_now(fb->sender, p, len);
    }
    return ff_rtp_sender_send_now(fb->sender, e->buf->data, e->size);
}

/** Answer a NACK for seq. Returns 1 if seq is in the history (resent or
 *  over budget), 0 if not. Under lock. */
static int retransmit(FFRTPFeedback *fb, uint16_t seq, int64_t now)
{
    HistEntry *e;
    int idx, len, ret;
    double rate, cap;

    fb->st.nacked++;
    if (!fb->hist_count ||
        (idx = (uint16_t)(seq - fb->hist[fb->hist_start].seq)) >= fb->hist_count) {
        fb->st.nack_missed++;
        /* after the newest packet: not sent yet (GStreamer's receiver asks
         * for the packet it expects next when it is late) */
        if (fb->hist_count &&
            (int16_t)(seq - fb->hist[(fb->hist_start + fb->hist_count - 1) % HIST_MAX_PACKETS].seq) > 0)
            fb->nack_ahead++;
        else
            unrepairable(fb, now);
        return 0;
    }
    e = &fb->hist[(fb->hist_start + idx) % HIST_MAX_PACKETS];
    if (e->seq != seq || !e->buf) {
        fb->st.nack_missed++;
        unrepairable(fb, now);
        return 0;
    }
    /* resent less than the shortest round trip ago: that copy is still on
     * its way, and a request for it again is early (GStreamer's receiver
     * asks again sooner than a round trip at 100 ms; at 10 % loss those
     * copies took a fifth of the budget and real repeats went unanswered);
     * a receiver asks again for a copy that was lost a round trip later */
    if (e->resent && now - e->resent < fb->min_rtt) {
        fb->nack_early++;
        return 1;
    }
    /* the budget: max_share of the media rate; at most a quarter second's
     * worth banked, but always room for NACK_MIN_BURST packets (a low-rate
     * stream must still be able to repair a burst, and receivers such as
     * GStreamer's ask again for packets already on their way: with 4, a
     * 470 kbit/s stream at 5 % loss sometimes went over budget); full at
     * first */
    rate = media_rate(fb) * fb->cfg.max_share;
    cap  = FFMAX(rate / 4, NACK_MIN_BURST * (fb->cfg.packet_size + 2));
    fb->tokens = fb->tokens_time ? FFMIN(cap, fb->tokens + rate * (now - fb->tokens_time) / 1e6)
                                 : cap;
    fb->tokens_time = now;
    len = e->size + (fb->cfg.rtx_pt >= 0 ? 2 : 0);
    if (fb->tokens < len) {
        fb->st.nack_rate_limited++;
        return 1;
    }
    fb->tokens -= len;
    ret = resend(fb, e, len);
    if (ret >= 0) {
        e->resent = now;
        fb->st.retransmitted++;
        fb->st.retransmitted_octets += len;
        if (fb->cc) {
            /* bytes resent, decaying with a 1 s time constant: about the
             * last second's worth */
            fb->rtx_ewma = fb->rtx_ewma * exp(-(now - fb->rtx_ewma_time) / 1e6) + len;
            fb->rtx_ewma_time = now;
        }
    }
    return 1;
}

static void log_malformed(FFRTPFeedback *fb, const LCVRTCPContext *ctx, int64_t now)
{
    fb->st.rtcp_malformed++;
    if (now - fb->malformed_log_time < 1000000)
        return;
    fb->malformed_log_time = now;
    av_log(fb->logctx, AV_LOG_DEBUG, "malformed RTCP dropped (%s at byte %d), %"PRIu64" so far\n",
           ctx->error ? ctx->error : "?", ctx->error_offset, fb->st.rtcp_malformed);
}

/** Bytes per second retransmitted lately. Under lock. */
static double rtx_rate(const FFRTPFeedback *fb, int64_t now)
{
    return fb->rtx_ewma_time ? fb->rtx_ewma * exp(-(now - fb->rtx_ewma_time) / 1e6) : 0;
}

/** Feed the controller, and pass its target on. Under lock. */
static void cc_update(FFRTPFeedback *fb, int nb, double rr_loss, int64_t now)
{
    int64_t target;

    if (nb > 0)
        ff_rtpcc_feedback(fb->cc, fb->cc_pkts, nb, now);
    else if (nb == 0)
        ff_rtpcc_loss_report(fb->cc, rr_loss, now);
    target = ff_rtpcc_target(fb->cc);
    /* the pacer carries the whole target; the encoder gets what the
     * retransmissions leave of it (they fill the same link) */
    ff_rtp_sender_set_link_rate(fb->sender, target);
    target = FFMAX(target - llrint(8 * rtx_rate(fb, now)), fb->cfg.min_bitrate);
    atomic_store(&fb->target, target);
}

/** A transport-cc report: each packet's send time from the sender's log. */
static void cc_twcc(FFRTPFeedback *fb, const LCVRTCPPacket *p, int64_t now)
{
    LCVRTCPTwccItem item;
    LCVRTCPIter it;
    int nb = 0;

    fb->twcc_seen = 1;
    lcv_rtcp_iter_init(&it, p);
    while (lcv_rtcp_twcc_next(&it, &item) > 0) {
        FFRTPCCPacket *c = &fb->cc_pkts[nb];
        if (ff_rtp_sender_twcc_lookup(fb->sender, item.seq, &c->send_time, &c->size) < 0)
            continue;           /* not ours, or too old */
        c->arrival = item.status ? item.arrival_us : -1;
        if (++nb == CC_BATCH) {
            cc_update(fb, nb, 0, now);
            nb = 0;
        }
    }
    if (nb)
        cc_update(fb, nb, 0, now);
}

/**
 * An RFC 8888 report: arrival times are offsets before the report's
 * timestamp (the receiver's NTP clock, 16.16); reports overlap, so only
 * sequence numbers after the last one fed go on.
 */
static void cc_ccfb(FFRTPFeedback *fb, const LCVRTCPPacket *p, int64_t now)
{
    LCVRTCPCcfbItem item;
    LCVRTCPIter it;
    int64_t ts;
    int nb = 0;

    /* unwrapped against the last report (compact NTP wraps every 18 h) */
    ts = fb->ccfb_ts + (int32_t)(p->ccfb.report_timestamp - (uint32_t)fb->ccfb_ts);
    if (!fb->ccfb_seen)
        ts = p->ccfb.report_timestamp;
    fb->ccfb_ts = ts;
    lcv_rtcp_iter_init(&it, p);
    while (lcv_rtcp_ccfb_next(&it, &item) > 0) {
        FFRTPCCPacket *c = &fb->cc_pkts[nb];
        if (item.ssrc != fb->cfg.ssrc)
            continue;
        if (fb->ccfb_seen && (int16_t)(item.seq - fb->ccfb_last_seq) <= 0)
            continue;           /* reported before */
        if (ff_rtp_sender_seq_lookup(fb->sender, item.seq, &c->send_time, &c->size) < 0)
            continue;
        fb->ccfb_seen     = 1;
        fb->ccfb_last_seq = item.seq;
        if (!item.received) {
            c->arrival = -1;
        } else if (item.ato == 0x1fff) {
            continue;           /* arrived, time unknown (over range) */
        } else {
            c->arrival = av_rescale(ts, 1000000, 65536) - av_rescale(item.ato, 1000000, 1024);
            /* the estimator takes arrival times >= 0 as received */
            c->arrival = FFMAX(c->arrival + CCFB_EPOCH, 0);
        }
        if (++nb == CC_BATCH) {
            cc_update(fb, nb, 0, now);
            nb = 0;
        }
    }
    fb->twcc_seen = 1;
    if (nb)
        cc_update(fb, nb, 0, now);
}

static void handle_report(FFRTPFeedback *fb, const LCVRTCPPacket *p, int64_t now)
{
    for (int i = 0; i < p->rr.nb_reports; i++) {
        LCVRTCPReportBlock rb;
        LCVRTPReceiverStats *r;
        Receiver *priv;

        lcv_rtcp_report_block(p, i, &rb);
        if (rb.ssrc != fb->cfg.ssrc || !(r = receiver(fb, p->ssrc, &priv)))
            continue;
        r->reports++;
        r->last_report_us  = now;
        r->fraction_lost   = rb.fraction_lost / 256.0;
        r->cumulative_lost = rb.cumulative_lost;
        r->highest_seq     = rb.highest_seq;
        r->jitter_ms       = rb.jitter * 1000.0 / fb->cfg.clock_rate;
        if (rb.lsr) {
            for (int j = 0; j < FF_ARRAY_ELEMS(fb->sr_mid); j++) {
                if (fb->sr_mid[j] == rb.lsr) {
                    uint32_t a = ff_get_formatted_ntp_time(ff_ntp_time()) >> 16;
                    int32_t rtt = a - rb.lsr - rb.dlsr;
                    if (rtt >= 0) {
                        priv->rtt_samples++;
                        r->rtt_ms = rtt * 1000.0 / 65536;
                        if (r->rtt_min_ms < 0 || r->rtt_ms < r->rtt_min_ms)
                            r->rtt_min_ms = r->rtt_ms;
                        if (!fb->min_rtt || r->rtt_min_ms * 1000 < fb->min_rtt)
                            fb->min_rtt = r->rtt_min_ms * 1000;
                        if (fb->cc)
                            ff_rtpcc_rtt(fb->cc, r->rtt_ms * 1000);
                    }
                    break;
                }
            }
        }
        /* a receiver without transport feedback: its loss is all we know */
        if (fb->cc && !fb->twcc_seen)
            cc_update(fb, 0, r->fraction_lost, now);
    }
}

static void handle_packet(FFRTPFeedback *fb, const LCVRTCPPacket *p, int64_t now)
{
    LCVRTPReceiverStats *r;
    Receiver *priv;
    LCVRTCPIter it;

    switch (p->type) {
    case LCV_RTCP_SR:
    case LCV_RTCP_RR:
        handle_report(fb, p, now);
        break;
    case LCV_RTCP_BYE:
        if ((r = receiver(fb, p->ssrc, &priv)))
            r->bye = 1;
        break;
    case LCV_RTCP_RTPFB:
        /* transport-wide (TWCC: the media SSRC field may name any stream,
         * or none; CCFB names them per report block) */
        if (p->fmt != LCV_RTPFB_TWCC && p->fmt != LCV_RTPFB_CCFB && p->fb.media_ssrc != fb->cfg.ssrc)
            break;
        if (!(r = receiver(fb, p->ssrc, &priv)))
            break;
        if (p->fmt == LCV_RTPFB_CCFB) {
            r->ccfb_reports++;
            if (fb->cc)
                cc_ccfb(fb, p, now);
            break;
        }
        if (p->fmt == LCV_RTPFB_NACK) {
            uint16_t seq;
            r->nacks++;
            fb->st.nack_packets++;
            if (!fb->cfg.nack)
                break;
            lcv_rtcp_iter_init(&it, p);
            while (lcv_rtcp_nack_next(&it, &seq) > 0)
                if (retransmit(fb, seq, now))
                    fb->last_nack = now;
        } else if (p->fmt == LCV_RTPFB_TWCC) {
            LCVRTCPTwccItem item;
            if (fb->cc)
                cc_twcc(fb, p, now);
            r->twcc_reports++;
            lcv_rtcp_iter_init(&it, p);
            while (lcv_rtcp_twcc_next(&it, &item) > 0) {
                r->twcc_packets++;
                if (item.status) {
                    r->twcc_received++;
                    r->twcc_last_arrival_us = item.arrival_us;
                }
            }
        }
        break;
    case LCV_RTCP_PSFB:
        if (p->fmt == LCV_PSFB_PLI) {
            if (p->fb.media_ssrc != fb->cfg.ssrc || !(r = receiver(fb, p->ssrc, &priv)))
                break;
            r->plis++;
            fb->st.pli++;
            request_keyframe(fb, now);
        } else if (p->fmt == LCV_PSFB_FIR) {
            LCVRTCPFirItem item;
            if (!(r = receiver(fb, p->ssrc, &priv)))
                break;
            lcv_rtcp_iter_init(&it, p);
            while (lcv_rtcp_fir_next(&it, &item) > 0) {
                if (item.ssrc != fb->cfg.ssrc)
                    continue;
                /* RFC 5104 4.3.1: a repeated sequence number is a
                 * retransmission of the same request */
                if (priv->fir_seen && item.seq == priv->fir_seq)
                    continue;
                priv->fir_seen = 1;
                priv->fir_seq  = item.seq;
                r->firs++;
                fb->st.fir++;
                request_keyframe(fb, now);
            }
        } else if (p->fmt == LCV_PSFB_AFB) {
            LCVRTCPRemb remb;
            if (lcv_rtcp_remb(p, &remb) > 0 && (r = receiver(fb, p->ssrc, &priv))) {
                r->remb_bitrate = remb.bitrate;
                if (fb->cc) {
                    ff_rtpcc_remb(fb->cc, FFMIN(remb.bitrate, INT64_MAX), now);
                    cc_update(fb, -1, 0, now);
                }
            }
        }
        break;
    }
}

static void handle_datagram(FFRTPFeedback *fb, const uint8_t *buf, int len, int64_t now)
{
    LCVRTCPContext *ctx = lcv_rtcp_pool_get(fb->pool);

    if (!ctx)
        return;
    fb->st.rtcp_received++;
    fb->avg_rtcp_size += (len + 28 - fb->avg_rtcp_size) / 16;
    if (lcv_rtcp_parse(ctx, buf, len, LCV_RTCP_FLAG_REDUCED_SIZE) < 0) {
        log_malformed(fb, ctx, now);
    } else {
        for (int i = 0; i < ctx->nb_packets; i++)
            handle_packet(fb, &ctx->packets[i], now);
    }
    lcv_rtcp_context_release(&ctx);
}

/** RFC 3550 6.3.1 and A.7, for a sender: the next RTCP interval, in us. */
static int64_t rtcp_interval(FFRTPFeedback *fb, int initial)
{
    double bw = media_rate(fb) * 0.05 * 0.25;   /* RTCP: 5 %, senders: a quarter */
    double t  = bw > 0 ? fb->avg_rtcp_size / bw : 0;
    double tmin = initial ? 2.5 : 5.0;

    if (fb->cfg.sr_interval > 0)
        return fb->cfg.sr_interval;
    t = FFMAX(t, tmin);
    /* randomized over [0.5, 1.5] T, compensated for timer reconsideration */
    t *= 0.5 + av_lfg_get(&fb->lfg) / 4294967296.0;
    return t / (M_E - 1.5) * 1e6;
}

static void send_sr(FFRTPFeedback *fb, int64_t now)
{
    uint64_t ntp;
    int ret = ff_rtp_sender_send_sr(fb->sender, 0, &ntp);

    if (ret >= 0) {
        fb->sr_mid[fb->sr_idx++ % FF_ARRAY_ELEMS(fb->sr_mid)] = ntp >> 16;
        fb->st.sr_sent++;
        fb->avg_rtcp_size += (ret + 28 - fb->avg_rtcp_size) / 16;
    }
}

static void write_stats(FFRTPFeedback *fb, int64_t now, int final)
{
    const LCVRTPSenderStats *st = &fb->st;
    FFRTPSendStats ss;
    FFRTPCCStats cs = { 0 };
    char line[4096];
    int n;

    ff_rtp_sender_get_stats(fb->sender, &ss);

    av_log(fb->logctx, AV_LOG_VERBOSE,
           "RTCP%s: %"PRIu64" packets sent, %"PRIu64" SRs; %"PRIu64" RTCP in (%"PRIu64" malformed); "
           "NACKs %"PRIu64" for %"PRIu64" packets: %"PRIu64" resent, %"PRIu64" not in history "
           "(%d not sent yet), %d again within a round trip (not resent), "
           "%"PRIu64" over budget; PLI %"PRIu64", FIR %"PRIu64", keyframe requests %"PRIu64" "
           "(%d NACKs the history could not answer asked for one); %d tail probes\n",
           final ? " (final)" : "", ss.packets, st->sr_sent, st->rtcp_received, st->rtcp_malformed,
           st->nack_packets, st->nacked, st->retransmitted, st->nack_missed, fb->nack_ahead, fb->nack_early,
           st->nack_rate_limited, st->pli, st->fir, st->keyframe_requests, fb->kf_unrepairable,
           fb->tail_probes);
    if (ss.paced_bursts)
        av_log(fb->logctx, AV_LOG_VERBOSE,
               "RTP pacer%s: %.0f kbit/s, packets waited %.1f ms (p50) %.1f ms (p95) %.1f ms (max), "
               "%"PRIu64" bursts, %"PRIu64" forced drains\n", final ? " (final)" : "",
               ss.pace_rate / 1000, ss.delay_p50_ms, ss.delay_p95_ms, ss.delay_max_ms,
               ss.paced_bursts, ss.forced_drains);
    if (fb->cc) {
        ff_rtpcc_get_stats(fb->cc, &cs);
        av_log(fb->logctx, AV_LOG_VERBOSE,
               "RTP congestion control%s: target %.0f kbit/s (delay-based %.0f, loss-based %.0f), "
               "acknowledged %.0f kbit/s, %s, delay trend %.2f ms (threshold %.2f), loss %.1f %%, "
               "%"PRIu64" transport feedback reports (transport-cc, RFC 8888), %"PRIu64" overuses, %"PRIu64" decreases\n",
               final ? " (final)" : "", cs.target / 1000.0, cs.delay_based / 1000.0,
               cs.loss_based / 1000.0, cs.acked / 1000.0, ff_rtpcc_state_name(cs.state), cs.trend,
               cs.threshold, cs.loss * 100, cs.feedbacks, cs.overuses, cs.decreases);
    }
    for (int i = 0; i < st->nb_receivers; i++) {
        const LCVRTPReceiverStats *r = &st->receivers[i];
        av_log(fb->logctx, AV_LOG_VERBOSE,
               "RTCP receiver %08"PRIx32": lost %.1f %% (%"PRId64" in all), highest seq %"PRIu32", "
               "jitter %.2f ms, RTT %.2f ms (min %.2f of %"PRIu64"), REMB %"PRIu64" bit/s%s\n",
               r->ssrc, r->fraction_lost * 100, r->cumulative_lost, r->highest_seq,
               r->jitter_ms, r->rtt_ms, r->rtt_min_ms, fb->rx[i].rtt_samples, r->remb_bitrate,
               r->bye ? ", left (BYE)" : "");
    }
    if (!fb->stats_file)
        return;
    n = snprintf(line, sizeof(line),
                 "{\"time_us\":%"PRId64",\"ssrc\":%"PRIu32",\"packets\":%"PRIu64",\"octets\":%"PRIu64","
                 "\"sr_sent\":%"PRIu64",\"rtcp_received\":%"PRIu64",\"rtcp_malformed\":%"PRIu64","
                 "\"nack_packets\":%"PRIu64",\"nacked\":%"PRIu64",\"retransmitted\":%"PRIu64","
                 "\"retransmitted_octets\":%"PRIu64",\"nack_missed\":%"PRIu64",\"nack_rate_limited\":%"PRIu64","
                 "\"pli\":%"PRIu64",\"fir\":%"PRIu64",\"keyframe_requests\":%"PRIu64","
                 "\"pace_rate\":%.0f,\"pace_delay_p50_ms\":%.2f,\"pace_delay_p95_ms\":%.2f,"
                 "\"pace_delay_max_ms\":%.2f,\"pace_bursts\":%"PRIu64",\"pace_forced_drains\":%"PRIu64","
                 "\"send_syscalls\":%"PRIu64",\"final\":%s,",
                 now, st->ssrc, ss.packets, ss.payload_bytes, st->sr_sent, st->rtcp_received,
                 st->rtcp_malformed, st->nack_packets, st->nacked, st->retransmitted,
                 st->retransmitted_octets, st->nack_missed, st->nack_rate_limited, st->pli,
                 st->fir, st->keyframe_requests, ss.pace_rate, ss.delay_p50_ms, ss.delay_p95_ms,
                 ss.delay_max_ms, ss.paced_bursts, ss.forced_drains, ss.syscalls,
                 final ? "true" : "false");
    if (fb->cc && n < sizeof(line))
        n += snprintf(line + n, sizeof(line) - n,
                      "\"target_bitrate\":%"PRId64",\"encoder_bitrate\":%"PRId64","
                      "\"delay_based_bitrate\":%"PRId64","
                      "\"loss_based_bitrate\":%"PRId64",\"acked_bitrate\":%"PRId64","
                      "\"cc_state\":\"%s\",\"delay_trend_ms\":%.3f,\"delay_threshold_ms\":%.3f,"
                      "\"cc_loss\":%.4f,\"cc_feedbacks\":%"PRIu64",\"cc_overuses\":%"PRIu64","
                      "\"cc_decreases\":%"PRIu64",",
                      cs.target, (int64_t)atomic_load(&fb->target), cs.delay_based, cs.loss_based, cs.acked, ff_rtpcc_state_name(cs.state),
                      cs.trend, cs.threshold, cs.loss, cs.feedbacks, cs.overuses, cs.decreases);
    if (n < sizeof(line))
        n += snprintf(line + n, sizeof(line) - n, "\"receivers\":[");
    for (int i = 0; i < st->nb_receivers && n < sizeof(line); i++) {
        const LCVRTPReceiverStats *r = &st->receivers[i];
        n += snprintf(line + n, sizeof(line) - n,
                      "%s{\"ssrc\":%"PRIu32",\"reports\":%"PRIu64",\"fraction_lost\":%.6f,"
                      "\"cumulative_lost\":%"PRId64",\"highest_seq\":%"PRIu32",\"jitter_ms\":%.3f,"
                      "\"rtt_ms\":%.3f,\"rtt_min_ms\":%.3f,\"rtt_samples\":%"PRIu64",\"nacks\":%"PRIu64",\"plis\":%"PRIu64",\"firs\":%"PRIu64","
                      "\"remb_bitrate\":%"PRIu64",\"twcc_reports\":%"PRIu64",\"twcc_packets\":%"PRIu64","
                      "\"twcc_received\":%"PRIu64",\"ccfb_reports\":%"PRIu64",\"bye\":%s}",
                      i ? "," : "", r->ssrc, r->reports, r->fraction_lost, r->cumulative_lost,
                      r->highest_seq, r->jitter_ms, r->rtt_ms, r->rtt_min_ms, fb->rx[i].rtt_samples,
                      r->nacks, r->plis, r->firs,
                      r->remb_bitrate, r->twcc_reports, r->twcc_packets, r->twcc_received, r->ccfb_reports,
                      r->bye ? "true" : "false");
    }
    if (n < sizeof(line) - 3) {
        n += snprintf(line + n, sizeof(line) - n, "]}\n");
        avio_write(fb->stats_file, line, n);
        avio_flush(fb->stats_file);
    }
}

/* ---- callbacks from the sender's thread ---- */

static void on_rtcp(void *opaque, const uint8_t *buf, int len, int64_t now)
{
    FFRTPFeedback *fb = opaque;

    pthread_mutex_lock(&fb->lock);
    handle_datagram(fb, buf, len, now);
    pthread_mutex_unlock(&fb->lock);
}

static int64_t on_tick(void *opaque, int64_t now)
{
    FFRTPFeedback *fb = opaque;
    int64_t next;

    pthread_mutex_lock(&fb->lock);
    if (fb->st.packets && !fb->next_sr) {
        send_sr(fb, now);           /* the first SR, with the first packets */
        fb->next_sr = now + rtcp_interval(fb, 1);
    } else if (fb->next_sr && now >= fb->next_sr) {
        send_sr(fb, now);
        fb->next_sr = now + rtcp_interval(fb, 0);
    }
    if (fb->cfg.stats_interval > 0 && now >= fb->next_stats) {
        if (fb->next_stats)
            write_stats(fb, now, 0);
        fb->next_stats = now + fb->cfg.stats_interval;
    }
    next = fb->next_sr ? fb->next_sr : now + 20000;
    if (fb->cfg.stats_interval > 0)
        next = FFMIN(next, fb->next_stats);
    pthread_mutex_unlock(&fb->lock);
    return next;
}

int ff_rtpfb_start(FFRTPFeedback **pfb, void *logctx, FFRTPSender *sender,
                   const FFRTPFeedbackConfig *cfg)
{
    FFRTPFeedback *fb;
    FFRTPSenderClient client = {
        .sent = on_sent,
        .rtcp = on_rtcp,
        .tick = on_tick,
    };
    int ret;

    *pfb = NULL;
    if (!(fb = av_mallocz(sizeof(*fb))))
        return AVERROR(ENOMEM);
    fb->logctx       = logctx;
    fb->sender       = sender;
    fb->cfg          = *cfg;
    fb->cfg.cname    = NULL;
    fb->cfg.stats_file = NULL;
    fb->st.ssrc      = cfg->ssrc;
    fb->hist_media_limit = FFMIN((int64_t)cfg->history_ms * cfg->clock_rate / 1000, INT32_MAX);
    fb->avg_rtcp_size = 28 + 28;
    atomic_init(&fb->kf_pending, 0);
    atomic_init(&fb->kf_awaited, 0);
    atomic_init(&fb->target, 0);
    av_lfg_init(&fb->lfg, av_get_random_seed());
    fb->rtx_seq = av_lfg_get(&fb->lfg) & 0x0fff;
    if (fb->cfg.rtx_pt >= 0 && !fb->cfg.rtx_ssrc)
        fb->cfg.rtx_ssrc = av_lfg_get(&fb->lfg);

    if (cfg->cname && !(fb->cname = av_strdup(cfg->cname))) {
        ret = AVERROR(ENOMEM);
        goto fail;
    }
    fb->hist    = av_calloc(HIST_MAX_PACKETS, sizeof(*fb->hist));
    /* packet_size is the payload's limit: the extension comes on top */
    fb->rtx_buf = av_malloc(cfg->packet_size + 2 + (cfg->cc ? FF_RTPCC_EXT_SIZE : 0));
    fb->pool    = lcv_rtcp_pool_alloc(4);
    if (!fb->hist || !fb->rtx_buf || !fb->pool) {
        ret = AVERROR(ENOMEM);
        goto fail;
    }
    if (cfg->stats_file && (ret = avio_open(&fb->stats_file, cfg->stats_file, AVIO_FLAG_WRITE)) < 0) {
        av_log(logctx, AV_LOG_ERROR, "Could not open stats_file '%s': %s\n",
               cfg->stats_file, av_err2str(ret));
        goto fail;
    }
    if ((ret = pthread_mutex_init(&fb->lock, NULL))) {
        ret = AVERROR(ret);
        goto fail;
    }
    fb->lock_init = 1;
    if (cfg->cc) {
        FFRTPCCConfig ccfg = {
            .min_bitrate   = cfg->min_bitrate,
            .max_bitrate   = cfg->max_bitrate,
            .start_bitrate = cfg->max_bitrate,
        };
        fb->cc      = ff_rtpcc_alloc(&ccfg);
        fb->cc_pkts = av_calloc(CC_BATCH, sizeof(*fb->cc_pkts));
        if (!fb->cc || !fb->cc_pkts) {
            ret = AVERROR(ENOMEM);
            goto fail;
        }
        atomic_store(&fb->target, ff_rtpcc_target(fb->cc));
        ff_rtp_sender_set_link_rate(sender, ff_rtpcc_target(fb->cc));
    }
    client.opaque = fb;
    if ((ret = ff_rtp_sender_set_client(sender, &client)) < 0)
        goto fail;
    fb->attached = 1;
    *pfb = fb;
    return 0;
fail:
    ff_rtpfb_free(&fb);
    return ret;
}

void ff_rtpfb_sr_sent(FFRTPFeedback *fb, uint64_t ntp)
{
    pthread_mutex_lock(&fb->lock);
    fb->sr_mid[fb->sr_idx++ % FF_ARRAY_ELEMS(fb->sr_mid)] = ntp >> 16;
    fb->st.sr_sent++;
    fb->next_sr = av_gettime_relative() + rtcp_interval(fb, 1);
    pthread_mutex_unlock(&fb->lock);
}

int ff_rtpfb_needs_first_sr(FFRTPFeedback *fb)
{
    int ret;
    pthread_mutex_lock(&fb->lock);
    ret = !fb->next_sr;
    pthread_mutex_unlock(&fb->lock);
    return ret;
}

int ff_rtpfb_tail_probe(FFRTPFeedback *fb)
{
    const HistEntry *e;
    int ret = 0;

    pthread_mutex_lock(&fb->lock);
    if (fb->attached && fb->st.nack_packets && fb->hist_count) {
        e = &fb->hist[(fb->hist_start + fb->hist_count - 1) % HIST_MAX_PACKETS];
        if (e->buf && (ret = resend(fb, e, e->size + (fb->cfg.rtx_pt >= 0 ? 2 : 0))) >= 0) {
            fb->tail_probes++;
            ret = 1;
        }
    }
    pthread_mutex_unlock(&fb->lock);
    return ret;
}

int64_t ff_rtpfb_last_nack(FFRTPFeedback *fb)
{
    int64_t t;

    pthread_mutex_lock(&fb->lock);
    t = fb->last_nack;
    pthread_mutex_unlock(&fb->lock);
    return t;
}

void ff_rtpfb_stop(FFRTPFeedback *fb)
{
    if (!fb || !fb->attached)
        return;
    ff_rtp_sender_set_client(fb->sender, NULL);
    fb->attached = 0;
}

void ff_rtpfb_get_stats(FFRTPFeedback *fb, LCVRTPSenderStats *st)
{
    FFRTPSendStats ss;

    ff_rtp_sender_get_stats(fb->sender, &ss);
    pthread_mutex_lock(&fb->lock);
    *st = fb->st;
    if (fb->cc) {
        FFRTPCCStats cs;
        ff_rtpcc_get_stats(fb->cc, &cs);
        st->target_bitrate = atomic_load(&fb->target);
        st->acked_bitrate  = cs.acked;
        st->cc_state       = cs.state;
        st->cc_delay_trend = cs.trend;
    }
    pthread_mutex_unlock(&fb->lock);
    /* what the SRs say: one count, the sender's */
    st->packets = ss.packets;
    st->octets  = ss.payload_bytes;
}

int ff_rtpfb_keyframe_requested(FFRTPFeedback *fb)
{
    return atomic_exchange(&fb->kf_pending, 0);
}

int ff_rtpfb_keyframe_sent(FFRTPFeedback *fb)
{
    return atomic_exchange(&fb->kf_awaited, 0);
}

int64_t ff_rtpfb_target_bitrate(FFRTPFeedback *fb)
{
    return atomic_load(&fb->target);
}

void ff_rtpfb_free(FFRTPFeedback **pfb)
{
    FFRTPFeedback *fb = *pfb;

    if (!fb)
        return;
    ff_rtpfb_stop(fb);
    if (fb->lock_init) {
        write_stats(fb, av_gettime_relative(), 1);
        pthread_mutex_destroy(&fb->lock);
    }
    if (fb->hist)
        while (fb->hist_count)
            hist_pop(fb);
    av_freep(&fb->hist);
    av_freep(&fb->rtx_buf);
    av_freep(&fb->cname);
    ff_rtpcc_free(&fb->cc);
    av_freep(&fb->cc_pkts);
    lcv_rtcp_pool_free(&fb->pool);
    avio_closep(&fb->stats_file);
    av_freep(pfb);
}

#else /* !CONFIG_NETWORK */

/* Without network support ff_rtp_sender_open() gives no sender, so the
 * muxer never starts a feedback reader: only the SR builder above is used. */
int ff_rtpfb_start(FFRTPFeedback **pfb, void *logctx, FFRTPSender *sender,
                   const FFRTPFeedbackConfig *cfg)
{
    *pfb = NULL;
    return AVERROR(ENOSYS);
}

void ff_rtpfb_sr_sent(FFRTPFeedback *fb, uint64_t ntp)
{
}

int ff_rtpfb_needs_first_sr(FFRTPFeedback *fb)
{
    return 0;
}

int ff_rtpfb_tail_probe(FFRTPFeedback *fb)
{
    return 0;
}

int64_t ff_rtpfb_last_nack(FFRTPFeedback *fb)
{
    return 0;
}

void ff_rtpfb_stop(FFRTPFeedback *fb)
{
}

void ff_rtpfb_get_stats(FFRTPFeedback *fb, LCVRTPSenderStats *st)
{
    memset(st, 0, sizeof(*st));
}

int ff_rtpfb_keyframe_requested(FFRTPFeedback *fb)
{
    return 0;
}

int ff_rtpfb_keyframe_sent(FFRTPFeedback *fb)
{
    return 0;
}

int64_t ff_rtpfb_target_bitrate(FFRTPFeedback *fb)
{
    return 0;
}

void ff_rtpfb_free(FFRTPFeedback **pfb)
{
    *pfb = NULL;
}
#endif /* CONFIG_NETWORK */

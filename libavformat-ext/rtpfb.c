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
 * The packets it answers NACKs from are kept by the history (rtphist.c):
 * this file hands it each packet as it leaves (after the pacer, if it
 * paces) and asks it per NACK; the resend itself goes through the sender.
 * Transport feedback is read against the sender's send log (rtptwcc.c) and
 * fed to the congestion controller (rtpcc.c), whose target goes to the
 * pacer and, less what is resent, to the encoder.
 */

#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "libavutil/avassert.h"
#include "libavutil/bprint.h"
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
#include "rtphist.h"
#include "rtptwcc.h"

#define CC_BATCH         1024       ///< transport feedback packets handed on at once
/** a silent receiver's place may go to a new one after this long: RFC 3550
 *  6.3.5's five reporting intervals, at its 5 s minimum */
#define RX_TIMEOUT       25000000

typedef struct Receiver {
    int64_t last_heard;         ///< when its last RTCP packet was read
    int verified;               ///< it echoed one of our SRs (LSR): it receives the stream
    unsigned unechoed;          ///< its report blocks that echoed none of our SRs
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
    AVBPrint stats_line;            ///< kept between lines: grows once, to the longest
    int attached;               ///< a client of the sender's thread
    pthread_mutex_t lock;
    int lock_init;

    /* everything below: under lock */
    FFRTPHist *hist;                ///< NULL without NACKs answered
    /* media bytes sent in the last second: per send, in a ring */

    uint32_t sr_mid[8];             ///< middle 32 bits of the last SRs' NTP times
    int sr_idx;
    int64_t next_sr, next_stats;
    double avg_rtcp_size;

    LCVRTPSenderStats st;
    LCVRTPReceiverStats rxs[LCV_RTP_MAX_RECEIVERS]; ///< st.nb_receivers of them
    Receiver rx[LCV_RTP_MAX_RECEIVERS];
    int64_t last_kf_request;
    atomic_int kf_pending;
    atomic_int kf_awaited;          ///< a keyframe was asked for, and none has gone out since

    LCVRTCPPool *pool;
    AVLFG lfg;
    int64_t malformed_log_time;
    int64_t first_sent;             ///< when the first packet was sent
    int64_t last_nack;              ///< when the last NACK for a packet sent arrived
    int nack_ahead;                 ///< numbers NACKed before they were sent
    int nack_early;                 ///< NACKed again within min_rtt of a resend
    int kf_unrepairable;            ///< NACKs not in the history that asked for a keyframe
    int kf_seq;                     ///< first sequence number of the last keyframe sent, -1: none
    int nack_before_kf;             ///< NACKs not in the history, for packets before that keyframe
    int64_t min_rtt;                ///< us, the smallest RTT of any receiver, 0: none yet
    int tail_probes;                ///< see ff_rtpfb_tail_probe()
    uint64_t nack_copies;           ///< second copies of resends, see ff_rtp_hist_copy()
    uint64_t replaced;              ///< receivers whose place a new one took

    FFRTPCC *cc;                    ///< NULL without congestion control
    FFRTPCCPacket *cc_pkts;
    int twcc_seen;                  ///< a receiver sends transport feedback
    atomic_int_least64_t target;    ///< bit/s, for the encoder's thread: the
                                    ///< controller's less the retransmissions
    atomic_int followed;            ///< the target was read: an encoder follows it
    FFRTPTwccReader twcc_reader;    ///< and the RFC 8888 state between reports
    double rtx_ewma;                ///< bytes retransmitted, about the last second's
    int64_t rtx_ewma_time;

    /* the probe cluster going out (the sender's thread: on_tick()) */
    FFRTPCCProbe probe;
    int probing;                    ///< a cluster is going out
    int probe_bytes, probe_pkts;    ///< of it, sent so far
    int64_t probe_next;             ///< when its next packet is due
    int64_t probe_last;             ///< when its last packet left
};

#if CONFIG_NETWORK
/* ---- packets as they leave (whichever thread sends media) ---- */

static void on_sent(void *opaque, AVBufferRef **bufs, const int *sizes, int nb)
{
    FFRTPFeedback *fb = opaque;
    int64_t now = av_gettime_relative();

    pthread_mutex_lock(&fb->lock);
    if (!fb->first_sent)
        fb->first_sent = now;
    if (fb->hist)
        ff_rtp_hist_add(fb->hist, bufs, sizes, nb, now);
    pthread_mutex_unlock(&fb->lock);
}

/* ---- RTCP from the receivers (the sender's thread) ---- */

/* a receiver's entry, made on its first packet; when the table is full the
 * place of one that left (BYE) or went silent for RX_TIMEOUT is taken, the
 * longest silent first, so that restarted receivers are not locked out;
 * failing that, of one that never echoed an SR (a report block's LSR):
 * SSRCs made up by someone who does not receive the stream. Of those, the
 * one with the most reports that echoed nothing goes first: a real receiver
 * echoes an SR in its first report after one reached it, so a newcomer with
 * few reports is not pushed out by SSRCs that report often and echo never */
static LCVRTPReceiverStats *receiver(FFRTPFeedback *fb, uint32_t ssrc, Receiver **priv, int64_t now)
{
    int i, victim = -1;

    for (i = 0; i < fb->st.nb_receivers; i++)
        if (fb->rxs[i].ssrc == ssrc) {
            fb->rx[i].last_heard = now;
            *priv = &fb->rx[i];
            return &fb->rxs[i];
        }
    if (fb->st.nb_receivers < LCV_RTP_MAX_RECEIVERS) {
        i = fb->st.nb_receivers++;
    } else {
        /* one that left or went silent, the longest silent first; else of
         * those that never echoed an SR of ours the one with the most
         * reports that echoed nothing, the longest silent of equals; a
         * verified receiver that still reports keeps its place */
        int gone = 0;
        for (i = 0; i < fb->st.nb_receivers; i++) {
            const Receiver *c = &fb->rx[i], *v;
            int g = fb->rxs[i].bye || now - c->last_heard >= RX_TIMEOUT;
            if (!g && c->verified)
                continue;
            if (victim < 0 || g > gone) {
                victim = i;
                gone   = g;
                continue;
            }
            if (g < gone)
                continue;
            v = &fb->rx[victim];
            if ((!g && c->unechoed > v->unechoed) ||
                ((g || c->unechoed == v->unechoed) && c->last_heard < v->last_heard))
                victim = i;
        }
        if (victim < 0)
            return NULL;
        av_log(fb->logctx, AV_LOG_VERBOSE, "RTCP receiver %08"PRIx32" (%s) replaced by %08"PRIx32"\n",
               fb->rxs[victim].ssrc, fb->rxs[victim].bye ? "left" : gone ? "silent" : "unverified", ssrc);
        fb->replaced++;
        i = victim;
    }
    memset(&fb->rxs[i], 0, sizeof(fb->rxs[0]));
    fb->rxs[i].ssrc       = ssrc;
    fb->rxs[i].rtt_ms     = -1;
    fb->rxs[i].rtt_min_ms = -1;
    memset(&fb->rx[i], 0, sizeof(fb->rx[0]));
    fb->rx[i].last_heard  = now;
    *priv = &fb->rx[i];
    return &fb->rxs[i];
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

/** Bytes per second of media: the sender's one estimate (rtprate.h: in
 *  the first second, what came so far over the time so far, at least
 *  200 ms: a first keyframe at 10 % loss went over a budget computed as if
 *  the stream had sent nothing before it, and its frames were lost). */
static double media_rate(FFRTPFeedback *fb)
{
    return ff_rtp_sender_media_rate(fb->sender);
}

/* A NACK for a packet sent that is no longer in the history: its frame
 * cannot be repaired, and the receiver would ask for a keyframe only once
 * it gives the packet up (FFmpeg's after its reorder wait, hundreds of ms);
 * the keyframe is asked for now (keyframe_min_interval applies). Unless a
 * keyframe has gone out since that packet: the receiver's picture mends at
 * it, and another one would only add a keyframe's bytes to a link that
 * lost the packet (libwebrtc NACKs a packet again and again, long after
 * the history let it go: behind a congested queue a keyframe each 300 ms
 * kept the queue full). */
static void unrepairable(FFRTPFeedback *fb, uint16_t seq, int64_t now)
{
    if (fb->kf_seq >= 0 && (int16_t)(seq - fb->kf_seq) < 0) {
        fb->nack_before_kf++;
        return;
    }
    fb->kf_unrepairable++;
    request_keyframe(fb, now);
}

/** len bytes were resent at now. Under lock. */
static void resent(FFRTPFeedback *fb, int len, int64_t now)
{
    fb->st.retransmitted++;
    fb->st.retransmitted_octets += len;
    if (fb->cc) {
        /* bytes resent, decaying with a 1 s time constant: about the
         * last second's worth */
        fb->rtx_ewma = fb->rtx_ewma * exp(-(now - fb->rtx_ewma_time) / 1e6) + len;
        fb->rtx_ewma_time = now;
    }
}

/** Answer a NACK for seq. Returns 1 if seq is in the history (resent or
 *  over budget), 0 if not. Under lock. */
static int retransmit(FFRTPFeedback *fb, uint16_t seq, int64_t now)
{
    const uint8_t *pkt;
    int len;

    fb->st.nacked++;
    switch (ff_rtp_hist_nack(fb->hist, seq, now, media_rate(fb), fb->min_rtt, &pkt, &len)) {
    case FF_RTP_HIST_AHEAD:
        fb->st.nack_missed++;
        fb->nack_ahead++;
        return 0;
    case FF_RTP_HIST_GONE:
        fb->st.nack_missed++;
        unrepairable(fb, seq, now);
        return 0;
    case FF_RTP_HIST_EARLY:
        fb->nack_early++;
        return 1;
    case FF_RTP_HIST_OVER_BUDGET:
        fb->st.nack_rate_limited++;
        return 1;
    case FF_RTP_HIST_RESEND:
        break;
    }
    if (ff_rtp_sender_send_now(fb->sender, pkt, len) >= 0) {
        ff_rtp_hist_resent(fb->hist, seq, now);
        resent(fb, len, now);
        /* under heavy loss the resend is lost as often as the original,
         * and its frame waits a round trip more (Janus asks again only
         * after ~150 ms): a second copy, from the budget's upper half */
        if (ff_rtp_hist_copy(fb->hist, seq, now, &pkt, &len) &&
            ff_rtp_sender_send_now(fb->sender, pkt, len) >= 0) {
            resent(fb, len, now);
            fb->nack_copies++;
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

/**
 * The rate the pacer paces by (factor x it, GCC's pacing, which is also
 * what lets the start-up find the link): the target, when an encoder
 * follows it (something reads it) and it is an estimate from transport
 * feedback; else 0, paced by the media rate as without congestion control
 * (a copied stream, whose bursts the target does not shape; the maximum
 * that a receiver without transport feedback leaves).
 */
static int64_t pacer_link_rate(FFRTPFeedback *fb, int64_t target)
{
    return atomic_load(&fb->followed) && ff_rtpcc_estimating(fb->cc) ? target : 0;
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
    ff_rtp_sender_set_link_rate(fb->sender, pacer_link_rate(fb, target));
    target = FFMAX(target - llrint(8 * rtx_rate(fb, now)), fb->cfg.min_bitrate);
    atomic_store(&fb->target, target);
}

/** Transport feedback (transport-cc or RFC 8888): each packet's send time
 *  from the send log, to the controller. */
static void cc_transport(FFRTPFeedback *fb, const LCVRTCPPacket *p, int64_t now)
{
    int nb;

    fb->twcc_seen = 1;
    if (!fb->cfg.twcc_log || ff_rtp_twcc_read_start(&fb->twcc_reader, p) < 0)
        return;
    while ((nb = ff_rtp_twcc_read(fb->cfg.twcc_log, &fb->twcc_reader, fb->cfg.ssrc,
                                  fb->cc_pkts, CC_BATCH)) > 0)
        cc_update(fb, nb, 0, now);
}

static void handle_report(FFRTPFeedback *fb, const LCVRTCPPacket *p, int64_t now)
{
    for (int i = 0; i < p->rr.nb_reports; i++) {
        LCVRTCPReportBlock rb;
        LCVRTPReceiverStats *r;
        Receiver *priv;
        int echoed;

        lcv_rtcp_report_block(p, i, &rb);
        if (rb.ssrc != fb->cfg.ssrc || !(r = receiver(fb, p->ssrc, &priv, now)))
            continue;
        r->reports++;
        r->last_report_us  = now;
        r->fraction_lost   = rb.fraction_lost / 256.0;
        r->cumulative_lost = rb.cumulative_lost;
        r->highest_seq     = rb.highest_seq;
        r->jitter_ms       = rb.jitter * 1000.0 / fb->cfg.clock_rate;
        echoed = 0;
        if (rb.lsr) {
            for (int j = 0; j < FF_ARRAY_ELEMS(fb->sr_mid); j++) {
                if (fb->sr_mid[j] == rb.lsr) {
                    echoed = 1;
                    uint32_t a = ff_get_formatted_ntp_time(ff_ntp_time()) >> 16;
                    priv->verified = 1;
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
        if (!echoed && !priv->verified)
            priv->unechoed++;
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
        if ((r = receiver(fb, p->ssrc, &priv, now)))
            r->bye = 1;
        break;
    case LCV_RTCP_RTPFB:
        /* transport-wide (TWCC: the media SSRC field may name any stream,
         * or none; CCFB names them per report block) */
        if (p->fmt != LCV_RTPFB_TWCC && p->fmt != LCV_RTPFB_CCFB && p->fb.media_ssrc != fb->cfg.ssrc)
            break;
        if (!(r = receiver(fb, p->ssrc, &priv, now)))
            break;
        if (p->fmt == LCV_RTPFB_CCFB) {
            r->ccfb_reports++;
            if (fb->cc)
                cc_transport(fb, p, now);
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
                cc_transport(fb, p, now);
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
            if (p->fb.media_ssrc != fb->cfg.ssrc || !(r = receiver(fb, p->ssrc, &priv, now)))
                break;
            r->plis++;
            fb->st.pli++;
            request_keyframe(fb, now);
        } else if (p->fmt == LCV_PSFB_FIR) {
            LCVRTCPFirItem item;
            if (!(r = receiver(fb, p->ssrc, &priv, now)))
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
            if (lcv_rtcp_remb(p, &remb) > 0 && (r = receiver(fb, p->ssrc, &priv, now))) {
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
    AVBPrint *bp = &fb->stats_line;

    ff_rtp_sender_get_stats(fb->sender, &ss);

    av_log(fb->logctx, AV_LOG_VERBOSE,
           "RTCP%s: %"PRIu64" packets sent, %"PRIu64" SRs; %"PRIu64" RTCP in (%"PRIu64" malformed), "
           "%"PRIu64" from others dropped; "
           "NACKs %"PRIu64" for %"PRIu64" packets: %"PRIu64" resent, %"PRIu64" not in history "
           "(%d not sent yet), %d again within a round trip (not resent), "
           "%"PRIu64" over budget, %"PRIu64" second copies (loss %.1f %%); PLI %"PRIu64", FIR %"PRIu64", keyframe requests %"PRIu64" "
           "(%d NACKs the history could not answer asked for one, %d came after a keyframe had); "
           "%d tail probes\n",
           final ? " (final)" : "", ss.packets, st->sr_sent, st->rtcp_received, st->rtcp_malformed,
           ss.rtcp_foreign, st->nack_packets, st->nacked, st->retransmitted, st->nack_missed, fb->nack_ahead, fb->nack_early,
           st->nack_rate_limited, fb->nack_copies, fb->hist ? ff_rtp_hist_loss(fb->hist) * 100 : 0,
           st->pli, st->fir, st->keyframe_requests, fb->kf_unrepairable,
           fb->nack_before_kf, fb->tail_probes);
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
               "%"PRIu64" transport feedback reports (transport-cc, RFC 8888), %"PRIu64" overuses, %"PRIu64" decreases; "
               "%"PRIu64" probe clusters (%"PRIu64" packets, %"PRIu64" measured, %"PRIu64" failed, the last %.0f kbit/s)\n",
               final ? " (final)" : "", cs.target / 1000.0, cs.delay_based / 1000.0,
               cs.loss_based / 1000.0, cs.acked / 1000.0, ff_rtpcc_state_name(cs.state), cs.trend,
               cs.threshold, cs.loss * 100, cs.feedbacks, cs.overuses, cs.decreases,
               cs.probes, ss.probe_packets, cs.probe_results, cs.probe_failures, cs.probe_estimate / 1000.0);
    }
    for (int i = 0; i < st->nb_receivers; i++) {
        const LCVRTPReceiverStats *r = &fb->rxs[i];
        av_log(fb->logctx, AV_LOG_VERBOSE,
               "RTCP receiver %08"PRIx32": lost %.1f %% (%"PRId64" in all), highest seq %"PRIu32", "
               "jitter %.2f ms, RTT %.2f ms (min %.2f of %"PRIu64"), REMB %"PRIu64" bit/s%s\n",
               r->ssrc, r->fraction_lost * 100, r->cumulative_lost, r->highest_seq,
               r->jitter_ms, r->rtt_ms, r->rtt_min_ms, fb->rx[i].rtt_samples, r->remb_bitrate,
               r->bye ? ", left (BYE)" : "");
    }
    if (!fb->stats_file)
        return;
    av_bprint_clear(bp);
    av_bprintf(bp,
               "{\"time_us\":%"PRId64",\"ssrc\":%"PRIu32",\"packets\":%"PRIu64",\"octets\":%"PRIu64","
               "\"sr_sent\":%"PRIu64",\"rtcp_received\":%"PRIu64",\"rtcp_malformed\":%"PRIu64","
               "\"rtcp_foreign\":%"PRIu64","
               "\"nack_packets\":%"PRIu64",\"nacked\":%"PRIu64",\"retransmitted\":%"PRIu64","
               "\"retransmitted_octets\":%"PRIu64",\"nack_missed\":%"PRIu64",\"nack_rate_limited\":%"PRIu64","
               "\"nack_copies\":%"PRIu64",\"nack_loss\":%.4f,"
               "\"pli\":%"PRIu64",\"fir\":%"PRIu64",\"keyframe_requests\":%"PRIu64","
               "\"pace_rate\":%.0f,\"pace_delay_p50_ms\":%.2f,\"pace_delay_p95_ms\":%.2f,"
               "\"pace_delay_max_ms\":%.2f,\"pace_bursts\":%"PRIu64",\"pace_forced_drains\":%"PRIu64","
               "\"send_syscalls\":%"PRIu64",\"final\":%s,",
               now, st->ssrc, ss.packets, ss.payload_bytes, st->sr_sent, st->rtcp_received,
               st->rtcp_malformed, ss.rtcp_foreign, st->nack_packets, st->nacked, st->retransmitted,
               st->retransmitted_octets, st->nack_missed, st->nack_rate_limited, fb->nack_copies,
               fb->hist ? ff_rtp_hist_loss(fb->hist) : 0, st->pli, st->fir, st->keyframe_requests, ss.pace_rate, ss.delay_p50_ms, ss.delay_p95_ms,
               ss.delay_max_ms, ss.paced_bursts, ss.forced_drains, ss.syscalls,
               final ? "true" : "false");
    if (fb->cc)
        av_bprintf(bp,
                   "\"target_bitrate\":%"PRId64",\"encoder_bitrate\":%"PRId64","
                   "\"delay_based_bitrate\":%"PRId64","
                   "\"loss_based_bitrate\":%"PRId64",\"acked_bitrate\":%"PRId64","
                   "\"cc_state\":\"%s\",\"delay_trend_ms\":%.3f,\"delay_threshold_ms\":%.3f,"
                   "\"cc_loss\":%.4f,\"cc_feedbacks\":%"PRIu64",\"cc_overuses\":%"PRIu64","
                   "\"cc_decreases\":%"PRIu64",\"probes\":%"PRIu64",\"probe_packets\":%"PRIu64","
                   "\"probe_octets\":%"PRIu64",\"probe_results\":%"PRIu64",\"probe_failures\":%"PRIu64","
                   "\"probe_bitrate\":%"PRId64",\"probe_recoveries\":%"PRIu64",",
                   cs.target, (int64_t)atomic_load(&fb->target), cs.delay_based, cs.loss_based, cs.acked, ff_rtpcc_state_name(cs.state),
                   cs.trend, cs.threshold, cs.loss, cs.feedbacks, cs.overuses, cs.decreases,
                   cs.probes, ss.probe_packets, ss.probe_bytes, cs.probe_results, cs.probe_failures,
                   cs.probe_estimate, cs.recovery_probes);
    av_bprintf(bp, "\"receivers\":[");
    for (int i = 0; i < st->nb_receivers; i++) {
        const LCVRTPReceiverStats *r = &fb->rxs[i];
        av_bprintf(bp,
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
    av_bprintf(bp, "]}\n");
    /* one line whole or none: a line cut short would be no JSON */
    if (!av_bprint_is_complete(bp)) {
        av_log(fb->logctx, AV_LOG_ERROR, "stats_file: out of memory, a line was not written\n");
        return;
    }
    avio_write(fb->stats_file, bp->str, bp->len);
    avio_flush(fb->stats_file);
}

/* ---- callbacks from the sender's thread ---- */

static void on_rtcp(void *opaque, const uint8_t *buf, int len, int64_t now)
{
    FFRTPFeedback *fb = opaque;

    pthread_mutex_lock(&fb->lock);
    handle_datagram(fb, buf, len, now);
    pthread_mutex_unlock(&fb->lock);
}

/**
 * The probe cluster the controller asks for, its packets at its rate:
 * copies of the newest packets of the history (as RTX with rtx_pt, else
 * the originals, which a receiver drops as duplicates), each numbered for
 * transport feedback as it leaves. Under lock, from on_tick().
 * @return when the next packet is due, INT64_MAX if none
 */
static int64_t probe_run(FFRTPFeedback *fb, int64_t now)
{
    if (!fb->probing) {
        /* a copied stream (no encoder follows the target) has nothing to
         * gain from a measure; the controller's wait for its clusters
         * ends by itself */
        if (!fb->hist || !atomic_load(&fb->followed) || !ff_rtpcc_probe_due(fb->cc, now, &fb->probe))
            return INT64_MAX;
        fb->probing     = 1;
        fb->probe_bytes = fb->probe_pkts = 0;
        fb->probe_next  = now;
        fb->probe_last  = INT64_MIN;
    }
    /* late wake-ups send what is due at once; a cluster is short */
    for (int i = 0; i < 64 && fb->probe_next <= now; i++) {
        const uint8_t *pkt;
        int len, ret;

        if (!ff_rtp_hist_probe(fb->hist, fb->probe_pkts, &pkt, &len) ||
            (ret = ff_rtp_sender_send_probe(fb->sender, pkt, len)) < 0) {
            /* nothing to send, or the socket refused: the cluster ends here */
            ff_rtpcc_probe_sent(fb->cc, fb->probe.id, fb->probe_last);
            fb->probing = 0;
            return INT64_MAX;
        }
        fb->probe_last   = av_gettime_relative();
        fb->probe_bytes += len;
        fb->probe_pkts++;
        fb->probe_next  += llrint(len * 8e6 / FFMAX(fb->probe.bitrate, 1));
        if (fb->probe_bytes >= fb->probe.bytes && fb->probe_pkts >= fb->probe.packets) {
            ff_rtpcc_probe_sent(fb->cc, fb->probe.id, fb->probe_last);
            fb->probing = 0;
            return now;             /* the next cluster may be due at once */
        }
    }
    return fb->probe_next;
}

static int64_t on_tick(void *opaque, int64_t now)
{
    FFRTPFeedback *fb = opaque;
    int64_t next;

    pthread_mutex_lock(&fb->lock);
    if (fb->first_sent && !fb->next_sr) {
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
    if (fb->cc) {
        /* a REMB's descent and timeout go on without feedback, and the
         * wait for transport feedback runs from the first packet */
        if (fb->first_sent)
            ff_rtpcc_update(fb->cc, now);
        cc_update(fb, -1, 0, now);
        next = FFMIN(next, now + 100000);
        if (fb->cfg.probe)
            next = FFMIN(next, probe_run(fb, now));
    }
    pthread_mutex_unlock(&fb->lock);
    return next;
}

int ff_rtpfb_start(FFRTPFeedback **pfb, void *logctx, FFRTPSender *sender,
                   const FFRTPFeedbackConfig *cfg)
{
    FFRTPFeedback *fb;
    uint16_t rtx_seq;
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
    fb->avg_rtcp_size = 28 + 28;
    av_bprint_init(&fb->stats_line, 0, AV_BPRINT_SIZE_UNLIMITED);
    atomic_init(&fb->kf_pending, 0);
    atomic_init(&fb->kf_awaited, 0);
    fb->kf_seq = -1;
    atomic_init(&fb->target, 0);
    atomic_init(&fb->followed, 0);
    av_lfg_init(&fb->lfg, av_get_random_seed());
    rtx_seq = av_lfg_get(&fb->lfg) & 0x0fff;
    if (fb->cfg.rtx_pt >= 0 && !fb->cfg.rtx_ssrc)
        fb->cfg.rtx_ssrc = av_lfg_get(&fb->lfg);

    if (cfg->cname && !(fb->cname = av_strdup(cfg->cname))) {
        ret = AVERROR(ENOMEM);
        goto fail;
    }
    if (cfg->nack) {
        FFRTPHistConfig hcfg = {
            .history_ms = cfg->history_ms,
            .clock_rate = cfg->clock_rate,
            .rtx_pt     = cfg->rtx_pt,
            .rtx_ssrc   = fb->cfg.rtx_ssrc,
            .rtx_seq    = rtx_seq,
            .max_share  = cfg->max_share,
            .dup_loss   = cfg->dup_loss,
            /* packet_size is the limit on the wire: an RTX resend adds 2 */
            .max_packet = cfg->packet_size - (cfg->rtx_pt >= 0 ? 2 : 0),
        };
        if ((ret = ff_rtp_hist_alloc(&fb->hist, &hcfg)) < 0)
            goto fail;
    }
    if (!(fb->pool = lcv_rtcp_pool_alloc(4))) {
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
            .start_bitrate = cfg->start_bitrate ? cfg->start_bitrate : cfg->max_bitrate,
            .probe         = cfg->probe && fb->hist,
        };
        fb->cc      = ff_rtpcc_alloc(&ccfg);
        fb->cc_pkts = av_calloc(CC_BATCH, sizeof(*fb->cc_pkts));
        if (!fb->cc || !fb->cc_pkts) {
            ret = AVERROR(ENOMEM);
            goto fail;
        }
        atomic_store(&fb->target, ff_rtpcc_target(fb->cc));
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
    const uint8_t *pkt;
    int ret = 0, len;

    pthread_mutex_lock(&fb->lock);
    if (fb->attached && fb->st.nack_packets && fb->hist && ff_rtp_hist_newest(fb->hist, &pkt, &len) &&
        (ret = ff_rtp_sender_send_now(fb->sender, pkt, len)) >= 0) {
        fb->tail_probes++;
        ret = 1;
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
    st->packets      = ss.packets;
    st->octets       = ss.payload_bytes;
    st->rtcp_foreign = ss.rtcp_foreign;
}

int ff_rtpfb_get_receiver_stats(FFRTPFeedback *fb, int i, LCVRTPReceiverStats *st)
{
    int ret = AVERROR(ENOENT);

    pthread_mutex_lock(&fb->lock);
    if (i >= 0 && i < fb->st.nb_receivers) {
        *st = fb->rxs[i];
        ret = 0;
    }
    pthread_mutex_unlock(&fb->lock);
    return ret;
}

int ff_rtpfb_keyframe_requested(FFRTPFeedback *fb)
{
    return atomic_exchange(&fb->kf_pending, 0);
}

int ff_rtpfb_keyframe_sent(FFRTPFeedback *fb)
{
    return atomic_exchange(&fb->kf_awaited, 0);
}

void ff_rtpfb_keyframe_out(FFRTPFeedback *fb, int first_seq)
{
    pthread_mutex_lock(&fb->lock);
    fb->kf_seq = first_seq;
    pthread_mutex_unlock(&fb->lock);
}

int64_t ff_rtpfb_target_bitrate(FFRTPFeedback *fb)
{
    /* the first read: from now on the pacer goes by the target, from
     * this frame on */
    if (fb->cc && !atomic_load_explicit(&fb->followed, memory_order_relaxed) &&
        !atomic_exchange(&fb->followed, 1)) {
        pthread_mutex_lock(&fb->lock);
        ff_rtp_sender_set_link_rate(fb->sender, pacer_link_rate(fb, ff_rtpcc_target(fb->cc)));
        pthread_mutex_unlock(&fb->lock);
    }
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
    ff_rtp_hist_free(&fb->hist);
    av_freep(&fb->cname);
    ff_rtpcc_free(&fb->cc);
    av_freep(&fb->cc_pkts);
    lcv_rtcp_pool_free(&fb->pool);
    avio_closep(&fb->stats_file);
    av_bprint_finalize(&fb->stats_line, NULL);
    av_freep(pfb);
}

#else /* !CONFIG_NETWORK */

/* Without network support ff_rtp_sender_open() gives no sender, so the
 * muxer never starts a feedback reader. */
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

int ff_rtpfb_get_receiver_stats(FFRTPFeedback *fb, int i, LCVRTPReceiverStats *st)
{
    return AVERROR(ENOENT);
}

int ff_rtpfb_keyframe_requested(FFRTPFeedback *fb)
{
    return 0;
}

int ff_rtpfb_keyframe_sent(FFRTPFeedback *fb)
{
    return 0;
}

void ff_rtpfb_keyframe_out(FFRTPFeedback *fb, int first_seq)
{
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

/*
 * RTP demuxer extensions: NACK generator, adaptive reorder wait, RTX
 * reception, keyframe requests, receiver statistics
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
 * The receiving side of RFC 4585 for FFmpeg's RTP demuxer: one state struct
 * per stream, reached from short hooks in rtpdec.c and rtsp.c (through
 * rtsp_ext.c). It owns the parts and sends what they ask for:
 *
 * - the NACK generator (rtpnack.c) is told every sequence number and says
 *   which to ask for when; its retry interval also sets how long the
 *   demuxer's reorder queue waits for a missing packet (up to max_delay,
 *   default 1 s here against FFmpeg's 100 ms without feedback);
 * - transport-cc (rtptwcc.c) notes arrival times and writes the reports;
 * - H.264 and HEVC access units are handed on at their marker bit (rtpau.c).
 *
 * Here: the SDP attributes (rtcp-fb, RTX, extmap), RTX (RFC 4588) restored
 * in place into the original packet before anything else sees it, keyframe
 * requests (a gap the demuxer skips raises a PLI, or FIR where only
 * "ccm fir" is negotiated; a depacketizer's need_keyframe too; at most one
 * per max(RTT, 200 ms) + 100 ms), and one RTCP compound (RR, SDES CNAME,
 * NACK, transport-cc, PLI/FIR) per call when anything is due.
 *
 * Round trip: FFmpeg's receiver learns nothing of the RTT from RTCP (only a
 * sender sees LSR/DLSR come back, and stock senders answer no RFC 3611
 * RRTR), so the generator measures it from the NACK to the retransmission.
 *
 * Nothing here allocates after ff_rtpdec_ext_open(), except the access
 * unit buffer, which grows to the largest access unit seen.
 */

#include "config.h"
#include "config_components.h"

#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "libavcodec/defs.h"
#include "libavutil/avstring.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/mem.h"
#include "libavutil/time.h"

#include "avformat.h"
#include "internal.h"
#include "lcvrtcp.h"
#include "lcvrtp.h"

#if CONFIG_RTPDEC
#include "rtpdec.h"
#include "rtpdec_ext.h"
#include "rtpau.h"
#include "rtphdrext.h"
#include "rtpjoin.h"
#include "rtpnack.h"
#include "rtptwcc.h"
#include "rtsp.h"
#include "url.h"
#define MAX_NACK_SEQS    256        ///< numbers per NACK packet (< 1100 bytes)
#define DEFAULT_MAX_WAIT 1000000    ///< µs: max_delay when the user set none

struct FFRTPDecExt {
    int pli, fir;
    int rtx_pt, rtx_apt;

    FFRTPNack nack;             ///< the NACK generator (counts the packets even with NACKs off)
    FFRTPTwccRecv *twcc;        ///< NULL: no transport-cc feedback
    FFRTPAU *au;                ///< NULL: access units by the parser
    FFRTPJoin join;             ///< keyframe requests until the stream is decodable
    FFRTPRtcpBudget budget;     ///< the RTCP it sends: within 5 % of the media

    int need_keyframe;
    int64_t next_due;           ///< when feedback may be due next; 0: now
    int64_t arrival;            ///< µs, the kernel's receive time of the datagram read last, 0 unknown
    int64_t last_keyframe_req;
    uint8_t fir_seq;
    int64_t last_log;
    int64_t stats_interval;     ///< µs between verbose logs, 0: only at the end

    LCVRTPReceiveStats st;      ///< what is counted here (the generator counts the rest)
};

/* when a late receiver's next keyframe request is due */
static int64_t join_next(const FFRTPDecExt *e)
{
    return e->pli || e->fir ? ff_rtp_join_next(&e->join) : INT64_MAX;
}

static double decodable_ms(const FFRTPDecExt *e)
{
    return e->join.decodable >= 0 && e->join.first >= 0 ?
           (e->join.decodable - e->join.first) / 1000.0 : -1;
}

static int read_pt(const char **p)
{
    char *end;
    long v;

    if (**p == '*') {
        (*p)++;
        return 256;             /* every payload type */
    }
    v = strtol(*p, &end, 10);
    if (end == *p || v < 0 || v > 127)
        return -1;
    *p = end;
    return v;
}

int ff_rtpdec_ext_sdp_a_line(FFRTPDecExtSdp *sdp, int media_pt, const char *line)
{
    const char *p;
    int pt;

    if (av_strstart(line, "rtcp-fb:", &p)) {
        pt = read_pt(&p);
        if (pt != media_pt && pt != 256)
            return 1;
        p += strspn(p, " \t");
        sdp->seen_fb = 1;
        if (av_strstart(p, "nack", &p)) {
            p += strspn(p, " \t");
            if (!*p)
                sdp->fb |= FF_RTPDEC_FB_NACK;
            else if (av_strstart(p, "pli", NULL))
                sdp->fb |= FF_RTPDEC_FB_PLI;
        } else if (av_strstart(p, "ccm", &p)) {
            p += strspn(p, " \t");
            if (av_strstart(p, "fir", NULL))
                sdp->fb |= FF_RTPDEC_FB_FIR;
        }
        return 1;
    }
    if (av_strstart(line, "extmap:", &p)) {
        /* RFC 8285: extmap:<id>[/<direction>] <uri> [<attributes>] */
        char *end;
        long id = strtol(p, &end, 10);
        p = end + strcspn(end, " \t");
        p += strspn(p, " \t");
        if (id >= 1 && id <= 14 && av_strstart(p, FF_RTP_HDREXT_TWCC_URI, &p) && (!*p || *p == ' ' || *p == '\t'))
            sdp->twcc_id = id;
        return 0;
    }
    if (av_strstart(line, "rtpmap:", &p)) {
        pt = read_pt(&p);
        p += strspn(p, " \t");
        if (pt >= 0 && pt < 128 && pt != media_pt && !av_strncasecmp(p, "rtx/", 4)) {
            if (!sdp->seen_rtx || sdp->rtx_pt != pt)
                sdp->rtx_apt = -1;
            sdp->seen_rtx = 1;
            sdp->rtx_pt   = pt;
            return 1;
        }
        return 0;
    }
    if (av_strstart(line, "fmtp:", &p)) {
        const char *apt;
        pt = read_pt(&p);
        if (pt < 0 || pt >= 128 || pt == media_pt)
            return 0;
        if ((apt = strstr(p, "apt="))) {
            int v = atoi(apt + 4);
            if (v == media_pt) {
                sdp->seen_rtx = 1;
                sdp->rtx_pt   = pt;
                sdp->rtx_apt  = v;
                return 1;
            }
        }
        return sdp->seen_rtx && pt == sdp->rtx_pt;
    }
    return 0;
}

int ff_rtpdec_ext_open(RTPDemuxContext *s, const FFRTPDecExtSdp *sdp,
                       const FFRTPDecExtOpts *opts, int feedback)
{
    FFRTPDecExt *e;
    int fb, ret;

    ff_rtpdec_ext_close(s);
    if (!(e = av_mallocz(sizeof(*e))))
        return AVERROR(ENOMEM);
    /* RTP/AVPF without rtcp-fb lines: what FFmpeg always sent (NACK, PLI) */
    fb = sdp->seen_fb ? sdp->fb : feedback ? FF_RTPDEC_FB_NACK | FF_RTPDEC_FB_PLI : 0;
    if (!feedback)
        fb = 0;
    ff_rtp_nack_init(&e->nack, opts->nack < 0 ? !!(fb & FF_RTPDEC_FB_NACK) : opts->nack,
                     opts->nack_max_retries,
                     opts->max_delay >= 0 ? opts->max_delay : DEFAULT_MAX_WAIT, s->ic);
    e->pli  = !!(fb & FF_RTPDEC_FB_PLI);
    e->fir  = !e->pli && (fb & FF_RTPDEC_FB_FIR);
    e->rtx_pt  = sdp->seen_rtx && sdp->rtx_apt == s->payload_type ? sdp->rtx_pt : -1;
    /* when the stream becomes decodable; a late receiver asks for a
     * keyframe until then, where it may ask for one (join_next()) */
    ff_rtp_join_init(&e->join, s->st ? s->st->codecpar->codec_id : AV_CODEC_ID_NONE,
                     s->st ? s->st->codecpar->extradata : NULL, s->st ? s->st->codecpar->extradata_size : 0);
    e->rtx_apt = s->payload_type;
    e->stats_interval = opts->stats_interval;
    s->ext = e;
    if (feedback && sdp->twcc_id && (ret = ff_rtp_twcc_recv_alloc(&e->twcc, sdp->twcc_id)) < 0) {
        ff_rtpdec_ext_close(s);
        return ret;
    }
    if (opts->au_marker && s->st && (s->st->codecpar->codec_id == AV_CODEC_ID_H264 ||
                                     s->st->codecpar->codec_id == AV_CODEC_ID_HEVC) &&
        ffstream(s->st)->need_parsing == AVSTREAM_PARSE_FULL && !ffstream(s->st)->parser) {
        if ((ret = ff_rtp_au_alloc(&e->au, s->st->codecpar->codec_id)) < 0) {
            ff_rtpdec_ext_close(s);
            return ret;
        }
        ffstream(s->st)->need_parsing = AVSTREAM_PARSE_HEADERS;
    }
    av_log(s->ic, AV_LOG_VERBOSE, "RTP stream PT %d: NACK %s, %s, RTX PT %d, reorder wait at most %"PRId64" ms, "
           "transport-cc feedback %s, access units %s\n",
           s->payload_type, e->nack.nack ? "on" : "off", e->pli ? "PLI" : e->fir ? "FIR" : "no keyframe requests",
           e->rtx_pt, e->nack.max_wait / 1000, e->twcc ? "on" : "off",
           e->au ? "at the marker bit" : "by the parser");
    return 0;
}

static void log_stats(RTPDemuxContext *s, const char *when)
{
    LCVRTPReceiveStats stats, *st = &stats;

    ff_rtpdec_ext_get_stats(s, st);
    av_log(s->ic, AV_LOG_VERBOSE,
           "RTP receiver%s: %"PRIu64" packets, %"PRIu64" missing, %"PRIu64" recovered "
           "(%"PRIu64" by RTX), %"PRIu64" reordered, %"PRIu64" lost, %"PRIu64" too late; "
           "%"PRIu64" NACK packets for %"PRIu64" numbers, %"PRIu64" PLI, %"PRIu64" FIR; "
           "RTT %.1f ms, reorder wait %.1f ms; %"PRIu64" transport-cc reports\n", when,
           st->packets, st->missing, st->recovered, st->rtx_packets, st->reordered, st->lost,
           st->late, st->nack_packets, st->nacked, st->plis, st->firs, st->rtt_ms,
           st->reorder_wait_ms, st->twcc_reports);
}

void ff_rtpdec_ext_close(RTPDemuxContext *s)
{
    if (!s->ext)
        return;
    if (s->ext->nack.st.packets)
        log_stats(s, " at the end");
    ff_rtp_twcc_recv_free(&s->ext->twcc);
    ff_rtp_au_free(&s->ext->au);
    av_freep(&s->ext);
}

int ff_rtpdec_ext_nacks(const RTPDemuxContext *s)
{
    return s->ext && s->ext->nack.nack;
}

void ff_rtpdec_ext_arrival(RTPDemuxContext *s, int64_t arrival)
{
    if (s->ext)
        s->ext->arrival = arrival;
}

int ff_rtpdec_ext_active(const RTPDemuxContext *s)
{
    return s->ext && (s->ext->nack.nack || s->ext->pli || s->ext->fir || s->ext->twcc);
}

int ff_rtpdec_ext_packet(RTPDemuxContext *s, uint8_t *buf, int *len)
{
    FFRTPDecExt *e = s->ext;
    int64_t now;
    int pt, hdr;

    if (!e || *len < 12)
        return 0;
    if (e->twcc) {
        /* the kernel's receive time where the socket gives one: the time
         * this thread got to the datagram adds its own scheduling, and
         * the sender's delay-based congestion control reads that as queue */
        if (e->arrival > 0)
            e->st.kernel_stamps++;
        ff_rtp_twcc_recv_packet(e->twcc, buf, *len, e->arrival > 0 ? e->arrival : av_gettime_relative());
        e->arrival = 0;
        e->next_due = FFMIN(e->next_due, ff_rtp_twcc_recv_due(e->twcc));
    }
    pt = buf[1] & 0x7f;
    if (e->rtx_pt >= 0 && pt == e->rtx_pt) {
        hdr = ff_rtp_header_size(buf, *len);
        /* any SSRC: as FFmpeg follows the media SSRC, a restarted sender's
         * new RTX SSRC is followed too */
        if (hdr < 0 || *len < hdr + 2) {
            av_log(s->ic, AV_LOG_DEBUG, "RTP: RTX packet without an OSN, dropped\n");
            return AVERROR_INVALIDDATA;
        }
        e->st.rtx_packets++;
        /* the original sequence number replaces the RTX one, and the
         * payload moves over the OSN */
        AV_WB16(buf + 2, AV_RB16(buf + hdr));
        buf[1] = (buf[1] & 0x80) | e->rtx_apt;
        if (s->ssrc)
            AV_WB32(buf + 8, s->ssrc);
        memmove(buf + hdr, buf + hdr + 2, *len - hdr - 2);
        *len -= 2;
    } else if (pt != s->payload_type) {
        return 0;
    }
    now = av_gettime_relative();
    ff_rtp_rtcp_budget_media(&e->budget, *len, now);
    if (e->join.active && (hdr = ff_rtp_header_size(buf, *len)) >= 0) {
        int first = e->join.first < 0;
        ff_rtp_join_packet(&e->join, buf + hdr, *len - hdr, now);
        if (first)
            e->next_due = FFMIN(e->next_due, join_next(e));
        if (!e->join.active && e->join.requests && (e->pli || e->fir))    /* just became decodable */
            av_log(s->ic, AV_LOG_VERBOSE, "RTP stream PT %d: decodable %.0f ms after its first "
                   "packet, after %d keyframe requests\n", s->payload_type,
                   (e->join.decodable - e->join.first) / 1000.0, e->join.requests);
    }
    return ff_rtp_nack_packet(&e->nack, AV_RB16(buf + 2), now);
}

int ff_rtpdec_ext_au(RTPDemuxContext *s, AVPacket *pkt, uint32_t timestamp, int flags, int rv)
{
    FFRTPDecExt *e = s->ext;

    uint64_t over;
    int ret;

    if (!e || !e->au || rv < 0)
        return rv;
    over = ff_rtp_au_overflows(e->au);
    ret  = ff_rtp_au_add(e->au, pkt, timestamp, flags & RTP_FLAG_MARKER);
    if (ff_rtp_au_overflows(e->au) != over)
        av_log(s->ic, over ? AV_LOG_DEBUG : AV_LOG_WARNING, "RTP stream PT %d: an access unit "
               "of timestamp %"PRIu32" reached %d MiB without its marker: handed on as it is\n",
               s->payload_type, timestamp, FF_RTP_AU_MAX_BYTES >> 20);
    return ret;
}

void ff_rtpdec_ext_skip(RTPDemuxContext *s, uint16_t seq)
{
    FFRTPDecExt *e = s->ext;

    if (!e || !e->nack.started)
        return;
    ff_rtp_nack_skip(&e->nack, seq);
    if (e->pli || e->fir) {
        e->need_keyframe = 1;
        e->next_due = 0;
    }
}

/* How long a queue's head far ahead is held. A sender that restarted with
 * new numbers goes on from it: once RTP_RESYNC_RUN of them are queued in a
 * row behind it, the time the stream's rate takes to send twice that many
 * (a restart is followed soon). A packet or two far ahead that nothing
 * continues (another's, injected) are held for the longest wait, so that
 * the stream, coming in order meanwhile, shows them for strays: timed by
 * the rate alone, a head that came just after a keyframe's burst of
 * packets saw its wait run out before 8 of the trickle behind it, was
 * handed on and moved the stream's timeline (a CI run of hostile.sh) */
static int64_t far_head_wait(const RTPDemuxContext *s, const FFRTPDecExt *e)
{
    const RTPPacket *p = s->queue;
    int run = 1;

    for (; p->next && run < RTP_RESYNC_RUN; p = p->next, run++)
        if (p->next->seq != (uint16_t)(p->seq + 1))
            break;
    if (run < RTP_RESYNC_RUN)
        return FF_RTP_NACK_JUMP_WAIT_MAX;
    return ff_rtp_nack_jump_wait(&e->nack, RTP_RESYNC_RUN);
}

int64_t ff_rtpdec_ext_wait_end(RTPDemuxContext *s, int64_t first_queue_time, int64_t max_delay)
{
    FFRTPDecExt *e = s->ext;
    int64_t end, jump = 0;
    int far;

    if (!e || !s->queue)
        return first_queue_time + max_delay;
    /* a head far ahead (no loss) gets the time to see whether the stream
     * goes on behind it: its packets are then dropped as strays (patches:
     * rtpdec.c). Not capped by max_delay: the stream, in order, is handed
     * on meanwhile; only a sender that restarted with new numbers waits */
    far = (uint16_t)(s->queue->seq - s->seq) > RTP_STRAY_GAP;
    if (far)
        jump = first_queue_time + far_head_wait(s, e);
    if (!e->nack.nack) {
        end = first_queue_time + max_delay;
        return far ? FFMAX(end, jump) : end;
    }
    /* the numbers the queue's head waits for that are still pursued */
    end = ff_rtp_nack_wait_end(&e->nack, s->seq + 1, s->queue->seq);
    /* none pursued: skip now; a plain reorder still gets the allowance */
    if (!end)
        end = far ? jump : first_queue_time + FF_RTP_NACK_REORDER;
    return end;
}

static int send_compound(RTPDemuxContext *s, URLContext *fd, AVIOContext *pb,
                         const uint8_t *buf, int len)
{
    if (fd)
        return ffurl_write(fd, buf, len);
    avio_write(pb, buf, len);
    avio_flush(pb);
    return 0;
}

int64_t ff_rtpdec_ext_feedback(RTPDemuxContext *s, URLContext *fd, AVIOContext *pb)
{
    FFRTPDecExt *e = s->ext;
    uint8_t buf[1400];
    uint16_t seqs[MAX_NACK_SEQS];
    LCVRTCPWriter w;
    LCVRTCPSdesItem cname;
    int64_t now, next, due, kf_gap;
    double left;
    int nb = 0, keyframe = 0, twcc = 0, twcc_sent = 0, base;
    const uint32_t me = s->ssrc + 1;    /* as FFmpeg's RRs: the sender's SSRC + 1 */

    if (!ff_rtpdec_ext_active(s))
        return 0;
    if (!fd && !pb)
        return INT64_MAX;
    now = av_gettime_relative();
    if (e->stats_interval && now - e->last_log >= e->stats_interval) {
        if (e->last_log)
            log_stats(s, "");
        e->last_log = now;
    }
    /* a depacketizer's own request (VP8's need_keyframe) */
    if ((e->pli || e->fir) && s->handler && s->handler->need_keyframe &&
        s->handler->need_keyframe(s->dynamic_protocol_context) && !e->need_keyframe) {
        e->need_keyframe = 1;
        e->next_due = 0;
    }
    /* nothing decodable yet: a late receiver's keyframe request */
    if ((e->pli || e->fir) && ff_rtp_join_due(&e->join, now)) {
        if (!e->need_keyframe)
            av_log(s->ic, AV_LOG_VERBOSE, "RTP stream PT %d: nothing decodable %.0f ms after "
                   "the first packet: asking for a keyframe (%s)\n", s->payload_type,
                   (now - e->join.first) / 1000.0, e->pli ? "PLI" : "FIR");
        e->need_keyframe = 1;
        e->next_due = 0;
    }
    /* called for every packet: nothing to do before the time computed last */
    due = FFMIN(FFMIN(e->next_due, e->nack.wake), join_next(e));
    if (now < due)
        return due - now;

    /* within the RTCP share of the media rate: what is due waits for the
     * budget, and a NACK asks for no more than it leaves room for (one
     * FCI of 4 bytes each at worst after the RR, SDES and NACK header) */
    base = 8 + ((4 + 4 + 2 + FFMIN(strlen(s->hostname), 255) + 1 + 3) & ~3) + 12;
    left = ff_rtp_rtcp_budget_left(&e->budget, now);
    if (left < base + 4) {
        e->budget.deferred++;
        e->next_due = now + FFMAX(ff_rtp_rtcp_budget_wait(&e->budget, base + 4, now), 1000);
        return e->next_due - now;
    }
    nb = ff_rtp_nack_due(&e->nack, now, seqs, FFMIN(MAX_NACK_SEQS, (int)(left - base) / 4), &next);
    next = FFMIN(next, join_next(e));
    kf_gap = FFMAX(e->nack.srtt, 200000) + 100000;
    if (e->need_keyframe && now - e->last_keyframe_req >= kf_gap) {
        keyframe = 1;
        e->need_keyframe = 0;
        e->last_keyframe_req = now;
    } else if (e->need_keyframe) {
        next = FFMIN(next, e->last_keyframe_req + kf_gap);
    }
    if (e->twcc && ff_rtp_twcc_recv_due(e->twcc) != INT64_MAX) {
        if (now >= ff_rtp_twcc_recv_due(e->twcc))
            twcc = 1;
        else
            next = FFMIN(next, ff_rtp_twcc_recv_due(e->twcc));
    }

    if (nb || keyframe || twcc) {
        lcv_rtcp_writer_init(&w, buf, sizeof(buf));
        cname.ssrc  = me;
        cname.type  = LCV_SDES_CNAME;
        cname.value = (const uint8_t *)s->hostname;
        cname.len   = FFMIN(strlen(s->hostname), 255);
        if (lcv_rtcp_write_rr(&w, me, NULL, 0) < 0 ||
            lcv_rtcp_write_sdes(&w, &cname, 1) < 0 ||
            (nb && lcv_rtcp_write_nack(&w, me, s->ssrc, seqs, nb) < 0))
            return next == INT64_MAX ? next : FFMAX(next - now, 0);
        if (twcc) {
            twcc_sent = ff_rtp_twcc_recv_write(e->twcc, &w, me, s->ssrc, now);
            next = FFMIN(next, ff_rtp_twcc_recv_due(e->twcc));
        }
        if (keyframe && e->pli)
            lcv_rtcp_write_pli(&w, me, s->ssrc);
        else if (keyframe) {
            LCVRTCPFirItem fir = { .ssrc = s->ssrc, .seq = ++e->fir_seq };
            lcv_rtcp_write_fir(&w, LCV_PSFB_FIR, me, &fir, 1);
        }
        if (nb || keyframe || twcc_sent)
            ff_rtp_rtcp_budget_spend(&e->budget, w.pos, now);
        if ((nb || keyframe || twcc_sent) && send_compound(s, fd, pb, buf, w.pos) >= 0) {
            if (twcc_sent)
                e->st.twcc_reports++;
            if (nb) {
                e->st.nack_packets++;
                e->st.nacked += nb;
            }
            if (keyframe)
                *(e->pli ? &e->st.plis : &e->st.firs) += 1;
        }
    }
    e->next_due = next;
    return next == INT64_MAX ? next : FFMAX(next - now, 0);
}

void ff_rtpdec_ext_get_stats(const RTPDemuxContext *s, LCVRTPReceiveStats *st)
{
    const FFRTPNackStats *g;

    memset(st, 0, sizeof(*st));
    st->rtt_ms = -1;
    if (!s->ext)
        return;
    *st = s->ext->st;
    g = &s->ext->nack.st;
    st->ssrc            = s->ssrc;
    st->packets         = g->packets;
    st->missing         = g->missing;
    st->recovered       = g->recovered;
    st->reordered       = g->reordered;
    st->lost            = g->lost;
    st->late            = g->late;
    st->duplicates      = g->duplicates;
    st->skipped         = g->skipped;
    st->seq_jumps       = g->seq_jumps;
    st->pending         = s->ext->nack.nb_miss;
    st->rtt_ms          = s->ext->nack.srtt ? s->ext->nack.srtt / 1000.0 : -1;
    st->reorder_wait_ms = ff_rtp_nack_reorder_wait(&s->ext->nack) / 1000.0;
    st->au_overflows    = s->ext->au ? ff_rtp_au_overflows(s->ext->au) : 0;
    st->queue_overflows = s->queue_overflows;
    st->resyncs         = s->resyncs;
    st->strays          = s->strays;
}

int ff_rtpdec_ext_write_stats(const RTPDemuxContext *s, int stream_index,
                              AVIOContext *pb, int64_t now, int final)
{
    LCVRTPReceiveStats stats, *st = &stats;
    char line[1024];
    int len;

    ff_rtpdec_ext_get_stats(s, st);
    /* on the stack: a line costs no allocation */
    len = snprintf(line, sizeof(line),
                   "{\"time_us\":%"PRId64",\"stream_index\":%d,\"ssrc\":%"PRIu32","
                   "\"packets\":%"PRIu64",\"missing\":%"PRIu64",\"recovered\":%"PRIu64","
                   "\"rtx_packets\":%"PRIu64",\"reordered\":%"PRIu64",\"lost\":%"PRIu64","
                   "\"late\":%"PRIu64",\"duplicates\":%"PRIu64",\"skipped\":%"PRIu64","
                   "\"seq_jumps\":%"PRIu64",\"nack_packets\":%"PRIu64",\"nacked\":%"PRIu64","
                   "\"plis\":%"PRIu64",\"firs\":%"PRIu64",\"pending\":%"PRIu64","
                   "\"rtt_ms\":%.3f,\"reorder_wait_ms\":%.3f,\"twcc_reports\":%"PRIu64","
                   "\"decodable_ms\":%.3f,\"au_overflows\":%"PRIu64",\"queue_overflows\":%"PRIu64","
                   "\"resyncs\":%"PRIu64",\"strays\":%"PRIu64",\"kernel_stamps\":%"PRIu64","
                   "\"final\":%s}\n",
                   now, stream_index, st->ssrc, st->packets, st->missing, st->recovered,
                   st->rtx_packets, st->reordered, st->lost, st->late, st->duplicates,
                   st->skipped, st->seq_jumps, st->nack_packets, st->nacked, st->plis,
                   st->firs, st->pending, st->rtt_ms, st->reorder_wait_ms, st->twcc_reports,
                   s->ext ? decodable_ms(s->ext) : -1, st->au_overflows, st->queue_overflows,
                   st->resyncs, st->strays, st->kernel_stamps, final ? "true" : "false");
    if (len < 0 || len >= sizeof(line))
        return AVERROR(ENOMEM);
    avio_write(pb, line, len);
    return 0;
}

#endif /* CONFIG_RTPDEC */

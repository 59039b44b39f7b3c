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
 * The receiving side of RFC 4585 for FFmpeg's RTP demuxer, in the spirit of
 * libwebrtc's NackRequester.
 *
 * Every missing sequence number (unwrapped to 64 bits) is tracked in a
 * sorted, bounded list from the moment a later packet shows the gap. All
 * numbers due are packed into one RTCP compound (RR, SDES CNAME, one NACK
 * with as many PID/BLP pairs as needed): a number is due when it is new
 * and the reorder allowance has passed, or when the last request is one
 * retry interval old. A number is given up one retry interval after its
 * nack_max_retries-th request, or when it has been held for the cap below.
 * A copy of a packet already received is dropped before FFmpeg's reorder
 * queue, which would hold it twice and stall behind it.
 *
 * Round trip: FFmpeg's receiver learns nothing of the RTT from RTCP (only a
 * sender sees LSR/DLSR come back, and stock senders answer no RFC 3611
 * RRTR). So the RTT is measured where the receiver sees it: from the NACK
 * to the arrival of a number that was requested exactly once (Karn's rule:
 * a number requested twice gives an ambiguous sample). Smoothed as TCP does
 * (RFC 6298); 100 ms until the first sample. The retry interval is
 * srtt + max(4 rttvar, 5 ms).
 *
 * Reorder wait: the demuxer holds its queue for a missing packet while the
 * generator still pursues it, that is up to nack_max_retries retry
 * intervals, capped by max_delay (default 1 s here, against FFmpeg's 100 ms
 * without feedback); before a first retransmission has arrived, by 500 ms,
 * and by 200 ms once a number went unanswered (a sender that does not
 * answer NACKs must not stall every gap for long).
 * With no loss nothing waits; with loss the wait follows the measured RTT.
 * While NACKs are on, the reorder queue holds 4096 packets unless
 * reorder_queue_size is set (FFmpeg's 500 barely hold an 8 Mbit/s keyframe).
 * A gap the demuxer skips raises a PLI (FIR where only "ccm fir" is
 * negotiated; a depacketizer's need_keyframe too), at most one per
 * max(RTT, 200 ms) + 100 ms.
 *
 * RTX (RFC 4588): packets of the RTX payload type are restored in place
 * into the original packet (sequence number from the OSN, payload type from
 * apt, SSRC of the media stream) before anything else sees them.
 *
 * Access units (H.264, HEVC; au_marker, on by default): FFmpeg's parser
 * completes an access unit when the next one starts, a frame interval
 * after its last packet arrived. Here the depacketized pieces of one RTP
 * timestamp are gathered and handed on as one packet at the marker bit
 * (RFC 6184 and RFC 7798 set it on the last packet of an access unit),
 * and the parser is told it gets complete frames (AVSTREAM_PARSE_HEADERS).
 * A marker bit on a packet without a slice (parameter sets sent apart) does
 * not end the access unit; a new timestamp ends the previous one whose
 * marker never came.
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
#include "rtsp.h"
#include "url.h"
#if CONFIG_RTSP_DEMUXER && CONFIG_RTP_PROTOCOL
#include <errno.h>
#include "network.h"
#include "rtpproto.h"
#endif

#define MAX_MISSING      1024       ///< numbers tracked at once
#define MAX_GAP          1000       ///< a larger jump is a restart, not loss
#define MAX_NACK_SEQS    256        ///< numbers per NACK packet (< 1100 bytes)
#define DEFAULT_RTT      100000     ///< µs, until the first sample
#define REORDER_ALLOW    3000       ///< µs a new gap waits before its first NACK
#define DEFAULT_MAX_WAIT 1000000    ///< µs: max_delay when the user set none
#define FIRST_WAIT       500000     ///< µs: the wait before any retransmission arrived
#define NO_RTT_WAIT      200000     ///< µs: the wait once a number was given up unanswered
#define STATS_INTERVAL   5000000    ///< µs between verbose logs
#define NACK_QUEUE_SIZE  4096       ///< reorder queue default with NACKs (1 s at 40 Mbit/s of 1200-byte packets)
#define TWCC_URI         "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
#define TWCC_RX          8192       ///< arrival times kept for transport feedback (a power of 2)
#define TWCC_INTERVAL    50000      ///< µs between transport feedback reports
#define TWCC_MAX_REPORT  400        ///< packets per report (about 1 KB at most)

typedef struct Missing {
    int64_t seq;                ///< unwrapped
    int64_t detected;           ///< when a later packet showed the gap
    int64_t sent;               ///< last request, 0 before the first
    int retries;                ///< requests sent
} Missing;

struct FFRTPDecExt {
    int nack, pli, fir;
    int rtx_pt, rtx_apt;
    int max_retries;
    int64_t max_wait;           ///< µs, the cap of the reorder wait

    int started;
    int64_t highest;            ///< unwrapped highest sequence number seen
    int bad_seq;                ///< the number that confirms a restart far behind
    Missing miss[MAX_MISSING];  ///< sorted by seq
    int nb_miss;
    int64_t gave_up[MAX_MISSING]; ///< recently given-up numbers, by seq % MAX_MISSING

    int64_t srtt, rttvar;       ///< µs; srtt 0 before the first sample
    int need_keyframe;
    int64_t next_due;           ///< when feedback may be due next; 0: now
    int64_t last_keyframe_req;
    uint8_t fir_seq;
    int64_t last_log;

    /* transport-wide congestion control feedback */
    int twcc_id;                ///< 0: off
    int64_t *twcc_arrival;      ///< by unwrapped transport seq % TWCC_RX; 0: not received
    int64_t twcc_highest;       ///< unwrapped highest transport seq seen
    int64_t twcc_next;          ///< first number not reported yet
    int twcc_started;
    int64_t twcc_epoch;         ///< the first arrival: reference times count from it
    int64_t twcc_due;
    uint8_t twcc_fb_count;

    /* access units gathered until their marker bit */
    int au_codec;               ///< AV_CODEC_ID_H264 or _HEVC; 0: off
    uint8_t *au_buf;
    unsigned au_size, au_cap;
    uint32_t au_ts;
    int au_vcl;                 ///< the gathered pieces hold a slice
    AVPacket *au_props;         ///< the first piece's properties (no data)
    LCVRTCPTwccItem twcc_items[TWCC_MAX_REPORT];

    LCVRTPReceiveStats st;
};

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
        if (id >= 1 && id <= 14 && av_strstart(p, TWCC_URI, &p) && (!*p || *p == ' ' || *p == '\t'))
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
    int fb;

    ff_rtpdec_ext_close(s);
    if (!(e = av_mallocz(sizeof(*e))))
        return AVERROR(ENOMEM);
    /* RTP/AVPF without rtcp-fb lines: what FFmpeg always sent (NACK, PLI) */
    fb = sdp->seen_fb ? sdp->fb : feedback ? FF_RTPDEC_FB_NACK | FF_RTPDEC_FB_PLI : 0;
    if (!feedback)
        fb = 0;
    e->nack = opts->nack < 0 ? !!(fb & FF_RTPDEC_FB_NACK) : opts->nack;
    e->pli  = !!(fb & FF_RTPDEC_FB_PLI);
    e->fir  = !e->pli && (fb & FF_RTPDEC_FB_FIR);
    e->rtx_pt  = sdp->seen_rtx && sdp->rtx_apt == s->payload_type ? sdp->rtx_pt : -1;
    e->rtx_apt = s->payload_type;
    e->max_retries = opts->nack_max_retries;
    e->max_wait = opts->max_delay >= 0 ? opts->max_delay : DEFAULT_MAX_WAIT;
    e->st.rtt_ms = -1;
    if (feedback && sdp->twcc_id) {
        e->twcc_id = sdp->twcc_id;
        if (!(e->twcc_arrival = av_calloc(TWCC_RX, sizeof(*e->twcc_arrival)))) {
            av_free(e);
            return AVERROR(ENOMEM);
        }
    }
    if (opts->au_marker && s->st && (s->st->codecpar->codec_id == AV_CODEC_ID_H264 ||
                                     s->st->codecpar->codec_id == AV_CODEC_ID_HEVC) &&
        ffstream(s->st)->need_parsing == AVSTREAM_PARSE_FULL && !ffstream(s->st)->parser) {
        if (!(e->au_props = av_packet_alloc())) {
            av_freep(&e->twcc_arrival);
            av_free(e);
            return AVERROR(ENOMEM);
        }
        e->au_codec = s->st->codecpar->codec_id;
        ffstream(s->st)->need_parsing = AVSTREAM_PARSE_HEADERS;
    }
    s->ext = e;
    av_log(s->ic, AV_LOG_VERBOSE, "RTP stream PT %d: NACK %s, %s, RTX PT %d, reorder wait at most %"PRId64" ms, "
           "transport-cc feedback %s, access units %s\n",
           s->payload_type, e->nack ? "on" : "off", e->pli ? "PLI" : e->fir ? "FIR" : "no keyframe requests",
           e->rtx_pt, e->max_wait / 1000, e->twcc_id ? "on" : "off",
           e->au_codec ? "at the marker bit" : "by the parser");
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
    if (s->ext->st.packets)
        log_stats(s, " at the end");
    av_freep(&s->ext->twcc_arrival);
    av_freep(&s->ext->au_buf);
    av_packet_free(&s->ext->au_props);
    av_freep(&s->ext);
}

int ff_rtpdec_ext_active(const RTPDemuxContext *s)
{
    return s->ext && (s->ext->nack || s->ext->pli || s->ext->fir || s->ext->twcc_id);
}

static int64_t unwrap(const FFRTPDecExt *e, uint16_t seq)
{
    return e->highest + (int16_t)(seq - (uint16_t)e->highest);
}

/** Index of the first entry with seq >= v. */
static int find(const FFRTPDecExt *e, int64_t v)
{
    int lo = 0, hi = e->nb_miss;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (e->miss[mid].seq < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void drop_entries(FFRTPDecExt *e, int from, int n)
{
    memmove(&e->miss[from], &e->miss[from + n], (e->nb_miss - from - n) * sizeof(*e->miss));
    e->nb_miss -= n;
}

static int64_t retry_interval(const FFRTPDecExt *e)
{
    if (!e->srtt)
        return DEFAULT_RTT;
    return e->srtt + FFMAX(4 * e->rttvar, 5000);
}

/** The longest a missing number is held: max_delay; before any
 *  retransmission has arrived FIRST_WAIT (several rounds at a long RTT),
 *  and NO_RTT_WAIT once a number has been given up unanswered (a sender
 *  that does not answer NACKs must not stall every gap for long). */
static int64_t hold_cap(const FFRTPDecExt *e)
{
    if (e->srtt)
        return e->max_wait;
    return FFMIN(e->max_wait, e->st.lost ? NO_RTT_WAIT : FIRST_WAIT);
}

/** How long the demuxer waits for a packet asked for in vain now (for the
 *  statistics; give_up_at() decides): every retry, within the cap. */
static int64_t reorder_wait(const FFRTPDecExt *e)
{
    int64_t w = REORDER_ALLOW + e->max_retries * retry_interval(e);
    return FFMIN(w, hold_cap(e));
}

/** When a missing number is given up: one retry interval after its last
 *  request, or when it has been held for the cap. */
static int64_t give_up_at(const FFRTPDecExt *e, const Missing *m, int64_t retry)
{
    int64_t cap = hold_cap(e);
    if (m->retries >= e->max_retries)
        return FFMIN(m->sent + retry, m->detected + cap);
    return m->detected + cap;
}

static void rtt_sample(FFRTPDecExt *e, int64_t r)
{
    if (r <= 0)
        return;
    if (!e->srtt) {
        e->srtt   = r;
        e->rttvar = r / 2;
    } else {
        e->rttvar += (FFABS(e->srtt - r) - e->rttvar) / 4;
        e->srtt   += (r - e->srtt) / 8;
    }
    e->st.rtt_ms = e->srtt / 1000.0;
    e->next_due  = 0;           /* retry times changed */
}

static void give_up(FFRTPDecExt *e, int n)
{
    for (int i = 0; i < n; i++)
        e->gave_up[e->miss[i].seq & (MAX_MISSING - 1)] = e->miss[i].seq + 1;
    e->st.lost += n;
    drop_entries(e, 0, n);
}

/** @return 1 for a duplicate the demuxer must not queue again, else 0 */
static int track(RTPDemuxContext *s, FFRTPDecExt *e, uint16_t seq, int64_t now)
{
    int64_t v;

    e->st.packets++;
    if (!e->started) {
        e->started = 1;
        e->highest = seq;
        return 0;
    }
    v = unwrap(e, seq);
    if (v > e->highest) {
        int64_t gap = v - e->highest - 1;
        if (gap > MAX_GAP) {
            /* a restart or a hostile jump: nothing to ask for */
            av_log(s->ic, AV_LOG_DEBUG, "RTP: sequence jump of %"PRId64", %d missing numbers dropped\n",
                   gap, e->nb_miss);
            e->st.lost += e->nb_miss;
            e->nb_miss = 0;
            e->st.seq_jumps++;
        } else if (gap > 0 && e->nack) {
            e->st.missing += gap;
            if (gap > MAX_MISSING)
                gap = MAX_MISSING;
            if (e->nb_miss + gap > MAX_MISSING) {
                /* bounded: the oldest go first */
                give_up(e, e->nb_miss + gap - MAX_MISSING);
            }
            for (int64_t q = v - gap; q < v; q++) {
                Missing *m = &e->miss[e->nb_miss++];
                m->seq      = q;
                m->detected = now;
                m->sent     = 0;
                m->retries  = 0;
            }
            e->next_due = FFMIN(e->next_due, now + REORDER_ALLOW);
        } else if (gap > 0) {
            e->st.missing += gap;
        }
        e->highest = v;
    } else if (v < e->highest - MAX_GAP) {
        /* far behind: a restart if the next packet follows it (as
         * RFC 3550 A.1 resynchronizes), else a stray packet */
        if (seq == e->bad_seq) {
            av_log(s->ic, AV_LOG_DEBUG, "RTP: sequence restarted at %d\n", seq);
            e->st.lost += e->nb_miss;
            e->nb_miss = 0;
            e->highest = v;
            e->st.seq_jumps++;
        } else {
            e->bad_seq = (uint16_t)(seq + 1);
            e->st.duplicates++;
        }
    } else {
        int i = find(e, v);
        if (i < e->nb_miss && e->miss[i].seq == v) {
            const Missing *m = &e->miss[i];
            if (m->retries) {
                e->st.recovered++;
                if (m->retries == 1)
                    rtt_sample(e, now - m->sent);
            } else {
                e->st.reordered++;
            }
            drop_entries(e, i, 1);
        } else if (e->gave_up[v & (MAX_MISSING - 1)] == v + 1) {
            e->gave_up[v & (MAX_MISSING - 1)] = 0;     /* counted once */
            e->st.late++;
        } else {
            /* a second retransmission of one number, or a copy: with NACKs
             * on, every number not pursued at or below the highest has been
             * handed on or queued already (FFmpeg's queue would hold it twice
             * and stall behind it) */
            e->st.duplicates++;
            return e->nack;
        }
    }
    return 0;
}

/** Note the arrival of a packet that carries a transport-wide sequence number. */
static void twcc_arrival(RTPDemuxContext *s, FFRTPDecExt *e, const uint8_t *buf, int len,
                         int64_t now)
{
    int off = 12 + 4 * (buf[0] & 0x0f), end;
    int64_t v;

    if (!(buf[0] & 0x10) || len < off + 4 || AV_RB16(buf + off) != 0xBEDE)
        return;
    end = off + 4 + 4 * AV_RB16(buf + off + 2);
    if (end > len)
        return;
    /* RFC 8285 one-byte elements: id, length - 1, data; 0 is padding, 15 ends */
    for (off += 4; off < end;) {
        int id = buf[off] >> 4, l = (buf[off] & 0x0f) + 1;
        uint16_t seq;

        if (!buf[off]) {
            off++;
            continue;
        }
        if (id == 15 || off + 1 + l > end)
            return;
        if (id != e->twcc_id || l != 2) {
            off += 1 + l;
            continue;
        }
        seq = AV_RB16(buf + off + 1);
        if (!e->twcc_started) {
            e->twcc_started = 1;
            e->twcc_highest = e->twcc_next = seq;
            e->twcc_epoch   = now;
            e->twcc_due     = now + TWCC_INTERVAL;
            e->next_due     = FFMIN(e->next_due, e->twcc_due);
        }
        v = e->twcc_highest + (int16_t)(seq - (uint16_t)e->twcc_highest);
        if (v < e->twcc_next - TWCC_RX / 2 || v >= e->twcc_next + TWCC_RX) {
            /* far off: a restarted sender; what was not reported is lost */
            memset(e->twcc_arrival, 0, TWCC_RX * sizeof(*e->twcc_arrival));
            e->twcc_highest = e->twcc_next = v;
        }
        if (v < e->twcc_next)
            return;             /* reported already (as lost) */
        if (v > e->twcc_highest) {
            /* clear the slots the jump passes over: packets not (yet) received */
            for (int64_t q = FFMAX(e->twcc_highest + 1, v - TWCC_RX + 1); q < v; q++)
                e->twcc_arrival[q & (TWCC_RX - 1)] = 0;
            e->twcc_highest = v;
        }
        e->twcc_arrival[v & (TWCC_RX - 1)] = now - e->twcc_epoch + 1;
        return;
    }
}

/**
 * One transport feedback report of the packets not reported yet (at most
 * TWCC_MAX_REPORT): the lost ones between received ones are reported lost.
 * @return 0, or < 0 if nothing fits or is due
 */
static int twcc_write(FFRTPDecExt *e, LCVRTCPWriter *w, uint32_t me, uint32_t media_ssrc)
{
    LCVRTCPTwcc tw = { 0 };
    int64_t ref = -1, prev;
    int n = 0;

    /* the reference: the first received packet's arrival, in 64 ms units */
    for (int64_t q = e->twcc_next; q <= e->twcc_highest && q < e->twcc_next + TWCC_MAX_REPORT; q++)
        if (e->twcc_arrival[q & (TWCC_RX - 1)]) {
            ref = (e->twcc_arrival[q & (TWCC_RX - 1)] - 1) / 64000;
            break;
        }
    if (ref < 0 || ref >= 1 << 23)
        return -1;
    prev = ref * 64000;
    for (int64_t q = e->twcc_next; q <= e->twcc_highest && n < TWCC_MAX_REPORT; q++) {
        LCVRTCPTwccItem *it = &e->twcc_items[n];
        int64_t a = e->twcc_arrival[q & (TWCC_RX - 1)];

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
    while (n && !e->twcc_items[n - 1].status)
        n--;
    if (!n)
        return -1;
    tw.base_seq       = (uint16_t)e->twcc_next;
    tw.status_count   = n;
    tw.reference_time = ref;
    tw.fb_count       = e->twcc_fb_count;
    if (lcv_rtcp_write_twcc(w, me, media_ssrc, &tw, e->twcc_items) < 0)
        return -1;
    e->twcc_fb_count++;
    e->twcc_next += n;
    return 0;
}

int ff_rtpdec_ext_packet(RTPDemuxContext *s, uint8_t *buf, int *len)
{
    FFRTPDecExt *e = s->ext;
    int pt, hdr;

    if (!e || *len < 12)
        return 0;
    if (e->twcc_id)
        twcc_arrival(s, e, buf, *len, av_gettime_relative());
    pt = buf[1] & 0x7f;
    if (e->rtx_pt >= 0 && pt == e->rtx_pt) {
        hdr = 12 + 4 * (buf[0] & 0x0f);
        if ((buf[0] & 0x10) && *len >= hdr + 4)
            hdr += 4 + 4 * AV_RB16(buf + hdr + 2);
        /* any SSRC: as FFmpeg follows the media SSRC, a restarted sender's
         * new RTX SSRC is followed too */
        if (*len < hdr + 2) {
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
    return track(s, e, AV_RB16(buf + 2), av_gettime_relative());
}

/** Whether depacketized data (Annex B) holds a slice NAL unit. */
static int has_slice(int codec, const uint8_t *p, int size)
{
    for (int i = 0; i + 3 < size; i++) {
        int type;
        if (p[i] || p[i + 1] || p[i + 2] != 1) {
            if (p[i + 2] > 1)
                i += 2;             /* no start code can begin before i + 3 */
            continue;
        }
        type = codec == AV_CODEC_ID_H264 ? p[i + 3] & 0x1f : (p[i + 3] >> 1) & 0x3f;
        if (codec == AV_CODEC_ID_H264 ? type >= 1 && type <= 5 : type <= 31)
            return 1;
        i += 2;
    }
    return 0;
}

/** Move the gathered access unit into pkt. */
static int au_out(FFRTPDecExt *e, AVPacket *pkt)
{
    int ret;

    av_packet_unref(pkt);
    if ((ret = av_new_packet(pkt, e->au_size)) < 0)
        return ret;
    memcpy(pkt->data, e->au_buf, e->au_size);
    if ((ret = av_packet_copy_props(pkt, e->au_props)) < 0)
        return ret;
    av_packet_unref(e->au_props);
    e->au_size = 0;
    e->au_vcl  = 0;
    return 0;
}

/** Append pkt's data (and its properties, if it is the first piece). */
static int au_add(FFRTPDecExt *e, AVPacket *pkt, uint32_t timestamp)
{
    int ret;

    if (e->au_size + (uint64_t)pkt->size > INT_MAX - AV_INPUT_BUFFER_PADDING_SIZE)
        return AVERROR_INVALIDDATA;
    if (!e->au_size) {
        if ((ret = av_packet_copy_props(e->au_props, pkt)) < 0)
            return ret;
        e->au_ts = timestamp;
    }
    if (e->au_size + pkt->size > e->au_cap) {
        /* keeps the contents; grows by about an eighth at least */
        uint8_t *buf = av_fast_realloc(e->au_buf, &e->au_cap, e->au_size + pkt->size);
        if (!buf)
            return AVERROR(ENOMEM);
        e->au_buf = buf;
    }
    memcpy(e->au_buf + e->au_size, pkt->data, pkt->size);
    e->au_size += pkt->size;
    if (!e->au_vcl)      /* once a slice is in, the rest need not be scanned */
        e->au_vcl = has_slice(e->au_codec, pkt->data, pkt->size);
    av_packet_unref(pkt);
    return 0;
}

int ff_rtpdec_ext_au(RTPDemuxContext *s, AVPacket *pkt, uint32_t timestamp, int flags, int rv)
{
    FFRTPDecExt *e = s->ext;
    int ret;

    if (!e || !e->au_codec || rv < 0)
        return rv;
    if (!pkt->size) {
        av_packet_unref(pkt);
        return AVERROR(EAGAIN);
    }
    if (e->au_size && timestamp != e->au_ts) {
        /* the previous access unit's marker never came: it ends here, and
         * this piece begins the next one (whose marker, if this piece has
         * it, hands it on with the next packet) */
        AVPacket *cur = av_packet_clone(pkt);
        if (!cur)
            return AVERROR(ENOMEM);
        if ((ret = au_out(e, pkt)) >= 0)
            ret = au_add(e, cur, timestamp);
        av_packet_free(&cur);
        return ret < 0 ? ret : 0;
    }
    if ((ret = au_add(e, pkt, timestamp)) < 0)
        return ret;
    if ((flags & RTP_FLAG_MARKER) && e->au_vcl)
        return au_out(e, pkt);
    return AVERROR(EAGAIN);
}

void ff_rtpdec_ext_skip(RTPDemuxContext *s, uint16_t seq)
{
    FFRTPDecExt *e = s->ext;
    int n;

    if (!e || !e->started)
        return;
    n = find(e, unwrap(e, seq));
    give_up(e, n);
    e->st.skipped++;
    if (e->pli || e->fir) {
        e->need_keyframe = 1;
        e->next_due = 0;
    }
}

int64_t ff_rtpdec_ext_wait_end(RTPDemuxContext *s, int64_t first_queue_time, int64_t max_delay)
{
    FFRTPDecExt *e = s->ext;
    int64_t head, end = 0;
    int i;

    if (!e || !e->nack || !s->queue)
        return first_queue_time + max_delay;
    head = unwrap(e, s->queue->seq);
    /* the numbers the queue's head waits for that are still pursued */
    for (i = find(e, unwrap(e, (uint16_t)(s->seq + 1))); i < e->nb_miss && e->miss[i].seq < head; i++)
        end = FFMAX(end, give_up_at(e, &e->miss[i], retry_interval(e)));
    /* none pursued: skip now; a plain reorder still gets the allowance */
    if (!end)
        end = first_queue_time + REORDER_ALLOW;
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
    int64_t now, next = INT64_MAX, retry;
    int nb = 0, i, j, keyframe = 0, twcc = 0, twcc_sent = 0;
    const uint32_t me = s->ssrc + 1;    /* as FFmpeg's RRs: the sender's SSRC + 1 */

    if (!ff_rtpdec_ext_active(s))
        return 0;
    if (!fd && !pb)
        return INT64_MAX;
    now = av_gettime_relative();
    if (now - e->last_log >= STATS_INTERVAL) {
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
    /* called for every packet: nothing to do before the time computed last */
    if (now < e->next_due)
        return e->next_due - now;
    retry = retry_interval(e);

    /* one pass: give up what is over, ask for what is due, keep the rest */
    for (i = j = 0; i < e->nb_miss; i++) {
        Missing m = e->miss[i];
        int64_t end = give_up_at(e, &m, retry);
        if (now >= end) {
            e->gave_up[m.seq & (MAX_MISSING - 1)] = m.seq + 1;
            e->st.lost++;
            continue;
        }
        next = FFMIN(next, end);
        if (m.retries < e->max_retries) {
            int64_t due = m.retries ? m.sent + retry : m.detected + REORDER_ALLOW;
            if (due <= now && nb < MAX_NACK_SEQS) {
                seqs[nb++] = m.seq;
                m.sent = now;
                m.retries++;
                due = now + retry;
            }
            next = FFMIN(next, due);
        }
        e->miss[j++] = m;
    }
    e->nb_miss = j;
    if (e->need_keyframe &&
        now - e->last_keyframe_req >= FFMAX(e->srtt, 200000) + 100000) {
        keyframe = 1;
        e->need_keyframe = 0;
        e->last_keyframe_req = now;
    } else if (e->need_keyframe) {
        next = FFMIN(next, e->last_keyframe_req + FFMAX(e->srtt, 200000) + 100000);
    }

    if (e->twcc_id && e->twcc_started) {
        if (now >= e->twcc_due)
            twcc = 1;
        else
            next = FFMIN(next, e->twcc_due);
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
            /* a report when there is something to report; the rest, if
             * it did not fit, at the next call */
            if (e->twcc_next <= e->twcc_highest && !twcc_write(e, &w, me, s->ssrc))
                twcc_sent = 1;
            e->twcc_due = e->twcc_next <= e->twcc_highest && twcc_sent ? now : now + TWCC_INTERVAL;
            next = FFMIN(next, e->twcc_due);
        }
        if (keyframe && e->pli)
            lcv_rtcp_write_pli(&w, me, s->ssrc);
        else if (keyframe) {
            LCVRTCPFirItem fir = { .ssrc = s->ssrc, .seq = ++e->fir_seq };
            lcv_rtcp_write_fir(&w, LCV_PSFB_FIR, me, &fir, 1);
        }
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
    memset(st, 0, sizeof(*st));
    st->rtt_ms = -1;
    if (!s->ext)
        return;
    *st = s->ext->st;
    st->ssrc            = s->ssrc;
    st->pending         = s->ext->nb_miss;
    st->reorder_wait_ms = reorder_wait(s->ext) / 1000.0;
}

int lcv_rtp_demuxer_get_stats(AVFormatContext *s, int stream_index, LCVRTPReceiveStats *st, size_t size)
{
    const RTSPState *rt;

    if (!st || !size)
        return AVERROR(EINVAL);
    if (!s->iformat || (strcmp(s->iformat->name, "sdp") && strcmp(s->iformat->name, "rtsp")))
        return AVERROR(ENOSYS);
    rt = s->priv_data;
    if (rt->transport != RTSP_TRANSPORT_RTP)
        return AVERROR(ENOSYS);
    for (int i = 0; i < rt->nb_rtsp_streams; i++) {
        const RTSPStream *rtsp_st = rt->rtsp_streams[i];
        const RTPDemuxContext *r = rtsp_st->transport_priv;
        if (rtsp_st->stream_index != stream_index || !r || !r->ext)
            continue;
        {
            /* at most the caller's size: a program built against another
             * version of lcvrtp.h gets the fields it knows */
            LCVRTPReceiveStats all;
            ff_rtpdec_ext_get_stats(r, &all);
            memset(st, 0, size);
            memcpy(st, &all, FFMIN(size, sizeof(all)));
        }
        return 0;
    }
    return AVERROR(ENOSYS);
}

int ff_rtsp_ext_sdp_a_line(AVFormatContext *s, const char *line)
{
    RTSPState *rt = s->priv_data;
    RTSPStream *rtsp_st;

    if (!rt->nb_rtsp_streams)
        return 0;
    rtsp_st = rt->rtsp_streams[rt->nb_rtsp_streams - 1];
    return ff_rtpdec_ext_sdp_a_line(&rtsp_st->ext_sdp, rtsp_st->sdp_payload_type, line);
}

void ff_rtsp_ext_note_max_delay(AVFormatContext *s)
{
    RTSPState *rt = s->priv_data;

    rt->ext_opts.max_delay      = s->max_delay;
    rt->ext_opts.have_max_delay = 1;
}

int ff_rtsp_ext_open_stream(AVFormatContext *s, RTSPStream *rtsp_st)
{
    RTSPState *rt = s->priv_data;
    RTPDemuxContext *r = rtsp_st->transport_priv;
    FFRTPDecExtOpts opts = rt->ext_opts;
    /* feedback can be sent: RTSP over UDP, or an SDP input with
     * rtcp_to_source (or custom I/O) */
    int feedback = rtsp_st->feedback &&
                   rt->lower_transport != RTSP_LOWER_TRANSPORT_UDP_MULTICAST &&
                   (strcmp(s->iformat->name, "sdp") ||
                    rt->rtsp_flags & (RTSP_FLAG_RTCP_TO_SOURCE | RTSP_FLAG_CUSTOM_IO));
    int ret;

    if (!opts.have_max_delay)
        opts.max_delay = s->max_delay;
    if ((ret = ff_rtpdec_ext_open(r, &rtsp_st->ext_sdp, &opts, feedback)) < 0)
        return ret;
    /* FFmpeg's 500 packets hold a keyframe of 8 Mbit/s video and little
     * more: while NACKs are pursued, the queue must hold the wait */
    if (r->ext->nack && rt->reordering_queue_size < 0 && r->queue_size > 0)
        r->queue_size = FFMAX(r->queue_size, NACK_QUEUE_SIZE);
    return 0;
}

int ff_rtsp_ext_drain(AVFormatContext *s, AVPacket *pkt)
{
    RTSPState *rt = s->priv_data;

    if (rt->transport != RTSP_TRANSPORT_RTP)
        return AVERROR_EOF;
    for (int i = 0; i < rt->nb_rtsp_streams; i++) {
        RTPDemuxContext *r = rt->rtsp_streams[i]->transport_priv;
        while (r && r->queue) {
            /* the head of the queue, gaps skipped: each call dequeues one */
            int ret = ff_rtp_parse_packet(r, pkt, NULL, 0);
            if (ret == 1)
                rt->cur_transport_priv = r;
            if (ret >= 0)
                return 0;
        }
    }
    return AVERROR_EOF;
}

int ff_rtsp_ext_feedback_all(AVFormatContext *s, int timeout_ms, int64_t wait_end)
{
    const RTSPState *rt = s->priv_data;
    int64_t t = timeout_ms * 1000LL;

    if (rt->transport == RTSP_TRANSPORT_RTP) {
        for (int i = 0; i < rt->nb_rtsp_streams; i++) {
            RTSPStream *rtsp_st = rt->rtsp_streams[i];
            RTPDemuxContext *r = rtsp_st->transport_priv;
            if (r && rtsp_st->rtp_handle && ff_rtpdec_ext_active(r))
                t = FFMIN(t, ff_rtpdec_ext_feedback(r, rtsp_st->rtp_handle, NULL));
        }
    }
    if (wait_end)
        t = FFMIN(t, wait_end - av_gettime_relative());
    if (t >= timeout_ms * 1000LL)
        return timeout_ms;
    return t <= 0 ? 0 : (int)((t + 999) / 1000);
}

#if CONFIG_RTSP_DEMUXER
int ff_rtsp_ext_listen_remote(AVFormatContext *s, RTSPStream *rtsp_st, int client_port)
{
#if CONFIG_RTP_PROTOCOL
    RTSPState *rt = s->priv_data;
    struct sockaddr_storage peer;
    socklen_t len = sizeof(peer);
    char host[256], url[MAX_URL_SIZE];
    int fd = rt->rtsp_hd ? ffurl_get_file_handle(rt->rtsp_hd) : -1;

    if (fd < 0 || client_port <= 0 || !rtsp_st->rtp_handle)
        return 0;
    /* the publisher's address: the RTSP connection's peer */
    if (getpeername(fd, (struct sockaddr *)&peer, &len) < 0 ||
        getnameinfo((struct sockaddr *)&peer, len, host, sizeof(host), NULL, 0, NI_NUMERICHOST))
        return AVERROR(errno ? errno : EINVAL);
    ff_url_join(url, sizeof(url), "rtp", NULL, host, client_port, NULL);
    av_log(s, AV_LOG_VERBOSE, "RTCP of stream %d goes to %s\n", rtsp_st->stream_index, url);
    return ff_rtp_set_remote_url(rtsp_st->rtp_handle, url);
#else
    return 0;
#endif
}
#endif

#else /* !CONFIG_RTPDEC: no RTP demuxer (e.g. --disable-network) */

int lcv_rtp_demuxer_get_stats(AVFormatContext *s, int stream_index, LCVRTPReceiveStats *st, size_t size)
{
    return AVERROR(ENOSYS);
}

#endif /* CONFIG_RTPDEC */

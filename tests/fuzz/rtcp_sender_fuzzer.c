/*
 * libFuzzer harness for the RTP sender's RTCP reader (rtpfb.c): receiver
 * reports and their round trips, the receiver table, NACKs answered from
 * the history (rtphist.c, plain or RFC 4588 RTX) within its budget,
 * PLI/FIR, REMB, transport-cc and RFC 8888 feedback read against the send
 * log (rtptwcc.c) and fed to the congestion controller (rtpcc.c), BYE, and
 * the SRs and statistics of its timer.
 *
 * rtpfb.c is included, so the harness sees its state; the sender it drives
 * (rtpsend.c: threads and sockets) is replaced by the functions below,
 * which check what the reader asks of it. The clock is the harness's:
 * libavutil's time functions are defined here (time.o is never linked).
 *
 * Input: [config][ssrc, 4 bytes], then records [op][length, 2 bytes][bytes]:
 * op bits 0-1: 0 an RTCP datagram from the receiver, 1 a media packet
 * leaving (numbered in the send log if it carries the transport-cc
 * extension, then handed to the history; with RTX on, one of RTX's
 * payload type is numbered only, as a resend that left), 2 the sender thread's timer, 3
 * what the muxer polls (keyframe requests, the target, the statistics, a
 * tail probe); bits 2-7: ms the clock moves on first. config bits: 0 NACKs
 * answered, 1 RTX (PT 97), 2 congestion control, 3 an SR every second
 * (else RFC 3550's interval), 4-5 the media rate, 6-7 the resend share.
 *
 * Besides ASan and UBSan, it aborts when the reader breaks a rule:
 * - every resend is a packet that left: byte for byte, or as RTX with the
 *   original timestamp, the OSN after the header and the same payload;
 * - no resend with NACKs off; the bytes resent for NACKs stay within the
 *   budget (a quarter second of max_share of the media rate, or 8 packets,
 *   banked at first, plus max_share of the media rate since);
 * - the target (pacer and encoder) stays within [min_bitrate, max_bitrate];
 * - keyframe requests are keyframe_min_interval apart;
 * - the receiver table never grows past LCV_RTP_MAX_RECEIVERS.
 */

#include "libavformat/rtpfb.c"
#include "libavformat/rtphdrext.h"

#include <stdarg.h>
#include <stdlib.h>

#define PKT_SIZE   1200
#define KEPT       1024             ///< sent packets the harness keeps a copy of
#define MIN_RATE   100000
#define MAX_RATE   8000000
#define KF_MIN     300000
#define RTX_SSRC   0x52545831

typedef struct Kept {
    int seq;                        ///< -1: none
    int size;
    uint8_t data[1500];
} Kept;

static int64_t fake_now;
static Kept kept[KEPT];
static FFRTPSenderClient client;
static int attached, in_rtcp, nack_on, rtx_on, cc_on;
static double rate_now, share_now;
static uint64_t resent_bytes;

/* libavutil/time.c's functions, on the harness's clock */
int64_t av_gettime(void) { return fake_now + 1700000000000000LL; }
int64_t av_gettime_relative(void) { return fake_now; }
int av_gettime_relative_is_monotonic(void) { return 1; }
int av_usleep(unsigned usec) { fake_now += usec; return 0; }
/* and the same run every time (the RTX sequence, the SR intervals) */
uint32_t av_get_random_seed(void) { return 0x5eed5eed; }

static void fail(const char *what)
{
    fprintf(stderr, "rtcp_sender_fuzzer: %s\n", what);
    abort();
}

/* every message is formatted (a bad format or argument shows under ASan),
 * none printed */
static void log_cb(void *avcl, int level, const char *fmt, va_list vl)
{
    char line[1024];
    vsnprintf(line, sizeof(line), fmt, vl);
}

/* ---- the sender, as the reader sees it ---- */

int ff_rtp_sender_set_client(FFRTPSender *s, const FFRTPSenderClient *c)
{
    if (c)
        client = *c;
    attached = !!c;
    return 0;
}

/* a copy of a packet that left, unchanged or as RTX */
static int check_copy(const uint8_t *buf, int len)
{
    const Kept *k;
    int seq, hdr;

    if (len < 12)
        fail("a resend shorter than an RTP header");
    if (!rtx_on) {
        seq = AV_RB16(buf + 2);
        k = &kept[seq % KEPT];
        if (k->seq == seq && (k->size != len || memcmp(k->data, buf, len)))
            fail("a plain resend differs from the packet that left");
        return len;
    }
    if ((buf[1] & 0x7f) != 97 || AV_RB32(buf + 8) != RTX_SSRC)
        fail("an RTX resend without the RTX payload type and SSRC");
    hdr = FFMAX(ff_rtp_header_size(buf, len - 2), 12);
    if (hdr + 2 > len)
        fail("an RTX resend without room for its OSN");
    seq = AV_RB16(buf + hdr);
    k = &kept[seq % KEPT];
    if (k->seq == seq &&
        (k->size + 2 != len || memcmp(k->data + 4, buf + 4, 4) ||
         (k->size > hdr && memcmp(k->data + hdr, buf + hdr + 2, k->size - hdr))))
        fail("an RTX resend is not its original's timestamp, OSN and payload");
    return len;
}

/* a resend */
int ff_rtp_sender_send_now(FFRTPSender *s, const uint8_t *buf, int len)
{
    if (!attached)
        fail("resend with the client detached");
    if (!nack_on && in_rtcp)
        fail("a NACK answered with NACKs off");
    if (in_rtcp && len >= 12)
        resent_bytes += len;
    return check_copy(buf, len);
}

/* a probe cluster's packet: from the thread's tick, never while RTCP is read */
int ff_rtp_sender_send_probe(FFRTPSender *s, const uint8_t *buf, int len)
{
    if (!attached)
        fail("a probe with the client detached");
    if (in_rtcp)
        fail("a probe sent while RTCP was read");
    return check_copy(buf, len);
}

int ff_rtp_sender_send_sr(FFRTPSender *s, int bye, uint64_t *ntp)
{
    *ntp = ff_get_formatted_ntp_time(ff_ntp_time());
    return 52;
}

void ff_rtp_sender_get_stats(FFRTPSender *s, FFRTPSendStats *st)
{
    memset(st, 0, sizeof(*st));
}

double ff_rtp_sender_media_rate(FFRTPSender *s)
{
    return rate_now;
}

/* 0: the pacer goes by the media rate (nobody follows the target yet, or
 * no transport feedback came in time); else within the controller's range */
void ff_rtp_sender_set_link_rate(FFRTPSender *s, int64_t bit_rate)
{
    if (bit_rate && (bit_rate < MIN_RATE || bit_rate > MAX_RATE))
        fail("the pacer's rate outside [min_bitrate, max_bitrate]");
}

/* ---- the harness ---- */

static void media(FFRTPFeedback *fb, FFRTPTwccLog *log, const uint8_t *data, int len)
{
    AVBufferRef *buf;
    uint8_t *p;
    Kept *k;

    if (len < 12 || len > sizeof(kept[0].data) || !(buf = av_buffer_alloc(len)))
        return;
    p = buf->data;
    memcpy(p, data, len);
    ff_rtp_twcc_sent(log, &p, &len, 1, fake_now);
    /* an RTX copy that left in the capture the seed was made from: numbered
     * in the send log as the sender numbers its resends, and no more (the
     * history holds originals only) */
    if (rtx_on && (p[1] & 0x7f) == 97) {
        av_buffer_unref(&buf);
        return;
    }
    /* what left, as the history sees it (numbered) */
    k = &kept[AV_RB16(p + 2) % KEPT];
    k->seq  = AV_RB16(p + 2);
    k->size = len;
    memcpy(k->data, p, len);
    client.sent(client.opaque, &buf, &len, 1);
    av_buffer_unref(&buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const double rates[]  = { 0, 12500, 250000, 1250000 };
    static const double shares[] = { 0, 0.1, 0.3, 1.0 };
    FFRTPFeedbackConfig cfg = {
        .history_ms      = 1000,
        .rtx_pt          = -1,
        .kf_min_interval = KF_MIN,
        .cname           = "fuzz",
        .clock_rate      = 90000,
        .packet_size     = PKT_SIZE,
        .min_bitrate     = MIN_RATE,
        .max_bitrate     = MAX_RATE,
    };
    FFRTPFeedback *fb = NULL;
    FFRTPTwccLog *log = NULL;
    int64_t start, last_kf = INT64_MIN;
    uint64_t kf_requests = 0;
    double cap;
    static int once;

    if (!once) {
        av_log_set_callback(log_cb);
        once = 1;
    }
    if (size < 5)
        return 0;
    nack_on   = data[0] & 1;
    rtx_on    = nack_on && (data[0] & 2);
    cc_on     = !!(data[0] & 4);
    rate_now  = rates[(data[0] >> 4) & 3];
    share_now = shares[data[0] >> 6];
    cfg.nack        = nack_on;
    cfg.rtx_pt      = rtx_on ? 97 : -1;
    cfg.rtx_ssrc    = RTX_SSRC;
    cfg.sr_interval = data[0] & 8 ? 1000000 : 0;
    cfg.max_share   = share_now;
    cfg.cc          = cc_on;
    cfg.probe       = cc_on;    /* the muxer's default: probe clusters from the tick */
    cfg.ssrc        = AV_RB32(data + 1);
    data += 5;
    size -= 5;
    for (int i = 0; i < KEPT; i++)
        kept[i].seq = -1;
    fake_now     = 1000000;
    start        = fake_now;
    resent_bytes = 0;
    if (ff_rtp_twcc_log_alloc(&log, cfg.ssrc) < 0)
        return 0;
    cfg.twcc_log = log;
    if (ff_rtpfb_start(&fb, NULL, (FFRTPSender *)&client, &cfg) < 0)
        goto end;

    while (size >= 3) {
        int op = data[0], len = FFMIN(AV_RB16(data + 1), size - 3);
        const uint8_t *p = data + 3;
        LCVRTPSenderStats st;

        data += 3 + len;
        size -= 3 + len;
        fake_now += (op >> 2) * 1000;
        switch (op & 3) {
        case 0:
            in_rtcp = 1;
            client.rtcp(client.opaque, p, len, fake_now);
            in_rtcp = 0;
            break;
        case 1:
            media(fb, log, p, len);
            break;
        case 2:
            client.tick(client.opaque, fake_now);
            break;
        case 3: {
            LCVRTPReceiverStats rs;
            int64_t target = ff_rtpfb_target_bitrate(fb);
            ff_rtpfb_keyframe_requested(fb);
            ff_rtpfb_keyframe_sent(fb);
            ff_rtpfb_needs_first_sr(fb);
            ff_rtpfb_last_nack(fb);
            ff_rtpfb_tail_probe(fb);
            if (cc_on && (target < MIN_RATE || target > MAX_RATE))
                fail("the encoder's target outside [min_bitrate, max_bitrate]");
            for (int i = 0; ff_rtpfb_get_receiver_stats(fb, i, &rs) >= 0; i++)
                if (i >= LCV_RTP_MAX_RECEIVERS)
                    fail("more receivers than the table holds");
            break;
        }
        }
        ff_rtpfb_get_stats(fb, &st);
        if (st.nb_receivers > LCV_RTP_MAX_RECEIVERS)
            fail("more receivers than the table holds");
        if (st.keyframe_requests != kf_requests) {
            if (st.keyframe_requests != kf_requests + 1)
                fail("two keyframe requests at once");
            if (last_kf != INT64_MIN && fake_now - last_kf < KF_MIN)
                fail("keyframe requests closer than keyframe_min_interval");
            last_kf     = fake_now;
            kf_requests = st.keyframe_requests;
        }
        /* the history's budget: what is banked at first (a quarter
         * second's worth, at least 8 packets), plus the refill since */
        cap = FFMAX(rate_now * share_now / 4, FF_RTP_HIST_MIN_BURST * (PKT_SIZE + 2));
        if (resent_bytes > cap + rate_now * share_now * (fake_now - start) / 1e6 + 1)
            fail("more resent for NACKs than the budget allows");
    }

end:
    /* FUZZ_DEBUG=1: what one input did, to check that the seeds reach the
     * reader's paths */
    if (fb && getenv("FUZZ_DEBUG")) {
        LCVRTPSenderStats st;
        FFRTPCCStats cs = { 0 };
        ff_rtpfb_get_stats(fb, &st);
        if (fb->cc)
            ff_rtpcc_get_stats(fb->cc, &cs);
        fprintf(stderr, "rtcp %"PRIu64" malformed %"PRIu64" receivers %d nacked %"PRIu64" resent %"PRIu64
                " over budget %"PRIu64" keyframe requests %"PRIu64" cc feedbacks %"PRIu64" target %"PRId64
                " acked %"PRId64"\n", st.rtcp_received, st.rtcp_malformed, st.nb_receivers, st.nacked,
                st.retransmitted, st.nack_rate_limited, st.keyframe_requests, cs.feedbacks,
                ff_rtpfb_target_bitrate(fb), cs.acked);
    }
    ff_rtpfb_free(&fb);
    ff_rtp_twcc_log_free(&log);
    return 0;
}

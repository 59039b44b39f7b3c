/*
 * libFuzzer harness for the RTP receiver's packet path: FFmpeg's RTP
 * demuxer context (rtpdec.c: the reorder queue, its byte cap and resync)
 * with this project's extension (rtpdec_ext.c: RTX restored, the NACK
 * generator and its RTCP budget, the late joiner, transport-cc receive,
 * H.264 access units at the marker bit) and the H.264 depacketizer, as an
 * SDP with RTX, NACK, PLI and transport-cc sets them up. The input is a
 * sequence of datagrams, each [flags][length, 2 bytes][bytes]: flags bit 0
 * ends the reorder wait after it (as the demuxer does when the wait is
 * over), bit 1 lets the receiver send its feedback (into a memory buffer),
 * bits 2-7 move the clock on by that many ms first. The clock is the
 * harness's: libavutil's time functions are defined here (time.o is never
 * linked), so that NACK retries, give-ups and budgets happen as they would
 * over real time, and every run of an input is the same. ASan and UBSan
 * catch what goes wrong; what the demuxer hands on is freed.
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/intreadwrite.h"
#include "libavutil/mem.h"
#include "libavformat/avformat.h"
#include "libavformat/avio.h"
#include "libavformat/internal.h"
#include "libavformat/rtpdec.h"
#include "libavformat/rtpdec_ext.h"

extern const RTPDynamicProtocolHandler ff_h264_dynamic_handler;

static const char *const sdp_lines[] = {
    "rtpmap:97 rtx/90000", "fmtp:97 apt=96", "rtcp-fb:96 nack", "rtcp-fb:96 nack pli",
    "rtcp-fb:96 ccm fir",
    "extmap:1 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
};

static int out_units;
static int64_t fake_now;

/* libavutil/time.c's functions, on the harness's clock */
int64_t av_gettime(void) { return fake_now + 1700000000000000LL; }
int64_t av_gettime_relative(void) { return fake_now; }
int av_gettime_relative_is_monotonic(void) { return 1; }
int av_usleep(unsigned usec) { fake_now += usec; return 0; }

/* every message is formatted (a bad format or argument shows under ASan),
 * none printed: hostile inputs make the demuxer warn for every packet, and
 * a campaign's log grew by gigabytes */
static void log_cb(void *avcl, int level, const char *fmt, va_list vl)
{
    char line[1024];
    vsnprintf(line, sizeof(line), fmt, vl);
}

/* what the call handed on, and everything that follows it (ret 1) */
static void drain(RTPDemuxContext *s, AVPacket *pkt, int ret)
{
    for (int k = 0; ret >= 0 && k < 8192; k++) {
        out_units += pkt->size > 0;
        av_packet_unref(pkt);
        if (ret != 1)
            break;
        ret = ff_rtp_parse_packet(s, pkt, NULL, 0);
    }
    av_packet_unref(pkt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const RTPDynamicProtocolHandler *h = &ff_h264_dynamic_handler;
    FFRTPDecExtOpts opts = { .nack = -1, .max_delay = -1, .nack_max_retries = 10, .au_marker = 1 };
    FFRTPDecExtSdp sdp = { 0 };
    AVFormatContext *ic = avformat_alloc_context();
    AVIOContext *pb = NULL;
    AVPacket *pkt = av_packet_alloc();
    PayloadContext *priv = NULL;
    RTPDemuxContext *s = NULL;
    AVStream *st;
    uint8_t *fb;

    static int once;

    if (!once) {
        av_log_set_callback(log_cb);
        once = 1;
    }
    out_units = 0;
    fake_now  = 1000000;
    if (!ic || !pkt || avio_open_dyn_buf(&pb) < 0 || !(st = avformat_new_stream(ic, NULL)))
        goto end;
    st->codecpar->codec_type = AVMEDIA_TYPE_VIDEO;
    st->codecpar->codec_id   = AV_CODEC_ID_H264;
    avpriv_set_pts_info(st, 32, 1, 90000);
    if (!(s = ff_rtp_parse_open(ic, st, 96, 4096)))
        goto end;
    if (h->priv_data_size && !(priv = av_mallocz(h->priv_data_size)))
        goto end;
    if (h->init && h->init(ic, st->index, priv) < 0)
        goto end;
    ff_rtp_parse_set_dynamic_protocol(s, priv, h);
    for (int i = 0; i < FF_ARRAY_ELEMS(sdp_lines); i++)
        ff_rtpdec_ext_sdp_a_line(&sdp, 96, sdp_lines[i]);
    if (ff_rtpdec_ext_open(s, &sdp, &opts, 1) < 0)
        goto end;

    while (size >= 3) {
        int flags = data[0], len = FFMIN(AV_RB16(data + 1), size - 3), ret;
        uint8_t *buf = av_malloc(len + AV_INPUT_BUFFER_PADDING_SIZE), *b = buf;

        data += 3;
        size -= 3;
        if (!buf)
            break;
        fake_now += (flags >> 2) * 1000;
        memcpy(buf, data, len);
        memset(buf + len, 0, AV_INPUT_BUFFER_PADDING_SIZE);
        data += len;
        size -= len;
        /* the queue takes the buffer (b set to NULL) or not */
        ret = ff_rtp_parse_packet(s, pkt, &b, len);
        drain(s, pkt, ret);
        av_free(b);
        if (flags & 1)
            drain(s, pkt, 1);       /* the wait is over: the head of the queue, gaps skipped */
        if (flags & 2)
            ff_rtpdec_ext_feedback(s, NULL, pb);
    }

end:
    /* FUZZ_DEBUG=1: what one input did, to check that the seeds reach the
     * depacketizer and the NACK generator */
    if (s && getenv("FUZZ_DEBUG")) {
        LCVRTPReceiveStats rs;
        ff_rtpdec_ext_get_stats(s, &rs);
        fprintf(stderr, "packets %"PRIu64" missing %"PRIu64" rtx %"PRIu64" nacked %"PRIu64
                " plis %"PRIu64" twcc %"PRIu64" access units %d\n", rs.packets, rs.missing,
                rs.rtx_packets, rs.nacked, rs.plis, rs.twcc_reports, out_units);
    }
    if (s)
        ff_rtp_parse_close(s);
    if (priv && h->close)
        h->close(priv);
    av_free(priv);
    if (pb) {
        avio_close_dyn_buf(pb, &fb);
        av_free(fb);
    }
    av_packet_free(&pkt);
    avformat_free_context(ic);
    return 0;
}

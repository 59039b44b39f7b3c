/*
 * How a libav* program reads the loss recovery of FFmpeg's RTP receiver:
 * open an SDP input (sdp_flags rtcp_to_source, so that it can send NACKs),
 * read until the sender's BYE, and ask lcv_rtp_demuxer_get_stats() for the
 * counters before closing it.
 *
 *   rtp_receiver_stats SDP_FILE SECONDS
 *
 * Prints the counters as "key value" pairs on one line, and the number of
 * packets av_read_frame() returned; the test compares them with the lossy
 * relay's own counts. Exit status 1 if the call fails or counts nothing.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "libavformat/avformat.h"
#include <stddef.h>
#include <string.h>

#include "libavformat/lcvrtp.h"
#include "libavutil/dict.h"
#include "libavutil/time.h"

int main(int argc, char **argv)
{
    AVFormatContext *ic = NULL;
    AVDictionary *opts = NULL;
    AVPacket *pkt = av_packet_alloc();
    LCVRTPReceiveStats st, none;
    /* a program built against an older lcvrtp.h, whose struct ended before
     * rtt_ms: the library must fill that much and not a byte more */
    struct { LCVRTPReceiveStats st; uint8_t after[8]; } old;
    const size_t old_size = offsetof(LCVRTPReceiveStats, rtt_ms);
    int64_t end;
    int ret, frames = 0, got, old_ok;

    if (argc < 3 || !pkt)
        return 2;
    av_log_set_level(AV_LOG_ERROR);
    end = av_gettime_relative() + atoi(argv[2]) * 1000000LL;
    av_dict_set(&opts, "protocol_whitelist", "file,udp,rtp", 0);
    av_dict_set(&opts, "sdp_flags", "rtcp_to_source", 0);
    ret = avformat_open_input(&ic, argv[1], NULL, &opts);
    av_dict_free(&opts);
    if (ret < 0) {
        fprintf(stderr, "open %s: %s\n", argv[1], av_err2str(ret));
        return 1;
    }
    /* not an RTP input's stream: refused */
    got = lcv_rtp_demuxer_get_stats(ic, 5, &none, sizeof(none));
    while (av_gettime_relative() < end && (ret = av_read_frame(ic, pkt)) >= 0) {
        frames++;
        av_packet_unref(pkt);
    }
    ret = lcv_rtp_demuxer_get_stats(ic, 0, &st, sizeof(st));
    memset(&old, 0xa5, sizeof(old));
    old_ok = lcv_rtp_demuxer_get_stats(ic, 0, &old.st, old_size) >= 0 &&
             !memcmp(&old.st, &st, old_size) &&
             ((const uint8_t *)&old.st)[old_size] == 0xa5 && old.after[7] == 0xa5;
    printf("read_packets %d bad_index %s packets %"PRIu64" missing %"PRIu64" recovered %"PRIu64
           " rtx_packets %"PRIu64" lost %"PRIu64" late %"PRIu64" duplicates %"PRIu64
           " nack_packets %"PRIu64" nacked %"PRIu64" plis %"PRIu64" rtt_ms %.1f reorder_wait_ms %.1f"
           " ssrc %"PRIu32" older_struct %s\n", frames, got == AVERROR(ENOSYS) ? "refused" : "accepted",
           st.packets, st.missing, st.recovered, st.rtx_packets, st.lost, st.late, st.duplicates,
           st.nack_packets, st.nacked, st.plis, st.rtt_ms, st.reorder_wait_ms, st.ssrc,
           old_ok ? "filled-to-its-size" : "overrun-or-wrong");
    avformat_close_input(&ic);
    av_packet_free(&pkt);
    return ret < 0 || !st.packets || got != AVERROR(ENOSYS) || !old_ok;
}

/*
 * How a libav* program reacts to its RTP receivers: encode with libx264,
 * send with the rtp muxer, and before each frame ask the muxer whether a
 * receiver wants a keyframe (PLI or FIR); if so, code an IDR; and, with the
 * muxer's congestion control (option cc), which bit rate the network takes
 * now, and give it to the encoder. At the end, read the feedback statistics.
 *
 *   rtp_keyframe_example RTCPINJECT DEST_PORT
 *
 * For the test it asks rtcpinject to send a REMB of 500 kbit/s after frame
 * 10 and a PLI after frame 20, and checks that the target starts at the
 * muxer's default start_bitrate (1 Mbit/s, below its max_bitrate of 2) and
 * is at most the REMB's after it, that
 * frame 21 is a keyframe, and no other after frame 0 (the GOP is 1000
 * frames).
 */

#include <stdio.h>
#include <stdlib.h>

#include "libavcodec/avcodec.h"
#include "libavformat/avformat.h"
#include "libavformat/lcvrtp.h"
#include "libavutil/opt.h"
#include "libavutil/time.h"

#define SSRC 0x0badcafe

int main(int argc, char **argv)
{
    const AVCodec *codec = avcodec_find_encoder_by_name("libx264");
    AVCodecContext *enc = NULL;
    AVFormatContext *oc = NULL;
    AVFrame *frame = NULL;
    AVPacket *pkt = NULL;
    LCVRTPSenderStats st;
    char url[256], cmd[512];
    int ret, dest, local, keyframes[64] = { 0 }, n_out = 0, ok;
    int64_t target, target_first = -1, target_last = -1;

    if (argc < 3 || !codec)
        return 2;
    av_log_set_level(AV_LOG_ERROR);
    dest  = atoi(argv[2]);
    local = dest + 2;       /* its own ports: the next pair */
    snprintf(url, sizeof(url), "rtp://127.0.0.1:%d?localrtpport=%d&localrtcpport=%d",
             dest, local, local + 1);

    enc = avcodec_alloc_context3(codec);
    frame = av_frame_alloc();
    pkt = av_packet_alloc();
    if (!enc || !frame || !pkt)
        return 1;
    enc->width = 160; enc->height = 120; enc->pix_fmt = AV_PIX_FMT_YUV420P;
    enc->time_base = (AVRational){ 1, 25 };
    enc->gop_size = 1000;
    av_opt_set(enc->priv_data, "preset", "ultrafast", 0);
    av_opt_set(enc->priv_data, "tune", "zerolatency", 0);
    if ((ret = avcodec_open2(enc, codec, NULL)) < 0)
        goto end;

    if ((ret = avformat_alloc_output_context2(&oc, NULL, "rtp", url)) < 0)
        goto end;
    if (!avformat_new_stream(oc, NULL)) {
        ret = AVERROR(ENOMEM);
        goto end;
    }
    avcodec_parameters_from_context(oc->streams[0]->codecpar, enc);
    oc->streams[0]->time_base = enc->time_base;
    if ((ret = avio_open(&oc->pb, url, AVIO_FLAG_WRITE)) < 0)
        goto end;
    av_opt_set_int(oc->priv_data, "ssrc", SSRC, 0);
    av_opt_set_int(oc->priv_data, "keyframe_min_interval", 0, 0);
    av_opt_set_int(oc->priv_data, "cc", 1, 0);
    av_opt_set_int(oc->priv_data, "max_bitrate", 2000000, 0);
    if ((ret = avformat_write_header(oc, NULL)) < 0)
        goto end;

    frame->format = enc->pix_fmt; frame->width = enc->width; frame->height = enc->height;
    if ((ret = av_frame_get_buffer(frame, 0)) < 0)
        goto end;
    for (int i = 0; i < 40; i++) {
        if ((ret = av_frame_make_writable(frame)) < 0)
            goto end;
        for (int y = 0; y < enc->height; y++)
            for (int x = 0; x < enc->width; x++)
                frame->data[0][y * frame->linesize[0] + x] = x + y + 3 * i;
        for (int p = 1; p < 3; p++)
            for (int y = 0; y < enc->height / 2; y++)
                for (int x = 0; x < enc->width / 2; x++)
                    frame->data[p][y * frame->linesize[p] + x] = 128 + p * i;
        frame->pts = i;

        /* the bit rate the network takes now (0 without cc) */
        target = lcv_rtp_muxer_target_bitrate(oc, 0);
        if (i == 0)
            target_first = target;
        if (i == 39)
            target_last = target;
        if (target > 0)
            enc->bit_rate = target;     /* libx264 reconfigures (with a VBV: see the docs) */

        /* did a receiver ask for a keyframe? */
        frame->pict_type = lcv_rtp_muxer_keyframe_requested(oc, 0) ? AV_PICTURE_TYPE_I
                                                                    : AV_PICTURE_TYPE_NONE;
        if ((ret = avcodec_send_frame(enc, frame)) < 0)
            goto end;
        while ((ret = avcodec_receive_packet(enc, pkt)) >= 0) {
            if (n_out < 64)
                keyframes[n_out] = !!(pkt->flags & AV_PKT_FLAG_KEY);
            n_out++;
            av_packet_rescale_ts(pkt, enc->time_base, oc->streams[0]->time_base);
            if ((ret = av_write_frame(oc, pkt)) < 0)
                goto end;
        }
        av_usleep(40000);           /* a live source: 25 frames a second */
        if (i == 10) {
            /* a receiver's REMB, from outside: the target comes down to it
             * within 1 s (by half per 500 ms at most) */
            snprintf(cmd, sizeof(cmd), "%s remb %d %d 500000 > /dev/null", argv[1], local + 1, SSRC);
            if (system(cmd))
                fprintf(stderr, "could not run %s\n", argv[1]);
            av_usleep(100000);
        }
        if (i == 20) {
            /* a receiver's PLI, from outside */
            snprintf(cmd, sizeof(cmd), "%s pli %d %d > /dev/null", argv[1], local + 1, SSRC);
            if (system(cmd))
                fprintf(stderr, "could not run %s\n", argv[1]);
            av_usleep(100000);      /* the muxer's RTCP thread reads it */
        }
    }
    av_usleep(50000);
    ret = lcv_rtp_muxer_get_stats(oc, 0, &st, sizeof(st));     /* before the trailer frees it */
    av_write_trailer(oc);

    ok = ret >= 0 && n_out == 40 && keyframes[0] && keyframes[21] && st.pli == 1 &&
         st.keyframe_requests == 1 && target_first == 1000000 && target_last > 0 &&
         target_last <= 500000;
    for (int i = 1; i < 40; i++)
        if (i != 21 && keyframes[i])
            ok = 0;
    printf("%d frames sent; keyframes at:", n_out);
    for (int i = 0; i < 40; i++)
        if (keyframes[i])
            printf(" %d", i);
    printf(" (PLI after frame 20); muxer stats: %llu packets, PLI %llu, keyframe requests %llu; "
           "target bit rate %lld before frame 0, %lld before frame 39 (REMB 500000 after frame 10)\n",
           (unsigned long long)st.packets, (unsigned long long)st.pli,
           (unsigned long long)st.keyframe_requests, (long long)target_first, (long long)target_last);
    ret = ok ? 0 : 1;
end:
    if (oc)
        avio_closep(&oc->pb);
    avformat_free_context(oc);
    avcodec_free_context(&enc);
    av_frame_free(&frame);
    av_packet_free(&pkt);
    if (ret < 0)
        fprintf(stderr, "error: %s\n", av_err2str(ret));
    return ret != 0;
}

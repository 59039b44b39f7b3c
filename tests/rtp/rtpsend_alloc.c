/*
 * Heap allocations per RTP packet in the RTP muxer's send path, through the
 * libavformat API, counted by the malloc_count.so preload shim.
 *
 *   LD_PRELOAD=malloc_count.so rtpsend_alloc PORT N MODE [PKT_SIZE [MUXER_OPTIONS]]
 *
 * Sends 600 warm-up access units, then N, then 2N (H.264 IDR slices of 20000
 * bytes, 17 FU-A packets each at pkt_size 1200) to 127.0.0.1:PORT, and
 * prints the allocations of each run per packet. Fails unless the 2N run
 * allocates exactly as much as the N run: nothing per packet.
 * MUXER_OPTIONS (key=value:key=value) go to the rtp muxer, e.g.
 * feedback=0, or nack_history=0. With the history on (the default, 1 s)
 * it holds a second of media (25 of these access units, by their
 * timestamps), full long before the warm-up ends, so every packet it
 * drops hands its buffer back to the pool: 0 per packet too (make check
 * runs that as well). The NACK path itself is measured by
 * tests/rtp/feedback.sh.
 * The access units come as fast as the muxer takes them. make check runs it
 * with pace=0: with the pacer on, about 1 run in 8 counted 16 to 52
 * allocations in the N or the 2N run (the pool growing late, after the
 * pacer's first, paced second of media; not yet understood), so a paced run
 * is not a deterministic check yet.
 */

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavformat/avformat.h"
#include "libavutil/mem.h"

#define AU_SIZE 20000

static int send_aus(AVFormatContext *oc, AVPacket *pkt, int64_t *pts, int n)
{
    for (int i = 0; i < n; i++) {
        int ret;
        pkt->pts = pkt->dts = (*pts)++ * 3600;
        if ((ret = av_write_frame(oc, pkt)) < 0)
            return ret;
    }
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t (*count)(void) = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "malloc_count_get");
    AVFormatContext *oc = NULL;
    AVDictionary *opts = NULL;
    AVPacket *pkt = NULL;
    AVStream *st;
    uint8_t *au = NULL;
    char url[128];
    int64_t pts = 0;
    uint64_t a0, a1, a2;
    int n, ret, pkt_size, per_au;

    if (argc < 4) {
        fprintf(stderr, "usage: rtpsend_alloc PORT N MODE [PKT_SIZE]\n");
        return 2;
    }
    if (!count) {
        fprintf(stderr, "run with LD_PRELOAD=malloc_count.so\n");
        return 2;
    }
    n        = atoi(argv[2]);
    pkt_size = argc > 4 ? atoi(argv[4]) : 1200;
    per_au   = (AU_SIZE - 1 + (pkt_size - 12 - 2) - 1) / (pkt_size - 12 - 2);
    snprintf(url, sizeof(url), "rtp://127.0.0.1:%s?pkt_size=%d", argv[1], pkt_size);

    if ((ret = avformat_alloc_output_context2(&oc, NULL, "rtp", url)) < 0)
        goto end;
    if (!(st = avformat_new_stream(oc, NULL))) {
        ret = AVERROR(ENOMEM);
        goto end;
    }
    st->codecpar->codec_type = AVMEDIA_TYPE_VIDEO;
    st->codecpar->codec_id   = AV_CODEC_ID_H264;
    st->codecpar->width      = 1280;
    st->codecpar->height     = 720;
    st->time_base            = (AVRational){ 1, 90000 };
    if ((ret = avio_open2(&oc->pb, url, AVIO_FLAG_WRITE, NULL, NULL)) < 0)
        goto end;
    av_dict_set(&opts, "send_mode", argv[3], 0);
    if (argc > 5 && (ret = av_dict_parse_string(&opts, argv[5], "=", ":", 0)) < 0)
        goto end;
    if ((ret = avformat_write_header(oc, &opts)) < 0)
        goto end;

    /* one Annex B IDR slice, no start code emulation inside */
    pkt = av_packet_alloc();
    au  = av_malloc(AU_SIZE);
    if (!pkt || !au) {
        ret = AVERROR(ENOMEM);
        av_free(au);
        goto end;
    }
    memset(au, 0x55, AU_SIZE);
    au[0] = au[1] = au[2] = 0;
    au[3] = 1;
    au[4] = 0x65;
    /* not reference-counted: av_write_frame() would take a new reference
     * (one allocation per call) of a refcounted packet, an API cost that is
     * not the muxer's */
    pkt->data         = au;
    pkt->size         = AU_SIZE;
    pkt->stream_index = 0;

    if ((ret = send_aus(oc, pkt, &pts, 600)) < 0)
        goto end;
    a0 = count();
    if ((ret = send_aus(oc, pkt, &pts, n)) < 0)
        goto end;
    a1 = count();
    if ((ret = send_aus(oc, pkt, &pts, 2 * n)) < 0)
        goto end;
    a2 = count();

    printf("send_mode %s, pkt_size %d%s%s: %d access units x %d packets: %"PRIu64
           " allocations (%.4f per packet); %d: %"PRIu64" (%.4f per packet)\n",
           argv[3], pkt_size, argc > 5 ? ", " : "", argc > 5 ? argv[5] : "", n, per_au, a1 - a0, (double)(a1 - a0) / (n * per_au),
           2 * n, a2 - a1, (double)(a2 - a1) / (2 * n * per_au));
    if (a2 - a1 != a1 - a0) {
        printf("FAIL: the allocations grow with the number of packets\n");
        ret = 1;
    } else if (a1 - a0) {
        printf("FAIL: allocations in the steady state\n");
        ret = 1;
    }
    av_write_trailer(oc);

end:
    if (pkt)
        av_freep(&pkt->data);
    av_packet_free(&pkt);
    if (oc)
        avio_closep(&oc->pb);
    avformat_free_context(oc);
    av_dict_free(&opts);
    if (ret < 0) {
        fprintf(stderr, "rtpsend_alloc: %s\n", av_err2str(ret));
        return 1;
    }
    return ret;
}

/*
 * The whip muxer given H.264 whose codec parameters carry no profile or
 * level, as a libav* program may hand them over (an encoder, or a demuxer
 * of its own, that fills only the extradata): the stream of INPUT, its
 * profile and level cleared, into the whip muxer at URL.
 *
 *   whip_profile INPUT URL [EXTRADATA_BYTES]
 *
 * The muxer must find both in the extradata, avcC (MP4, Matroska) or
 * Annex B, and offer them in the SDP's profile-level-id.
 * tests/whip/profile.sh's endpoint keeps the offer and refuses it, so
 * avformat_write_header() fails after the POST; the test reads the offer.
 * EXTRADATA_BYTES keeps only that many bytes of the extradata (a cut
 * avcC, which the muxer must refuse with a message, not read beyond).
 * Prints the profile and level the muxer set; exit status 1 if it set none.
 */

#include <stdio.h>
#include <stdlib.h>

#include "libavformat/avformat.h"
#include "libavutil/error.h"

int main(int argc, char **argv)
{
    AVFormatContext *ic = NULL, *oc = NULL;
    AVStream *st;
    int ret, idx;

    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: whip_profile INPUT URL [EXTRADATA_BYTES]\n");
        return 2;
    }
    if ((ret = avformat_open_input(&ic, argv[1], NULL, NULL)) < 0 ||
        (ret = avformat_find_stream_info(ic, NULL)) < 0 ||
        (ret = idx = av_find_best_stream(ic, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0)) < 0) {
        fprintf(stderr, "%s: %s\n", argv[1], av_err2str(ret));
        avformat_close_input(&ic);
        return 1;
    }
    if ((ret = avformat_alloc_output_context2(&oc, NULL, "whip", argv[2])) < 0 ||
        !(st = avformat_new_stream(oc, NULL)) ||
        (ret = avcodec_parameters_copy(st->codecpar, ic->streams[idx]->codecpar)) < 0) {
        fprintf(stderr, "whip: %s\n", av_err2str(ret < 0 ? ret : AVERROR(ENOMEM)));
        avformat_free_context(oc);
        avformat_close_input(&ic);
        return 1;
    }
    printf("input: profile %d, level %d, extradata %s\n", st->codecpar->profile, st->codecpar->level,
           st->codecpar->extradata_size && st->codecpar->extradata[0] == 1 ? "avcC" : "Annex B");
    st->codecpar->profile = AV_PROFILE_UNKNOWN;
    st->codecpar->level   = AV_LEVEL_UNKNOWN;
    if (argc == 4 && atoi(argv[3]) >= 0 && atoi(argv[3]) < st->codecpar->extradata_size)
        st->codecpar->extradata_size = atoi(argv[3]);
    st->time_base = ic->streams[idx]->time_base;

    ret = avformat_write_header(oc, NULL);
    printf("avformat_write_header: %s\n", ret < 0 ? av_err2str(ret) : "ok");
    printf("muxer: profile %d, level %d\n", st->codecpar->profile, st->codecpar->level);
    ret = st->codecpar->profile == AV_PROFILE_UNKNOWN || st->codecpar->level == AV_LEVEL_UNKNOWN;
    avformat_free_context(oc);
    avformat_close_input(&ic);
    return ret;
}

/*
 * An API program built against an installed libavformat with pkg-config
 * alone (tests/build/shared-api.sh): the public lcv_rtcp symbols must be
 * exported by the shared library and its header installed. It builds a
 * compound RTCP datagram (SR + PLI + generic NACK), parses it back and
 * checks the fields against the values it wrote; then asks the muxer API
 * about a format context that is not an rtp output (ENOSYS, 0).
 */

#include <stdio.h>
#include <string.h>

#include <libavformat/avformat.h>
#include <libavformat/lcvrtcp.h>
#include <libavformat/lcvrtp.h>
#include <libavutil/error.h>
#include <libavutil/intreadwrite.h>

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) {                                                     \
            fprintf(stderr, "shared_api: check failed: %s (line %d)\n",    \
                    #cond, __LINE__);                                      \
            return 1;                                                      \
        }                                                                  \
    } while (0)

int main(void)
{
    static const uint16_t lost[] = { 100, 101, 116, 65535, 2 };
    uint8_t buf[256];
    LCVRTCPWriter w;
    LCVRTCPContext *ctx = lcv_rtcp_context_alloc();
    LCVRTPSenderStats st;
    AVFormatContext *fc;
    int size, n;

    lcv_rtcp_writer_init(&w, buf, sizeof(buf));
    CHECK(lcv_rtcp_write_sr(&w, 0x11223344, 0x0102030405060708ULL, 90000, 7, 7000, NULL, 0) == 28);
    CHECK(lcv_rtcp_write_pli(&w, 0x11223344, 0xaabbccdd) == 12);
    CHECK(lcv_rtcp_write_nack(&w, 0x11223344, 0xaabbccdd, lost, 5) > 12);
    size = lcv_rtcp_writer_finish(&w, 4);
    CHECK(size > 40);

    CHECK(ctx);
    n = lcv_rtcp_parse(ctx, buf, size, 0);
    CHECK(n == 3);
    CHECK(ctx->packets[0].type == 200 && ctx->packets[0].ssrc == 0x11223344);
    CHECK(ctx->packets[0].rr.ntp == 0x0102030405060708ULL && ctx->packets[0].rr.rtp_ts == 90000);
    CHECK(ctx->packets[0].rr.packets == 7 && ctx->packets[0].rr.octets == 7000);
    CHECK(ctx->packets[1].type == 206 && ctx->packets[1].fmt == 1);
    CHECK(ctx->packets[1].fb.media_ssrc == 0xaabbccdd);
    CHECK(ctx->packets[2].type == 205 && ctx->packets[2].fmt == 1);
    /* PID 100 with bits for 101 and 116, PID 65535 with the bit for 2
     * (65535 + 3, across the wrap) */
    CHECK(ctx->packets[2].fb.fci_size == 8);
    CHECK(AV_RB16(ctx->packets[2].fb.fci) == 100 && AV_RB16(ctx->packets[2].fb.fci + 2) == 0x8001);
    CHECK(AV_RB16(ctx->packets[2].fb.fci + 4) == 65535 && AV_RB16(ctx->packets[2].fb.fci + 6) == 0x0004);

    /* a truncated datagram is refused, with a reason */
    CHECK(lcv_rtcp_parse(ctx, buf, size - 1, 0) == AVERROR_INVALIDDATA && ctx->error);

    fc = avformat_alloc_context();
    CHECK(fc);
    CHECK(lcv_rtp_muxer_get_stats(fc, 0, &st, sizeof(st)) == AVERROR(ENOSYS));
    CHECK(lcv_rtp_muxer_keyframe_requested(fc, 0) == 0);
    /* the library that was linked is the one these headers describe */
    CHECK(lcv_rtcp_version() == LCV_RTCP_VERSION_INT);
    CHECK(lcv_rtp_version() == LCV_RTP_VERSION_INT);
    avformat_free_context(fc);
    lcv_rtcp_context_free(&ctx);
    CHECK(!ctx);

    printf("shared_api: %d packets built and parsed back through %s\n", n,
           avformat_configuration()[0] ? "libavformat" : "?");
    return 0;
}

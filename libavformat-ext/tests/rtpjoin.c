/*
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

/*
 * The late joiner's keyframe requests (libavformat/rtpjoin.c) on a made-up
 * clock. The RTP payloads are built here byte by byte from RFC 6184 and
 * RFC 7798 (single NAL units, STAP-A, FU-A; HEVC AP and FU), and the times
 * each case expects follow from the rule, not from the part: the first
 * request 20 ms after the first packet, then 0.5, 1, 2, 2 s apart, none
 * once the parameter sets and then the start of an IDR/IRAP picture have
 * arrived.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "libavutil/error.h"
#include "libavutil/mem.h"
#include "libavcodec/codec_id.h"
#include "libavformat/avc.h"
#include "libavformat/rtpjoin.h"

static int failures;

#define CHECK(cond, ...) do {                                               \
    if (!(cond)) {                                                          \
        printf("FAIL %s:%d: ", __func__, __LINE__);                         \
        printf(__VA_ARGS__);                                                \
        printf("\n");                                                       \
        failures++;                                                         \
    }                                                                       \
} while (0)

static FFRTPJoin j;

static void pkt(const uint8_t *p, int len, int64_t now)
{
    ff_rtp_join_packet(&j, p, len, now);
}

/* H.264 payloads: NAL header F|NRI|type */
static const uint8_t h264_p_slice[]  = { 0x41, 0x9a, 0x01, 0x02 };             /* type 1 */
static const uint8_t h264_fu_p_mid[] = { 0x5c, 0x01, 0x11, 0x22 };             /* FU-A, type 1 */
static const uint8_t h264_fu_idr_start[] = { 0x7c, 0x85, 0x88, 0x84 };         /* FU-A, S, type 5 */
static const uint8_t h264_fu_idr_mid[]   = { 0x7c, 0x05, 0x10, 0x20 };         /* FU-A, no S, type 5 */
static const uint8_t h264_stap_sps_pps[] = { 0x78,                             /* STAP-A */
    0x00, 0x04, 0x67, 0x42, 0xc0, 0x1e,                                         /* SPS */
    0x00, 0x03, 0x68, 0xce, 0x3c };                                             /* PPS */
static const uint8_t h264_sps[] = { 0x67, 0x42, 0xc0, 0x1e };
static const uint8_t h264_pps[] = { 0x68, 0xce, 0x3c };
static const uint8_t h264_idr[] = { 0x65, 0x88, 0x84, 0x00 };

/* the rule, written out: request k (from 1) at first + 20 ms + the sum of
 * the intervals before it, 0.5 s doubling up to 2 s */
static int64_t expected_request(int64_t first, int k)
{
    int64_t t = first + 20000, iv = 500000;
    for (int i = 1; i < k; i++) {
        t += iv;
        iv = iv * 2 > 2000000 ? 2000000 : iv * 2;
    }
    return t;
}

static void test_late_h264(void)
{
    const int64_t t0 = 1000000;

    ff_rtp_join_init(&j, AV_CODEC_ID_H264, NULL, 0);
    CHECK(ff_rtp_join_next(&j) == INT64_MAX, "a request due before any packet");
    /* joined in the middle of a GOP: P slices only */
    pkt(h264_fu_p_mid, sizeof(h264_fu_p_mid), t0);
    pkt(h264_p_slice, sizeof(h264_p_slice), t0 + 15000);
    CHECK(!ff_rtp_join_due(&j, t0 + 19999), "a request before 20 ms");
    CHECK(ff_rtp_join_next(&j) == t0 + 20000, "first request at %"PRId64", %"PRId64" expected",
          ff_rtp_join_next(&j), t0 + 20000);
    for (int k = 1; k <= 6; k++) {
        int64_t at = expected_request(t0, k);
        CHECK(ff_rtp_join_next(&j) == at, "request %d at %"PRId64", %"PRId64" expected", k,
              ff_rtp_join_next(&j), at);
        CHECK(!ff_rtp_join_due(&j, at - 1), "request %d 1 us early", k);
        CHECK(ff_rtp_join_due(&j, at), "request %d not due at its time", k);
        CHECK(!ff_rtp_join_due(&j, at), "request %d due twice", k);
        /* more P slices and the middle of an IDR whose start was missed */
        pkt(h264_fu_idr_mid, sizeof(h264_fu_idr_mid), at + 1000);
        pkt(h264_p_slice, sizeof(h264_p_slice), at + 2000);
    }
    CHECK(j.requests == 6, "%d requests, 6 expected", j.requests);
    /* the answer: SPS and PPS in a STAP-A, then the IDR's first fragment */
    pkt(h264_stap_sps_pps, sizeof(h264_stap_sps_pps), t0 + 9000000);
    CHECK(ff_rtp_join_next(&j) != INT64_MAX, "parameter sets alone are decodable");
    pkt(h264_fu_idr_start, sizeof(h264_fu_idr_start), t0 + 9001000);
    CHECK(ff_rtp_join_next(&j) == INT64_MAX && j.decodable == t0 + 9001000,
          "still asking after SPS, PPS and an IDR's start (decodable %"PRId64")", j.decodable);
    CHECK(!ff_rtp_join_due(&j, t0 + 60000000), "a request after the stream became decodable");
    /* a later loss does not start it again: that is the NACK path's PLI */
    pkt(h264_p_slice, sizeof(h264_p_slice), t0 + 61000000);
    CHECK(ff_rtp_join_next(&j) == INT64_MAX, "asking again after decodable");
}

static void test_on_time_h264(void)
{
    /* started before the sender: single NAL units SPS, PPS, IDR first */
    ff_rtp_join_init(&j, AV_CODEC_ID_H264, NULL, 0);
    pkt(h264_sps, sizeof(h264_sps), 0);
    pkt(h264_pps, sizeof(h264_pps), 10);
    pkt(h264_idr, sizeof(h264_idr), 20);
    CHECK(ff_rtp_join_next(&j) == INT64_MAX && !ff_rtp_join_due(&j, 10000000),
          "a request for a stream that began with a keyframe");
}

static void test_order_h264(void)
{
    /* an IDR before its parameter sets does not decode */
    ff_rtp_join_init(&j, AV_CODEC_ID_H264, NULL, 0);
    pkt(h264_idr, sizeof(h264_idr), 0);
    pkt(h264_sps, sizeof(h264_sps), 10);
    CHECK(ff_rtp_join_next(&j) == 20000, "an IDR without PPS counted decodable");
    pkt(h264_pps, sizeof(h264_pps), 20);
    CHECK(ff_rtp_join_next(&j) == 20000, "the IDR before the parameter sets counted");
    pkt(h264_fu_idr_start, sizeof(h264_fu_idr_start), 30);
    CHECK(ff_rtp_join_next(&j) == INT64_MAX, "SPS, PPS, IDR start not decodable");
}

static void test_sprop_h264(void)
{
    /* sprop-parameter-sets as FFmpeg's depacketizer keeps them: Annex B */
    static const uint8_t extradata[] = { 0, 0, 0, 1, 0x67, 0x42, 0xc0, 0x1e,
                                         0, 0, 1, 0x68, 0xce, 0x3c };

    ff_rtp_join_init(&j, AV_CODEC_ID_H264, extradata, sizeof(extradata));
    pkt(h264_p_slice, sizeof(h264_p_slice), 0);
    CHECK(ff_rtp_join_next(&j) == 20000, "no request with only the SDP's parameter sets");
    pkt(h264_fu_idr_start, sizeof(h264_fu_idr_start), 1000);
    CHECK(ff_rtp_join_next(&j) == INT64_MAX, "the SDP's SPS and PPS not counted");

    /* only the SPS in the SDP: the PPS must still come */
    ff_rtp_join_init(&j, AV_CODEC_ID_H264, extradata, 8);
    pkt(h264_fu_idr_start, sizeof(h264_fu_idr_start), 0);
    CHECK(ff_rtp_join_next(&j) == 20000, "decodable without a PPS");
}

static void test_hevc(void)
{
    /* HEVC: two-byte header, type in bits 1..6 of the first byte */
    static const uint8_t ap_vps_sps_pps[] = { 48 << 1, 0x01,          /* AP */
        0x00, 0x03, 32 << 1, 0x01, 0x0c,                               /* VPS */
        0x00, 0x03, 33 << 1, 0x01, 0x01,                               /* SPS */
        0x00, 0x03, 34 << 1, 0x01, 0xc1 };                             /* PPS */
    static const uint8_t ap_sps_pps[] = { 48 << 1, 0x01,
        0x00, 0x03, 33 << 1, 0x01, 0x01,
        0x00, 0x03, 34 << 1, 0x01, 0xc1 };
    static const uint8_t fu_trail[]     = { 49 << 1, 0x01, 0x80 | 1, 0xaa };  /* TRAIL_R start */
    static const uint8_t fu_idr_start[] = { 49 << 1, 0x01, 0x80 | 19, 0xaa }; /* IDR_W_RADL */
    static const uint8_t fu_cra_mid[]   = { 49 << 1, 0x01, 21, 0xaa };        /* CRA, no S */
    static const uint8_t cra[]          = { 21 << 1, 0x01, 0xaf, 0x00 };

    ff_rtp_join_init(&j, AV_CODEC_ID_HEVC, NULL, 0);
    pkt(fu_trail, sizeof(fu_trail), 0);
    pkt(ap_sps_pps, sizeof(ap_sps_pps), 10);
    pkt(fu_idr_start, sizeof(fu_idr_start), 20);
    CHECK(ff_rtp_join_next(&j) == 20000, "HEVC decodable without a VPS");
    CHECK(ff_rtp_join_due(&j, 20000), "HEVC: no request at 20 ms");
    pkt(ap_vps_sps_pps, sizeof(ap_vps_sps_pps), 30000);
    pkt(fu_cra_mid, sizeof(fu_cra_mid), 31000);
    CHECK(ff_rtp_join_next(&j) == 520000, "HEVC: a CRA's middle counted, or next %"PRId64,
          ff_rtp_join_next(&j));
    pkt(cra, sizeof(cra), 32000);
    CHECK(ff_rtp_join_next(&j) == INT64_MAX, "HEVC: VPS, SPS, PPS and a CRA not decodable");
}

static void test_other_and_malformed(void)
{
    static const uint8_t vp8[] = { 0x10, 0x00, 0x9d, 0x01 };
    /* a STAP-A whose second size runs past the end, a truncated FU-A, an
     * empty payload */
    static const uint8_t bad_stap[] = { 0x78, 0x00, 0x04, 0x67, 0x42, 0xc0, 0x1e, 0x00, 0x40, 0x68 };
    static const uint8_t short_fu[] = { 0x7c };
    static const uint8_t zero_stap[] = { 0x78, 0x00, 0x00, 0x00, 0x03, 0x68, 0xce, 0x3c };

    ff_rtp_join_init(&j, AV_CODEC_ID_VP8, NULL, 0);
    pkt(vp8, sizeof(vp8), 0);
    CHECK(ff_rtp_join_next(&j) == INT64_MAX && !ff_rtp_join_due(&j, 1000000),
          "a request for VP8 (its depacketizer asks itself)");

    ff_rtp_join_init(&j, AV_CODEC_ID_H264, NULL, 0);
    pkt(bad_stap, sizeof(bad_stap), 0);
    pkt(short_fu, sizeof(short_fu), 1);
    pkt(h264_idr, 0, 2);
    pkt(zero_stap, sizeof(zero_stap), 3);
    CHECK(!(j.seen & 4), "a PPS read past the end of a STAP-A, or after a zero size");
    pkt(h264_fu_idr_start, sizeof(h264_fu_idr_start), 4);
    CHECK(ff_rtp_join_next(&j) == 20000, "malformed packets made it decodable");
}

/* the sender's side: extradata before an IDR that lacks its parameter sets */
static void test_params_needed(void)
{
    static const uint8_t ex264[] = { 0, 0, 0, 1, 0x67, 0x42, 0xc0, 0x1e,
                                     0, 0, 1, 0x68, 0xce, 0x3c };
    static const uint8_t avcc[]  = { 1, 0x42, 0xc0, 0x1e, 0xff, 0xe1, 0x00, 0x04,
                                     0x67, 0x42, 0xc0, 0x1e, 0x01, 0x00, 0x03, 0x68, 0xce, 0x3c };
    static const uint8_t idr[]   = { 0, 0, 0, 1, 0x09, 0xf0,           /* AUD */
                                     0, 0, 1, 0x65, 0x88, 0x84, 0x00 };
    static const uint8_t p_au[]  = { 0, 0, 0, 1, 0x41, 0x9a, 0x01, 0x02 };
    static const uint8_t idr_ps[] = { 0, 0, 0, 1, 0x67, 0x42, 0xc0, 0x1e,
                                      0, 0, 1, 0x68, 0xce, 0x3c, 0, 0, 1, 0x65, 0x88, 0x84 };
    static const uint8_t idr_sps[] = { 0, 0, 0, 1, 0x67, 0x42, 0xc0, 0x1e,
                                       0, 0, 1, 0x65, 0x88, 0x84 };
    /* a slice whose payload holds 00 00 01 67: emulation prevention makes
     * that impossible in a real stream, but a scan must not run off the end */
    static const uint8_t tail[]  = { 0, 0, 1, 0x65, 0x88, 0, 0, 1 };
    static const uint8_t ex265[] = { 0, 0, 0, 1, 32 << 1, 1, 0x0c, 0, 0, 1, 33 << 1, 1, 0x01,
                                     0, 0, 1, 34 << 1, 1, 0xc1 };
    static const uint8_t hevc_cra[]   = { 0, 0, 1, 21 << 1, 1, 0xaf };
    static const uint8_t hevc_trail[] = { 0, 0, 1, 1 << 1, 1, 0xaf };

    CHECK(ff_rtp_join_params_needed(AV_CODEC_ID_H264, ex264, sizeof(ex264), idr, sizeof(idr), 0),
          "an IDR without SPS/PPS: extradata not sent first");
    CHECK(!ff_rtp_join_params_needed(AV_CODEC_ID_H264, ex264, sizeof(ex264), p_au, sizeof(p_au), 0),
          "extradata before a P picture");
    CHECK(!ff_rtp_join_params_needed(AV_CODEC_ID_H264, ex264, sizeof(ex264), idr_ps, sizeof(idr_ps), 0),
          "extradata before an IDR that carries its own SPS and PPS");
    CHECK(ff_rtp_join_params_needed(AV_CODEC_ID_H264, ex264, sizeof(ex264), idr_sps, sizeof(idr_sps), 0),
          "an IDR with its SPS but no PPS left without extradata");
    CHECK(!ff_rtp_join_params_needed(AV_CODEC_ID_H264, avcc, sizeof(avcc), idr, sizeof(idr), 0),
          "avcC extradata taken for Annex B");
    CHECK(!ff_rtp_join_params_needed(AV_CODEC_ID_H264, ex264, 8, idr, sizeof(idr), 0),
          "extradata without a PPS sent as if complete");
    CHECK(!ff_rtp_join_params_needed(AV_CODEC_ID_H264, NULL, 0, idr, sizeof(idr), 0),
          "no extradata, yet something to send");
    CHECK(ff_rtp_join_params_needed(AV_CODEC_ID_H264, ex264, sizeof(ex264), tail, sizeof(tail), 0),
          "an IDR ending in a start code");
    CHECK(!ff_rtp_join_params_needed(AV_CODEC_ID_VP8, ex264, sizeof(ex264), idr, sizeof(idr), 0),
          "parameter sets for VP8");
    CHECK(ff_rtp_join_params_needed(AV_CODEC_ID_HEVC, ex265, sizeof(ex265), hevc_cra, sizeof(hevc_cra), 0),
          "HEVC: a CRA without VPS/SPS/PPS: extradata not sent first");
    CHECK(!ff_rtp_join_params_needed(AV_CODEC_ID_HEVC, ex265, sizeof(ex265), hevc_trail, sizeof(hevc_trail), 0),
          "HEVC: extradata before a TRAIL picture");
    CHECK(!ff_rtp_join_params_needed(AV_CODEC_ID_HEVC, ex265 + 7, sizeof(ex265) - 7, hevc_cra, sizeof(hevc_cra), 0),
          "HEVC: extradata without a VPS sent as if complete");
}

/* MP4/Matroska: avcC/hvcC extradata in Annex B, and access units whose
 * NAL units come after their sizes. H.264 is checked against libavformat's
 * own avcC reader (avc.c, one SPS and one PPS), the rest against bytes
 * written out here from ISO/IEC 14496-15. */
static void test_sized(void)
{
    static const uint8_t avcc[] = { 1, 0x42, 0xc0, 0x1e, 0xff, 0xe1, 0x00, 0x04,
                                    0x67, 0x42, 0xc0, 0x1e, 0x01, 0x00, 0x03, 0x68, 0xce, 0x3c };
    /* two PPS, a 2-byte NAL size (0xfd) */
    static const uint8_t avcc2[] = { 1, 0x64, 0x00, 0x1f, 0xfd, 0xe1, 0x00, 0x03, 0x67, 0x64, 0x00,
                                     0x02, 0x00, 0x02, 0x68, 0xee, 0x00, 0x03, 0x68, 0x53, 0xb0 };
    static const uint8_t avcc2_b[] = { 0, 0, 0, 1, 0x67, 0x64, 0x00, 0, 0, 0, 1, 0x68, 0xee,
                                       0, 0, 0, 1, 0x68, 0x53, 0xb0 };
    /* hvcC: 22 bytes of configuration, 3 arrays (VPS, SPS, PPS) of one each */
    static const uint8_t hvcc[] = { 1, 1, 0x60, 0, 0, 0, 0x90, 0, 0, 0, 0, 0, 0x5d, 0xf0, 0, 0xfc,
                                    0xfd, 0xf8, 0xf8, 0, 0, 0x0f, 3,
                                    0x20, 0, 1, 0, 3, 32 << 1, 1, 0x0c,
                                    0x21, 0, 1, 0, 2, 33 << 1, 1,
                                    0x22, 0, 1, 0, 3, 34 << 1, 1, 0xc1 };
    static const uint8_t hvcc_b[] = { 0, 0, 0, 1, 32 << 1, 1, 0x0c, 0, 0, 0, 1, 33 << 1, 1,
                                      0, 0, 0, 1, 34 << 1, 1, 0xc1 };
    /* access units, 4-byte sizes: AUD + IDR; SPS + PPS + IDR; a P slice */
    static const uint8_t idr4[]    = { 0, 0, 0, 2, 0x09, 0xf0, 0, 0, 0, 4, 0x65, 0x88, 0x84, 0x00 };
    static const uint8_t idr4_ps[] = { 0, 0, 0, 4, 0x67, 0x42, 0xc0, 0x1e, 0, 0, 0, 3, 0x68, 0xce, 0x3c,
                                       0, 0, 0, 3, 0x65, 0x88, 0x84 };
    static const uint8_t p4[]      = { 0, 0, 0, 3, 0x41, 0x9a, 0x01 };
    /* 2-byte sizes; a size that runs past the end before the slice */
    static const uint8_t idr2[]    = { 0, 3, 0x65, 0x88, 0x84 };
    static const uint8_t idr4_bad[] = { 0, 0, 0, 9, 0x67, 0x42, 0, 0, 0, 3, 0x65, 0x88, 0x84 };
    static const uint8_t cra4[]    = { 0, 0, 0, 3, 21 << 1, 1, 0xaf };
    uint8_t *ps = NULL, *ref = NULL;
    int n, ref_size = sizeof(avcc);

    n = ff_rtp_join_params_annexb(AV_CODEC_ID_H264, avcc, sizeof(avcc), &ps);
    CHECK(!ff_avc_write_annexb_extradata(avcc, &ref, &ref_size) && ref, "avc.c's reader failed");
    CHECK(ps && n == ref_size && !memcmp(ps, ref, n), "avcC in Annex B: %d bytes, avc.c's %d", n, ref_size);
    CHECK(ff_rtp_join_params_needed(AV_CODEC_ID_H264, ps, n, idr4, sizeof(idr4), 4),
          "a length-prefixed IDR without SPS/PPS: parameter sets not sent first");
    CHECK(!ff_rtp_join_params_needed(AV_CODEC_ID_H264, ps, n, idr4_ps, sizeof(idr4_ps), 4),
          "parameter sets before a length-prefixed IDR that carries its own");
    CHECK(!ff_rtp_join_params_needed(AV_CODEC_ID_H264, ps, n, p4, sizeof(p4), 4),
          "parameter sets before a length-prefixed P picture");
    CHECK(!ff_rtp_join_params_needed(AV_CODEC_ID_H264, ps, n, idr4_bad, sizeof(idr4_bad), 4),
          "a NAL size past the end read as a picture");
    CHECK(!ff_rtp_join_params_needed(AV_CODEC_ID_H264, ps, n, idr4, sizeof(idr4), 5),
          "a NAL length size of 5 accepted");
    av_freep(&ps);
    av_freep(&ref);

    n = ff_rtp_join_params_annexb(AV_CODEC_ID_H264, avcc2, sizeof(avcc2), &ps);
    CHECK(ps && n == sizeof(avcc2_b) && !memcmp(ps, avcc2_b, n), "avcC with two PPS: %d bytes", n);
    CHECK(ff_rtp_join_params_needed(AV_CODEC_ID_H264, ps, n, idr2, sizeof(idr2), 2),
          "an IDR with 2-byte NAL sizes: parameter sets not sent first");
    av_freep(&ps);

    n = ff_rtp_join_params_annexb(AV_CODEC_ID_HEVC, hvcc, sizeof(hvcc), &ps);
    CHECK(ps && n == sizeof(hvcc_b) && !memcmp(ps, hvcc_b, n), "hvcC in Annex B: %d bytes", n);
    CHECK(ff_rtp_join_params_needed(AV_CODEC_ID_HEVC, ps, n, cra4, sizeof(cra4), 4),
          "HEVC: a length-prefixed CRA without VPS/SPS/PPS: parameter sets not sent first");
    av_freep(&ps);

    /* where the packetizer puts them: before the first slice, not before
     * an AUD, SEI or parameter set */
    CHECK(ff_rtp_join_is_slice(AV_CODEC_ID_H264, 0x65) && ff_rtp_join_is_slice(AV_CODEC_ID_H264, 0x41) &&
          !ff_rtp_join_is_slice(AV_CODEC_ID_H264, 0x09) && !ff_rtp_join_is_slice(AV_CODEC_ID_H264, 0x06) &&
          !ff_rtp_join_is_slice(AV_CODEC_ID_H264, 0x67), "H.264 slices told apart wrongly");
    CHECK(ff_rtp_join_is_slice(AV_CODEC_ID_HEVC, 19 << 1) && ff_rtp_join_is_slice(AV_CODEC_ID_HEVC, 1 << 1) &&
          !ff_rtp_join_is_slice(AV_CODEC_ID_HEVC, 35 << 1) && !ff_rtp_join_is_slice(AV_CODEC_ID_HEVC, 39 << 1) &&
          !ff_rtp_join_is_slice(AV_CODEC_ID_HEVC, 32 << 1), "HEVC slices told apart wrongly");

    /* what is not avcC/hvcC, or is cut short */
    CHECK(!ff_rtp_join_params_annexb(AV_CODEC_ID_H264, avcc2_b, sizeof(avcc2_b), &ps) && !ps,
          "Annex B extradata converted");
    CHECK(!ff_rtp_join_params_annexb(AV_CODEC_ID_VP8, avcc, sizeof(avcc), &ps) && !ps,
          "parameter sets for VP8");
    for (int cut = 6; cut < sizeof(avcc); cut++)
        CHECK(ff_rtp_join_params_annexb(AV_CODEC_ID_H264, avcc, cut, &ps) == AVERROR_INVALIDDATA && !ps,
              "avcC cut to %d bytes not refused", cut);
    for (int cut = 23; cut < sizeof(hvcc); cut++)
        CHECK(ff_rtp_join_params_annexb(AV_CODEC_ID_HEVC, hvcc, cut, &ps) == AVERROR_INVALIDDATA && !ps,
              "hvcC cut to %d bytes not refused", cut);
}

int main(void)
{
    test_late_h264();
    test_on_time_h264();
    test_order_h264();
    test_sprop_h264();
    test_hevc();
    test_other_and_malformed();
    test_params_needed();
    test_sized();
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf("rtpjoin: all cases pass\n");
    return 0;
}

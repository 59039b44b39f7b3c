/*
 * GStreamer's RTCP parsing (gst_rtcp_buffer from gst-plugins-base's rtp
 * library) on the datagrams of tests/bench/rtcp_bench.c, as a second peer
 * in the same run: per datagram, validate it (gst_rtcp_buffer_validate_data,
 * or the _reduced variant for the reduced-size datagram 4), map the
 * GstBuffer that wraps it, walk every packet with gst_rtcp_packet_* and read
 * every field the library decodes, unmap. NACK FCIs are expanded into their
 * sequence numbers by hand, as GStreamer's rtpsession does. GStreamer has no
 * public TWCC parser: datagram 4 is walked to its FCI only (marked in the
 * table).
 *
 *   gst_rtcp_bench DIR     DIR holds 1.rtcp .. 4.rtcp (rtcp_bench PION dump DIR)
 */

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gst/gst.h>
#include <gst/rtp/gstrtcpbuffer.h>

#include "nstime.h"

static uint64_t walk(GstBuffer *buf)
{
    GstRTCPBuffer rtcp = GST_RTCP_BUFFER_INIT;
    GstRTCPPacket p;
    uint64_t sum = 0;
    gboolean more;

    if (!gst_rtcp_buffer_map(buf, GST_MAP_READ, &rtcp))
        return 0;
    for (more = gst_rtcp_buffer_get_first_packet(&rtcp, &p); more;
         more = gst_rtcp_packet_move_to_next(&p)) {
        switch (gst_rtcp_packet_get_type(&p)) {
        case GST_RTCP_TYPE_SR:
        case GST_RTCP_TYPE_RR: {
            if (gst_rtcp_packet_get_type(&p) == GST_RTCP_TYPE_SR) {
                guint32 ssrc, rtptime, packets, octets;
                guint64 ntp;
                gst_rtcp_packet_sr_get_sender_info(&p, &ssrc, &ntp, &rtptime, &packets, &octets);
                sum += ssrc + ntp + rtptime + packets + octets;
            } else {
                sum += gst_rtcp_packet_rr_get_ssrc(&p);
            }
            for (guint i = 0; i < gst_rtcp_packet_get_rb_count(&p); i++) {
                guint32 ssrc, seq, jitter, lsr, dlsr;
                guint8 fraction;
                gint32 lost;
                gst_rtcp_packet_get_rb(&p, i, &ssrc, &fraction, &lost, &seq, &jitter, &lsr, &dlsr);
                sum += ssrc + fraction + lost + seq + jitter + lsr + dlsr;
            }
            break;
        }
        case GST_RTCP_TYPE_SDES:
            for (gboolean item = gst_rtcp_packet_sdes_first_item(&p); item;
                 item = gst_rtcp_packet_sdes_next_item(&p)) {
                sum += gst_rtcp_packet_sdes_get_ssrc(&p);
                for (gboolean e = gst_rtcp_packet_sdes_first_entry(&p); e;
                     e = gst_rtcp_packet_sdes_next_entry(&p)) {
                    GstRTCPSDESType type;
                    guint8 len;
                    guint8 *data;
                    if (gst_rtcp_packet_sdes_get_entry(&p, &type, &len, &data))
                        sum += type + len + (uintptr_t)data;
                }
            }
            break;
        case GST_RTCP_TYPE_BYE:
            for (guint i = 0; i < gst_rtcp_packet_bye_get_ssrc_count(&p); i++)
                sum += gst_rtcp_packet_bye_get_nth_ssrc(&p, i);
            sum += gst_rtcp_packet_bye_get_reason_len(&p);
            break;
        case GST_RTCP_TYPE_APP:
            sum += gst_rtcp_packet_app_get_subtype(&p) + gst_rtcp_packet_app_get_ssrc(&p) +
                   gst_rtcp_packet_app_get_name(&p)[0] + gst_rtcp_packet_app_get_data_length(&p) +
                   (uintptr_t)gst_rtcp_packet_app_get_data(&p);
            break;
        case GST_RTCP_TYPE_RTPFB:
        case GST_RTCP_TYPE_PSFB: {
            const guint8 *fci = gst_rtcp_packet_fb_get_fci(&p);
            const guint words = gst_rtcp_packet_fb_get_fci_length(&p);
            sum += gst_rtcp_packet_fb_get_sender_ssrc(&p) + gst_rtcp_packet_fb_get_media_ssrc(&p) +
                   gst_rtcp_packet_fb_get_type(&p) + words;
            if (gst_rtcp_packet_get_type(&p) == GST_RTCP_TYPE_RTPFB &&
                gst_rtcp_packet_fb_get_type(&p) == GST_RTCP_RTPFB_TYPE_NACK) {
                for (guint i = 0; i < words; i++) {
                    const guint pid = GST_READ_UINT16_BE(fci + 4 * i);
                    const guint blp = GST_READ_UINT16_BE(fci + 4 * i + 2);
                    sum += pid;
                    for (guint b = 0; b < 16; b++)
                        if (blp & (1u << b))
                            sum += (pid + b + 1) & 0xffff;
                }
            }
            break;
        }
        default:
            break;
        }
    }
    gst_rtcp_buffer_unmap(&rtcp);
    return sum;
}

int main(int argc, char **argv)
{
    uint64_t (*count)(void) = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "malloc_count_get");
    static const char *names[] = { "pion datagram", "SR + SDES", "RR + NACK, 20 losses",
                                   "TWCC, 100 packets (validation only, FCI not decoded)" };
    volatile uint64_t sink = 0;

    if (argc < 2)
        return 1;
    gst_init(NULL, NULL);
    printf("| datagram | GStreamer ns/op | GStreamer allocs/op |\n|---|--:|--:|\n");
    for (int i = 0; i < 4; i++) {
        const int iters = 200000, reps = 7, reduced = i == 3;
        static guint8 data[2048];
        double t[7];
        uint64_t a0 = 0, a1 = 0;
        char path[1024], allocs[32] = "-";
        GstBuffer *buf;
        FILE *f;
        size_t size;

        snprintf(path, sizeof(path), "%s/%d.rtcp", argv[1], i + 1);
        if (!(f = fopen(path, "rb")))
            return 1;
        size = fread(data, 1, sizeof(data), f);
        fclose(f);
        if (!(reduced ? gst_rtcp_buffer_validate_data_reduced(data, size) :
                        gst_rtcp_buffer_validate_data(data, size))) {
            fprintf(stderr, "GStreamer refuses %s\n", path);
            return 1;
        }
        buf = gst_buffer_new_wrapped_full(GST_MEMORY_FLAG_READONLY, data, size, 0, size, NULL, NULL);
        for (int r = 0; r < reps; r++) {
            double t0 = now_ns();
            if (r == reps - 1 && count)
                a0 = count();
            for (int k = 0; k < iters; k++) {
                if (!(reduced ? gst_rtcp_buffer_validate_data_reduced(data, size) :
                                gst_rtcp_buffer_validate_data(data, size)))
                    return 1;
                sink += walk(buf);
            }
            if (r == reps - 1 && count)
                a1 = count();
            t[r] = (now_ns() - t0) / iters;
        }
        gst_buffer_unref(buf);
        qsort(t, reps, sizeof(double), cmp_double);
        if (count)
            snprintf(allocs, sizeof(allocs), "%.3f", (double)(a1 - a0) / iters);
        printf("| %d. %s | %.1f | %s |\n", i + 1, names[i], t[reps / 2], allocs);
    }
    (void)sink;
    return 0;
}

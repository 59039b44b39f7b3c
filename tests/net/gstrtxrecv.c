/*
 * GStreamer's RTP receiver with RFC 4588 retransmission: rtpbin (AVPF,
 * do-retransmission) with rtprtxreceive as its auxiliary receiver, which
 * gst-launch cannot set up (it is handed over by the "request-aux-receiver"
 * signal). The depayloaded H.264 goes to a file.
 *
 *   gstrtxrecv RTP_PORT RTCP_TO_PORT OUT.h264 PT RTX_PT SECONDS LATENCY_MS BANDWIDTH [SPROP]
 *
 * Receives RTP on RTP_PORT and RTCP on RTP_PORT + 1 (127.0.0.1), sends its
 * RTCP (RR, NACK, PLI) to 127.0.0.1:RTCP_TO_PORT. The jitter buffer waits
 * LATENCY_MS for a missing packet. BANDWIDTH (bit/s, the stream's rate) is
 * set on the RTP session ("get-internal-session", its "bandwidth", what
 * rtspsrc takes from an SDP's b=AS): rtpsession keeps to the AVPF limits
 * on early RTCP, which it computes from it, and with its 64 kbit/s default
 * a NACK can wait about 0.4 s to go out. Stops on SIGINT/SIGTERM
 * (end of stream, so that the file is complete) or after SECONDS. At the
 * end it prints the number of packets rtprtxreceive restored from RTX
 * ("rtx_restored N") and of RTX packets it received ("rtx_received N").
 */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <glib-unix.h>
#include <gst/gst.h>

static GstElement *rtx;
static GMainLoop *loop;
static GstElement *pipeline;

static GstElement *make_aux_receiver(GstElement *rtpbin, guint session, gpointer data)
{
    const int *pt = data;
    GstElement *bin = gst_bin_new(NULL);
    GstStructure *map = gst_structure_new_empty("application/x-rtp-pt-map");
    GstPad *pad;
    char name[32];
    GValue v = G_VALUE_INIT;

    rtx = gst_element_factory_make("rtprtxreceive", NULL);
    if (!rtx) {
        fprintf(stderr, "no rtprtxreceive element\n");
        exit(1);
    }
    snprintf(name, sizeof(name), "%d", pt[0]);
    g_value_init(&v, G_TYPE_UINT);
    g_value_set_uint(&v, pt[1]);
    gst_structure_set_value(map, name, &v);
    g_object_set(rtx, "payload-type-map", map, NULL);
    gst_structure_free(map);
    gst_bin_add(GST_BIN(bin), rtx);

    snprintf(name, sizeof(name), "src_%u", session);
    pad = gst_element_get_static_pad(rtx, "src");
    gst_element_add_pad(bin, gst_ghost_pad_new(name, pad));
    gst_object_unref(pad);
    snprintf(name, sizeof(name), "sink_%u", session);
    pad = gst_element_get_static_pad(rtx, "sink");
    gst_element_add_pad(bin, gst_ghost_pad_new(name, pad));
    gst_object_unref(pad);
    return bin;
}

/* caps of a payload type rtpbin has not seen on the udpsrc: the RTX one */
static GstCaps *pt_map(GstElement *rtpbin, guint session, guint pt, gpointer data)
{
    const int *pts = data;

    if ((int)pt == pts[1])
        return gst_caps_new_simple("application/x-rtp", "media", G_TYPE_STRING, "video",
                                   "clock-rate", G_TYPE_INT, 90000,
                                   "encoding-name", G_TYPE_STRING, "RTX",
                                   "apt", G_TYPE_UINT, (guint)pts[0], NULL);
    if ((int)pt == pts[0])
        return gst_caps_new_simple("application/x-rtp", "media", G_TYPE_STRING, "video",
                                   "clock-rate", G_TYPE_INT, 90000,
                                   "encoding-name", G_TYPE_STRING, "H264", NULL);
    return NULL;
}

/* rtpbin's recv_rtp_src_0_SSRC_PT, once the stream is known, to the depayloader */
static void on_pad_added(GstElement *rtpbin, GstPad *pad, gpointer data)
{
    GstElement *depay = data;
    GstPad *sink;
    gchar *name = gst_pad_get_name(pad);

    if (g_str_has_prefix(name, "recv_rtp_src_0_")) {
        sink = gst_element_get_static_pad(depay, "sink");
        if (!gst_pad_is_linked(sink))
            gst_pad_link(pad, sink);
        gst_object_unref(sink);
    }
    g_free(name);
}

static int link_to(GstElement *pipeline, const char *src, const char *src_pad,
                GstElement *dst, const char *dst_pad)
{
    GstElement *e = gst_bin_get_by_name(GST_BIN(pipeline), src);
    int ok = e && gst_element_link_pads(e, src_pad, dst, dst_pad);

    if (e)
        gst_object_unref(e);
    return ok;
}

static int link_from(GstElement *src, const char *src_pad, GstElement *pipeline, const char *dst)
{
    GstElement *e = gst_bin_get_by_name(GST_BIN(pipeline), dst);
    int ok = e && gst_element_link_pads(src, src_pad, e, "sink");

    if (e)
        gst_object_unref(e);
    return ok;
}

static gboolean on_message(GstBus *bus, GstMessage *msg, gpointer data)
{
    if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_EOS) {
        g_main_loop_quit(loop);
    } else if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
        GError *err;
        gst_message_parse_error(msg, &err, NULL);
        fprintf(stderr, "error: %s\n", err->message);
        g_error_free(err);
        g_main_loop_quit(loop);
    }
    return TRUE;
}

static gboolean stop(gpointer data)
{
    gst_element_send_event(pipeline, gst_event_new_eos());
    return G_SOURCE_REMOVE;
}

static gboolean on_signal(gpointer data)
{
    return stop(data);
}

int main(int argc, char **argv)
{
    static int pt[2];
    GstElement *rtpbin, *depay;
    GObject *session = NULL;
    GError *err = NULL;
    GstBus *bus;
    gchar *desc;
    guint restored = 0, received = 0;

    if (argc < 9) {
        fprintf(stderr, "usage: %s RTP_PORT RTCP_TO_PORT OUT.h264 PT RTX_PT SECONDS LATENCY_MS BANDWIDTH [SPROP]\n",
                argv[0]);
        return 2;
    }
    gst_init(&argc, &argv);
    pt[0] = atoi(argv[4]);
    pt[1] = atoi(argv[5]);
    /* rtpbin's pads are linked only after the signal handlers are in
     * place: requesting recv_rtp_sink_0 creates session 0, and that is when
     * rtpbin asks for the auxiliary receiver */
    desc = g_strdup_printf(
        "rtpbin name=rb rtp-profile=avpf do-retransmission=true do-lost=true latency=%d "
        "udpsrc name=rtpsrc port=%s caps=\"application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,"
        "payload=%d,rtcp-fb-nack=(boolean)true,rtcp-fb-nack-pli=(boolean)true%s%s%s\" "
        "udpsrc name=rtcpsrc port=%d "
        "rtph264depay name=depay request-keyframe=true ! video/x-h264,stream-format=byte-stream,alignment=au "
        "! filesink location=%s "
        "udpsink name=rtcpsink host=127.0.0.1 port=%s sync=false async=false",
        atoi(argv[7]), argv[1], pt[0], argc > 9 ? ",sprop-parameter-sets=(string)\\\"" : "",
        argc > 9 ? argv[9] : "", argc > 9 ? "\\\"" : "",
        atoi(argv[1]) + 1, argv[3], argv[2]);
    pipeline = gst_parse_launch(desc, &err);
    g_free(desc);
    if (!pipeline) {
        fprintf(stderr, "pipeline: %s\n", err ? err->message : "?");
        return 1;
    }
    rtpbin = gst_bin_get_by_name(GST_BIN(pipeline), "rb");
    depay  = gst_bin_get_by_name(GST_BIN(pipeline), "depay");
    g_signal_connect(rtpbin, "request-aux-receiver", G_CALLBACK(make_aux_receiver), pt);
    g_signal_connect(rtpbin, "pad-added", G_CALLBACK(on_pad_added), depay);
    /* the RTX payload type's caps, asked for when its first packet comes */
    g_signal_connect(rtpbin, "request-pt-map", G_CALLBACK(pt_map), pt);
    if (!link_to(pipeline, "rtpsrc", "src", rtpbin, "recv_rtp_sink_0") ||
        !link_to(pipeline, "rtcpsrc", "src", rtpbin, "recv_rtcp_sink_0") ||
        !link_from(rtpbin, "send_rtcp_src_0", pipeline, "rtcpsink")) {
        fprintf(stderr, "cannot link rtpbin\n");
        return 1;
    }
    /* session 0 exists now (linking its sink pad made it) */
    g_signal_emit_by_name(rtpbin, "get-internal-session", 0, &session);
    if (!session) {
        fprintf(stderr, "no RTP session 0\n");
        return 1;
    }
    g_object_set(session, "bandwidth", atof(argv[8]), NULL);
    g_object_unref(session);
    loop = g_main_loop_new(NULL, FALSE);
    bus = gst_element_get_bus(pipeline);
    gst_bus_add_watch(bus, on_message, NULL);
    g_unix_signal_add(SIGINT, on_signal, NULL);
    g_unix_signal_add(SIGTERM, on_signal, NULL);
    g_timeout_add_seconds(atoi(argv[6]), stop, NULL);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    g_main_loop_run(loop);
    if (rtx)
        g_object_get(rtx, "num-rtx-packets", &received, "num-rtx-assoc-packets", &restored, NULL);
    printf("rtx_received %u\nrtx_restored %u\n", received, restored);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(rtpbin);
    gst_object_unref(depay);
    gst_object_unref(bus);
    gst_object_unref(pipeline);
    g_main_loop_unref(loop);
    return 0;
}

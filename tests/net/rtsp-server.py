#!/usr/bin/python3
"""An RTSP server for the tests (GStreamer's gst-rtsp-server), on 127.0.0.1.

Serves the H.264 video of a Matroska file at rtsp://127.0.0.1:PORT/live,
from its start for every client, for at most LIMIT seconds; prints
"ready" when it listens.

    rtsp-server.py PORT FILE LIMIT
"""
import sys

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstRtsp", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtsp, GstRtspServer  # noqa: E402


def main():
    port, path, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
    Gst.init(None)
    server = GstRtspServer.RTSPServer()
    server.set_address("127.0.0.1")
    server.set_service(port)
    factory = GstRtspServer.RTSPMediaFactory()
    factory.set_launch('( filesrc location="%s" ! matroskademux ! rtph264pay name=pay0 pt=96 '
                       'config-interval=-1 )' % path)
    factory.set_protocols(GstRtsp.RTSPLowerTrans.UDP)
    server.get_mount_points().add_factory("/live", factory)
    if server.attach(None) == 0:
        sys.exit("rtsp-server: could not listen on 127.0.0.1:%s" % port)
    loop = GLib.MainLoop()
    GLib.timeout_add_seconds(limit, loop.quit)
    print("ready", flush=True)
    loop.run()


main()

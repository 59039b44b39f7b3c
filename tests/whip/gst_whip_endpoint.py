#!/usr/bin/python3
# A WHIP endpoint made of GStreamer's webrtcbin (libnice ICE, DTLS-SRTP,
# rtpbin), an independent WebRTC peer for the whip muxer's tests: it takes
# the offer by HTTP POST, answers, decodes the H.264 it receives with
# avdec_h264, and writes what it saw as JSON when the publisher sends its
# DELETE (or at --timeout).
#
#   gst_whip_endpoint.py ADDR PORT OUT.json [--pli-at S] [--timeout S]
#
# --pli-at S: S seconds after the first decoded frame, ask for a keyframe
# (a GstForceKeyUnit event up from the depayloader, which rtpbin sends as
# RTCP PLI) and note when the next keyframe arrives.
#
# Every loop is bounded by --timeout; the HTTP server binds ADDR only.

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import gi
gi.require_version('Gst', '1.0')
gi.require_version('GstWebRTC', '1.0')
gi.require_version('GstSdp', '1.0')
from gi.repository import GLib, Gst, GstSdp, GstWebRTC  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument('addr')
ap.add_argument('port', type=int)
ap.add_argument('out')
ap.add_argument('--pli-at', type=float, default=0)
ap.add_argument('--timeout', type=float, default=60)
ap.add_argument('--latency', type=int, default=200)
# a diagnostic, off by default: the RTP session's bandwidth in bit/s, which
# webrtcbin otherwise estimates from what it has received when it computes
# its regular RTCP interval (doc/whip.md: why NACKs wait at the start)
ap.add_argument('--session-bandwidth', type=float, default=0)
# 0: no decoder (parse to the sink, frames counted as access units): a
# lighter peer beside the sender, for tests/bench/whip.sh's CPU rows
ap.add_argument('--decode', type=int, default=1)
args = ap.parse_args()

Gst.init(None)
loop = GLib.MainLoop()
t0 = time.monotonic()
st = {
    'offer': None, 'answered': False, 'frames': 0, 'keyframes': 0, 'rtp_packets': 0,
    'first_frame_s': None, 'pli_sent_s': None, 'keyframe_after_pli_ms': None,
    'delete': False, 'lost_events': 0, 'lost_detail': [], 'stats': {},
}
lock = threading.Lock()
pipe = Gst.Pipeline.new('whip')
webrtc = Gst.ElementFactory.make('webrtcbin', 'w')
webrtc.set_property('bundle-policy', GstWebRTC.WebRTCBundlePolicy.MAX_BUNDLE)
# the jitter buffer's wait for late and retransmitted packets (default 200 ms)
webrtc.set_property('latency', args.latency)
pipe.add(webrtc)
depay_sink = None
answer_ready = threading.Event()
answer_sdp = [None]


def now():
    return time.monotonic() - t0


def on_depayed(pad, info):
    buf = info.get_buffer()
    with lock:
        if not buf.has_flags(Gst.BufferFlags.DELTA_UNIT):
            st['keyframes'] += 1
            if st['pli_sent_s'] is not None and st['keyframe_after_pli_ms'] is None:
                st['keyframe_after_pli_ms'] = round((now() - st['pli_sent_s']) * 1000, 1)
    return Gst.PadProbeReturn.OK


def on_rtp(pad, info):
    if info.type & Gst.PadProbeType.EVENT_DOWNSTREAM:
        s = info.get_event().get_structure()
        if s is not None and s.get_name() == 'GstRTPPacketLost':
            with lock:
                st['lost_events'] += 1
                if len(st['lost_detail']) < 100:
                    st['lost_detail'].append([round(now(), 3), s.get_value('seqnum'),
                                              s.get_value('retry')])
        return Gst.PadProbeReturn.OK
    with lock:
        st['rtp_packets'] += 1
    return Gst.PadProbeReturn.OK


def send_pli():
    with lock:
        st['pli_sent_s'] = now()
    ev = Gst.Event.new_custom(Gst.EventType.CUSTOM_UPSTREAM, Gst.Structure.new_from_string(
        'GstForceKeyUnit, all-headers=(boolean)true'))
    depay_sink.push_event(ev)
    return False


def on_frame(sink, buf, pad):
    with lock:
        st['frames'] += 1
        first = st['first_frame_s'] is None
        if first:
            st['first_frame_s'] = round(now(), 3)
    if first:
        open(args.out + '.first', 'w').close()
    if first and args.pli_at > 0:
        GLib.timeout_add(int(args.pli_at * 1000), send_pli)


def on_pad(_, pad):
    global depay_sink
    caps = pad.get_current_caps().get_structure(0)
    if caps.get_string('media') != 'video':
        fake = Gst.ElementFactory.make('fakesink')
        pipe.add(fake)
        fake.sync_state_with_parent()
        pad.link(fake.get_static_pad('sink'))
        return
    q = Gst.ElementFactory.make('queue')
    depay = Gst.ElementFactory.make('rtph264depay')
    parse = Gst.ElementFactory.make('h264parse')
    dec = Gst.ElementFactory.make('avdec_h264' if args.decode else 'identity')
    sink = Gst.ElementFactory.make('fakesink')
    sink.set_property('signal-handoffs', True)
    sink.set_property('sync', False)
    sink.connect('handoff', on_frame)
    for e in (q, depay, parse, dec, sink):
        pipe.add(e)
    q.link(depay)
    depay.link(parse)
    parse.link(dec)
    dec.link(sink)
    for e in (q, depay, parse, dec, sink):
        e.sync_state_with_parent()
    depay_sink = depay.get_static_pad('sink')
    depay_sink.add_probe(Gst.PadProbeType.BUFFER | Gst.PadProbeType.EVENT_DOWNSTREAM, on_rtp)
    parse.get_static_pad('src').add_probe(Gst.PadProbeType.BUFFER, on_depayed)
    pad.link(q.get_static_pad('sink'))


def on_gathering(*_):
    if webrtc.get_property('ice-gathering-state') == GstWebRTC.WebRTCICEGatheringState.COMPLETE:
        ld = webrtc.get_property('local-description')
        if ld and not answer_ready.is_set():
            answer_sdp[0] = ld.sdp.as_text()
            answer_ready.set()


def on_answer(promise, _):
    reply = promise.get_reply()
    answer = reply.get_value('answer')
    webrtc.emit('set-local-description', answer, Gst.Promise.new())
    # the answer goes out with every candidate: once both the local
    # description is set and gathering is complete, whichever is last
    # (checked every 20 ms, the HTTP handler waits 10 s at most)
    GLib.timeout_add(20, poll_gathering)


def poll_gathering():
    on_gathering()
    return not answer_ready.is_set() and now() < args.timeout


def on_offer_set(promise, _):
    promise.wait()
    # NACKs and RTX for the video transceiver
    for i in range(4):
        tr = webrtc.emit('get-transceiver', i)
        if tr is None:
            break
        tr.set_property('do-nack', True)
    if args.session_bandwidth > 0:
        session = webrtc.get_by_name('rtpbin').emit('get-session', 0)
        session.set_property('bandwidth', args.session_bandwidth)
        print('session bandwidth', session.get_property('bandwidth'), flush=True)
    webrtc.emit('create-answer', None, Gst.Promise.new_with_change_func(on_answer, None))


TWCC_URI = 'http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01'


def take_offer(sdp_text):
    # a receiving transceiver of our own before the offer: its caps put
    # the transport-cc extension (when offered) into the answer, where
    # webrtcbin would otherwise leave every extmap out; do-nack adds RTX
    video_pt = None
    twcc_id = None
    for line in sdp_text.splitlines():
        if line.startswith('m=video'):
            video_pt = int(line.split()[3])
        if line.startswith('a=extmap:') and TWCC_URI in line:
            twcc_id = int(line.split(':')[1].split()[0])
    if video_pt is not None:
        caps = ('application/x-rtp,media=video,encoding-name=H264,clock-rate=90000,'
                'payload=%d' % video_pt)
        if twcc_id is not None:
            caps += ',extmap-%d=(string)%s' % (twcc_id, TWCC_URI)
        tr = webrtc.emit('add-transceiver', GstWebRTC.WebRTCRTPTransceiverDirection.RECVONLY,
                         Gst.Caps.from_string(caps))
        tr.set_property('do-nack', True)
    _, msg = GstSdp.SDPMessage.new_from_text(sdp_text)
    offer = GstWebRTC.WebRTCSessionDescription.new(GstWebRTC.WebRTCSDPType.OFFER, msg)
    webrtc.emit('set-remote-description', offer, Gst.Promise.new_with_change_func(on_offer_set, None))
    return False


def on_stats(promise, _):
    reply = promise.get_reply()
    out = {}
    if reply:
        def each(field, value, _):
            if isinstance(value, Gst.Structure):
                if value.get_value('type') == GstWebRTC.WebRTCStatsType.INBOUND_RTP:
                    for k in ('packets-received', 'packets-lost', 'nack-count', 'pli-count',
                              'fir-count', 'bytes-received', 'jitter'):
                        if value.has_field(k):
                            out[k] = value.get_value(k)
            return True
        reply.foreach(each, None)
    with lock:
        st['stats'] = out
    finish()


def write():
    with lock:
        with open(args.out + '.tmp', 'w') as f:
            json.dump(st, f)
    import os
    os.replace(args.out + '.tmp', args.out)


done = [False]


def finish():
    if done[0]:
        return False
    done[0] = True
    write()
    pipe.set_state(Gst.State.NULL)
    loop.quit()
    return False


def end():
    webrtc.emit('get-stats', None, Gst.Promise.new_with_change_func(on_stats, None))
    GLib.timeout_add(2000, finish)
    return False


webrtc.connect('pad-added', on_pad)
webrtc.connect('notify::ice-gathering-state', on_gathering)
pipe.set_state(Gst.State.PLAYING)


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_POST(self):
        n = int(self.headers.get('Content-Length', 0))
        offer = self.rfile.read(n).decode()
        with lock:
            st['offer'] = offer
        GLib.idle_add(take_offer, offer)
        if not answer_ready.wait(10):
            print('no answer: gathering state %s, local description %s' % (
                webrtc.get_property('ice-gathering-state'),
                webrtc.get_property('local-description') is not None), flush=True)
            self.send_response(500)
            self.end_headers()
            return
        body = answer_sdp[0].encode()
        with lock:
            st['answered'] = True
            st['answer'] = answer_sdp[0]
        self.send_response(201)
        self.send_header('Content-Type', 'application/sdp')
        self.send_header('Location', '/whip/resource/1')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_DELETE(self):
        with lock:
            st['delete'] = True
        self.send_response(200)
        self.send_header('Content-Length', '0')
        self.end_headers()
        GLib.idle_add(end)


srv = HTTPServer((args.addr, args.port), Handler)
threading.Thread(target=srv.serve_forever, daemon=True).start()
GLib.timeout_add(int(args.timeout * 1000), end)
print('ready', flush=True)
loop.run()
srv.shutdown()
sys.exit(0)

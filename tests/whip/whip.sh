#!/bin/bash
# The whip muxer against real WebRTC peers, in two network namespaces of
# the test's own (tests/rtp/lib.sh netns_link): ffmpeg publishes from
# 10.77.0.1, the peer listens on 10.77.0.2 (WebRTC stacks leave loopback
# out of their ICE candidates).
#
#   whip.sh BUILD gst        webrtcbin (GStreamer) as the WHIP endpoint, H.264:
#                            every frame decoded, a keyframe request (FIR)
#                            answered with a keyframe within 1 s (-g 250:
#                            10 s without one), transport-cc feedback read,
#                            SRTCP authenticated, the DELETE at the end
#   whip.sh BUILD copy       webrtcbin, H.264 copied (-c copy) from a Matroska
#                            file the test encodes first (avcC extradata, a
#                            keyframe every 2 s, no parameter sets in the
#                            packets): the NAL units go out as they are, without
#                            h264_mp4toannexb, with SPS and PPS before each IDR
#                            (the peer reads no sprop-parameter-sets): every
#                            frame decoded
#   whip.sh BUILD loss       the same with 5 % random loss (nftables, in the
#                            peer's namespace) from 5 s after the first frame
#                            (LOSS_AFTER; webrtcbin's RTCP lets few NACKs
#                            out in its first seconds): NACKs answered with
#                            RTX, >= 90 % of the frames complete at the
#                            peer (96.8-100 % measured; stock's whip 51-52 %)
#   whip.sh BUILD bottleneck a 1.5 Mbit/s router (tbf, 64 KB queue) under a
#                            2.5 Mbit/s request: the target back below the
#                            link within 3 s of first going above it, <= 1 %
#                            of the datagrams lost in the queue after 5 s
#   whip.sh BUILD wrtc       libwebrtc (npm @roamhq/wrtc in Node, installed into
#                            BUILD/tests/node on first use) as the endpoint,
#                            VP8 (libvpx): every frame decoded, no freeze,
#                            transport-cc and SRTCP read, the DELETE
#   whip.sh BUILD wrtc-loss  the same with 5 % random loss from 5 s after the
#                            first frame: NACKs answered, >= 99 % of the
#                            frames decoded
#                            CODEC=vp9: VP9 (libvpx-vp9) instead, in the
#                            wrtc cases; CODEC=h264 sends H.264 instead
#                            (which this libwebrtc cannot decode)
#   whip.sh BUILD wrtc-bottleneck  the bottleneck case with libwebrtc and VP8
#                            (libvpx follows the target: patches/0042)
#   whip.sh BUILD janus      an SFU: Janus 1.1.2 (Debian) in the peer's
#                            namespace, its videoroom taking the WHIP offer
#                            through Debian's simple-whip-server (fetched with
#                            apt-get download, its dependencies from npm, into
#                            BUILD/tests/simple-whip-server); VP8. A viewer
#                            (libwebrtc, tests/whip/janus_viewer.js) joins
#                            the room JOIN_AT s (default 3) after the
#                            publisher appears, mid-GOP: its first frame
#                            within 300 ms of its PeerConnection coming up
#                            (Janus's PLI answered), 99 % of the frames
#                            from then on decoded, none dropped, Janus's
#                            transport-cc read, the DELETE
#   whip.sh BUILD janus-loss the same with 5 % random loss between the
#                            publisher and Janus from the viewer's first
#                            frame: Janus's NACKs answered, 99 % decoded
#                            (Janus asks for a packet again only after
#                            155 ms: met in 8 of 9 runs with resends sent
#                            twice under loss, nack_dup_loss; make bench)
#
# Environment: RATE (kbit/s asked of the encoder, default 2500), DELAY (ms one
# way, publisher to peer, through tests/net/delayline: not with bottleneck),
# DUR (s of video, default 10), PEER_STOCK=1 publishes with
# stock FFmpeg's whip muxer instead (build/stock), for comparison: the
# checks that need this project's transport are then reported, not asserted.
# WHIP_SENDER=FFMPEG publishes with that ffmpeg binary (an A/B of two
# builds of this project). The bottleneck cases print when the router's
# queue dropped (sampled every 0.2 s) and the target then.
# PEER_LATENCY (ms, default 100) is webrtcbin's jitter buffer wait;
# PEER_SESSION_BW (bit/s, default unset) sets webrtcbin's RTP session
# bandwidth instead of its estimate, a diagnostic for the loss case
# (doc/whip.md: its NACKs wait for RTCP slots in its first seconds).
set -eu
build=$(cd "$1" && pwd)
what=$2
. "$(dirname "$0")/../rtp/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
dur=${DUR:-10}
stockrun=${PEER_STOCK:-0}
bin=${WHIP_SENDER:-$ffmpeg}
[ "$stockrun" = 1 ] && bin=$stock

. "$here/lib.sh"

case $what in
wrtc*)
    peer_kind=wrtc
    need_wrtc ;;
janus*)
    peer_kind=janus
    command -v janus > /dev/null || die "no Janus (scripts/install-deps test)"
    need_wrtc
    need_sws ;;
*)
    peer_kind=gst
    "$py" -c 'import gi; gi.require_version("GstWebRTC", "1.0")' 2>/dev/null ||
        die "no GStreamer webrtcbin for Python (scripts/install-deps test)" ;;
esac

# the peer's address: 10.77.0.2 beside the publisher, or 10.78.0.2 behind
# a router whose queue overflows
case $what in
bottleneck|wrtc-bottleneck) netns_router 1500 65536; peer_ip=10.78.0.2 ;;
*) netns_link 200000 262144; peer_ip=10.77.0.2
   [ "${DELAY:-0}" -gt 0 ] && netns_delay "$DELAY" $((${DUR:-10} + 40)) ;;
esac
rate=${RATE:-2500}
# IPv4 only: a veth's IPv6 link-local address stays tentative for a while,
# and libnice's gathering waits for it
for n in "$nsa" "$nsb" ${nsr:-}; do ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1; done
# libnice gathers on the interfaces that are up and running when the offer
# comes: wait for the veth pair's carrier (2 s at most)
for _ in $(seq 100); do
    ip -n "$nsa" link show va | grep -q 'state UP' && ip -n "$nsb" link show vb | grep -q 'state UP' &&
        { [ -z "${nsr:-}" ] || ip -n "$nsr" link show rb | grep -q 'state UP'; } && break
    sleep 0.02
done
hport=$(ip netns exec "$nsb" "$tools/freeport")

# the endpoint: asks for a keyframe 3 s after its first frame; its jitter
# buffer waits 100 ms for late packets and retransmissions
whip_url=http://$peer_ip:$hport/whip
if [ $peer_kind = gst ]; then
    ip netns exec "$nsb" "$py" "$here/gst_whip_endpoint.py" "$peer_ip" "$hport" "$work/peer.json" \
        --pli-at 3 --latency "${PEER_LATENCY:-100}" --session-bandwidth "${PEER_SESSION_BW:-0}" \
        --timeout $((dur + 30)) > "$work/peer.log" 2>&1 &
elif [ $peer_kind = wrtc ]; then
    ip netns exec "$nsb" env NODE_PATH="$nodedir/node_modules" node "$here/wrtc_whip_endpoint.js" \
        "$peer_ip" "$hport" "$work/peer.json" $((dur + 30)) > "$work/peer.log" 2>&1 &
else
    start_janus
    # the viewer: joins JOIN_AT s (default 3) after the publisher appears
    ip netns exec "$nsb" env NODE_PATH="$nodedir/node_modules" node "$here/janus_viewer.js" \
        http://127.0.0.1:8088/janus 1234 "${JOIN_AT:-3}" "$work/peer.json" $((dur + 30)) > "$work/peer.log" 2>&1 &
fi
peer=$!
for _ in $(seq 100); do grep -q ready "$work/peer.log" && break; sleep 0.1; done
grep -q ready "$work/peer.log" || die "the WHIP endpoint did not start: $(cat "$work/peer.log")"

rtpopts=()
[ "$stockrun" = 1 ] || rtpopts=(-rtp_options "stats_file=$work/stats.json:stats_interval=0.5${RTP_OPTS:+:$RTP_OPTS}")
frames=$((dur * 25))
# live 720p25 at 2.5 Mbit/s, a keyframe only every 10 s (250 frames):
# H.264 (libx264) for webrtcbin, VP8 (libvpx, real time) for libwebrtc
if [ $peer_kind = gst ] || [ "${CODEC:-}" = h264 ]; then
    enc=(-c:v libx264 -preset veryfast -tune zerolatency -profile:v baseline -g 250 -bf 0
         -b:v ${rate}k -maxrate ${rate}k -bufsize $((rate / 2))k)
elif [ "${CODEC:-}" = vp9 ]; then
    # VP9 (libvpx-vp9, real time, one spatial and temporal layer), the rate
    # control as for VP8 below; the rtp muxer's VP9 packetizer (RFC 9628:
    # picture ID, P bit, the size on key frames; libavformat-ext/rtpvp9.c)
    enc=(-c:v libvpx-vp9 -deadline realtime -cpu-used 8 -row-mt 1 -lag-in-frames 0 -error-resilient 1 -g 250
         -b:v ${rate}k -minrate ${rate}k -maxrate ${rate}k -bufsize $((rate / 2))k ${VP8_OPTS--max-intra-rate 300 -overshoot-pct 15 -undershoot-pct 100})
else
    # VP8 as libwebrtc configures it for real time: constant bit rate
    # (-minrate = -maxrate = -b:v), 15 % overshoot, a keyframe at most 3x an
    # average frame (-max-intra-rate 300). In VBR (no -minrate) libvpx sent
    # 1.2-2 Mbit/s in half seconds without a keyframe for a 1.0-1.2 Mbit/s
    # target, and the 1.5 Mbit/s router dropped 32 % after second 5
    # (wrtc-bottleneck); like this 0 %. VP8_OPTS replaces the last three
    enc=(-c:v libvpx -deadline realtime -cpu-used 8 -lag-in-frames 0 -error-resilient 1 -g 250
         -b:v ${rate}k -minrate ${rate}k -maxrate ${rate}k -bufsize $((rate / 2))k ${VP8_OPTS--max-intra-rate 300 -overshoot-pct 15 -undershoot-pct 100})
fi
input=(-f lavfi -i "testsrc2=size=1280x720:rate=25" -frames:v "$frames" "${enc[@]}")
if [ "$what" = copy ]; then
    # Matroska keeps H.264 as avcC: the parameter sets in the extradata
    # only (x264 leaves them out of the stream for a global header)
    "$ffmpeg" -nostdin -v error -f lavfi -i "testsrc2=size=1280x720:rate=25" -frames:v "$frames" \
        -c:v libx264 -preset veryfast -profile:v baseline -g 50 -bf 0 -b:v ${rate}k -maxrate ${rate}k \
        -bufsize $((rate / 2))k "$work/in.mkv" || die "could not encode the Matroska input"
    "$build/ffmpeg/ffprobe" -v error -show_entries stream=extradata -show_data "$work/in.mkv" |
        grep -q '^00000000: 01' || die "the Matroska input's extradata is not avcC"
    input=(-i "$work/in.mkv" -c copy)
fi
ip netns exec "$nsa" "$bin" -hide_banner -nostdin -v "${FF_LOGLEVEL:-verbose}" -re \
    "${input[@]}" "${rtpopts[@]}" -f whip "$whip_url" > "$work/ff.log" 2>&1 &
ff=$!

if [ "$what" = loss ] || [ "$what" = wrtc-loss ] || [ "$what" = janus-loss ]; then
    # 5 % of what reaches the peer, once media flows (ICE and DTLS are not
    # this test's subject): retransmissions are lost too
    for _ in $(seq 200); do [ -e "$work/peer.json.first" ] && break; sleep 0.1; done
    [ -e "$work/peer.json.first" ] || die "no frame decoded before the loss starts: $(tail -5 "$work/ff.log")"
    # libwebrtc through Janus: from the viewer's first frame (Janus NACKs from the start)
    [ "$what" = janus-loss ] && LOSS_AFTER=${LOSS_AFTER:-0}
    sleep "${LOSS_AFTER:-5}"
    ip netns exec "$nsb" nft -f - <<EOF || die "nftables: no random loss"
table inet lcvloss {
    chain in { type filter hook input priority 0; ip saddr 10.77.0.1 meta l4proto udp numgen random mod 100 < 5 counter drop; }
}
EOF
fi
if [ "$what" = bottleneck ] || [ "$what" = wrtc-bottleneck ]; then
    # the queue's drops after second 5 of the media
    for _ in $(seq 200); do [ -e "$work/peer.json.first" ] && break; sleep 0.1; done
    # the queue's drops over time (monotonic s, as the stats' time_us):
    # when they came, for the log
    ( while kill -0 "$ff" 2>/dev/null; do
          echo "$(cut -d' ' -f1 /proc/uptime) $(tc -n "$nsr" -s qdisc show dev rb | sed -n 's/.*dropped \([0-9]*\).*/\1/p')"
          sleep 0.2
      done > "$work/qdrops.txt" ) &
    sleep 5
    tc -n "$nsr" -s qdisc show dev rb > "$work/q5.txt"
    ip netns exec "$nsr" cat /sys/class/net/rb/statistics/tx_packets > "$work/tx5.txt"
fi

for _ in $(seq $((dur * 10 + 300))); do kill -0 "$ff" 2>/dev/null || break; sleep 0.1; done
kill -0 "$ff" 2>/dev/null && { kill "$ff"; die "ffmpeg did not end within $((dur + 30)) s"; }
wait "$ff" || die "ffmpeg failed: $(grep -iE 'error|fail' "$work/ff.log" | head -5)"
for _ in $(seq 100); do [ -s "$work/peer.json" ] && break; sleep 0.1; done
[ -s "$work/peer.json" ] || die "the endpoint wrote no result: $(tail -5 "$work/peer.log")"
if [ "$what" = bottleneck ] || [ "$what" = wrtc-bottleneck ]; then
    tc -n "$nsr" -s qdisc show dev rb > "$work/qend.txt"
    ip netns exec "$nsr" cat /sys/class/net/rb/statistics/tx_packets > "$work/txend.txt"
fi

encoded=$(sed -n 's/.*Output stream #0:0 (video): \([0-9]*\) frames encoded.*/\1/p' "$work/ff.log" | tail -n 1)
[ "$what" = copy ] && encoded=$(sed -n 's/.*Output stream #0:0 (video): \([0-9]*\) packets muxed.*/\1/p' "$work/ff.log" | tail -n 1)
[ -n "$encoded" ] || die "no encoder summary in ffmpeg's log"
"$py" - "$work/peer.json" "$encoded" "$what" "$stockrun" "$work" "$peer_kind" <<'PY'
import json, re, sys, os
peer = json.load(open(sys.argv[1]))
encoded, what, stockrun, work = int(sys.argv[2]), sys.argv[3], sys.argv[4] == '1', sys.argv[5]
kind = sys.argv[6]
fails = []
def check(ok, msg):
    print('  %s%s' % ('' if ok else 'NOT MET: ', msg))
    if not ok and not stockrun:
        fails.append(msg)

stats = []
if os.path.exists(work + '/stats.json'):
    stats = [json.loads(l) for l in open(work + '/stats.json') if l.strip()]
last = stats[-1] if stats else {}
if kind == 'gst':
    frames, lost = peer['frames'], peer['lost_events']
    print('  peer: %d of %d frames decoded, %d RTP packets, %d packets given up (lost events), '
          'first frame %.2f s after start, keyframe %s ms after its request, DELETE %s' %
          (frames, encoded, peer['rtp_packets'], lost, peer['first_frame_s'] or -1,
           peer['keyframe_after_pli_ms'], peer['delete']))
elif kind == 'janus':
    ws = peer['stats']
    frames = ws.get('framesDecoded', 0)
    def t(k):
        return '%.2f s' % peer[k] if peer.get(k) is not None else 'never'
    print('  viewer (libwebrtc, through Janus): publisher seen %s, joined %s, offer %s, connected %s, '
          'first frame %s, %d frames decoded (%dx%d), %s packets received, %s lost, %s NACKs, %s PLIs, '
          '%s dropped, publisher left %s%s' % (t('publisher_seen_s'), t('join_s'), t('offer_s'),
          t('connected_s'), t('first_frame_s'), frames, peer['width'], peer['height'],
          ws.get('packetsReceived'), ws.get('packetsLost'), ws.get('nackCount'), ws.get('pliCount'),
          ws.get('framesDropped'), t('publisher_left_s'), ' ERROR ' + peer['error'] if peer.get('error') else ''))
else:
    ws = peer['stats']
    frames = ws.get('framesDecoded', 0)
    print('  peer (libwebrtc): %d of %d frames decoded (%d to the sink, %dx%d), %s packets '
          'received, %s lost, %s NACKs, %s PLIs, %s freezes (%s s), first frame %.2f s after '
          'start, DELETE %s' % (frames, encoded, peer['frames'], peer['width'], peer['height'],
          ws.get('packetsReceived'), ws.get('packetsLost'), ws.get('nackCount'), ws.get('pliCount'),
          ws.get('freezeCount'), ws.get('totalFreezesDuration'), peer['first_frame_s'] or -1,
          peer['delete']))
if last:
    print('  sender: %d packets, %d NACKed, %d retransmitted, FIR %d, PLI %d, keyframe requests %d, '
          'transport feedback %s, target %s bit/s, RTCP in %d' %
          (last['packets'], last['nacked'], last['retransmitted'], last['fir'], last['pli'],
           last['keyframe_requests'], last.get('cc_feedbacks'), last.get('target_bitrate'),
           last['rtcp_received']))

if what in ('wrtc', 'wrtc-loss'):
    check(peer['delete'], 'the publisher ended its session with the WHIP DELETE')
    need = encoded - 1 if what == 'wrtc' else 0.99 * encoded
    check(frames >= need, '%s frames decoded by libwebrtc (%d of %d)' %
          ('every' if what == 'wrtc' else '>= 99 % of the', frames, encoded))
    # libwebrtc M106 reports no freezeCount: frames dropped instead
    check(ws.get('freezeCount', 0) == 0 and ws.get('framesDropped', 1) == 0,
          'no frame dropped, no freeze (%s, %s)' % (ws.get('framesDropped'), ws.get('freezeCount')))
    check(last.get('cc_feedbacks', 0) > 0, 'transport-cc feedback read (congestion control on by default)')
    check(last.get('rtcp_received', 0) > 0 and not re.search(r'SRTCP datagram of \d+ bytes did not authenticate',
          open(work + '/ff.log').read()), 'SRTCP read and authenticated')
if kind in ('wrtc', 'janus'):
    # the codec libwebrtc decoded (through Janus: what Janus forwarded), and its count of key frames: at most the
    # ones sent (the first, one each -g 250, one per keyframe request); a
    # packetizer that marks inter frames as key frames (VP9 without the P
    # bit) makes every frame one
    want = 'video/VP9' if os.environ.get('CODEC') == 'vp9' else 'video/VP8'
    check(ws.get('mimeType', '').lower() == want.lower(), 'decoded as %s (%s)' % (want, ws.get('mimeType')))
    kmax = 1 + encoded // 250 + last.get('keyframe_requests', 0)
    check(ws.get('keyFramesDecoded', kmax + 1) <= kmax, 'key frames decoded: %s, at most the %d sent' %
          (ws.get('keyFramesDecoded'), kmax))
if what == 'wrtc-loss':
    check(last.get('retransmitted', 0) > 0, 'NACKs answered with retransmissions (%d)' % last.get('retransmitted', 0))
    unanswered = last.get('nack_missed', 0) + last.get('nack_rate_limited', 0)
    check(unanswered <= 2, 'every NACKed packet resent (%d not: missed or over budget)' % unanswered)
if what == 'copy':
    check(peer['delete'], 'the publisher ended its session with the WHIP DELETE')
    check(frames >= encoded - 1, 'every frame copied from Matroska decoded at the peer (%d of %d)' % (frames, encoded))
    check('h264_mp4toannexb' not in open(work + '/ff.log').read(),
          'the length-prefixed NAL units sent as they are (no h264_mp4toannexb)')
    check(last.get('cc_feedbacks', 0) > 0, 'transport-cc feedback read (congestion control on by default)')
if what in ('gst', 'loss'):
    check(peer['delete'], 'the publisher ended its session with the WHIP DELETE')
    if what == 'gst':
        check(frames >= encoded - 1, 'every frame decoded at the peer (%d of %d)' % (frames, encoded))
    kf = peer['keyframe_after_pli_ms']
    # measured at the peer: it includes when webrtcbin's RTCP scheduling
    # lets the FIR out (63-575 ms seen); stock answers none (-g 250: up to 10 s)
    check(kf is not None and kf <= 1000, 'a keyframe within 1 s of the request (%s ms)' % kf)
    check(last.get('keyframe_requests', 0) >= 1, 'the request reached the encoder')
    check(last.get('cc_feedbacks', 0) > 0, 'transport-cc feedback read (congestion control on by default)')
    check(last.get('rtcp_received', 0) > 0 and not re.search(r'SRTCP datagram of \d+ bytes did not authenticate',
          open(work + '/ff.log').read()), 'SRTCP read and authenticated')
if what == 'loss':
    check(last.get('retransmitted', 0) > 0, 'NACKs answered with retransmissions (%d)' % last.get('retransmitted', 0))
    # a frame with a packet given up is not intact; at most one per lost
    # event. The issue's 99 % is not asked of webrtcbin: until its second
    # regular RTCP report (~9.6 s in), its RTP session lets one early RTCP
    # out per ~345 ms (an interval computed before any media had arrived)
    # and drops the NACKs that waited past the jitter buffer's latency, so
    # they never reach the sender (doc/whip.md): 96.8-100 % measured (4 of
    # 10 runs below 100 %; 8 of 8 at 100 % with PEER_SESSION_BW=2500000),
    # stock FFmpeg's whip muxer 51-52 %: asked 90 %, for what webrtcbin
    # loses on its own; every NACK that came is asked below
    intact = frames - lost
    check(intact >= 0.90 * encoded, '>= 90 %% of the frames intact (%d of %d, %.1f %%)' %
          (intact, encoded, 100.0 * intact / max(encoded, 1)))
    unanswered = last.get('nack_missed', 0) + last.get('nack_rate_limited', 0)
    check(unanswered <= 2, 'every NACKed packet resent (%d not: missed or over budget)' % unanswered)
if kind == 'janus':
    sws = open(work + '/sws.log').read()
    check('Terminating WHIP session' in sws, 'the publisher ended its session with the WHIP DELETE (simple-whip-server)')
    check(not peer.get('error'), 'the viewer subscribed through Janus\'s API (%s)' % (peer.get('error') or 'no error'))
    con, first = peer.get('connected_s'), peer.get('first_frame_s')
    # the join: Janus asks the publisher for a keyframe when the viewer's
    # PeerConnection is up (a PLI); -g 250 leaves up to 10 s to the next one
    join_ms = (first - con) * 1000 if con is not None and first is not None else None
    print('  viewer: first frame %s ms after its PeerConnection came up, %s ms after it asked to join' %
          ('%.0f' % join_ms if join_ms is not None else 'never',
           '%.0f' % ((first - peer['join_s']) * 1000) if first is not None and peer.get('join_s') else 'never'))
    check(join_ms is not None and join_ms <= 300, 'the viewer\'s first frame within 300 ms of joining (%s ms)' %
          ('%.0f' % join_ms if join_ms is not None else 'never'))
    check(last.get('keyframe_requests', 0) >= 1, 'Janus\'s keyframe request reached the encoder')
    # every frame from the viewer's first to its last: 25 a second over
    # that span (by the viewer's clock: a frame either way for the jitter
    # of its arrival at both ends); a frame lost shortens the count, not
    # the span
    end = peer.get('last_frame_s')
    expect = int(round((end - first) * 25)) + 1 if first is not None and end is not None else encoded
    expect = min(expect, encoded)
    check(frames >= 0.99 * expect - 2, '>= 99 %% of the frames from the viewer\'s first to its last decoded '
          '(%d, %d in %.2f s)' % (frames, expect, (end - first) if end and first else 0))
    # Janus forwards from the viewer's start: the delta frames that come
    # before the keyframe cannot be decoded (libwebrtc counts them dropped
    # and asks for a keyframe itself): the drops after the first frame shown
    d0 = peer.get('at_first_frame', {}).get('framesDropped', 0)
    dropped = ws.get('framesDropped', 0) - d0
    check(dropped <= 0.01 * max(frames, 1), 'at most 1 %% of the frames dropped by the viewer after its first '
          '(%d; %d before it)' % (dropped, d0))
    check(last.get('cc_feedbacks', 0) > 0, 'transport-cc feedback from Janus read (%s)' % last.get('cc_feedbacks'))
    check(last.get('rtcp_received', 0) > 0 and not re.search(r'SRTCP datagram of \d+ bytes did not authenticate',
          open(work + '/ff.log').read()), 'SRTCP read and authenticated')
if what == 'janus-loss':
    check(last.get('retransmitted', 0) > 0, 'Janus\'s NACKs answered with retransmissions (%d)' % last.get('retransmitted', 0))
if what in ('bottleneck', 'wrtc-bottleneck'):
    def dropped(f):
        m = re.search(r'dropped (\d+)', open(f).read())
        return int(m.group(1)) if m else 0
    d5, dend = dropped(work + '/q5.txt'), dropped(work + '/qend.txt')
    t5, tend = int(open(work + '/tx5.txt').read()), int(open(work + '/txend.txt').read())
    share = (dend - d5) / max(tend - t5 + dend - d5, 1)
    print('  queue: %d dropped in all, %d of %d after second 5 (%.2f %%)' % (dend, dend - d5, tend - t5 + dend - d5, 100 * share))
    check(share <= 0.01, '<= 1 % lost in the queue after second 5')
    # when the drops came (s after the sender's first stats line), and the
    # target then: what a failure is about
    if stats and os.path.exists(work + '/qdrops.txt'):
        t0, prev, when = stats[0]['time_us'] / 1e6, None, []
        for l in open(work + '/qdrops.txt'):
            f = l.split()
            if len(f) < 2:
                continue
            t, n = float(f[0]) - t0, int(f[1])
            if prev is not None and n > prev:
                tgt = [s.get('target_bitrate', 0) for s in stats if s['time_us'] / 1e6 - t0 <= t][-1:] or [0]
                when.append('%.1f s: %d (target %d)' % (t, n - prev, tgt[0] // 1000))
            prev = n
        print('  drops over time: %s' % (', '.join(when) or 'none'))
    # how long the target first stayed above the link: from the first line
    # above it to the next one at or below it (the start-up probes past
    # the link and must come back)
    above = next((i for i, s in enumerate(stats) if s.get('target_bitrate', 0) > 1500000), None)
    back = next((s for s in stats[above:] if s.get('target_bitrate', 1e9) <= 1500000), None) \
        if above is not None else None
    if above is None:
        check(bool(stats), 'the target never above the 1.5 Mbit/s link')
    else:
        sec = (back['time_us'] - stats[above]['time_us']) / 1e6 if back else None
        check(back is not None and sec <= 3, 'the target back at or below the 1.5 Mbit/s link '
              'within 3 s of first going above it (%s s)' % sec)
    tail = [s.get('target_bitrate', 0) for s in stats if s['time_us'] - stats[0]['time_us'] > 5e6]
    if tail:
        print('  target after second 5: %.0f-%.0f kbit/s' % (min(tail) / 1e3, max(tail) / 1e3))
sys.exit(1 if fails else 0)
PY
echo "PASS: whip $what"

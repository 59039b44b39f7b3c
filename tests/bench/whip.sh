#!/usr/bin/env bash
# WHIP in make bench: this project's whip muxer and stock FFmpeg 9.0.2's,
# measured in the same run.
#   tests/bench/whip.sh BUILD [peers|cpu]
# peers: tests/whip/whip.sh's cases: webrtcbin (20 s each) for both muxers;
#        libwebrtc and Janus (VP8) for ours, Janus (H.264) for stock.
# cpu:   the send path's CPU per MB of media with SRTP: 720p25 H.264 at
#        4 Mbit/s copied (-re -c copy) through the whip muxer into webrtcbin,
#        against the rtp muxer sending the same file to a plain UDP sink and
#        to FFmpeg's receiver (its feedback read: like for like), and
#        stock's whip muxer; the ffmpeg process's user+sys time
#        (tests/bench/cputime.c), median of WHIP_BENCH_REPS (3) runs, of
#        10 s and 30 s runs, whose difference leaves the handshake out.
# Both run in network namespaces of their own (tests/rtp/lib.sh).
set -eu
build=$(cd "$1" && pwd)
what=${2:-all}
top=$(cd "$(dirname "$0")/../.." && pwd)

if [ "$what" = all ] || [ "$what" = peers ]; then
    echo "### Into GStreamer's webrtcbin (tests/whip/whip.sh, 20 s of live 720p25 at 2.5 Mbit/s, -g 250)"
    echo
    for t in gst loss bottleneck; do
        for who in ours stock; do
            echo "$who, $t:"
            PEER_STOCK=$([ $who = stock ] && echo 1 || echo 0) DUR=20 \
                bash "$top/tests/whip/whip.sh" "$build" "$t" 2>&1 | grep -E '^  |^FAIL' || true
        done
    done
    echo
    echo "### Into libwebrtc and the Janus SFU (VP8; stock's whip sends H.264 only, which the libwebrtc"
    echo "### here cannot decode: stock is tried into Janus with H.264, where simple-whip-server answers chunked)"
    echo
    for t in wrtc wrtc-loss wrtc-bottleneck janus janus-loss; do
        echo "ours, $t:"
        DUR=$(case $t in janus) echo 10 ;; janus-loss) echo 15 ;; *) echo 20 ;; esac) \
            bash "$top/tests/whip/whip.sh" "$build" "$t" 2>&1 | grep -E '^  |^FAIL' || true
    done
    echo "stock, janus (H.264):"
    PEER_STOCK=1 CODEC=h264 DUR=10 bash "$top/tests/whip/whip.sh" "$build" janus 2>&1 |
        grep -E '^  |^FAIL|Failed to read' | head -5 || true
    echo
fi
[ "$what" = all ] || [ "$what" = cpu ] || exit 0

. "$top/tests/rtp/lib.sh"
# make bench builds both; run by hand, say what is missing instead of
# printing rows of zeros
[ -x "$tools/cputime" ] || die "no $tools/cputime: make bench builds it (or: gcc -O2 -o $tools/cputime tests/bench/cputime.c)"
[ -x "$stock" ] || die "no stock FFmpeg at $stock for the stock-whip row: make bench builds it"
reps=${WHIP_BENCH_REPS:-3}
in=$build/bench/h264-720p25-4M-30s-nobf.mkv
if [ ! -f "$in" ]; then
    mkdir -p "$(dirname "$in")"
    "$ffmpeg" -nostdin -v error -y -f lavfi -i "testsrc2=s=1280x720:r=25:d=30,noise=alls=8:allf=t" \
        -c:v libx264 -preset veryfast -bf 0 -g 50 -b:v 4M -maxrate 4M -bufsize 2M "$in.tmp.mkv"
    mv "$in.tmp.mkv" "$in"
fi
mb_of() {  # SECONDS -> MB of video in the first SECONDS of the input
    "$build/ffmpeg/ffprobe" -v error -select_streams v:0 -read_intervals "%+$1" \
        -show_entries packet=size -of csv=p=0 "$in" | awk '{ s += $1 } END { printf "%.3f", s / 1e6 }'
}
short=10 long=30
mb_short=$(mb_of $short) mb_long=$(mb_of $long)

netns_link 1000000 1048576
for n in "$nsa" "$nsb"; do ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1; done
for _ in $(seq 100); do ip -n "$nsb" link show vb | grep -q 'state UP' && break; sleep 0.02; done

one() {  # KIND (rtp, whip, stock-whip) SECONDS -> prints user+sys seconds
    local kind=$1 t=$2 p bin=$ffmpeg out
    p=$(ip netns exec "$nsb" "$tools/freeport")
    rm -f "$work/peer.json" "$work/t"
    if [ "$kind" = rtp ]; then
        # a plain UDP sink for RTP and RTCP
        ip netns exec "$nsb" /usr/bin/python3 -c '
import socket, sys, select, time
s = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
for i, x in enumerate(s): x.bind(("10.77.0.2", int(sys.argv[1]) + i))
end = time.time() + 60
while time.time() < end:
    for x in select.select(s, [], [], 1)[0]: x.recv(65536)' "$p" &
        out="rtp://10.77.0.2:$p?pkt_size=1200"
        sleep 0.5
        "$tools/cputime" "$work/t" ip netns exec "$nsa" "$bin" -nostdin -v error -re -t "$t" -i "$in" \
            -c copy -f rtp "$out" > /dev/null 2>&1 || true
    elif [ "$kind" = rtp-fb ]; then
        # FFmpeg's receiver (this project's: RRs, transport-cc feedback,
        # NACKs) instead of the sink: the feedback a WebRTC peer sends,
        # read by the same muxer, as the whip rows read webrtcbin's
        "$ffmpeg" -nostdin -v error -i "$in" -c copy -frames:v 1 -f rtp -sdp_file "$work/fb.sdp" \
            "rtp://10.77.0.2:$p?pkt_size=1200" > /dev/null 2>&1
        ip netns exec "$nsb" timeout 60 "$ffmpeg" -nostdin -v error -protocol_whitelist file,udp,rtp \
            -sdp_flags rtcp_to_source -i "$work/fb.sdp" -c copy -f null - > /dev/null 2>&1 &
        for _ in $(seq 100); do
            ip netns exec "$nsb" grep -q ":$(printf '%04X' "$p") 00000000:0000" /proc/net/udp && break; sleep 0.05
        done
        "$tools/cputime" "$work/t" ip netns exec "$nsa" "$bin" -nostdin -v error -re -t "$t" -i "$in" \
            -c copy -f rtp -stats_file "$work/fb.json" -stats_interval 0 "rtp://10.77.0.2:$p?pkt_size=1200" \
            > /dev/null 2>&1 || true
        # the feedback it read (for the table's note)
        sed -n 's/.*"rtcp_received":\([0-9]*\).*/\1/p' "$work/fb.json" | tail -n 1 > "$work/fb.rtcp"
    else
        [ "$kind" = stock-whip ] && bin=$stock
        ip netns exec "$nsb" /usr/bin/python3 "$top/tests/whip/gst_whip_endpoint.py" 10.77.0.2 "$p" \
            "$work/peer.json" --timeout 60 > "$work/peer.log" 2>&1 &
        for _ in $(seq 100); do grep -q ready "$work/peer.log" && break; sleep 0.1; done
        "$tools/cputime" "$work/t" ip netns exec "$nsa" "$bin" -nostdin -v error -re -t "$t" -i "$in" \
            -c copy -f whip "http://10.77.0.2:$p/whip" > /dev/null 2>&1 || true
    fi
    kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true
    read -r _ u s < "$work/t"
    awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f\n", u + s }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

echo "### Send-path CPU with SRTP: 720p25 H.264 at 4 Mbit/s (-re -c copy), user+sys of the ffmpeg process, median of $reps"
echo
echo "The send path's own cost: the difference between ${long} s ($mb_long MB) and ${short} s ($mb_short MB) runs,"
echo "so that what a session costs once (the WHIP handshake: HTTP, a certificate, ICE, DTLS) drops out."
echo
echo "rtp: to a UDP sink that sends nothing; rtp-fb: to FFmpeg's receiver (this project's), whose RRs, transport-cc"
echo "feedback and NACKs the muxer reads and acts on, as the whip rows read webrtcbin's: the like-for-like peer."
echo
echo "| muxer | CPU s, ${short} s | CPU s, ${long} s | ms per MB | / rtp | / rtp-fb |"
echo "|---|---|---|---|---|---|"
rtp= rtpfb=
for kind in rtp rtp-fb whip stock-whip; do
    cs=$(for _ in $(seq "$reps"); do one "$kind" $short; done | median)
    cl=$(for _ in $(seq "$reps"); do one "$kind" $long; done | median)
    per=$(awk -v a="$cs" -v b="$cl" -v ma="$mb_short" -v mb="$mb_long" 'BEGIN { printf "%.2f", (b - a) * 1000 / (mb - ma) }')
    [ "$kind" = rtp ] && rtp=$per
    [ "$kind" = rtp-fb ] && rtpfb=$per
    awk -v k="$kind" -v a="$cs" -v b="$cl" -v p="$per" -v r="$rtp" -v f="${rtpfb:-0}" \
        'BEGIN { printf "| %s | %.2f | %.2f | %.1f | %.2f | %s |\n", k, a, b, p, p / r, (f > 0 ? sprintf("%.2f", p / f) : "") }'
done
echo
echo "(rtp-fb: the muxer read $(cat "$work/fb.rtcp" 2>/dev/null || echo '?') RTCP datagrams in its last run)"

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
#        stock's whip muxer; the ffmpeg process's CPU time between seconds
#        8 and 28 of 30 s runs (its threads' schedstat), after the
#        handshake, in WHIP_BENCH_REPS (5) rounds of one run of each kind.
#        Both peers decode (webrtcbin with avdec_h264, FFmpeg's receiver
#        with its decoder); WHIP_BENCH_DECODE=0 has them only depacketize
#        (webrtcbin to h264parse, FFmpeg's receiver with -c copy), a
#        lighter load beside the sender on this 2-core machine. With Janus
#        installed (make check's dependencies), a whip-janus row: the same
#        file into the Janus SFU's videoroom (tests/whip/lib.sh), no viewer.
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
# make bench builds it; run by hand, say what is missing instead of
# printing rows of zeros
[ -x "$stock" ] || die "no stock FFmpeg at $stock for the stock-whip row: make bench builds it"
reps=${WHIP_BENCH_REPS:-5}
decode=${WHIP_BENCH_DECODE:-1}
# the whip-janus row: into the SFU (tests/whip/lib.sh start_janus), whose
# feedback is lighter than webrtcbin's
peer_ip=10.77.0.2 dur=30 here=$top/tests/whip
. "$here/lib.sh"
janus=1
command -v janus > /dev/null || janus=0
in=$build/bench/h264-720p25-4M-30s-nobf.mkv
if [ ! -f "$in" ]; then
    mkdir -p "$(dirname "$in")"
    "$ffmpeg" -nostdin -v error -y -f lavfi -i "testsrc2=s=1280x720:r=25:d=30,noise=alls=8:allf=t" \
        -c:v libx264 -preset veryfast -bf 0 -g 50 -b:v 4M -maxrate 4M -bufsize 2M "$in.tmp.mkv"
    mv "$in.tmp.mkv" "$in"
fi
# the steady state: from second w0 to w1 of a 30 s run, after the WHIP
# handshake (HTTP, a certificate, ICE, DTLS) and its backlog, before the end
w0=8 w1=28
mb=$("$build/ffmpeg/ffprobe" -v error -select_streams v:0 -read_intervals "$w0%$w1" \
    -show_entries packet=size -of csv=p=0 "$in" | awk '{ s += $1 } END { printf "%.3f", s / 1e6 }')

netns_link 1000000 1048576
for n in "$nsa" "$nsb"; do ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1; done
for _ in $(seq 100); do ip -n "$nsb" link show vb | grep -q 'state UP' && break; sleep 0.02; done

cpu_ns() {  # PID -> ns on the CPU so far of all its threads, and of its demuxer's
    for t in /proc/"$1"/task/*; do
        printf '%s %s\n' "$(cat "$t/comm")" "$(cut -d' ' -f1 "$t/schedstat")"
    done 2>/dev/null | awk '{ s += $NF } /^dmx/ { d += $NF } END { printf "%.0f %.0f\n", s, d }'
}

one() {  # KIND (rtp, rtp-fb, whip, stock-whip) -> prints ms on the CPU from w0 to w1, the demuxer's
    local kind=$1 p bin=$ffmpeg pid a b
    p=$(ip netns exec "$nsb" "$tools/freeport")
    rm -f "$work/peer.json"
    if [ "$kind" = rtp ]; then
        # a plain UDP sink for RTP and RTCP
        ip netns exec "$nsb" /usr/bin/python3 -c '
import socket, sys, select, time
s = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(2)]
for i, x in enumerate(s): x.bind(("10.77.0.2", int(sys.argv[1]) + i))
end = time.time() + 60
while time.time() < end:
    for x in select.select(s, [], [], 1)[0]: x.recv(65536)' "$p" &
        sleep 0.5
        ip netns exec "$nsa" "$bin" -nostdin -v error -re -t 30 -i "$in" \
            -c copy -f rtp "rtp://10.77.0.2:$p?pkt_size=1200" > /dev/null 2>&1 &
    elif [ "$kind" = rtp-fb ]; then
        # FFmpeg's receiver (this project's: RRs, transport-cc feedback,
        # NACKs) instead of the sink: the feedback a WebRTC peer sends,
        # read by the same muxer, as the whip rows read webrtcbin's. It
        # decodes as webrtcbin does (neither with WHIP_BENCH_DECODE=0): the peer's
        # load on the other core slows this side too (the demuxer's
        # thread, the same work in every run, took 4-49 % longer beside
        # a decoding webrtcbin than beside this receiver copying, in four
        # pairs)
        "$ffmpeg" -nostdin -v error -i "$in" -c copy -frames:v 1 -f rtp -sdp_file "$work/fb.sdp" \
            "rtp://10.77.0.2:$p?pkt_size=1200" > /dev/null 2>&1
        ip netns exec "$nsb" timeout 60 "$ffmpeg" -nostdin -v error -protocol_whitelist file,udp,rtp \
            -sdp_flags rtcp_to_source -i "$work/fb.sdp" $([ "$decode" = 1 ] || echo -c copy) -f null - > /dev/null 2>&1 &
        for _ in $(seq 100); do
            ip netns exec "$nsb" grep -q ":$(printf '%04X' "$p") 00000000:0000" /proc/net/udp && break; sleep 0.05
        done
        ip netns exec "$nsa" "$bin" -nostdin -v error -re -t 30 -i "$in" \
            -c copy -f rtp -stats_file "$work/fb.json" -stats_interval 0 "rtp://10.77.0.2:$p?pkt_size=1200" \
            > /dev/null 2>&1 &
    elif [ "$kind" = whip-janus ]; then
        rm -rf "$work/janus" "$work/sws"
        hport=$p
        start_janus
        ip netns exec "$nsa" "$bin" -nostdin -v error -re -t 30 -i "$in" -c copy \
            -rtp_options "stats_file=$work/wj.json:stats_interval=0" -f whip "$whip_url" > /dev/null 2>&1 &
    else
        [ "$kind" = stock-whip ] && bin=$stock
        ip netns exec "$nsb" /usr/bin/python3 "$top/tests/whip/gst_whip_endpoint.py" 10.77.0.2 "$p" \
            "$work/peer.json" --timeout 60 --decode "$decode" > "$work/peer.log" 2>&1 &
        for _ in $(seq 100); do grep -q ready "$work/peer.log" && break; sleep 0.1; done
        ip netns exec "$nsa" "$bin" -nostdin -v error -re -t 30 -i "$in" \
            -c copy -f whip "http://10.77.0.2:$p/whip" > /dev/null 2>&1 &
    fi
    # ip netns exec execs the command: $! is ffmpeg
    pid=$!
    sleep $w0; a=$(cpu_ns $pid)
    sleep $((w1 - w0)); b=$(cpu_ns $pid)
    # a run that ended before w1 has no steady state to show
    [ -d /proc/$pid ] || die "$kind: ffmpeg ended before second $w1"
    wait $pid || true
    # a whip run whose peer got little has no send path to show
    if [ "$kind" = whip ] || [ "$kind" = stock-whip ]; then
        for _ in $(seq 50); do [ -s "$work/peer.json" ] && break; sleep 0.1; done
        local got
        got=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["frames"])' "$work/peer.json" 2>/dev/null || echo 0)
        [ "$got" -ge 700 ] || die "$kind: the peer got $got of the 750 frames"
    elif [ "$kind" = whip-janus ]; then
        # Janus's receiver reports, authenticated and read: it took the
        # stream, all but 1 % at most
        /usr/bin/python3 - "$work/wj.json" > "$work/wj.info" <<'PY' || die "$kind: $(cat "$work/wj.info")"
import json, sys
try:
    st = json.loads(open(sys.argv[1]).read().splitlines()[-1])
    r = st['receivers'][0]
except (OSError, ValueError, IndexError, KeyError) as e:
    print('no statistics with a receiver (%s)' % e)
    sys.exit(1)
print('%d packets sent, %d RTCP datagrams read, %d receiver reports, %d transport-cc reports, '
      '%d packets lost by the reports' % (st['packets'], st['rtcp_received'], r['reports'],
      r['twcc_reports'], r['cumulative_lost']))
sys.exit(0 if r['reports'] >= 10 and r['cumulative_lost'] <= st['packets'] / 100 else 1)
PY
    fi
    kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true
    [ "$kind" = rtp-fb ] && sed -n 's/.*"rtcp_received":\([0-9]*\).*/\1/p' "$work/fb.json" | tail -n 1 > "$work/fb.rtcp"
    echo "$a $b" | awk '{ printf "%.1f %.1f\n", ($3 - $1) / 1e6, ($4 - $2) / 1e6 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

kinds="rtp rtp-fb whip stock-whip"
[ "$janus" = 1 ] && { need_sws; kinds="$kinds whip-janus"; }
# rounds of one run of each kind, so that a busy spell of the (shared)
# machine falls on all kinds alike, not on one kind's runs
: > "$work/runs"
for r in $(seq "$reps"); do
    for kind in $kinds; do
        v=$(one "$kind") || exit 1
        echo "$r $kind $v" >> "$work/runs"
    done
done

echo "### Send-path CPU with SRTP: 720p25 H.264 at 4 Mbit/s (-re -c copy), the ffmpeg process's CPU time"
echo
echo "From second $w0 to $w1 of 30 s runs ($mb MB of video), when the WHIP handshake (HTTP, a certificate,"
echo "ICE, DTLS) and its backlog are over: the sum of its threads' run time (/proc/PID/task/*/schedstat)."
echo "$reps rounds of one run of each kind; the median, and the range in brackets."
echo
echo "rtp: to a UDP sink that sends nothing; rtp-fb: to FFmpeg's receiver (this project's), whose RRs, transport-cc"
echo "feedback and NACKs the muxer reads and acts on, as the whip rows read webrtcbin's: the like-for-like peer."
[ "$janus" = 1 ] && echo "whip-janus: into the Janus SFU (a videoroom, through simple-whip-server, no viewer), whose RTCP is" &&
    echo "lighter than webrtcbin's (which sends a report and a transport-cc report every 40 ms, and NACKs on a clean link)."
echo "The ratios are of the medians; 'round by round' is the median (range) of each round's own ratio to rtp-fb."
echo
echo "The demuxer's thread does the same work in every run: its time shows how busy the machine was around"
echo "each kind. The peers $([ "$decode" = 1 ] && echo "decode (WHIP_BENCH_DECODE=0: they depacketize only)" || echo "depacketize only, without decoding (WHIP_BENCH_DECODE=0)")."
echo
echo "The fastest run of a kind is the one the machine disturbed least (a busy spell only adds time): '/ rtp-fb,"
echo "fastest' is the ratio of the kinds' fastest runs."
echo
echo "The peer's own load on this 2-core machine slows every thread of the sender's process, the demuxer's too,"
echo "whose work is the same in every kind (compare its column between the kinds, stock's whip beside webrtcbin"
echo "as well). '/ rtp-fb per demuxer ms' takes that slowdown out: each run's time over its own demuxer's time,"
echo "against rtp-fb's in the same round; the median (range) of the rounds."
echo
echo "| muxer | CPU ms, s $w0-$w1 | ms per MB | / rtp | / rtp-fb | / rtp-fb round by round | / rtp-fb, fastest | the demuxer's ms | / rtp-fb per demuxer ms |"
echo "|---|---|---|---|---|---|---|---|---|"
of() { awk -v k="$1" -v c="${2:-3}" '$2 == k { print $c }' "$work/runs"; }
rtp=$(of rtp | median) rtpfb=$(of rtp-fb | median) rtpfb_lo=$(of rtp-fb | sort -n | head -n 1)
for kind in $kinds; do
    m=$(of "$kind" | median)
    lo=$(of "$kind" | sort -n | head -n 1) hi=$(of "$kind" | sort -n | tail -n 1)
    rr=$(awk -v k="$kind" '$2 == "rtp-fb" { f[$1] = $3 } $2 == k { v[$1] = $3 }
        END { for (r in v) if (f[r] > 0) print v[r] / f[r] }' "$work/runs" | sort -n)
    # each run over its demuxer's time (the same work in every run)
    rd=$(awk -v k="$kind" '$2 == "rtp-fb" && $4 > 0 { f[$1] = $3 / $4 } $2 == k && $4 > 0 { v[$1] = $3 / $4 }
        END { for (r in v) if (f[r] > 0) print v[r] / f[r] }' "$work/runs" | sort -n)
    awk -v k="$kind" -v m="$m" -v lo="$lo" -v hi="$hi" -v mb="$mb" -v r="$rtp" -v f="$rtpfb" -v d="$(of "$kind" 4 | median)" \
        -v rm="$(echo "$rr" | median)" -v rlo="$(echo "$rr" | head -n 1)" -v rhi="$(echo "$rr" | tail -n 1)" \
        -v flo="$rtpfb_lo" \
        -v dm="$(echo "$rd" | median)" -v dlo="$(echo "$rd" | head -n 1)" -v dhi="$(echo "$rd" | tail -n 1)" \
        'BEGIN { printf "| %s | %.0f (%.0f-%.0f) | %.1f | %.2f | %.2f | %.2f (%.2f-%.2f) | %.2f | %.0f | %.2f (%.2f-%.2f) |\n",
                 k, m, lo, hi, m / mb, m / r, m / f, rm, rlo, rhi, lo / flo, d, dm, dlo, dhi }'
done
echo
echo "(rtp-fb: the muxer read $(cat "$work/fb.rtcp" 2>/dev/null || echo '?') RTCP datagrams in its last run)"
[ "$janus" = 1 ] && echo "(whip-janus, its last run: $(cat "$work/wj.info"))"
echo
echo "Each run (round, kind, ms of the process, ms of its demuxer):"
awk '{ printf "%s %s %s %s; ", $1, $2, $3, $4 } END { print "" }' "$work/runs"

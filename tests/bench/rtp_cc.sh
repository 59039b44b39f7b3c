#!/usr/bin/env bash
# Congestion control (issue "congestion control"): live encoding through
# the relay's bottleneck (tests/net/rtpcap.c relay: drop-tail queue of
# 64 KB, 20 ms towards the receiver, i.e. 10 ms each way as the RTT goes).
# The sender encodes testsrc2 with temporal noise, libx264 veryfast
# zerolatency, GOP 50, -b:v/-maxrate the asked-for rate, -bufsize a sixth
# of it, and sends it with -f rtp (ours: default options, congestion control
# on by default; -cc 0 and stock FFmpeg as peers). The receiver
# is this project's ffmpeg (decoding, sdp_flags rtcp_to_source) unless
# said otherwise. Everything about the link comes from the relay's series
# (tests/net/rtpcap.c): kbit/s that left the link, queueing delay, drops.
#   constant  3 Mbit/s, 720p25 asked for 6 Mbit/s, 30 s; over the last
#             10 s: datagrams lost in the queue, link use, mean queueing
#             delay, the receiver's decode errors. Also GStreamer 1.22's
#             rtpbin as the receiver (its caps carry the extmap), and without
#             the extmap (no transport feedback: the RRs' loss alone).
#   steps     6 -> 2 -> 5 Mbit/s, 15 s each, 720p25 asked for 8 Mbit/s:
#             after the drop, when the queueing delay (1 s average) is under
#             100 ms for good; after the rise, when 80 % of 5 Mbit/s goes through (1 s
#             average). Draws build/bench/cc/steps.png (gnuplot): the
#             target, the rate through the link, the link, the delay.
#             STEPS_ROWS="ours nocc stock": which rows.
#   share     two senders (640x360 asked for 4 Mbit/s each) through one
#             4 Mbit/s link (RTPCAP_LINK), the second 0.5 s after the first
#             (SHARE_OFFSET s; SHARE_ROWS="ours nocc stock": which rows),
#             60 s: each one's share of what went through over the last 30 s
#             (over 10 s, keyframes and the cycles of the two controllers
#             moved one run's share by +-10 %).
#   start     the 3 Mbit/s link from the first packet, 720p25 asked for 6
#             Mbit/s, 30 s: lost in the queue over the first 10 s, the rate
#             through the link from second 5, decode errors. Draws start.png.
#   tcp       beside an iperf3 TCP CUBIC upload through a kernel bottleneck
#             (tests/rtp/cc.sh tcp: a router namespace, 6 Mbit/s tbf, 64 KB
#             and 256 KB queues; 64 KB with 25 ms of one-way delay too), 60
#             s: the video's and TCP's shares over the last 20 s, frames
#             decoded, a ping's round trip through the queue. Draws
#             tcp-64k-0ms.png, tcp-256k-0ms.png, tcp-64k-25ms.png.
#   The graphs (gnuplot): the link, the rate through it, the sender's
#   target, the queueing delay.
#   tests/bench/rtp_cc.sh BUILD [constant|steps|share|start|tcp]
set -eu
build=$1 only=${2:-}
. "$(dirname "$0")/../rtp/lib.sh"
out=$build/bench/cc
mkdir -p "$out"
URI=http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01

# enc W H KBIT: the encoder's options
enc() {
    echo "-c:v libx264 -preset veryfast -tune zerolatency -b:v $3k -maxrate $3k -bufsize $(($3 / 6))k" \
         "-g 50 -bf 0 -pix_fmt yuv420p"
}
src() { echo "testsrc2=s=$1x$2:r=25,noise=alls=12:allf=t"; }

# live NAME BIN RECV LINK DUR W H KBIT [SENDER OPTIONS...]: one run; RECV is
# ffmpeg or gst; the relay's series in $out/NAME.series, the sender's
# stats in $out/NAME.json (ours), decode errors in errors
live() {
    local name=$1 bin=$2 recv=$3 link=$4 dur=$5 w=$6 h=$7 kbit=$8; shift 8
    ports
    "$bin" -nostdin -v error -f lavfi -i "$(src "$w" "$h")" $(enc "$w" "$h" "$kbit") -frames:v 1 \
        -f rtp "$@" -sdp_file "$work/$name.sdp" "rtp://127.0.0.1:$p_recv" > /dev/null
    relay "$name" 0 1 20 11 0 "$link" 65536
    if [ "$recv" = gst ] || [ "$recv" = gst-rr ]; then
        local ext=",extmap-1=(string)$URI"
        [ "$recv" = gst-rr ] && ext=
        timeout $((dur + 20)) gst-launch-1.0 -q -e rtpbin name=rb rtp-profile=avpf latency=200 \
            udpsrc port="$p_recv" caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96$ext,rtcp-fb-nack-pli=(boolean)true" \
            ! rb.recv_rtp_sink_0 udpsrc port="$((p_recv + 1))" ! rb.recv_rtcp_sink_0 \
            rb. ! rtph264depay ! fakesink \
            rb.send_rtcp_src_0 ! udpsink host=127.0.0.1 port="$((p_relay + 1))" sync=false async=false \
            > "$work/$name.recv.log" 2>&1 &
    else
        timeout $((dur + 20)) "$ffmpeg" -nostdin -v error -protocol_whitelist file,udp,rtp \
            -sdp_flags rtcp_to_source -i "$work/$name.sdp" -f null - 2> "$work/$name.recv.log" &
    fi
    recv_pid=$!
    wait_udp "$p_recv"
    local stats=()
    [ "$bin" = "$ffmpeg" ] && stats=(-stats_file "$out/$name.json" -stats_interval 0.5)
    rm -f "$out/$name.json"
    timeout $((dur + 30)) "$bin" -nostdin -v verbose -re -f lavfi -i "$(src "$w" "$h")" -t "$dur" \
        $(enc "$w" "$h" "$kbit") -f rtp "$@" "${stats[@]}" "$(url)" > "$work/$name.send.log" 2>&1 || true
    case $recv in gst*) kill -INT "$recv_pid" 2>/dev/null ;; esac
    wait "$recv_pid" || true
    wait "$relay_pid" || true
    cp "$work/$name.pcap.series" "$out/$name.series"
    errors=$(grep -ciE "error|concealing|corrupt" "$work/$name.recv.log" || true)
}

# window NAME FROM TO: "kbit/s_through loss_% qdelay_ms" over [FROM, TO) s
window() {
    awk -v a="$2" -v b="$3" '!/^#/ && $1 >= a && $1 < b { o += $2; q += $3 * $6; d += $4; k += $6; n++ }
        END { printf "%d %.2f %.1f\n", o / (n ? n : 1), 100 * d / (d + k ? d + k : 1), q / (k ? k : 1) }' \
        "$out/$1.series"
}

constant() {
    echo "== constant 3 Mbit/s, 64 KB queue, 20 ms RTT, 720p25 asked for 6 Mbit/s, 30 s (last 10 s)"
    echo "| sender | receiver | through the link | link used | lost in the queue | mean queueing delay | decode errors (whole run) |"
    echo "|---|---|--:|--:|--:|--:|--:|"
    local row
    for row in "ours-cc:$ffmpeg:ffmpeg:" "ours-nocc:$ffmpeg:ffmpeg:-cc 0" "stock:$stock:ffmpeg:" \
               "ours-cc-gst:$ffmpeg:gst:" "ours-cc-gst-rr:$ffmpeg:gst-rr:"; do
        IFS=: read -r name bin recv opts <<< "$row"
        live "$name" "$bin" "$recv" 3000 30 1280 720 6000 $opts
        set -- $(window "$name" 20 30)
        printf "| %s | %s | %s kbit/s | %d %% | %s %% | %s ms | %s |\n" "$(who "$bin" "$opts")" \
            "$(case $recv in gst) echo "GStreamer rtpbin" ;; gst-rr) echo "GStreamer rtpbin, no extmap (RRs only)" ;; *) echo ours ;; esac)" \
            "$1" $(($1 * 100 / 3000)) "$2" "$3" \
            "$(case $recv in gst*) echo "-" ;; *) echo "$errors" ;; esac)"
    done
}

steps() {
    echo "== capacity steps 6 -> 2 -> 5 Mbit/s, 15 s each, 64 KB queue, 20 ms RTT, 720p25 asked for 8 Mbit/s"
    echo "| sender | 6 Mbit/s phase (5-15 s) | after the drop: under 100 ms of delay (1 s average) for good | after the rise: 80 % of 5 Mbit/s (1 s average) | lost in the queue (whole run) |"
    echo "|---|--:|--:|--:|--:|"
    local row
    for row in "steps-ours:$ffmpeg:" "steps-nocc:$ffmpeg:-cc 0" "steps-stock:$stock:"; do
        IFS=: read -r name bin opts <<< "$row"
        [ -z "${STEPS_ROWS:-}" ] || [[ " $STEPS_ROWS " == *" ${name#steps-} "* ]] || continue
        live "$name" "$bin" ffmpeg "6000:15,2000:15,5000" 45 1280 720 8000 $opts
        local back rise first
        # queueing delay averaged over 1 s (a keyframe alone spends more
        # than 100 ms in a 2 Mbit/s link)
        back=$(awk '!/^#/ { i = int($1 * 10 + 0.5); q[i] = $3 * $6; k[i] = $6 }
                    END { for (i = 159; i < 300; i++) { s = n = 0; for (j = i - 9; j <= i; j++) { s += q[j]; n += k[j] }
                          if (n && s / n >= 100) t = (i + 1) / 10 }
                          printf "%.1f", t ? t - 15 : 0 }' "$out/$name.series")
        rise=$(awk '!/^#/ { r[int($1 * 10 + 0.5)] = $2 }
                    END { for (i = 300; i < 450; i++) { s = 0; for (j = i - 9; j <= i; j++) s += r[j]
                          if (s / 10 >= 4000) { printf "%.1f", (i + 1) / 10 - 30; exit } } print "never" }' "$out/$name.series")
        set -- $(window "$name" 5 15)
        first=$1
        set -- $(window "$name" 0 45)
        printf "| %s | %s kbit/s | %s s | %s s | %s %% |\n" "$(who "$bin" "$opts")" \
            "$first" "$back" "$rise" "$2"
    done
    plot steps-ours "$out/steps.png" "ours (default options), libx264 720p25 asked for 8 Mbit/s, link 6 -> 2 -> 5 Mbit/s, 64 KB queue"
    echo "(graph: $out/steps.png)"
}

# who BIN OPTS: the row's sender
who() {
    if [ "$1" = "$stock" ]; then echo "stock FFmpeg $(cat "$build/stock-src/RELEASE" 2>/dev/null)"
    else echo "ours ${2:-(default options)}"; fi
}

# gp_head PNG Y2LABEL TITLE: gnuplot's settings for a graph of kbit/s
# (left) and ms (right)
gp_head() {
    printf '%s\n' "set terminal png size 1000,500" "set output \"$1\"" 'set xlabel "s"' \
        'set ylabel "kbit/s"' "set y2label \"$2\"" "set y2tics" "set ytics nomirror" \
        "set yrange [0:*]" "set y2range [0:*]" "set key top right" "set title \"$3\""
}

# plot NAME PNG TITLE: target (from the stats, aligned by the monotonic clock), rate
# through the link, the link, queueing delay
plot() {
    command -v gnuplot > /dev/null || { echo "(no gnuplot: no graph)"; return 0; }
    local first; first=$(sed -n 's/^# first_us //p' "$out/$1.series")
    sed -n 's/.*"time_us":\([0-9]*\).*"target_bitrate":\([0-9]*\).*/\1 \2/p' "$out/$1.json" |
        awk -v f="$first" '{ printf "%.2f %.0f\n", ($1 - f) / 1e6, $2 / 1000 }' > "$out/$1.target"
    # the rate through the link over the last second (ten 100 ms bins)
    awk '!/^#/ { r[n] = $2; t[n++] = $1 } END { for (i = 9; i < n; i++) { s = 0
         for (j = i - 9; j <= i; j++) s += r[j]; printf "%.1f %.0f\n", t[i] + 0.1, s / 10 } }' \
        "$out/$1.series" > "$out/$1.rate"
    { gp_head "$2" "queueing delay, ms" "$3"; cat; } <<EOF | gnuplot
plot "$out/$1.series" using 1:5 with steps lw 2 title "link", \
     "$out/$1.rate" using 1:2 with lines lw 2 title "through the link (1 s average)", \
     "$out/$1.target" using 1:2 with lines lw 2 title "target (sender)", \
     "$out/$1.series" using 1:3 axes x1y2 with lines title "queueing delay (100 ms bins, right axis)"
EOF
}

share() {
    echo "== two senders through one 4 Mbit/s link, 64 KB queue, 20 ms RTT, 640x360 asked for 4 Mbit/s each, 60 s (last 30 s)"
    echo "| senders | sender A | sender B | A's share | link used | lost in the queue | mean queueing delay |"
    echo "|---|--:|--:|--:|--:|--:|--:|"
    local row
    for row in "ours:$ffmpeg:" "nocc:$ffmpeg:-cc 0" "stock:$stock:"; do
        IFS=: read -r who bin opts <<< "$row"
        [ -z "${SHARE_ROWS:-}" ] || [[ " $SHARE_ROWS " == *" $who "* ]] || continue
        "$tools/rtpcap" link-init "$work/link.$who"
        RTPCAP_LINK="$work/link.$who" live "share-$who-a" "$bin" ffmpeg 4000 60 640 360 4000 $opts &
        local a=$!
        sleep "${SHARE_OFFSET:-0.5}"
        RTPCAP_LINK="$work/link.$who" live "share-$who-b" "$bin" ffmpeg 4000 60 640 360 4000 $opts
        wait "$a" || true
        local ra rb
        set -- $(window "share-$who-a" 30 60); ra=$1 la=$2 qa=$3
        set -- $(window "share-$who-b" 30 60); rb=$1
        printf "| %s | %s kbit/s | %s kbit/s | %d %% | %d %% | %s %% (A) | %s ms |\n" "$(who "$bin" "$opts")" "$ra" "$rb" \
            $((ra * 100 / (ra + rb > 0 ? ra + rb : 1))) $(((ra + rb) * 100 / 4000)) "$la" "$qa"
    done
}

start() {
    echo "== start: a 3 Mbit/s link from the first packet, 64 KB queue, 20 ms RTT, 720p25 asked for 6 Mbit/s, 30 s"
    echo "| sender | lost in the queue, first 10 s | through the link from 5 s | link used from 5 s | decode errors (whole run) |"
    echo "|---|--:|--:|--:|--:|"
    local row
    for row in "start-ours:$ffmpeg:" "start-ours-6m:$ffmpeg:-start_bitrate 6000000" "start-nocc:$ffmpeg:-cc 0" \
               "start-stock:$stock:"; do
        IFS=: read -r name bin opts <<< "$row"
        live "$name" "$bin" ffmpeg 3000 30 1280 720 6000 $opts
        local early
        set -- $(window "$name" 0 10); early=$2
        set -- $(window "$name" 5 30)
        printf "| %s | %s %% | %s kbit/s | %d %% | %s |\n" "$(who "$bin" "$opts")" "$early" "$1" $(($1 * 100 / 3000)) "$errors"
    done
    plot start-ours "$out/start.png" "ours (default options): libx264 720p25 asked for 6 Mbit/s, a 3 Mbit/s link from the first packet, 64 KB queue"
    echo "(graph: $out/start.png)"
}

# beside TCP: tests/rtp/cc.sh tcp, measuring only, 60 s, each queue size
tcp() {
    echo "== beside one TCP CUBIC upload (iperf3), 6 Mbit/s tbf in a router namespace, 720p25 asked for 6 Mbit/s, 60 s (last 20 s)"
    echo "| sender | queue, delay | video | TCP | video's share | frames decoded (all; last 20 s of 500) | decode errors | ping through the queue (and the delay) |"
    echo "|---|--:|--:|--:|--:|--:|--:|--:|"
    local row q link
    # queue bytes : one-way delay (ms, tests/net/delayline.c)
    for link in 65536:0 262144:0 65536:25; do
        IFS=: read -r q dl <<< "$link"
        local tag=$((q / 1024))k-${dl}ms
        for row in "ours:$ffmpeg:" "nocc:$ffmpeg:-cc 0" "stock:$stock:"; do
            IFS=: read -r name bin opts <<< "$row"
            local res
            res=$(TCP_DUR=60 TCP_QUEUE=$q TCP_DELAY=$dl TCP_SENDER=$bin TCP_OPTS="$opts" TCP_MEASURE=1 \
                  TCP_OUT="$out/tcp-$name-$tag" bash "$(dirname "$0")/../rtp/cc.sh" "$build" tcp 2>&1 |
                  sed -n 's/^  *result //p')
            set -- $res
            printf "| %s | %d KB, %s ms | %s kbit/s | %s kbit/s | %s %% | %s of %s; %s | %s | %s ms |\n" "$(who "$bin" "$opts")" \
                $((q / 1024)) "$dl" "${1:-?}" "${2:-?}" "${3:-?}" "${4:-?}" "${5:-?}" "${8:-?}" "${6:-?}" "${7:-?}"
        done
        tcp_plot "tcp-ours-$tag" "$out/tcp-$tag.png" \
            "ours (default options) beside a TCP CUBIC upload: 6 Mbit/s tbf, $((q / 1024)) KB queue, $dl ms one way"
        echo "(graph: $out/tcp-$tag.png)"
    done
}

# tcp_plot NAME PNG TITLE: the video's and TCP's kbit/s per second, the
# sender's target, a ping's round trip through the queue
tcp_plot() {
    command -v gnuplot > /dev/null || { echo "(no gnuplot: no graph)"; return 0; }
    [ -s "$out/$1.series" ] || return 0
    { gp_head "$2" "ping round trip, ms" "$3"; cat; } <<EOF | gnuplot
plot "$out/$1.series" using 1:2 with lines lw 2 title "video through the link", \
     "$out/$1.series" using 1:3 with lines lw 2 title "TCP through the link", \
     "$out/$1.target" using 1:2 with lines lw 2 title "target (sender)", \
     "$out/$1.ping" using 1:2 axes x1y2 with lines title "ping round trip (right axis)"
EOF
}

case $only in
""|constant) constant ;;
esac
case $only in
""|steps) steps ;;
esac
case $only in
""|share) share ;;
esac
case $only in
""|start) start ;;
esac
case $only in
""|tcp) tcp ;;
esac

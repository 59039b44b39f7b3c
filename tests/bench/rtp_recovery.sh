#!/usr/bin/env bash
# Loss recovery at a camera's rate (issue "loss recovery"): this project's
# ffmpeg sends an 8 s 1080p25 H.264 clip at about 8 Mbit/s (-re -c copy,
# pkt_size=1200) through the lossy relay (loss hits retransmissions too);
# the receiver is this project's ffmpeg or stock FFmpeg 7.1, each with
# defaults apart from sdp_flags rtcp_to_source. Frames intact = decoded md5
# equal to the clip decoded locally.
# A second table has GStreamer's rtpbin as the receiver, with the settings
# README documents (latency 500 ms, the session's bandwidth); a third has
# a bottleneck (small drop-tail queue) behind the random loss; a fourth,
# live encoding with losses that cannot be repaired: the time to the IDR.
#   tests/bench/rtp_recovery.sh BUILD [all|ffmpeg|gst|bottleneck|idr]
set -eu
build=$1
only=${2:-all}
. "$(dirname "$0")/../rtp/lib.sh"
in=$(clip_8m)

# one NAME BIN LOSS_PPM BURST DELAY_MS: one transfer; sets n_src n_ok
# r_in r_drop r_rtx_drop lat (added latency p50/p95)
one() {
    local name=$1 bin=$2
    ports
    relay "$name" "$3" "$4" "$5" 11 1
    "$ffmpeg" -nostdin -v error -i "$in" -c copy -frames 1 -f rtp -sdp_file "$work/$name.sdp" \
        "rtp://127.0.0.1:$p_recv" > /dev/null
    # the receiver records the stream (-c copy: decoding 1080p live would
    # take most of this 2-core machine from the demuxer) and lists each
    # access unit as the demuxer hands it on, stamped with the time it came
    # out; the recording is decoded afterwards for the md5s
    ( timeout 90 "$bin" -nostdin -v verbose -protocol_whitelist file,udp,rtp -sdp_flags rtcp_to_source \
        -i "$work/$name.sdp" -map 0 -c copy -y "$work/$name.nut" \
        -map 0 -c copy -flush_packets 1 -f framecrc pipe:1 2> "$work/$name.recv.log" |
        "$tools/rtpcap" stamp > "$work/$name.stamps" ) &
    recv_pid=$!
    wait_udp "$p_recv"
    timeout 90 "$ffmpeg" -nostdin -v error -re -i "$in" -c copy -f rtp "$(url)" > /dev/null 2>&1 || true
    wait "$recv_pid" || true
    wait "$relay_pid" || true
    relay_counts "$name"
    "$ffmpeg" -nostdin -v error -y -i "$work/$name.nut" -map 0 -fps_mode passthrough \
        -f framemd5 "$work/$name.framemd5" 2> /dev/null || true
    compare "$name" "$in"
    lat=$(latency "$name" "$5")
}

# latency NAME DELAY_MS: "p50 / p95" ms that the receiver added to each
# access unit: the time the demuxer handed it on, less the time its last
# packet arrived at the relay (first transmission) plus the relay's delay.
# Matched in order; "-" when the receiver handed on another number of them.
# The first second is left out: the demuxer's stream probing holds it.
latency() {
    "$tools/rtpcap" times "$work/$1.pcap" "$p_relay" > "$work/$1.times"
    awk -v d="$2" '
        FNR == NR { if (!($2 in seen)) { seen[$2] = 1; if (!($3 in fa)) order[n++] = $3
                                          if ($1 > fa[$3]) fa[$3] = $1 }
                    next }
        $2 !~ /^#/ { out[m++] = $1 }
        END { if (m != n) exit 1
              for (i = 25; i < n; i++) printf "%.1f\n", (out[i] - fa[order[i]]) / 1000 - d }
    ' "$work/$1.times" "$work/$1.stamps" | sort -n > "$work/$1.lat" || { echo "-"; return; }
    awk '{ v[NR] = $1 } END { if (!NR) { print "-"; exit }
         i50 = int(NR * 0.5 + 0.5); i95 = int(NR * 0.95 + 0.5); if (i50 < 1) i50 = 1; if (i95 < 1) i95 = 1
         printf "%s / %s", v[i50], v[i95] }' "$work/$1.lat"
}

if [ "$only" = all ] || [ "$only" = ffmpeg ]; then
echo "### Frames intact, 8 Mbit/s 1080p25, loss on retransmissions too (relay seed 11)"
echo
echo "| RTT | loss | ours → ours | ours → stock | dropped (of which retransmissions), ours | receiver: recovered / lost, NACKed, RTT | added ms p50 / p95, ours | stock |"
echo "|--:|---|--:|--:|--:|---|--:|--:|"
for rtt in 20 100; do
    for spec in "10000 1 1 %" "50000 1 5 %" "50000 3 5 %, bursts of 3" "100000 1 10 %"; do
        set -- $spec
        loss=$1 burst=$2; shift 2
        one "ours-$rtt-$loss-$burst" "$ffmpeg" "$loss" "$burst" "$rtt"
        ours="$n_ok/$n_src" drop="$r_drop ($r_rtx_drop)" ours_lat=$lat
        st=$(grep -h 'RTP receiver at the end' "$work/ours-$rtt-$loss-$burst.recv.log" | tail -n 1 |
             sed -n 's/.* \([0-9]*\) recovered.* \([0-9]*\) lost.* for \([0-9]*\) numbers.*RTT \([0-9.-]*\) ms.*/\1 \/ \2, \3, \4 ms/p')
        one "stock-$rtt-$loss-$burst" "$stock" "$loss" "$burst" "$rtt"
        echo "| $rtt ms | $* | $ours | $n_ok/$n_src | $drop | $st | $ours_lat | $lat |"
    done
done
fi

# gst NAME BIN LOSS_PPM BURST DELAY_MS [BANDWIDTH]: the same transfer to
# GStreamer 1.22's rtpbin (do-retransmission, latency 500 ms), the RTP
# session's bandwidth set to BANDWIDTH (lib.sh gst_receiver); sets n_src
# n_ok r_drop r_rtx_drop
gst() {
    local name=$1 bin=$2
    ports
    relay "$name" "$3" "$4" "$5" 11 1
    "$ffmpeg" -nostdin -v error -i "$in" -c copy -frames 1 -f rtp -sdp_file "$work/$name.sdp" \
        "rtp://127.0.0.1:$p_recv" > /dev/null
    gst_receiver "$name" "$work/$name.sdp" true 500 ${6:+"$6"}
    timeout 90 "$bin" -nostdin -v verbose -re -i "$in" -c copy -f rtp "$(url)" > "$work/$name.send.log" 2>&1 || true
    stop_gst
    wait "$relay_pid" || true
    relay_counts "$name"
    "$ffmpeg" -nostdin -v error -y -i "$work/$name.h264" -map 0 -fps_mode passthrough \
        -f framemd5 "$work/$name.framemd5" 2> /dev/null || : > "$work/$name.framemd5"
    compare "$name" "$in"
}

if [ "$only" = all ] || [ "$only" = gst ]; then
bw=$(bitrate "$in")
echo
echo "### GStreamer 1.22 as the receiver: rtpbin latency 500 ms, do-retransmission, session bandwidth $bw bit/s"
echo
echo "| RTT | loss | ours → GStreamer | sender: numbers NACKed, resent, repeats within an RTT not resent, over budget | stock → GStreamer | ours → GStreamer, session bandwidth left at its default |"
echo "|--:|---|--:|---|--:|--:|"
for rtt in 20 100; do
    for spec in "10000 1 1 %" "50000 1 5 %" "50000 3 5 %, bursts of 3" "100000 1 10 %"; do
        set -- $spec
        loss=$1 burst=$2; shift 2
        gst "gst-ours-$rtt-$loss-$burst" "$ffmpeg" "$loss" "$burst" "$rtt" "$bw"
        ours="$n_ok/$n_src"
        nk=$(grep -h 'RTCP (final)' "$work/gst-ours-$rtt-$loss-$burst.send.log" | tail -n 1 |
             sed -n 's/.* for \([0-9]*\) packets: \([0-9]*\) resent.* \([0-9]*\) again within a round trip.* \([0-9]*\) over budget.*/\1, \2, \3, \4/p')
        gst "gst-stock-$rtt-$loss-$burst" "$stock" "$loss" "$burst" "$rtt" "$bw"
        st="$n_ok/$n_src"
        gst "gst-def-$rtt-$loss-$burst" "$ffmpeg" "$loss" "$burst" "$rtt"
        echo "| $rtt ms | $* | $ours | $nk | $st | $n_ok/$n_src |"
    done
done
fi

# bn NAME SENDER LOSS_PPM RATE_KBIT: the clip from SENDER (-re -c copy,
# defaults) through a bottleneck of RATE_KBIT with a 64 KB drop-tail queue
# and LOSS_PPM random loss before it (retransmissions too), 20 ms round
# trip, to this project's receiver; sets n_src n_ok r_drop r_qdrop
bn() {
    local name=$1 snd=$2
    ports
    relay "$name" "$3" 1 20 11 1 "$4" 65536
    "$ffmpeg" -nostdin -v error -i "$in" -c copy -frames 1 -f rtp -sdp_file "$work/$name.sdp" \
        "rtp://127.0.0.1:$p_recv" > /dev/null
    ( timeout 90 "$ffmpeg" -nostdin -v verbose -protocol_whitelist file,udp,rtp -sdp_flags rtcp_to_source \
        -i "$work/$name.sdp" -map 0 -c copy -y "$work/$name.nut" 2> "$work/$name.recv.log" ) &
    recv_pid=$!
    wait_udp "$p_recv"
    timeout 90 "$snd" -nostdin -v verbose -re -i "$in" -c copy -f rtp "$(url)" > "$work/$name.send.log" 2>&1 || true
    wait "$recv_pid" || true
    wait "$relay_pid" || true
    relay_counts "$name"
    "$ffmpeg" -nostdin -v error -y -i "$work/$name.nut" -map 0 -fps_mode passthrough \
        -f framemd5 "$work/$name.framemd5" 2> /dev/null || : > "$work/$name.framemd5"
    compare "$name" "$in"
}

if [ "$only" = all ] || [ "$only" = bottleneck ]; then
echo
echo "### Behind a bottleneck: 64 KB drop-tail queue, random loss before it (retransmissions too), 20 ms RTT, this project's receiver"
echo
echo "| link | random loss | ours → ours | dropped at random / in the queue | stock → ours | dropped at random / in the queue |"
echo "|--:|--:|--:|--:|--:|--:|"
for rate in 16000 12000; do
    for loss in 20000 50000; do
        bn "bn-ours-$rate-$loss" "$ffmpeg" "$loss" "$rate"
        ours="$n_ok/$n_src" od="$r_drop / $r_qdrop"
        bn "bn-stock-$rate-$loss" "$stock" "$loss" "$rate"
        echo "| $((rate / 1000)) Mbit/s | $((loss / 10000)) % | $ours | $od | $n_ok/$n_src | $r_drop / $r_qdrop |"
    done
done
fi

# live NAME DELAY_MS BUFSIZE: live 1080p25 x264 (ultrafast, zerolatency,
# 8 Mbit/s with a VBV buffer of BUFSIZE, which bounds an IDR's size; no
# periodic IDR) with -nack_history 0, so that
# no loss can be repaired, through 0.3 % loss (DELAY_MS round trip) to this
# project's receiver; lib.sh idr_costs for each loss that broke a good
# picture; sets costs (the lines)
live() {
    local name=$1 src="testsrc2=s=1920x1080:r=25,noise=alls=12:allf=t"
    local enc=(-c:v libx264 -preset ultrafast -tune zerolatency -b:v 8M -maxrate 8M -bufsize "$3" -g 1000 -bf 0)
    ports
    relay "$name" 3000 1 "$2" 13 0
    "$ffmpeg" -nostdin -v error -f lavfi -i "$src" "${enc[@]}" -frames:v 1 -f rtp -sdp_file "$work/$name.sdp" \
        "rtp://127.0.0.1:$p_recv" > /dev/null
    ( timeout 90 "$ffmpeg" -nostdin -v verbose -protocol_whitelist file,udp,rtp -sdp_flags rtcp_to_source \
        -i "$work/$name.sdp" -map 0 -c copy -f null - 2> "$work/$name.recv.log" ) &
    recv_pid=$!
    wait_udp "$p_recv"
    timeout 90 "$ffmpeg" -nostdin -v verbose -re -f lavfi -i "$src" -t 20 "${enc[@]}" -f rtp -nack_history 0 \
        -stats_file "$work/$name.json" -stats_interval 0 "$(url)" > "$work/$name.send.log" 2>&1 || true
    wait "$recv_pid" || true
    wait "$relay_pid" || true
    idr_costs "$work/$name.pcap" "$work/$name.relay" "$2" 40 > "$work/$name.costs"
}

# pct FILE COLUMN: "p50 / max" of a column
pct() {
    sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { if (!NR) { print "-"; exit }
        i = int(NR * 0.5 + 0.5); if (i < 1) i = 1; printf "%s / %s", v[i], v[NR] }'
}

if [ "$only" = all ] || [ "$only" = idr ]; then
echo
echo "### Live encoding, a loss that cannot be repaired (-nack_history 0): until the IDR is complete at the receiver"
echo
echo "| RTT | VBV buffer | losses measured | from the receiver's NACK, ms p50 / max | from the loss, ms p50 / max | target (RTT + 2 frames) |"
echo "|--:|--:|--:|--:|--:|--:|"
for rtt in 20 100; do
    for vbv in 1M 400k; do
        live "live-$rtt-$vbv" "$rtt" "$vbv"
        c=$work/live-$rtt-$vbv.costs
        echo "| $rtt ms | $vbv | $(wc -l < "$c") | $(pct "$c" 3) | $(pct "$c" 2) | $((rtt + 80)) ms |"
    done
done
fi

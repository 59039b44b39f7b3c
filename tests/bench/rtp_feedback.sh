#!/usr/bin/env bash
# RTCP feedback benchmarks: NACK-to-retransmission latency and allocations
# per NACK (rtcpinject as the receiver), and the CPU cost of the feedback
# thread at 20 Mbit/s with 5 % loss against feedback=0 in the same run.
#   tests/bench/rtp_feedback.sh BUILD
set -euf
build=$1
ffmpeg=$build/ffmpeg/ffmpeg
tools=$build/tests
secs=${RTP_FB_SECONDS:-10}
in=$build/bench/h264-1080p25-20M-100s.mkv
[ -f "$in" ] || { echo "(no $in: run tests/bench/rtp_send.sh first)"; exit 0; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
SSRC=0x12345678
port() { "$tools/freeport"; }

echo "### NACK to retransmission (rtcpinject receives, NACKs one packet in ten, waits for it)"
echo
echo "| retransmission | NACKs answered | median µs | p90 µs | max µs | allocations in the RTCP thread |"
echo "|---|--:|--:|--:|--:|--:|"
for rtx in -1 101; do
    p=$(port); q=$(port)
    while [ "$q" = "$p" ]; do q=$(port); done
    "$tools/rtcpinject" nack "$p" "$((q + 1))" "$SSRC" 200 60000 "$rtx" > "$work/nack.txt" &
    inj=$!
    sleep 0.3
    env LD_PRELOAD="$tools/malloc_count.so" MALLOC_COUNT_THREAD=rtp-send MALLOC_COUNT_FILE="$work/allocs" \
        timeout 120 "$ffmpeg" -nostdin -v error -re -t "$secs" -i "$in" -c copy -f rtp -ssrc "$SSRC" -rtx_pt "$rtx" \
        "rtp://127.0.0.1:$p?pkt_size=1200&localrtpport=$q&localrtcpport=$((q + 1))" > /dev/null 2>&1 || true
    wait "$inj" || true
    read -r _ sent _ answered _ med _ p90 _ max _ < "$work/nack.txt"
    echo "| $( [ "$rtx" = -1 ] && echo plain || echo "RTX PT $rtx") | $answered of $sent | $med | $p90 | $max | $(cat "$work/allocs") |"
done
echo

echo "### CPU of the sender at 20 Mbit/s, 5 % loss, FFmpeg's receiver sending RR and NACK ($secs s, -re)"
echo
echo "| sender | user+sys s | NACK packets | resent | not in history |"
echo "|---|--:|--:|--:|--:|"
for fb in 1 0; do
    p_relay=$(port); p_recv=$(port); p_send=$(port)
    while [ "$p_recv" = "$p_relay" ]; do p_recv=$(port); done
    while [ "$p_send" = "$p_relay" ] || [ "$p_send" = "$p_recv" ]; do p_send=$(port); done
    "$ffmpeg" -nostdin -v error -i "$in" -c copy -frames 1 -f rtp -feedback "$fb" -sdp_file "$work/s.sdp" \
        "rtp://127.0.0.1:$p_recv" > /dev/null
    rm -f "$work/ready"
    "$tools/rtpcap" relay /dev/null "$work/ready" 5 50000 1 2 2000 $(((secs + 60) * 1000)) \
        "$p_relay" "$p_recv" "$((p_send + 1))" > /dev/null &
    rp=$!
    for _ in $(seq 200); do [ -e "$work/ready" ] && break; sleep 0.05; done
    timeout $((secs + 60)) "$ffmpeg" -nostdin -v error -protocol_whitelist file,udp,rtp -sdp_flags rtcp_to_source \
        -buffer_size 16777216 -i "$work/s.sdp" -f null - > /dev/null 2>&1 &
    rc=$!
    sleep 1
    rm -f "$work/fb.json"
    "$tools/cputime" "$work/t" "$ffmpeg" -nostdin -v error -re -t "$secs" -i "$in" -c copy -f rtp \
        -feedback "$fb" -stats_file "$work/fb.json" -stats_interval 0 \
        "rtp://127.0.0.1:$p_relay?pkt_size=1200&localrtpport=$p_send&localrtcpport=$((p_send + 1))" > /dev/null 2>&1 || true
    kill "$rc" 2>/dev/null || true; wait "$rc" 2>/dev/null || true
    kill "$rp" 2>/dev/null || true; wait "$rp" 2>/dev/null || true
    read -r _ u s < "$work/t"
    j() { [ -f "$work/fb.json" ] && tail -n 1 "$work/fb.json" | sed -n "s/.*\"$1\":\\([0-9]*\\).*/\\1/p" || echo -; }
    echo "| feedback=$fb | $(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }') | $(j nack_packets) | $(j retransmitted) | $(j nack_missed) |"
done

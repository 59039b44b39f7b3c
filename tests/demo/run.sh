#!/usr/bin/env bash
# make demo: a webcam-like 1080p25 source through toi420 and libx264 to an
# RTP receiver on 127.0.0.1, which decodes it. Stops by itself.
#   tests/demo/run.sh BUILD SHIM [SECONDS]
set -eu
build=$1 shim=$2 secs=${3:-10}
top=$(cd "$(dirname "$0")/../.." && pwd)
ffmpeg=$build/ffmpeg/ffmpeg
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

port=$("$build/tests/freeport")
frames=$((secs * 25))
src="testsrc2=s=1920x1080:r=25:d=$secs"
enc=(-c:v libx264 -preset ultrafast -tune zerolatency -b:v 4M -g 50)

echo "demo: 1080p25 testsrc2 -> format=yuyv422 (a webcam's format) -> toi420 -> libx264 zerolatency"
echo "      -> RTP (pkt_size 1200, batched send) to 127.0.0.1:$port -> ffmpeg receiver (SDP) decoding; $secs s"

# The SDP, from a one-frame run with the same settings
"$ffmpeg" -nostdin -v error -f lavfi -i "$src" -vf format=yuyv422,toi420 "${enc[@]}" -frames:v 1 \
    -f rtp -sdp_file "$work/demo.sdp" "rtp://127.0.0.1:$port?pkt_size=1200" 2>/dev/null
# The receiver: decodes and writes one line per frame
timeout $((secs + 30)) "$ffmpeg" -nostdin -v error -analyzeduration 1M -protocol_whitelist file,udp,rtp \
    -i "$work/demo.sdp" -y -flush_packets 1 -f framecrc "$work/recv.crc" 2> "$work/recv.log" &
recv=$!
sleep 1
# The sender, in real time
timeout $((secs + 30)) "$ffmpeg" -nostdin -v verbose -re -f lavfi -i "$src" \
    -vf format=yuyv422,toi420 "${enc[@]}" -f rtp -rtpflags send_bye "rtp://127.0.0.1:$port?pkt_size=1200" \
    > "$work/send.log" 2>&1
# the RTCP BYE at the end makes the receiver drain and stop; if it is lost,
# stop the receiver after a grace period
for i in $(seq 50); do kill -0 $recv 2>/dev/null || break; sleep 0.1; done
kill -TERM $recv 2>/dev/null || true
wait $recv 2>/dev/null || true

stats=$(grep -h 'frames converted' "$work/send.log" | tail -n 1)
sent=$(echo "$stats" | sed -n 's/.*\] \([0-9]*\) frames converted.*/\1/p')
us=$(echo "$stats" | sed -n 's/.*; \([0-9.]*\) us per converted frame.*/\1/p')
pool=$(echo "$stats" | sed -n 's/.*passed through; \(.*\); [0-9.]* us per.*/\1/p')
received=$(grep -vc '^#' "$work/recv.crc" || true)
rtp=$(grep -h 'RTP send (' "$work/send.log" | tail -n 1)
rtp_mode=$(echo "$rtp" | sed -n 's/.*RTP send (\([a-z]*\)).*/\1/p')
rtp_pkts=$(echo "$rtp" | sed -n 's/.*: \([0-9]*\) packets.*/\1/p')
rtp_calls=$(echo "$rtp" | sed -n 's/.*RTCP; \([0-9]*\) system calls.*/\1/p')
rtp_per=$(echo "$rtp" | sed -n 's/.*(\([0-9.]*\) syscalls per access unit.*/\1/p')
allocs=$("$top/tests/alloc/cli-allocs.sh" "$ffmpeg" "$shim" 3000 toi420 yuyv422 320x240)

echo
echo "frames sent:        ${sent:-?} (of $frames)"
echo "frames received:    $received (decoded by the receiver)"
echo "toi420:             ${us:-?} us per frame, yuyv422 1920x1080 -> yuv420p, 1 thread"
echo "toi420 pool:        ${pool:-?}"
echo "allocations:        ${allocs#*: } (filtergraph thread, 320x240 yuyv422, 3000 vs 6000 frames)"
echo "RTP send:           mode ${rtp_mode:-?}, ${rtp_pkts:-?} packets of at most 1200 bytes in ${rtp_calls:-?} system calls"
echo "syscalls per frame: ${rtp_per:-?} (stock FFmpeg: 2 per packet, poll + sendto)"
[ -n "$sent" ] && [ "$received" -gt 0 ] && [ -n "$rtp_per" ]

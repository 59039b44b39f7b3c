#!/usr/bin/env bash
# make demo: a webcam-like 1080p25 source through toi420 and libx264, over
# RTP through a relay that drops 2 % of the packets, to an RTP receiver on
# 127.0.0.1 that decodes it and NACKs what is missing; the sender answers
# from its history. Stops by itself.
#   tests/demo/run.sh BUILD SHIM [SECONDS]
set -eu
build=$1 shim=$2 secs=${3:-10}
top=$(cd "$(dirname "$0")/../.." && pwd)
ffmpeg=$build/ffmpeg/ffmpeg
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

port=$("$build/tests/freeport")                  # the receiver
relay=$("$build/tests/freeport")                 # the lossy relay, which the sender sends to
while [ "$relay" = "$port" ]; do relay=$("$build/tests/freeport"); done
own=$("$build/tests/freeport")                   # the sender's own ports (RTCP comes back there)
while [ "$own" = "$port" ] || [ "$own" = "$relay" ]; do own=$("$build/tests/freeport"); done
frames=$((secs * 25))
src="testsrc2=s=1920x1080:r=25:d=$secs"
enc=(-c:v libx264 -preset ultrafast -tune zerolatency -b:v 4M -g 50)

echo "demo: 1080p25 testsrc2 -> format=yuyv422 (a webcam's format) -> toi420 -> libx264 zerolatency"
echo "      -> RTP (pkt_size 1200, batched send) -> relay dropping 2 % -> ffmpeg receiver (SDP, NACK)"
echo "      on 127.0.0.1; $secs s"

# The SDP, from a one-frame run with the same settings
"$ffmpeg" -nostdin -v error -f lavfi -i "$src" -vf format=yuyv422,toi420 "${enc[@]}" -frames:v 1 \
    -f rtp -sdp_file "$work/demo.sdp" "rtp://127.0.0.1:$port?pkt_size=1200" 2>/dev/null
# The receiver: decodes and writes one line per frame; its loss recovery
# (NACK, reorder wait, queue) runs with the defaults
timeout $((secs + 30)) "$ffmpeg" -nostdin -v error -analyzeduration 1M -protocol_whitelist file,udp,rtp \
    -sdp_flags rtcp_to_source -buffer_size 8388608 \
    -i "$work/demo.sdp" -y -flush_packets 1 -f framecrc "$work/recv.crc" 2> "$work/recv.log" &
recv=$!
# The relay: 2 % random loss (fixed seed), retransmissions included, 5 ms
# of delay towards the receiver
"$build/tests/rtpcap" relay "$work/relay.pcap" "$work/relay.ready" 2026 20000 1 5 2000 \
    $(((secs + 30) * 1000)) "$relay" "$port" "$((own + 1))" 1 > "$work/relay.txt" &
relay_pid=$!
sleep 1
# The sender, in real time
timeout $((secs + 30)) "$ffmpeg" -nostdin -v verbose -re -f lavfi -i "$src" \
    -filter_threads 1 -vf format=yuyv422,toi420 "${enc[@]}" -f rtp -stats_file "$work/rtcp.json" \
    "rtp://127.0.0.1:$relay?pkt_size=1200&localrtpport=$own&localrtcpport=$((own + 1))" \
    > "$work/send.log" 2>&1
# the RTCP BYE at the end makes the receiver drain and stop; if it is lost,
# stop the receiver after a grace period
for i in $(seq 50); do kill -0 $recv 2>/dev/null || break; sleep 0.1; done
kill -TERM $recv 2>/dev/null || true
wait $recv 2>/dev/null || true
wait $relay_pid 2>/dev/null || true

stats=$(grep -h 'frames converted' "$work/send.log" | tail -n 1)
sent=$(echo "$stats" | sed -n 's/.*\] \([0-9]*\) frames converted.*/\1/p')
us=$(echo "$stats" | sed -n 's/.*; \([0-9.]*\) us per converted frame.*/\1/p')
cpu=$(echo "$stats" | sed -n 's/.*, \([0-9.]*\) us of CPU per converted frame.*/\1/p')
pool=$(echo "$stats" | sed -n 's/.*passed through; \(.*\); [0-9.]* us per.*/\1/p')
received=$(grep -vc '^#' "$work/recv.crc" || true)
rtp=$(grep -h 'RTP send (' "$work/send.log" | tail -n 1)
rtp_mode=$(echo "$rtp" | sed -n 's/.*RTP send (\([a-z]*\)).*/\1/p')
rtp_pkts=$(echo "$rtp" | sed -n 's/.*: \([0-9]*\) packets.*/\1/p')
rtp_calls=$(echo "$rtp" | sed -n 's/.*RTCP; \([0-9]*\) system calls.*/\1/p')
rtp_per=$(echo "$rtp" | sed -n 's/.*(\([0-9.]*\) syscalls per access unit.*/\1/p')
json() { tail -n 1 "$work/rtcp.json" 2>/dev/null | sed -n "s/.*\"$1\":\([-0-9.e]*\).*/\1/p"; }
dropped=$(grep -c '^dropped' "$work/relay.txt" || true)
# frames hit by the loss: the RTP timestamps of the dropped packets
hit=$("$build/tests/rtpcap" dump "$work/relay.pcap" "$relay" |
      awk 'NR == FNR { if ($1 == "dropped") d[$2] = 1; next }
           { seq = 0; for (i = 5; i <= 8; i++) seq = seq * 16 + index("0123456789abcdef", substr($2, i, 1)) - 1
             if (seq in d) ts[substr($2, 9, 8)] = 1 }
           END { n = 0; for (t in ts) n++; print n }' "$work/relay.txt" -)
broken=$(grep -c 'error while decoding\|concealing' "$work/recv.log" || true)
allocs=$("$top/tests/alloc/cli-allocs.sh" "$ffmpeg" "$shim" 3000 toi420 yuyv422 320x240)

echo
echo "frames sent:        ${sent:-?} (of $frames)"
echo "frames received:    $received (decoded by the receiver)"
echo "toi420:             ${cpu:-?} us of CPU per frame (the filter's thread), yuyv422 1920x1080 -> yuv420p, 1 thread;" \
     "${us:-?} us wall clock in this busy pipeline"
echo "toi420 pool:        ${pool:-?}"
echo "allocations:        ${allocs#*: } (filtergraph thread, 320x240 yuyv422, 3000 vs 6000 frames)"
echo "RTP send:           mode ${rtp_mode:-?}, ${rtp_pkts:-?} packets of at most 1200 bytes in ${rtp_calls:-?} system calls"
echo "syscalls per frame: ${rtp_per:-?} (stock FFmpeg: 2 per packet, poll + sendto)"
echo "relay:              dropped $dropped of ${rtp_pkts:-?} RTP packets (2 %, retransmissions included), hitting $hit frames"
echo "retransmissions:    $(json retransmitted) packets resent for $(json nack_packets) NACKs" \
     "($(json nack_missed) not in history, $(json nack_rate_limited) over budget)"
echo "frames recovered:   $((hit - broken)) of $hit frames hit by loss decoded without error" \
     "(receiver log: $broken decode errors)"
echo "loss reported:      $(json cumulative_lost) packets lost after retransmission, fraction $(json fraction_lost)" \
     "(the receiver's last RR)"
echo "RTT:                $(json rtt_ms) ms (the relay adds 5 ms)"
[ -n "$sent" ] && [ "$received" -gt 0 ] && [ -n "$rtp_per" ]

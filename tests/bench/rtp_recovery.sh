#!/usr/bin/env bash
# Loss recovery at a camera's rate (issue "loss recovery"): this project's
# ffmpeg sends an 8 s 1080p25 H.264 clip at about 8 Mbit/s (-re -c copy,
# pkt_size=1200) through the lossy relay (loss hits retransmissions too);
# the receiver is this project's ffmpeg or stock FFmpeg 7.1, each with
# defaults apart from sdp_flags rtcp_to_source. Frames intact = decoded md5
# equal to the clip decoded locally.
#   tests/bench/rtp_recovery.sh BUILD
set -eu
build=$1
. "$(dirname "$0")/../rtp/lib.sh"
in=$build/bench/h264-1080p25-8M-8s.mkv
mkdir -p "$build/bench"
if [ ! -s "$in" ]; then
    "$ffmpeg" -nostdin -v error -y -f lavfi -i "testsrc2=s=1920x1080:r=25:d=8,noise=alls=12:allf=t" \
        -c:v libx264 -preset veryfast -tune zerolatency -b:v 8M -maxrate 8M -bufsize 4M -g 50 -bf 0 \
        "$in.tmp.mkv" && mv "$in.tmp.mkv" "$in"
fi

# one NAME BIN LOSS_PPM BURST DELAY_MS: prints "intact/total dropped(rtx) stats"
one() {
    local name=$1 bin=$2
    ports
    relay "$name" "$3" "$4" "$5" 11 1
    receive "$name" "$bin" "$in"
    timeout 90 "$ffmpeg" -nostdin -v error -re -i "$in" -c copy -f rtp "$(url)" > /dev/null 2>&1 || true
    wait "$recv_pid" || true
    wait "$relay_pid" || true
    relay_counts "$name"
    compare "$name" "$in"
}

echo "### Frames intact, 8 Mbit/s 1080p25, loss on retransmissions too (relay seed 11)"
echo
echo "| RTT | loss | ours → ours | ours → stock | dropped (of which retransmissions), ours | receiver: recovered / lost, NACKed, RTT |"
echo "|--:|---|--:|--:|--:|---|"
for rtt in 20 100; do
    for spec in "10000 1 1 %" "50000 1 5 %" "50000 3 5 %, bursts of 3" "100000 1 10 %"; do
        set -- $spec
        loss=$1 burst=$2; shift 2
        one ours "$ffmpeg" "$loss" "$burst" "$rtt"
        ours="$n_ok/$n_src" drop="$r_drop ($r_rtx_drop)"
        st=$(grep -h 'RTP receiver at the end' "$work/ours.recv.log" | tail -n 1 |
             sed -n 's/.* \([0-9]*\) recovered.* \([0-9]*\) lost.* for \([0-9]*\) numbers.*RTT \([0-9.-]*\) ms.*/\1 \/ \2, \3, \4 ms/p')
        one stock "$stock" "$loss" "$burst" "$rtt"
        echo "| $rtt ms | $* | $ours | $n_ok/$n_src | $drop | $st |"
    done
done

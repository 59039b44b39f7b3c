#!/usr/bin/env bash
# Paced sending (issue "paced sending"): this project's ffmpeg and stock
# FFmpeg 7.1 send the 8 s 1080p25 clip at about 8 Mbit/s (-re -c copy,
# pkt_size=1200) through the relay, which adds 20 ms towards the receiver
# and a bottleneck: a link of 2x or 1.5x the stream's rate behind a 64 KB
# drop-tail queue (tests/net/rtpcap.c relay). The receiver is this
# project's ffmpeg with defaults (NACK on) apart from sdp_flags
# rtcp_to_source; frames intact = decoded md5 equal to the clip decoded
# locally. Everything else comes from the relay's capture, the kernel's
# arrival times of the datagrams as they left the sender:
#   - sender latency: per frame, when its last packet left, less when it was
#     due (its RTP timestamp on the clock of the frame that left earliest
#     relative to its timestamp); -re adds a few ms of its own, see the
#     unpaced rows;
#   - keyframe: first to last packet of the largest frame (the 331 KB IDR);
#   - peak: the most bytes that left within any 1 ms.
#   tests/bench/rtp_pacing.sh BUILD [sweep]
# With "sweep", the 1.5x bottleneck for several pace_factor, pace_burst and
# pace_max_delay values (what the defaults were chosen from).
set -eu
build=$1
. "$(dirname "$0")/../rtp/lib.sh"
in=$(clip_8m)
kbit=$(( $(stat -c %s "$in") * 8 / 8 / 1000 ))

# one NAME BIN RATE_KBIT [SENDER OPTIONS...]: one transfer; sets n_src n_ok
# r_in r_qdrop timing (from the capture) pacer (from the stats file)
one() {
    local name=$1 bin=$2 rate=$3; shift 3
    ports
    relay "$name" 0 1 20 11 0 "$rate" 65536
    "$ffmpeg" -nostdin -v error -i "$in" -c copy -frames 1 -f rtp -sdp_file "$work/$name.sdp" \
        "rtp://127.0.0.1:$p_recv" > /dev/null
    timeout 90 "$ffmpeg" -nostdin -v verbose -protocol_whitelist file,udp,rtp -sdp_flags rtcp_to_source \
        -i "$work/$name.sdp" -map 0 -c copy -y "$work/$name.nut" 2> "$work/$name.recv.log" &
    recv_pid=$!
    wait_udp "$p_recv"
    local stats=()
    [ "$bin" = "$ffmpeg" ] && stats=(-stats_file "$work/$name.json" -stats_interval 0)
    timeout 90 "$bin" -nostdin -v error -re -i "$in" -c copy -f rtp "$@" "${stats[@]}" "$(url)" \
        > /dev/null 2>&1 || true
    wait "$recv_pid" || true
    wait "$relay_pid" || true
    relay_counts "$name"
    "$ffmpeg" -nostdin -v error -y -i "$work/$name.nut" -map 0 -fps_mode passthrough \
        -f framemd5 "$work/$name.framemd5" 2> /dev/null || true
    compare "$name" "$in"
    "$tools/rtpcap" times "$work/$name.pcap" "$p_relay" > "$work/$name.times"
    timing=$(awk '
        !seen[$2]++ { if (!($3 in first)) { first[$3] = $1; order[n++] = $3; size[$3] = 0 }
                      last[$3] = $1; size[$3] += $4 }
        { t[m] = $1; b[m++] = $4 }
        END {
            ts0 = order[0]; off = 1e18
            for (i = 0; i < n; i++) {
                d = order[i] - ts0; if (d < 0) d += 4294967296
                due[i] = d / 90.0 * 1000; if (first[order[i]] - due[i] < off) off = first[order[i]] - due[i]
                if (size[order[i]] > size[order[big]]) big = i
            }
            for (i = 0; i < n; i++) lat[i] = (last[order[i]] - due[i] - off) / 1000
            asort(lat)
            # most bytes within 1 ms, over every datagram as it arrived
            j = 0; sum = 0; peak = 0
            for (i = 0; i < m; i++) {
                sum += b[i]
                while (t[i] - t[j] >= 1000) { sum -= b[j]; j++ }
                if (sum > peak) peak = sum
            }
            printf "%.1f / %.1f | %.0f KB in %.0f ms | %.0f KB", lat[int(n * 0.5 + 0.5)], lat[int(n * 0.95 + 0.5)],
                   size[order[big]] / 1000, (last[order[big]] - first[order[big]]) / 1000, peak / 1000
        }' "$work/$name.times")
    pacer="-"
    if [ -s "$work/$name.json" ]; then
        pacer="$(json "$work/$name.json" pace_delay_p50_ms) / $(json "$work/$name.json" pace_delay_p95_ms), $(json "$work/$name.json" pace_forced_drains)"
    fi
}

row() {  # row LABEL NAME BIN RATE [OPTIONS...]
    local label=$1; shift
    one "$@"
    echo "| $label | $(( $3 / 1000 )) Mbit/s | $r_qdrop of $r_in ($(awk -v a="$r_qdrop" -v b="$r_in" 'BEGIN { printf "%.2f", b ? 100 * a / b : 0 }') %) | $n_ok/$n_src | $timing | $pacer |"
}

header() {
    echo "| sender | bottleneck | datagrams lost in the queue | frames intact | sender latency ms p50 / p95 | largest frame: first to last packet | peak 1 ms | pacer: packet wait ms p50 / p95, forced drains |"
    echo "|---|--:|--:|--:|--:|--:|--:|--:|"
}

if [ "${2:-}" = sweep ]; then
    echo "### Pacer settings at a 1.5x bottleneck ($((kbit * 3 / 2)) kbit/s, 64 KB queue, clip $kbit kbit/s)"
    echo
    header
    for f in 1.5 2.5 4; do
        for burst in 8192 16384 65536; do
            row "pace_factor $f, pace_burst $burst" "s-$f-$burst" "$ffmpeg" $((kbit * 3 / 2)) -pace_factor "$f" -pace_burst "$burst"
        done
    done
    for md in 0.05 0.2 0.4; do
        row "pace_max_delay $md" "s-md-$md" "$ffmpeg" $((kbit * 3 / 2)) -pace_max_delay "$md"
    done
    exit 0
fi

echo "### A bottleneck with a 64 KB drop-tail queue, 20 ms towards the receiver (clip: $kbit kbit/s)"
echo
header
for x in 2 1.5; do
    rate=$(awk -v k="$kbit" -v x="$x" 'BEGIN { printf "%d", k * x }')
    row "ours (paced, defaults), ${x}x" "ours-$x" "$ffmpeg" "$rate"
    row "ours, pace=0, ${x}x" "nopace-$x" "$ffmpeg" "$rate" -pace 0
    row "stock, ${x}x" "stock-$x" "$stock" "$rate"
done

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
#   - added latency: per frame, when its last packet left, less when the
#     unpaced sender (pace=0, same bottleneck, run first) sent its first
#     packet, i.e. when the muxer got it; runs aligned at their first packet;
#     frames after the first second only (ffmpeg -re reads the first half
#     second at once, and the pacer holds that early media to its time);
#   - keyframe: first to last packet of the largest frame (the 331 KB IDR);
#   - peak: the most bytes that left within any 1 ms.
#   tests/bench/rtp_pacing.sh BUILD [sweep|syscalls]
# With "sweep", both bottlenecks for several pace_factor, pace_burst and
# pace_max_delay values (what the defaults were chosen from); with
# "syscalls", only the 20 Mbit/s system call and CPU table.
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
    # per frame (in order of appearance): when its first and its last
    # packet left; the largest frame's spread; the most bytes within 1 ms
    awk -v frames="$work/$name.frames" '
        !seen[$2]++ { if (!($3 in first)) { first[$3] = $1; order[n++] = $3; size[$3] = 0 }
                      last[$3] = $1; size[$3] += $4 }
        { t[m] = $1; b[m++] = $4 }
        END {
            big = 0
            for (i = 0; i < n; i++) {
                printf "%d %d %d\n", i, first[order[i]] - first[order[0]], last[order[i]] - first[order[0]] > frames
                if (size[order[i]] > size[order[big]]) big = i
            }
            j = 0; sum = 0; peak = 0
            for (i = 0; i < m; i++) {
                sum += b[i]
                while (t[i] - t[j] >= 1000) { sum -= b[j]; j++ }
                if (sum > peak) peak = sum
            }
            printf "%.0f KB in %.0f ms | %.0f KB", size[order[big]] / 1000,
                   (last[order[big]] - first[order[big]]) / 1000, peak / 1000
        }' "$work/$name.times" > "$work/$name.shape"
    timing="- | $(cat "$work/$name.shape")"
    if [ -n "${unpaced:-}" ] && [ "$name" != "$unpaced" ]; then
        # added latency: when the frame's last packet left, less when the
        # unpaced sender sent its first (the time the muxer got it), frames
        # after the first second (-re reads the first half second at once)
        join "$work/$unpaced.frames" "$work/$name.frames" |
            awk '$1 >= 25 { printf "%.1f\n", ($5 - $2) / 1000 }' | sort -n > "$work/$name.lat"
        timing="$(awk '{ v[NR] = $1 } END { printf "%s / %s", v[int(NR * 0.5 + 0.5)], v[int(NR * 0.95 + 0.5)] }' "$work/$name.lat") | $(cat "$work/$name.shape")"
    fi
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
    echo "| sender | bottleneck | datagrams lost in the queue | frames intact | added latency per frame, ms p50 / p95 | largest frame: first to last packet | peak 1 ms | pacer: packet wait ms p50 / p95, forced drains |"
    echo "|---|--:|--:|--:|--:|--:|--:|--:|"
}

if [ "${2:-}" = sweep ]; then
    echo "### Pacer settings at bottlenecks of 1.5x and 2x, 64 KB queue (clip $kbit kbit/s)"
    echo
    header
    for x in 1.5 2; do
        rate=$(awk -v k="$kbit" -v x="$x" 'BEGIN { printf "%d", k * x }')
        unpaced=s-nopace-$x
        one "$unpaced" "$ffmpeg" "$rate" -pace 0
        for f in 1.5 1.75 2 2.5; do
            row "${x}x: pace_factor $f" "s-$x-$f" "$ffmpeg" "$rate" -pace_factor "$f"
        done
        for burst in 8192 32768; do
            row "${x}x: pace_burst $burst" "s-$x-b$burst" "$ffmpeg" "$rate" -pace_burst "$burst"
        done
        for md in 0.2 1; do
            row "${x}x: pace_max_delay $md" "s-$x-md$md" "$ffmpeg" "$rate" -pace_max_delay "$md"
        done
    done
    exit 0
fi

if [ "${2:-}" != syscalls ]; then
echo "### A bottleneck with a 64 KB drop-tail queue, 20 ms towards the receiver (clip: $kbit kbit/s)"
echo
header
for x in 2 1.5; do
    rate=$(awk -v k="$kbit" -v x="$x" 'BEGIN { printf "%d", k * x }')
    unpaced=nopace-$x
    row "ours, pace=0, ${x}x" "nopace-$x" "$ffmpeg" "$rate" -pace 0
    row "ours (paced, defaults), ${x}x" "ours-$x" "$ffmpeg" "$rate"
    row "stock, ${x}x" "stock-$x" "$stock" "$rate"
done
echo
fi

# system calls of the send path at a camera's top rate, counted by strace
# in the sender's threads: sends (sendmmsg, sendmsg, sendto), waits (ppoll,
# poll) and the pacer's wake-up pipe (read, write on a pipe)
clip20=$build/bench/h264-1080p25-20M-10s.mkv
if [ ! -s "$clip20" ]; then
    "$ffmpeg" -nostdin -v error -y -f lavfi -i "testsrc2=s=1920x1080:r=25:d=10,noise=alls=12:allf=t" \
        -c:v libx264 -preset ultrafast -b:v 20M -maxrate 20M -bufsize 20M -g 50 "$clip20.tmp.mkv" &&
        mv "$clip20.tmp.mkv" "$clip20"
fi
echo "### The send path at 20 Mbit/s (-re, 10 s of 1080p25, pkt_size 1200): system calls (strace -f) and CPU"
echo
echo "| sender | RTP packets | sends | waits (ppoll, poll) | wake-up pipe | system calls per packet | CPU ms per MB (median of 3 runs without strace) |"
echo "|---|--:|--:|--:|--:|--:|--:|"
for v in "paced (defaults)|" "pace=0|-pace 0"; do
    label=${v%%|*} opts=${v#*|}
    p=$(port)
    "$tools/rtpcap" sink 1 2000 60000 "$p" "$((p + 1))" > /dev/null &
    sink=$!
    wait_udp "$p"
    # shellcheck disable=SC2086
    strace -f -qq -y -e trace=sendto,sendmsg,sendmmsg,ppoll,poll,read,write -o "$work/strace" \
        "$ffmpeg" -nostdin -v verbose -re -i "$clip20" -c copy -f rtp $opts \
        "rtp://127.0.0.1:$p?pkt_size=1200" > /dev/null 2> "$work/strace.log" || true
    kill "$sink" 2> /dev/null || true
    wait "$sink" 2> /dev/null || true
    pk=$(sed -n 's/.*RTP send ([a-z]*): \([0-9]*\) packets.*/\1/p' "$work/strace.log")
    # CPU of the whole ffmpeg process (user + sys), without strace: the
    # median of 3 runs
    : > "$work/cpus"
    for _ in 1 2 3; do
        p=$(port)
        "$tools/rtpcap" sink 1 2000 60000 "$p" "$((p + 1))" > /dev/null &
        sink=$!
        wait_udp "$p"
        # shellcheck disable=SC2086
        "$tools/cputime" "$work/cpu" "$ffmpeg" -nostdin -v verbose -re -i "$clip20" -c copy -f rtp $opts \
            "rtp://127.0.0.1:$p?pkt_size=1200" > /dev/null 2> "$work/cpu.log" || true
        kill "$sink" 2> /dev/null || true
        wait "$sink" 2> /dev/null || true
        awk '{ print $2 + $3 }' "$work/cpu" >> "$work/cpus"
    done
    u=$(sort -g "$work/cpus" | sed -n 2p) sy=0
    mb=$(sed -n 's/.*RTP send ([a-z]*): [0-9]* packets, \([0-9]*\) bytes.*/\1/p' "$work/cpu.log")
    sends=$(grep -cE '^[0-9]+ +(sendto|sendmsg|sendmmsg)\(' "$work/strace" || true)
    waits=$(grep -cE '^[0-9]+ +(ppoll|poll)\(' "$work/strace" || true)
    pipe=$(grep -cE '^[0-9]+ +(read|write)\([0-9]+<pipe:' "$work/strace" || true)
    echo "| $label | $pk | $sends | $waits | $pipe | $(awk -v a="$((sends + waits + pipe))" -v p="$pk" 'BEGIN { printf "%.3f", a / p }') |" \
         "$(awk -v u="$u" -v s="$sy" -v b="$mb" 'BEGIN { printf "%.2f", (u + s) * 1000 / (b / 1e6) }') |"
done

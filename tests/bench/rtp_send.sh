#!/usr/bin/env bash
# The live555 table: CPU to send 100 s of 1080p25 H.264 at about 20 Mbit/s
# as fast as possible over RTP to 127.0.0.1, for stock FFmpeg and our send
# modes (paced, the default, and gso unpaced), at several pkt_size values.
#   tests/bench/rtp_send.sh BUILD
# RTP_BENCH_REPS (default 3): runs per cell, the median is shown.
# RTP_BENCH_SECONDS (default 100): length of the stream.
set -euf
build=$1
ffmpeg=$build/ffmpeg/ffmpeg
stock=$build/stock/ffmpeg
tools=$build/tests
reps=${RTP_BENCH_REPS:-3}
secs=${RTP_BENCH_SECONDS:-100}
sizes=${RTP_BENCH_SIZES:-1200 1472 4096 8192 16384 32768 65000}
cols="stock single mmsg gso gso-unpaced gso-nogro"
in=$build/bench/h264-1080p25-20M-${secs}s.mkv
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

if [ ! -f "$in" ]; then
    mkdir -p "$(dirname "$in")"
    echo "(encoding the input: ${secs} s of 1080p25 testsrc2 with temporal noise, x264 20 Mbit/s CBR)"
    "$ffmpeg" -nostdin -v error -y -f lavfi \
        -i "testsrc2=s=1920x1080:r=25:d=$secs,noise=alls=12:allf=t" \
        -c:v libx264 -preset ultrafast -b:v 20M -maxrate 20M -bufsize 20M -g 50 "$in.tmp.mkv"
    mv "$in.tmp.mkv" "$in"
fi
frames=$((secs * 25))

# a sink on 127.0.0.1 that drains what arrives, with UDP_GRO or (gso-nogro)
# without; a fresh one for every run, so that no run starts while the sink
# still drains the previous one
p_gro=$("$tools/freeport")
p_nogro=$("$tools/freeport")
while [ "$p_nogro" = "$p_gro" ]; do p_nogro=$("$tools/freeport"); done
sink_pid=
sink_start() {  # sink_start COL
    local gro=1 port=$p_gro
    [ "$1" = gso-nogro ] && gro=0 port=$p_nogro
    "$tools/rtpcap" sink "$gro" 600000 3600000 "$port" "$((port + 1))" > /dev/null &
    sink_pid=$!
    local hex; hex=$(printf '%04X' "$port")
    for _ in $(seq 100); do grep -q ":$hex 00000000:0000" /proc/net/udp && break; sleep 0.02; done
}
sink_stop() { kill "$sink_pid" 2>/dev/null || true; wait "$sink_pid" 2>/dev/null || true; }

# cmd COL SIZE: the sender's command line
cmd() {
    local col=$1 size=$2 port=$p_gro
    [ "$col" = gso-nogro ] && port=$p_nogro
    case "$col" in
        stock) echo "$stock -nostdin -v error -i $in -c copy -f rtp rtp://127.0.0.1:$port?pkt_size=$size" ;;
        gso-unpaced) echo "$ffmpeg -nostdin -v verbose -i $in -c copy -f rtp -send_mode gso -pace 0 rtp://127.0.0.1:$port?pkt_size=$size" ;;
        *)     echo "$ffmpeg -nostdin -v verbose -i $in -c copy -f rtp -send_mode ${col%-nogro} rtp://127.0.0.1:$port?pkt_size=$size" ;;
    esac
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -A cpu wall pkts bytes calls
for size in $sizes; do
    # the columns take turns within each repetition, so that a slow spell of
    # the (shared, noisy) machine hits them all alike
    for col in $cols; do : > "$work/cpu.$col"; : > "$work/wall.$col"; done
    for _ in $(seq "$reps"); do
        for col in $cols; do
            sink_start "$col"
            # shellcheck disable=SC2046
            "$tools/cputime" "$work/t" $(cmd "$col" "$size") > /dev/null 2> "$work/log" ||
                { tail -n 5 "$work/log"; echo "rtp_send: $col at $size failed" >&2; exit 1; }
            sink_stop
            read -r w u s < "$work/t"
            echo "$u $s" | awk '{ print $1 + $2 }' >> "$work/cpu.$col"
            echo "$w" >> "$work/wall.$col"
            if [ "$col" != stock ]; then
                read -r pkts[$col,$size] bytes[$col,$size] < <(sed -n \
                    's/.*RTP send ([a-z]*): \([0-9]*\) packets, \([0-9]*\) bytes.*/\1 \2/p' "$work/log")
            fi
        done
    done
    for col in $cols; do
        cpu[$col,$size]=$(median < "$work/cpu.$col")
        wall[$col,$size]=$(median < "$work/wall.$col")
        # system calls on the send path, counted by strace in a separate run
        sink_start "$col"
        # shellcheck disable=SC2046
        strace -f -qq -c -e trace=sendto,sendmsg,sendmmsg,poll,ppoll -o "$work/strace" \
            $(cmd "$col" "$size") > /dev/null 2>&1
        sink_stop
        calls[$col,$size]=$(awk '$NF ~ /^(sendto|sendmsg|sendmmsg|poll|ppoll)$/ { n += $4 } END { print n + 0 }' "$work/strace")
    done
    # the wire is byte-identical across modes and with stock (make check, rtp-wire)
    pkts[stock,$size]=${pkts[single,$size]}
    bytes[stock,$size]=${bytes[single,$size]}
done

mb() { awk -v b="${bytes[single,$1]}" 'BEGIN { printf "%.1f", b / 1e6 }'; }
echo "Input: $secs s of 1080p25 H.264, $(mb 1200) MB of RTP at pkt_size 1200; $frames access units."
echo "CPU = user + sys of the whole ffmpeg process (-c copy from Matroska), median of $reps runs,"
echo "the columns taking turns."
echo "Receiver: a sink on 127.0.0.1 with UDP_GRO (gso-nogro: the same sink without UDP_GRO,"
echo "where loopback splits each GSO send into datagrams inside the sender's system call);"
echo "a fresh sink for every run."
echo
echo "### CPU per MB sent (ms/MB), lower is better"
echo
echo "| pkt_size | packets | stock | single | mmsg | gso | gso-unpaced | gso-nogro | stock / gso | stock / mmsg | gso / gso-unpaced |"
echo "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for size in $sizes; do
    line="| $size | ${pkts[single,$size]} |"
    for col in $cols; do
        line+=$(awk -v c="${cpu[$col,$size]}" -v b="${bytes[single,$size]}" 'BEGIN { printf " %.2f |", c * 1000 / (b / 1e6) }')
    done
    line+=$(awk -v a="${cpu[stock,$size]}" -v b="${cpu[gso,$size]}" -v c="${cpu[mmsg,$size]}" \
        -v u="${cpu[gso-unpaced,$size]}" 'BEGIN { printf " %.1fx | %.1fx | %.2fx |", a / b, a / c, b / u }')
    echo "$line"
done
echo
echo "### System calls on the send path (sendto, sendmsg, sendmmsg, poll; strace -c -f), RTCP included"
echo
echo "| pkt_size | stock per packet | single | mmsg | gso | stock per AU | single | mmsg | gso |"
echo "|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for size in $sizes; do
    line="| $size |"
    for col in stock single mmsg gso; do
        line+=$(awk -v n="${calls[$col,$size]}" -v p="${pkts[single,$size]}" 'BEGIN { printf " %.3f |", n / p }')
    done
    for col in stock single mmsg gso; do
        line+=$(awk -v n="${calls[$col,$size]}" -v f="$frames" 'BEGIN { printf " %.2f |", n / f }')
    done
    echo "$line"
done
echo
echo "### RTP packets per second (wall clock of the sender, median run)"
echo
echo "| pkt_size | stock | single | mmsg | gso | gso-unpaced | gso-nogro |"
echo "|--:|--:|--:|--:|--:|--:|--:|"
for size in $sizes; do
    line="| $size |"
    for col in $cols; do
        line+=$(awk -v p="${pkts[single,$size]}" -v w="${wall[$col,$size]}" 'BEGIN { printf " %.0f |", p / w }')
    done
    echo "$line"
done
echo
t1200=$(awk -v a="${cpu[gso,1200]:-0}" -v b="${bytes[single,1200]:-1}" 'BEGIN { printf "%.2f", a * 1000 / (b / 1e6) }')
t16k=$(awk -v a="${cpu[stock,16384]:-0}" -v b="${bytes[single,16384]:-1}" 'BEGIN { printf "%.2f", a * 1000 / (b / 1e6) }')
echo "Target 1: gso at 1200 ($t1200 ms/MB) <= stock at 16384 ($t16k ms/MB):" \
    "$(awk -v a="$t1200" -v b="$t16k" 'BEGIN { print (a <= b) ? "met" : "NOT met" }')"

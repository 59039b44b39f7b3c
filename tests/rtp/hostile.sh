#!/usr/bin/env bash
# The RTP receiver (FFmpeg's sdp demuxer with this project's rtpdec) under
# RTP a real stream does not send, all on 127.0.0.1; tests/net/rtcpinject.c
# builds the packets by hand. Each case measures this project's receiver
# and stock FFmpeg's in the same run.
#   tests/rtp/hostile.sh BUILD TEST
# TEST: au (4,000 packets of 64,000 bytes, one timestamp, no marker: the
#       access-unit gathering's memory) | queue (a gap, then 1,500 of
#       64,000 bytes in order: the reorder queue's memory) | takeover (a
#       live stream, then 2 packets 30,000 numbers ahead, or 1 packet 2,000
#       ahead, from elsewhere: the receiver follows the real stream again) |
#       storm (packets each 100 numbers ahead, 200 a second, then each 999
#       ahead, 2,000 a second: the receiver's RTCP stays within 5 % of the
#       media, and one compound)
set -eu
build=$1 what=$2
. "$(dirname "$0")/lib.sh"
SSRC=0x4057113e

# sdp FILE PORT AVPF: an H.264 SDP for 127.0.0.1:PORT; with AVPF 1 it
# negotiates NACK (the receiver's reorder queue of 4,096)
sdp() {
    {
        echo "v=0"; echo "o=- 0 0 IN IP4 127.0.0.1"; echo "s=hostile"
        echo "c=IN IP4 127.0.0.1"; echo "t=0 0"
        if [ "$3" = 1 ]; then
            echo "m=video $2 RTP/AVPF 96"; echo "a=rtcp-fb:96 nack"
        else
            echo "m=video $2 RTP/AVP 96"
        fi
        echo "a=rtpmap:96 H264/90000"; echo "$fmtp"
    } > "$1"
}

# the parameter sets of a real 320x240 stream, so that the receiver knows
# the picture size without any from the packets
fmtp=$("$ffmpeg" -nostdin -v error -f lavfi -i testsrc2=s=320x240:d=1 -c:v libx264 -frames 1 \
           -f rtp -sdp_file /dev/stdout "rtp://127.0.0.1:9" 2> /dev/null | grep '^a=fmtp:96')
[ -n "$fmtp" ] || die "no fmtp line"

kb() { awk -v k="$2" '$1 == k":" { print $2 }' "/proc/$1/status"; }

# flood NAME BIN MODE COUNT SIZE PPS AVPF: one receiver, the rest packets,
# then the flood; sets grow (KiB: the peak resident size during the flood
# over the resident size at rest) and rest
flood() {
    local name=$1 bin=$2 mode=$3 count=$4 size=$5 pps=$6 avpf=$7 port pid flags=()
    port=$(port)
    sdp "$work/$name.sdp" "$port" "$avpf"
    [ "$avpf" = 1 ] && flags=(-sdp_flags rtcp_to_source)
    [ "$bin" = "$ffmpeg" ] && flags+=(-stats_file "$work/$name.json" -stats_interval 0)
    "$bin" -nostdin -v warning -protocol_whitelist file,udp,rtp "${flags[@]}" -buffer_size 33554432 \
        -i "$work/$name.sdp" -c copy -f null - > /dev/null 2> "$work/$name.log" &
    pid=$!
    ( sleep 60; kill -9 "$pid" 2>/dev/null ) &
    local dog=$!
    wait_udp "$port"
    mkfifo "$work/$name.go"
    "$tools/rtcpinject" rtpflood "$port" "$SSRC" "$mode" "$count" "$size" "$pps" \
        < "$work/$name.go" > "$work/$name.out" &
    local inj=$!
    exec 9> "$work/$name.go"
    for _ in $(seq 100); do grep -q '^rest' "$work/$name.out" && break; sleep 0.1; done
    grep -q '^rest' "$work/$name.out" || die "$name: the flooder did not start"
    sleep 0.5
    kill -0 "$pid" 2>/dev/null || die "$name: the receiver ended at rest: $(tail -n 2 "$work/$name.log")"
    rest=$(kb "$pid" VmRSS)
    echo 5 > "/proc/$pid/clear_refs"        # the peak from here on
    echo go >&9
    exec 9>&-
    wait "$inj" || die "$name: the flooder failed"
    sleep 0.5
    kill -0 "$pid" 2>/dev/null || die "$name: the receiver did not survive the flood: $(tail -n 2 "$work/$name.log")"
    grow=$(( $(kb "$pid" VmHWM) - rest ))
    kill "$pid"; wait "$pid" 2>/dev/null || true
    kill "$dog" 2>/dev/null || true
    received=$(json "$work/$name.json" packets 2>/dev/null || true)
    note "$name: at rest $((rest / 1024)) MiB; the flood ($(cat "$work/$name.out" | tail -n 1)) added" \
         "$((grow / 1024)) MiB at its peak${received:+; $received packets received}"
}

# memtest NAME MODE COUNT SIZE PPS AVPF LOG_PATTERN: stock, then ours; ours
# must log its cap and grow by 32 MiB at most
memtest() {
    local name=$1 args=("$2" "$3" "$4" "$5" "$6") pattern=$7 stock_grow
    flood "$name-stock" "$stock" "${args[@]}"; stock_grow=$grow
    flood "$name-ours" "$ffmpeg" "${args[@]}"
    grep -q "$pattern" "$work/$name-ours.log" || die "ours: the cap was not logged"
    [ "$grow" -le $((32 * 1024)) ] ||
        die "ours: the $name flood added $((grow / 1024)) MiB (stock $((stock_grow / 1024))), 32 at most"
}

test_au() { memtest au nomarker 4000 64000 1000 0 'without its marker: handed on'; }
test_queue() { memtest queue gap 1500 64000 3000 1 'jitter buffer full: [0-9]* bytes'; }

# takeover_run NAME BIN SEQ N: a 6 s live stream (sequence numbers from
# 1000, about 2 packets a frame), N packets from SEQ on 2 s in; sets frames
# (access units out of the demuxer), real (those of the real stream) and
# gap (the longest pause between two of those, in ms of their timestamps)
takeover_run() {
    local name=$1 bin=$2 port
    port=$(port)
    "$ffmpeg" -nostdin -v error -f lavfi -i "testsrc2=s=320x240:r=25:d=1" -c:v libx264 -preset ultrafast \
        -tune zerolatency -frames 1 -f rtp -ssrc "$SSRC" -sdp_file "$work/$name.sdp" \
        "rtp://127.0.0.1:$port" > /dev/null
    timeout 30 "$bin" -nostdin -v warning -protocol_whitelist file,udp,rtp -i "$work/$name.sdp" \
        -c copy -f framecrc "$work/$name.crc" 2> "$work/$name.log" &
    local recv=$!
    wait_udp "$port"
    timeout 30 "$ffmpeg" -nostdin -v error -re -f lavfi -i "testsrc2=s=320x240:r=25:d=6" \
        -c:v libx264 -preset ultrafast -tune zerolatency -g 25 -f rtp -ssrc "$SSRC" -seq 1000 \
        "rtp://127.0.0.1:$port" > /dev/null 2>&1 &
    local send=$!
    sleep 2
    "$tools/rtcpinject" rtpjump "$port" "$SSRC" "$3" "$4"
    wait "$send" || die "$name: the sender failed"
    wait "$recv" || true
    frames=$(grep -vc '^#' "$work/$name.crc" || true)
    # the real stream's access units only (the injected ones carry
    # timestamps far away), in order of their timestamps
    gap=$(grep -v '^#' "$work/$name.crc" | awk -F', *' 'NR == 1 { f = $3 } $3 >= f && $3 < f + 900000 { print $3 }' |
          sort -n | awk 'NR > 1 && $1 - p > g { g = $1 - p } { p = $1 } END { printf "%d", g / 90 }')
    real=$(grep -v '^#' "$work/$name.crc" | awk -F', *' 'NR == 1 { f = $3 } $3 >= f && $3 < f + 900000' | wc -l)
}

test_takeover() {
    local attack seq n
    for attack in "30000 2" "2000 1"; do
        read -r seq n <<< "$attack"
        takeover_run "to$seq-stock" "$stock" $((1000 + seq)) "$n"; local s_real=$real
        takeover_run "to$seq-ours" "$ffmpeg" $((1000 + seq)) "$n"
        note "$n packet(s) at sequence $((1000 + seq)), 2 s into a stream at about 1,100: ours" \
             "$real of the stream's 150 access units, longest pause" \
             "$gap ms; stock $s_real of 150"
        [ "$s_real" -lt 120 ] || die "stock kept $s_real access units: the attack did nothing"
        [ "$real" -ge 145 ] && [ "$gap" -le 200 ] ||
            die "ours: $real access units, a pause of $gap ms after the takeover attempt"
    done
}

test_storm() {
    local port local_port
    port=$(port); local_port=$(port)
    while [ "$local_port" = "$port" ]; do local_port=$(port); done
    sdp "$work/storm.sdp" "$port" 1
    timeout 30 "$ffmpeg" -nostdin -v warning -protocol_whitelist file,udp,rtp -sdp_flags rtcp_to_source \
        -stats_file "$work/storm.json" -stats_interval 0 -i "$work/storm.sdp" -c copy -f null - \
        > /dev/null 2> "$work/storm.log" &
    local recv=$!
    wait_udp "$port"
    local out
    out=$("$tools/rtcpinject" rtpstorm "$port" "$SSRC" "$local_port" 200 200 100 6 2000 999 3) ||
        die "the storm could not be sent"
    kill "$recv" 2>/dev/null || true; wait "$recv" 2>/dev/null || true
    local phase=0 label media rtcp dgrams
    while read -r _ media _ rtcp _ dgrams; do
        phase=$((phase + 1))
        label="each 100 ahead, 200 a second, 6 s"
        [ "$phase" = 2 ] && label="each 999 ahead, 2,000 a second, 3 s"
        note "packets $label: $media bytes of media, $rtcp bytes of RTCP back in $dgrams" \
             "datagrams ($(awk -v a="$rtcp" -v b="$media" 'BEGIN { printf "%.2f", 100 * a / b }') %)"
        [ "$media" -gt 100000 ] || die "only $media bytes of the storm sent"
        # RFC 3550's 5 %, and one compound early (RFC 4585)
        awk -v a="$rtcp" -v b="$media" 'BEGIN { exit !(a <= 0.05 * b + 1400) }' ||
            die "the receiver's RTCP was $rtcp bytes for $media of media: above 5 % and 1400 bytes"
    done <<< "$out"
    [ "$phase" = 2 ] || die "the storm printed $phase phases"
    note "the receiver asked for $(json "$work/storm.json" nacked) numbers in all"
}

case $what in
    au|queue|takeover|storm) "test_$what" ;;
    *) die "unknown test $what" ;;
esac
echo "PASS rtp-hostile-$what"

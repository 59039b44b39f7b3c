#!/usr/bin/env bash
# End-to-end tests of the RTP send path, all on 127.0.0.1.
#   tests/rtp/sendpath.sh BUILD TEST
# TEST is one of:
#   wire      captures byte-identical across send_mode values and against
#             stock FFmpeg (timestamps shifted to the same base); RTCP
#             SR/SDES/BYE decoded by tshark; the BYE bye_delay (50 ms, 0.2 s)
#             after the last RTP packet, from kernel arrival times (mmsg:
#             with the capture stopped while the sender runs)
#   decode    H.264, HEVC and PCM through the capture relay to FFmpeg's RTP
#             demuxer (SDP): every packet <= pkt_size, decoded md5 per frame
#             (video) or of the whole stream (audio) equal to the source
#   edges     pkt_size 64, 1200, 1472, 9000, 65507 send and decode; packets of
#             exactly pkt_size occur; 65508 and too-small sizes are refused
#   vp9       VP9 through the relay to FFmpeg's RTP demuxer: decoded md5 per
#             frame equal to the source, the payload descriptors (RFC 9628)
#             read by tests/rtp/vp9desc.py against the source's key frames
#   refused   the receiver starts 2 s late and the sender runs with connect=1:
#             the sender keeps running and the receiver decodes from its
#             first keyframe on
#   formats   rtp_mpegts and RTSP output (UDP and TCP transport) still decode;
#             the SDP announces feedback over UDP only
#   faults    with a preload shim (tests/net/sendfail.c) failing GSO sends
#             with EIO, sendmmsg with ENOSYS, or every Nth send with ENOBUFS
#             or EAGAIN: the captures stay byte-identical, the fallbacks and
#             retries are counted
# Every wait is bounded; every loop has a count.
set -eu
build=$1 what=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/lib.sh"
rtpcap=$tools/rtpcap
freeport=$tools/freeport

# --- helpers (wait_file, wait_udp and capture are in lib.sh) ------------------
# sizes PCAP PORT: "count max" of the UDP payloads to PORT, decoded by tshark
sizes() {
    tshark -r "$1" -Y "udp.dstport == $2" -T fields -e udp.length 2>/dev/null |
        awk '{ n++; s = $1 - 8; if (s > m) m = s } END { print n + 0, m + 0 }'
}

# receiver NAME SDP FMT: FFmpeg's RTP demuxer, decoding to FMT (framemd5|md5)
receiver() {
    local name=$1 sdp=$2 fmt=$3
    timeout 60 "$ffmpeg" -nostdin -v error -protocol_whitelist file,udp,rtp \
        -buffer_size 8388608 ${RECV_OPTS:-} -i "$sdp" -map 0 -fps_mode passthrough -f "$fmt" "$work/$name.$fmt" \
        2> "$work/$name.recv.log" &
    recv_pid=$!
}

# md5list FILE: the md5 column of a framemd5 file
md5list() { grep -v '^#' "$1" | awk -F', *' '{ print $NF }'; }

# sdp_for INPUT PORT OUT: the SDP a receiver on PORT needs (from a 1-frame run)
sdp_for() {
    "$ffmpeg" -nostdin -v error -i "$1" -c copy -frames 1 -f rtp ${sdp_opts:-} -sdp_file "$3" \
        "rtp://127.0.0.1:$2" > /dev/null
}

# through INPUT PKT_SIZE FMT NAME [SENDER OPTIONS...]: sender -> relay -> receiver
# Checks every packet <= PKT_SIZE and the decoded md5s against the source.
through() {
    local in=$1 size=$2 fmt=$3 name=$4; shift 4
    local p1 p2
    p1=$("$freeport"); p2=$("$freeport" 2)
    while [ "$p2" = "$p1" ]; do p2=$("$freeport"); done
    sdp_for "$in" "$p2" "$work/$name.sdp"
    receiver "$name" "$work/$name.sdp" "$fmt"
    wait_udp "$p2"
    # RTCP is forwarded 500 ms late: FFmpeg's receiver stops at the BYE, and
    # must not see it before the last RTP packets
    capture "$name" 1000 60000 "$p1:$p2" "$((p1 + 1)):$((p2 + 1)):500"
    timeout 60 "$ffmpeg" -nostdin -v verbose -re -i "$in" -c copy -f rtp -rtpflags send_bye "$@" \
        "rtp://127.0.0.1:$p1?pkt_size=$size" > "$work/$name.send.log" 2>&1 ||
        { tail -n 5 "$work/$name.send.log"; die "$name: sender failed"; }
    wait "$recv_pid" || { tail -n 5 "$work/$name.recv.log"; die "$name: receiver failed"; }
    wait "$cap_pid"
    "$ffmpeg" -nostdin -v error -i "$in" -map 0 -fps_mode passthrough -f "$fmt" "$work/$name.src.$fmt"
    through_port=$p1
    read -r count max < <(sizes "$work/$name.pcap" "$p1")
    [ "$count" -gt 0 ] || die "$name: no packet captured"
    [ "$max" -le "$size" ] || die "$name: a $max-byte packet with pkt_size $size"
    if [ "$fmt" = framemd5 ]; then
        md5list "$work/$name.src.$fmt" > "$work/$name.src.list"
        md5list "$work/$name.$fmt" > "$work/$name.recv.list"
        local ns nr
        ns=$(wc -l < "$work/$name.src.list"); nr=$(wc -l < "$work/$name.recv.list")
        cmp -s "$work/$name.src.list" "$work/$name.recv.list" ||
            die "$name: decoded frames differ from the source ($nr received, $ns sent)"
        note "$name: $count packets, largest $max <= $size; $nr/$ns frames md5-identical"
    else
        cmp -s "$work/$name.src.$fmt" "$work/$name.$fmt" ||
            die "$name: decoded audio differs: $(cat "$work/$name.$fmt") vs $(cat "$work/$name.src.$fmt")"
        note "$name: $count packets, largest $max <= $size; decoded audio md5 identical ($(cut -c1-12 "$work/$name.$fmt"))"
    fi
    last_max=$max
    grep -h 'RTP send (' "$work/$name.send.log" | sed 's/^\[[^]]*\] /    /' || true
}

# tail_match SRC_LIST RECV_LIST GOP NAME [SLACK]: the received frames are the
# source's from a keyframe (every GOP frames) to the end (but SLACK frames),
# without a gap; sets first, ns
tail_match() {
    local nr
    nr=$(wc -l < "$2"); ns=$(wc -l < "$1")
    [ "$nr" -ge "$3" ] || die "$4: the receiver decoded only $nr frames"
    first=$(grep -n -m1 -F -x "$(head -n 1 "$2")" "$1" | cut -d: -f1)
    [ -n "$first" ] || die "$4: the first received frame is not a source frame"
    tail -n +"$first" "$1" | head -n "$nr" | cmp -s - "$2" ||
        die "$4: received frames are not the source's from frame $first on"
    [ $(((first - 1) % $3)) = 0 ] || die "$4: the receiver started at frame $first, not at a keyframe"
    [ $((first - 1 + nr + ${5:-0})) -ge "$ns" ] || die "$4: frames missing at the end: $nr from $first of $ns"
}

# --- tests -------------------------------------------------------------------
test_wire() {
    local in=$inputs/h264.mkv p ref="" out
    local common=(-ssrc 305419896 -seq 1000 -cname wire@test -rtpflags send_bye)
    # -cc 0: without the transport-cc header extension that congestion
    # control (on by default for video) puts in every packet, the datagrams
    # are stock's byte for byte (cc.sh wire checks the extension)
    for m in single mmsg gso auto stock; do
        p=$("$freeport")
        capture "$m" 1000 30000 "$p" "$((p + 1))"
        if [ "$m" = stock ]; then
            # the input is avcC (Matroska): ours sends the SPS and PPS
            # before each IDR, as stock does after h264_mp4toannexb
            "$stock" -nostdin -v error -i "$in" -c copy -bsf:v h264_mp4toannexb -f rtp "${common[@]}" \
                "rtp://127.0.0.1:$p?pkt_size=1200" > /dev/null 2> "$work/$m.send.log" ||
                die "stock sender failed"
            wait "$cap_pid"
            # stock picks a random timestamp base: shift its first timestamp
            # to the first of ours
            "$rtpcap" dump "$work/$m.pcap" "$p" \
                "0x$(head -n 1 "$work/$ref.dump" | cut -d' ' -f2 | cut -c9-16)" > "$work/$m.dump"
        else
            # single: bye_delay 0.2 s; the others the default, 50 ms.
            # mmsg: the capture is stopped while the sender runs and reads
            # everything afterwards, so the BYE gap below holds only if the
            # capture's times are the kernel's arrival times
            [ "$m" != mmsg ] || kill -STOP "$cap_pid"
            # sr_interval: the periodic SRs of the feedback thread would
            # make the RTCP depend on how long the (paced) run takes
            "$ffmpeg" -nostdin -v error -i "$in" -c copy -f rtp "${common[@]}" -cc 0 -sr_interval 30 \
                $( [ "$m" != single ] || echo -bye_delay 0.2 ) \
                -base_timestamp 5000 -send_mode "$m" "rtp://127.0.0.1:$p?pkt_size=1200" \
                > /dev/null 2> "$work/$m.send.log" || { kill -CONT "$cap_pid"; die "sender ($m) failed"; }
            kill -CONT "$cap_pid"
            wait "$cap_pid"
            "$rtpcap" dump "$work/$m.pcap" "$p" > "$work/$m.dump"
        fi
        out=$(wc -l < "$work/$m.dump")
        [ "$out" -gt 100 ] || die "$m: only $out RTP packets captured"
        # the RTCP port: SR, SDES CNAME and BYE of our SSRC, as tshark reads them
        local rtcp
        rtcp=$(tshark -r "$work/$m.pcap" -d "udp.port==$((p + 1)),rtcp" -Y "udp.dstport == $((p + 1))" \
               -T fields -e rtcp.pt -e rtcp.senderssrc -e rtcp.sdes.text 2>/dev/null | tr '\n' ' ')
        for want in 200 202 203 0x12345678 wire@test; do
            case "$rtcp" in *"$want"*) ;; *) die "$m: no $want in the RTCP: $rtcp" ;; esac
        done
        # the same RTCP datagrams as the others: SR+SDES first, SR+SDES+BYE last
        tshark -r "$work/$m.pcap" -d "udp.port==$((p + 1)),rtcp" -Y "udp.dstport == $((p + 1))" \
            -T fields -e rtcp.pt 2>/dev/null > "$work/$m.rtcp"
        [ -z "$ref" ] || cmp -s "$work/$ref.rtcp" "$work/$m.rtcp" ||
            die "$m: RTCP datagrams $(tr '\n' ' ' < "$work/$m.rtcp") differ from $ref's $(tr '\n' ' ' < "$work/$ref.rtcp")"
        if [ -z "$ref" ]; then
            ref=$m
        elif ! cmp -s "$work/$ref.dump" "$work/$m.dump"; then
            diff <(cut -c1-80 "$work/$ref.dump") <(cut -c1-80 "$work/$m.dump") | head -n 6
            die "$m: RTP datagrams differ from $ref"
        fi
        # the BYE no sooner than bye_delay after the last RTP packet (kernel
        # arrival times); stock sends it at once
        local gap want
        gap=$(tshark -r "$work/$m.pcap" -d "udp.port==$((p + 1)),rtcp" -T fields \
                  -e frame.time_epoch -e udp.dstport -e rtcp.pt 2>/dev/null |
              awk -v rtp="$p" -v rtcp="$((p + 1))" '$2 == rtp { last = $1 } $2 == rtcp && $3 ~ /203/ { bye = $1 }
                  END { printf "%.1f", (bye - last) * 1000 }')
        case $m in single) want=200 ;; stock) want=0 ;; *) want=50 ;; esac
        awk -v g="$gap" -v w="$want" 'BEGIN { exit !(g >= w) }' || die "$m: BYE $gap ms after the last RTP packet, bye_delay $want ms"
        # stock right behind the last packet: the gap is ours
        [ "$m" != stock ] || awk -v g="$gap" 'BEGIN { exit !(g < 20) }' ||
            die "stock's BYE $gap ms after its last RTP packet: expected at once (< 20 ms)"
        note "$m: $out RTP datagrams$( [ "$m" = "$ref" ] || echo ", byte-identical to $ref"); RTCP: $(tr '\n' ' ' < "$work/$m.rtcp")(SR, SDES, BYE); BYE $gap ms after the last RTP packet"
    done
}

test_decode() {
    through "$inputs/h264.mkv" 1200 framemd5 h264
    through "$inputs/hevc.mkv" 1200 framemd5 hevc
    through "$inputs/pcm.mkv"  1200 md5 pcm
}

# VP9 (RFC 9628, libavformat-ext/rtpvp9.c): decoded by FFmpeg's depacketizer md5 for
# md5, and every payload descriptor read apart from the code that wrote it
# (tests/rtp/vp9desc.py): a picture ID per frame, one more each frame; B on
# a frame's first packet, E on its last; P on the source's inter frames
# only; the scalability structure with the source's size on the first
# packet of each key frame only
test_vp9() {
    local in=$inputs/vp9.mkv enc=$ffmpeg
    # the lean 7.1 tree has VP9's decoder, not libvpx: the main build encodes
    "$enc" -hide_banner -encoders 2> /dev/null | grep -q libvpx-vp9 || enc=$top/build/ffmpeg/ffmpeg
    if [ ! -s "$in" ]; then
        "$enc" -nostdin -v error -y -f lavfi -i "testsrc2=s=640x360:r=25:d=3,noise=alls=24:allf=t" \
            -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -lag-in-frames 0 -b:v 2M -g 25 \
            "$in.tmp.mkv" && mv "$in.tmp.mkv" "$in"
    fi
    sdp_opts="-strict experimental" through "$in" 1200 framemd5 vp9 -strict experimental
    "$ffmpeg" -nostdin -v error -i "$in" -map 0:v -c copy -f framecrc "$work/vp9.src.crc"
    "$rtpcap" dump "$work/vp9.pcap" "$through_port" > "$work/vp9.dump" ||
        die "vp9: no capture to read"
    /usr/bin/python3 "$top/tests/rtp/vp9desc.py" "$work/vp9.dump" "$work/vp9.src.crc" 640 360 > "$work/vp9.desc" ||
        die "vp9: $(tail -n 1 "$work/vp9.desc")"
    note "vp9: $(tail -n 1 "$work/vp9.desc")"
}

test_edges() {
    local s
    for s in 64 1200 1472 9000; do
        through "$inputs/h264.mkv" "$s" framemd5 "size$s"
        [ "$last_max" -eq "$s" ] || die "pkt_size $s: largest packet $last_max, none of exactly $s"
    done
    through "$inputs/big.mkv" 65507 framemd5 size65507
    [ "$last_max" -eq 65507 ] || die "pkt_size 65507: largest packet $last_max"

    # refused, with the range in the message
    local p; p=$("$freeport")
    refuse() {  # refuse URL_SIZE EXPECTED_TEXT [EXTRA...]; $host, $fmt
        local size=$1 text=$2; shift 2
        if "$ffmpeg" -nostdin -v error -i "$inputs/h264.mkv" -c copy -frames 1 "$@" -f "${fmt:-rtp}" \
            "rtp://${host:-127.0.0.1}:$p?pkt_size=$size" > "$work/refuse.log" 2>&1; then
            die "pkt_size $size was accepted"
        fi
        grep -q -- "$text" "$work/refuse.log" || { cat "$work/refuse.log"; die "pkt_size $size: no clear error"; }
        note "pkt_size $size refused: $(grep -m1 -- "$text" "$work/refuse.log" | sed 's/^\[[^]]*\] //')"
    }
    refuse 65508 "pkt_size 65508 is out of range: a UDP payload over IPv4 is 1 to 65507 bytes"
    # by default a video stream carries the 8-byte transport-cc extension
    # (cc auto): the smallest size leaves room for it; with -cc 0 the
    # packetizer's own minimum
    refuse 35 "pkt_size 35 is out of range \[36, 65507\] for h264 over RTP (with room for RTX and the header extension)"
    refuse 12 "pkt_size 12 is out of range \[36, 65507\]"
    refuse 27 "pkt_size 27 is out of range \[28, 65507\] for h264" -cc 0
    refuse 1000000 "UDP payload over IPv4 is 1 to 65507 bytes"
    # IPv6's limit (its payload length does not count the IP header): the
    # URL is refused when it is opened, before any datagram is sent
    host=[::1] refuse 65528 "pkt_size 65528 is out of range: a UDP payload over IPv6 is 1 to 65527 bytes"
    # RTX only on a dynamic payload type (the option's range has room for -1)
    refuse 1200 "rtx_pt 50 is not a dynamic payload type: use one in \[96, 127\]" -rtx_pt 50
    # congestion control's start: within [min_bitrate, max_bitrate]
    refuse 1200 "start_bitrate 9000000 is out of range \[150000, 4000000\] (min_bitrate, max_bitrate)" \
        -cc 1 -max_bitrate 4000000 -start_bitrate 9000000
    refuse 1200 "start_bitrate 50000 is out of range \[150000, 4000000\]" -cc 1 -max_bitrate 4000000 -start_bitrate 50000
    # MPEG-TS over RTP needs one 188-byte TS packet and the RTP header
    fmt=rtp_mpegts refuse 199 "pkt_size 199 is out of range \[200, 65507\] for mpegts over RTP"
    "$ffmpeg" -nostdin -v error -i "$inputs/h264.mkv" -c copy -frames 5 -f rtp_mpegts \
        "rtp://127.0.0.1:$p?pkt_size=200" > "$work/ts200.log" 2>&1 ||
        { cat "$work/ts200.log"; die "rtp_mpegts with pkt_size 200 failed"; }
    note "rtp_mpegts with pkt_size 200 accepted"
    # a warning above the Ethernet MTU, once
    "$ffmpeg" -nostdin -v warning -i "$inputs/h264.mkv" -c copy -frames 5 -f rtp \
        "rtp://127.0.0.1:$p?pkt_size=9000" > "$work/warn.log" 2>&1 || die "pkt_size 9000 failed"
    [ "$(grep -c 'dropped by routers and firewalls' "$work/warn.log")" = 1 ] ||
        { cat "$work/warn.log"; die "no single MTU warning for pkt_size 9000"; }
    "$ffmpeg" -nostdin -v warning -i "$inputs/h264.mkv" -c copy -frames 5 -f rtp \
        "rtp://127.0.0.1:$p?pkt_size=1472" > "$work/warn.log" 2>&1 || die "pkt_size 1472 failed"
    ! grep -q 'dropped by routers' "$work/warn.log" || die "MTU warning at pkt_size 1472"
    note "pkt_size 9000 warns once about the MTU; 1472 does not"
}

test_refused() {
    local in=$work/long.mkv p1 p2
    # 5 s, a keyframe every second
    "$ffmpeg" -nostdin -v error -y -f lavfi -i "testsrc2=s=320x240:r=25:d=5" \
        -c:v libx264 -preset veryfast -b:v 1M -g 25 "$in"
    # the sender's peer is the relay on p1, which comes up 2 s late; FFmpeg's
    # receiver waits behind it on p2 (the relay forwards RTCP 500 ms late so
    # that the BYE cannot overtake the last RTP packets)
    p1=$("$freeport"); p2=$("$freeport")
    while [ "$p2" = "$p1" ]; do p2=$("$freeport"); done
    sdp_for "$in" "$p2" "$work/late.sdp"
    receiver late "$work/late.sdp" framemd5
    wait_udp "$p2"
    timeout 60 "$ffmpeg" -nostdin -v verbose -re -i "$in" -c copy -f rtp -rtpflags send_bye \
        "rtp://127.0.0.1:$p1?pkt_size=1200&connect=1" > "$work/late.send.log" 2>&1 &
    local send_pid=$!
    sleep 2
    kill -0 "$send_pid" 2>/dev/null || { tail -n 5 "$work/late.send.log"; die "the sender stopped before the receiver came up"; }
    capture late 1000 60000 "$p1:$p2" "$((p1 + 1)):$((p2 + 1)):500"
    wait "$send_pid" || { tail -n 5 "$work/late.send.log"; die "the sender failed while nobody listened"; }
    wait "$recv_pid" || { tail -n 5 "$work/late.recv.log"; die "the receiver failed"; }
    wait "$cap_pid"
    grep -q 'connection refused' "$work/late.send.log" || die "no ECONNREFUSED seen (nothing was tested)"
    local refused logged
    refused=$(sed -n 's/.*ECONNREFUSED \([0-9]*\).*/\1/p' "$work/late.send.log" | tail -n 1)
    # logged at most once a second: about 2 s of refusals, so at most 3
    # lines for the RTP socket (a line per refusal would be one per frame)
    logged=$(grep -c 'RTP: connection refused' "$work/late.send.log" || true)
    [ "${refused:-0}" -ge 10 ] || die "only ${refused:-0} refusals: the test tested too little"
    [ "$logged" -ge 1 ] && [ "$logged" -le 3 ] ||
        die "$logged log lines for $refused refusals in about 2 s (at most one a second)"
    # the received frames are the source's, from a keyframe on, without a gap
    "$ffmpeg" -nostdin -v error -i "$in" -map 0 -fps_mode passthrough -f framemd5 "$work/late.src.framemd5"
    md5list "$work/late.src.framemd5" > "$work/src.list"
    md5list "$work/late.framemd5" > "$work/recv.list"
    tail_match "$work/src.list" "$work/recv.list" 25 late
    note "sender survived $refused ECONNREFUSED (logged $logged times); receiver decoded frames $first..$ns" \
         "(keyframe on), md5-identical"

    # stock stops at the first refusal: what this fixes
    [ -x "$stock" ] || die "no stock FFmpeg at $stock"
    local rc=0
    timeout 30 "$stock" -nostdin -v error -re -i "$in" -c copy -t 1 -f rtp \
        "rtp://127.0.0.1:$("$freeport")?pkt_size=1200&connect=1" > "$work/stock.log" 2>&1 || rc=$?
    note "stock FFmpeg, same run with nobody listening: exit $rc ($(grep -m1 -o 'Connection refused' "$work/stock.log" || echo 'no error'))"
    [ "$rc" != 0 ] && grep -q 'Connection refused' "$work/stock.log" ||
        die "stock FFmpeg did not stop at the refusal (exit $rc): the test no longer shows the difference"
}

# rtsp_run TRANSPORT NAME [SENDER OPTIONS...]: $in sent with -re as RTSP
# (ANNOUNCE/RECORD) over TRANSPORT to FFmpeg's RTSP listener; its frames
# must be the source's ($work/src.list). Logs in $work/NAME.{send,recv}.log.
rtsp_run() {
    local tr=$1 t=$2 p hex recv_pid
    shift 2
    p=$("$freeport")
    timeout 60 "$ffmpeg" -nostdin -v error -rtsp_flags listen -timeout 20000000 -buffer_size 8388608 \
        -i "rtsp://127.0.0.1:$p/live" -map 0 -fps_mode passthrough -f framemd5 "$work/$t.framemd5" \
        2> "$work/$t.recv.log" &
    recv_pid=$!
    hex=$(printf '%04X' "$p")
    for _ in $(seq 200); do grep -q ":$hex 00000000:0000 0A" /proc/net/tcp && break; sleep 0.05; done
    timeout 60 "$ffmpeg" -nostdin -v verbose -re -i "$in" -c copy -f rtsp -rtsp_transport "$tr" "$@" \
        "rtsp://127.0.0.1:$p/live" > "$work/$t.send.log" 2>&1 || { tail -n 5 "$work/$t.send.log"; die "RTSP/$t sender failed"; }
    wait "$recv_pid" || { tail -n 5 "$work/$t.recv.log"; die "RTSP/$t receiver failed"; }
    md5list "$work/$t.framemd5" > "$work/$t.list"
    cmp -s "$work/src.list" "$work/$t.list" || die "RTSP/$t: $(wc -l < "$work/$t.list") frames, not the source's"
}

test_formats() {
    local in=$inputs/h264.mkv p1 p2
    # rtp_mpegts through the relay to a plain rtp:// reader
    p1=$("$freeport"); p2=$("$freeport" 2)
    # the reader stops 1 s after the last packet (rtp:// timeout)
    timeout 60 "$ffmpeg" -nostdin -v error -analyzeduration 1M -buffer_size 8388608 \
        -i "rtp://127.0.0.1:$p2?timeout=1000000" \
        -map 0 -fps_mode passthrough -f framemd5 "$work/ts.framemd5" 2> "$work/ts.recv.log" &
    recv_pid=$!
    wait_udp "$p2"
    capture ts 2000 60000 "$p1:$p2"
    timeout 60 "$ffmpeg" -nostdin -v error -re -i "$in" -c copy -f rtp_mpegts \
        "rtp://127.0.0.1:$p1?pkt_size=1328" > "$work/ts.send.log" 2>&1 || die "rtp_mpegts sender failed"
    wait "$recv_pid" || true
    wait "$cap_pid"
    "$ffmpeg" -nostdin -v error -i "$in" -map 0 -fps_mode passthrough -f framemd5 "$work/src.framemd5"
    md5list "$work/src.framemd5" > "$work/src.list"; md5list "$work/ts.framemd5" > "$work/ts.list"
    # FFmpeg's rtp:// reader loses the start of the stream while it probes
    # the payload (stock's sender too), so it decodes from a later keyframe
    # and it drops the last PES when it stops at its timeout
    tail_match "$work/src.list" "$work/ts.list" 1 rtp_mpegts 1
    [ "$(wc -l < "$work/ts.list")" -ge 20 ] || die "rtp_mpegts: only $(wc -l < "$work/ts.list") frames"
    read -r count max < <(sizes "$work/ts.pcap" "$p1")
    [ "$max" -le 1328 ] || die "rtp_mpegts: a $max-byte packet"
    note "rtp_mpegts: $count packets <= 1328 bytes; frames $first..$ns decoded md5-identical"

    # RTSP output (ANNOUNCE/RECORD) to FFmpeg's RTSP listener, over UDP
    rtsp_run udp udp
    grep -q 'RTP send (gso)' "$work/udp.send.log" || die "RTSP did not use the batched path"
    grep -q '^m=video 0 RTP/AVPF ' "$work/udp.send.log" && grep -q '^a=rtcp-fb:[0-9]* nack[[:space:]]*$' "$work/udp.send.log" ||
        die "RTSP over UDP: the SDP does not announce RTP/AVPF with NACK"
    note "RTSP (UDP transport): $(wc -l < "$work/udp.list") frames md5-identical, sent through the GSO path, RTP/AVPF announced"

    # over TCP the rtp muxers write into the RTSP connection and read no
    # RTCP, so the SDP must not announce feedback (stock's SDP)
    rtsp_run tcp tcp
    grep -q '^m=video 0 RTP/AVP 96' "$work/tcp.send.log" || die "RTSP over TCP: the SDP's profile is not RTP/AVP"
    ! grep -q '^a=rtcp-fb' "$work/tcp.send.log" || die "RTSP over TCP: the SDP announces feedback nothing reads"
    note "RTSP (TCP transport): $(wc -l < "$work/tcp.list") frames md5-identical, RTP/AVP without rtcp-fb"

    # rtp_options: the rtp muxers of an RTSP output take the sender options
    rtsp_run udp rtx -rtp_options rtx_pt=97:send_mode=mmsg:bye_delay=0.2
    grep -q '^m=video 0 RTP/AVPF 96 97' "$work/rtx.send.log" && grep -q '^a=rtpmap:97 rtx/90000' "$work/rtx.send.log" ||
        die "RTSP rtp_options rtx_pt=97: no RTX in the SDP"
    grep -q 'RTP send (mmsg)' "$work/rtx.send.log" || die "RTSP rtp_options send_mode=mmsg: not sent with sendmmsg"
    rtsp_run udp nofb -rtp_options feedback=0
    grep -q '^m=video 0 RTP/AVP 96' "$work/nofb.send.log" && ! grep -q '^a=rtcp-fb' "$work/nofb.send.log" ||
        die "RTSP rtp_options feedback=0: the SDP still announces feedback"
    ! grep -q 'RTCP (final)' "$work/nofb.send.log" || die "RTSP rtp_options feedback=0: the feedback thread ran"
    note "RTSP rtp_options: rtx_pt=97 announced and sent with sendmmsg, feedback=0 announces RTP/AVP; frames md5-identical"
    # refused before anything is sent (nobody listens on port 9)
    local o want out
    for o in "bogus=1|'bogus' is not an option of the rtp muxer" \
             "rtx_pt=200|Value 200.000000 for parameter 'rtx_pt' out of range \[-1 - 127\]" \
             "bye_delay=2|for parameter 'bye_delay' out of range" \
             "stats_file=$work/s.json|stats_file '$work/s.json' would be shared by the 2 streams"; do
        want=${o#*|}; o=${o%%|*}
        if out=$(timeout 30 "$ffmpeg" -nostdin -v error -i "$in" -i "$inputs/pcm.mkv" -map 0 -map 1 -c copy \
                 -f rtsp -rtp_options "$o" rtsp://127.0.0.1:9/live 2>&1); then
            die "RTSP rtp_options $o accepted"
        fi
        echo "$out" | grep -q -- "$want" || die "RTSP rtp_options $o: no '$want' in: $out"
        note "rtp_options $o refused: $(echo "$out" | grep -m1 -- "$want" | sed 's/^\[[^]]*\] //')"
    done
}

test_faults() {
    local in=$inputs/h264.mkv p ref=""
    local common=(-ssrc 305419896 -seq 1000 -base_timestamp 5000 -rtpflags send_bye)
    for f in none gso-eio mmsg-enosys enobufs:7 eagain:5; do
        local mode=gso
        case "$f" in eagain:*) mode=single ;; mmsg-enosys) mode=mmsg ;; esac
        p=$("$freeport")
        capture "f$f" 1000 30000 "$p" "$((p + 1))"
        env LD_PRELOAD="$build/tests/sendfail.so" SENDFAIL="$f" \
            "$ffmpeg" -nostdin -v verbose -i "$in" -c copy -f rtp "${common[@]}" -send_mode "$mode" \
            "rtp://127.0.0.1:$p?pkt_size=1200" > /dev/null 2> "$work/f$f.log" ||
            { tail -n 5 "$work/f$f.log"; die "$f: sender failed"; }
        wait "$cap_pid"
        "$rtpcap" dump "$work/f$f.pcap" "$p" > "$work/f$f.dump"
        local stats; stats=$(grep -h 'RTP send (' "$work/f$f.log" | sed 's/^\[[^]]*\] //')
        if [ -z "$ref" ]; then
            ref=f$f
        else
            cmp -s "$work/$ref.dump" "$work/f$f.dump" ||
                die "$f: $(wc -l < "$work/f$f.dump") datagrams, not byte-identical to the $(wc -l < "$work/$ref.dump") without faults"
        fi
        case "$f" in
            gso-eio)     echo "$stats" | grep -q 'RTP send (mmsg).*fallbacks 1$' || die "$f: $stats" ;;
            mmsg-enosys) echo "$stats" | grep -q 'RTP send (single).*fallbacks 1$' || die "$f: $stats" ;;
            enobufs:*)   echo "$stats" | grep -q 'ENOBUFS [1-9]' || die "$f: $stats" ;;
            eagain:*)    echo "$stats" | grep -q 'EAGAIN [1-9]' || die "$f: $stats" ;;
        esac
        note "$f: $(wc -l < "$work/f$f.dump") datagrams$( [ "f$f" = "$ref" ] || echo ", byte-identical");" \
             "$(grep -h 'sendfail:' "$work/f$f.log" || echo 'no shim')"
        note "  ${stats#RTP send }"
    done
}

mkinputs
case "$what" in
    wire|decode|edges|refused|formats|faults|vp9) "test_$what" ;;
    *) die "unknown test $what" ;;
esac
echo "PASS rtp-$what"

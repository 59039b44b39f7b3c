#!/usr/bin/env bash
# Congestion control in the rtp muxer (option cc), all on 127.0.0.1.
#   tests/rtp/cc.sh BUILD TEST
# TEST:
#   wire      by default (cc auto) the SDP of a video stream announces the
#             transport-wide-cc extension
#             (a=extmap:1 <URI>), and tshark finds it on every RTP packet
#             (profile 0xBEDE, id 1, 2 bytes) numbered one by one in order of
#             departure; the retransmissions that NACKs ask for (plain and
#             RFC 4588 RTX, tests/net/rtcpinject.c as the receiver) carry
#             numbers of their own, and the RTX ones their OSN after it.
#             With -cc 0, for audio, and into a file: no extension.
#   feedback  our receiver, given that SDP, sends transport-cc feedback;
#             tshark decodes it: together the reports cover every number the
#             sender used, and the sender counted them (stats JSON).
#   gst-feedback  GStreamer 1.22's rtpbin, its caps carrying the extmap, sends
#             transport-cc feedback too (tshark counts it), the sender
#             consumes every report that came before its BYE, and its
#             acknowledged rate is the clip's within 30 %.
#   ccfb      an RFC 8888 receiver (tests/net/rtcpinject.c) instead: the
#             sender counts its reports, feeds them to the estimator, and its
#             acknowledged rate is the clip's within 30 %.
#   rtsp      an RTSP publisher (-f rtsp, rtp_options cc=1) to ffmpeg's listen
#             mode: the listener's RTCP (RRs, transport-cc) reaches the
#             publisher (patches/0025; stock sent it to the wrong ports).
#   constant  live 720p25 libx264 asked for 6 Mbit/s (-maxrate 6M -bufsize
#             1M) through a 3 Mbit/s bottleneck with a 64 KB drop-tail queue,
#             20 ms round trip: by default, over the last 6 s of 16, the queue
#             drops at most 2 % of the datagrams and adds at most 100 ms on
#             average, at least half the link is used, and the encoder was
#             set below the link's rate (ffmpeg's verbose log); with cc 0 the
#             same link drops more than 10 % (the test bites).
#   start     the same link from the first packet: from start_bitrate's 1
#             Mbit/s, at most 1 % dropped over the first 10 s, 70 % of the
#             link from second 5 on, no decode error; from 6 Mbit/s more
#             than 1 % dropped (the test bites)
#   tcp       beside a TCP CUBIC upload (iperf3) through a kernel bottleneck
#             in a router namespace of its own (6 Mbit/s tbf, 64 KB): the
#             video keeps at least 35 % of the link over the last 20 s of 60,
#             the receiver decodes 95 % of the frames in those 20 s,
#             decode errors for at most 5 % of the whole run's
#   netloss   3 % random loss by nftables in a namespace (retransmissions
#             too), 8 Mbit/s tbf, 20 ms: the target holds (>= 80 % of the
#             4 Mbit/s asked for), 99 % of the frames decode
#   copy      -c copy with cc 1 sends the clip's bytes unchanged (its payload
#             octets differ from cc 0's only by the FU-A headers of the extra
#             fragments and the NAL headers they replace), warns that nothing
#             adapts, and reports a target;
#             by default the same packets and target, without the warning.
#   stall     our receiver stopped 60 ms every 400 ms: the arrival times its
#             transport-cc feedback reports (tshark) are the capture's within
#             0.5 ms (the kernel's, SO_TIMESTAMPNS) and show no delay the
#             capture does not; with the socket option refused they show
#             the stalls (the test bites)
set -eu
build=$1 what=$2
. "$(dirname "$0")/lib.sh"
SSRC=0x12345678
URI=http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01

# twcc_seqs PCAP PORT: "rtp_seq transport_seq pt" per RTP datagram to PORT, in arrival order
twcc_seqs() {
    tshark -r "$1" -d "udp.port==$2,rtp" -Y "udp.dstport == $2 && rtp" \
        -T fields -e rtp.seq -e rtp.ext.profile -e rtp.ext.rfc5285.id -e rtp.ext.rfc5285.data -e rtp.p_type \
        2>/dev/null | awk '{ if ($2 != "0xbede" && $2 != "0xBEDE" && $2 != "48862") { print "noext", $0; next }
                             if ($3 != 1 || length($4) != 4) { print "badext", $0; next }
                             print $1, $4, $5 }' |
        while read -r a b c; do
            case $a in noext|badext) echo "$a $b $c" ;; *) echo "$a $((16#$b)) $c" ;; esac
        done
}

test_wire() {
    local in; in=$(clip_720p)
    for rtx in -1 97; do
        local name=wire$rtx
        ports
        # the default (cc auto) for a video stream to rtp://
        "$ffmpeg" -nostdin -v error -i "$in" -c copy -frames 1 -f rtp -rtx_pt "$rtx" \
            -sdp_file "$work/$name.sdp" "rtp://127.0.0.1:$p_recv" > /dev/null
        tr -d '\r' < "$work/$name.sdp" | grep -qx "a=extmap:1 $URI" || die "$name: no extmap in the SDP: $(cat "$work/$name.sdp")"
        relay "$name" 0 1 0 11
        "$tools/rtcpinject" nack "$p_recv" "$((p_relay + 1))" "$SSRC" 20 20000 ${rtx#-1} > "$work/$name.nack" &
        local inj=$!
        wait_udp "$p_recv"
        timeout 60 "$ffmpeg" -nostdin -v error -re -t 2 -i "$in" -c copy -f rtp -ssrc "$SSRC" \
            -rtx_pt "$rtx" -max_bitrate 8000000 "$(url)" > "$work/$name.send.log" 2>&1 ||
            die "$name: sender failed: $(tail -3 "$work/$name.send.log")"
        wait "$inj" || die "$name: NACKs unanswered: $(cat "$work/$name.nack")"
        wait "$relay_pid" || true
        twcc_seqs "$work/$name.pcap" "$p_relay" > "$work/$name.seqs"
        grep -q "ext" "$work/$name.seqs" && die "$name: packets without the extension: $(grep ext "$work/$name.seqs" | head -3)"
        local n resent gaps
        n=$(wc -l < "$work/$name.seqs")
        # in arrival order (one socket, localhost: the order of departure)
        gaps=$(awk 'NR > 1 && $2 != (p + 1) % 65536 { g++ } { p = $2 } END { print g + 0 }' "$work/$name.seqs")
        if [ "$rtx" = -1 ]; then
            resent=$(awk '{ c[$1]++ } END { for (s in c) if (c[s] > 1) r += c[s] - 1; print r + 0 }' "$work/$name.seqs")
        else
            resent=$(awk -v pt="$rtx" '$3 == pt' "$work/$name.seqs" | wc -l)
        fi
        note "$name: $n RTP packets, $resent retransmissions, transport numbers out of step: $gaps; $(cat "$work/$name.nack")"
        [ "$n" -gt 500 ] || die "$name: only $n packets captured"
        [ "$resent" -ge 15 ] || die "$name: only $resent retransmissions captured"
        [ "$gaps" = 0 ] || die "$name: $gaps transport numbers not one more than the previous packet's"
    done
    # off: with -cc 0, for audio, and for an output that is not rtp:// or udp://
    local a
    "$ffmpeg" -nostdin -v error -i "$in" -c copy -frames 1 -f rtp -cc 0 \
        -sdp_file "$work/off.sdp" "rtp://127.0.0.1:$(port)" > /dev/null
    "$ffmpeg" -nostdin -v error -f lavfi -i sine=d=0.2 -c:a pcm_mulaw -f rtp \
        -stats_file "$work/audio.json" -stats_interval 0 \
        -sdp_file "$work/audio.sdp" "rtp://127.0.0.1:$(port)" > /dev/null
    # no congestion control for audio: its stats carry no target (the SDP
    # announces the extension for video streams only)
    [ -s "$work/audio.json" ] || die "audio: no stats written"
    grep -q target_bitrate "$work/audio.json" && die "audio: congestion control on: $(cat "$work/audio.json")"
    # into a file: the SDP that ffmpeg prints
    "$ffmpeg" -nostdin -v error -i "$in" -c copy -frames 1 -f rtp -packetsize 1200 -y "$work/file.rtp" \
        > "$work/file.sdp"
    grep -q '^m=video' "$work/file.sdp" || die "no SDP printed for the file output: $(cat "$work/file.sdp")"
    for a in off audio file; do
        grep -q extmap "$work/$a.sdp" && die "$a: an extmap in the SDP: $(cat "$work/$a.sdp")"
    done
    note "the default: the extension for video to rtp://; none with -cc 0, for audio, into a file"
}

test_feedback() {
    local in; in=$(clip_720p)
    ports
    relay fb 0 1 20 11
    receive fb "$ffmpeg" "$in" -cc 1
    timeout 60 "$ffmpeg" -nostdin -v verbose -re -i "$in" -c copy -f rtp -cc 1 -max_bitrate 8000000 \
        -stats_file "$work/fb.json" -stats_interval 0 "$(url)" > "$work/fb.send.log" 2>&1 || die "sender failed"
    wait "$recv_pid" || true
    wait "$relay_pid" || true
    local sent reports covered first
    sent=$(twcc_seqs "$work/fb.pcap" "$p_relay" | wc -l)
    # the receiver's RTCP, as the relay got it
    tshark -r "$work/fb.pcap" -d "udp.port==$((p_relay + 1)),rtcp" \
        -Y "udp.dstport == $((p_relay + 1)) && rtcp.rtpfb.fmt == 15" \
        -T fields -e rtcp.rtpfb.transportcc.baseseq -e rtcp.rtpfb.transportcc.statuscount \
        -e rtcp.rtpfb.transportcc.recv_delta 2>/dev/null > "$work/fb.twcc"
    reports=$(wc -l < "$work/fb.twcc")
    # the reports follow each other: each base is the last one's end
    # and, the link losing nothing, every packet they cover has an arrival
    # time (tshark decodes one receive delta per packet reported received)
    covered=$(awk '{ split($1, b, ","); split($2, c, ","); d += split($3, x, ",");
                     for (i in b) { if (n && b[i] != e % 65536) bad++; e = b[i] + c[i]; t += c[i]; n++ } }
                   END { print t + 0, bad + 0, d + 0 }' "$work/fb.twcc")
    set -- $covered
    [ "$3" = "$1" ] || die "the reports have $3 arrival times for $1 packets, none lost"
    local twcc_fb; twcc_fb=$(json "$work/fb.json" cc_feedbacks)
    note "$sent RTP packets sent; $reports transport-cc reports covering $1 packets, $2 not following on; the sender consumed $twcc_fb"
    [ "$reports" -ge 40 ] || die "only $reports transport-cc reports in 4 s (one per 50 ms expected)"
    [ "$2" = 0 ] || die "$2 reports do not start where the last one ended"
    [ "$1" -ge $((sent - 5)) ] && [ "$1" -le "$sent" ] || die "the reports cover $1 packets of $sent sent"
    [ "${twcc_fb:-0}" -ge $((reports - 2)) ] || die "the sender consumed ${twcc_fb:-0} of $reports reports"
}

# GStreamer's rtpbin as the receiver: caps with extmap-1 (the SDP's
# a=extmap) make its session send transport-cc feedback
test_gst_feedback() {
    local in kbit; in=$(clip_720p)
    kbit=$(( $(stat -c %s "$in") * 8 / 4 / 1000 ))
    ports
    relay gst 0 1 20 11
    timeout 30 gst-launch-1.0 -q -e rtpbin name=rb rtp-profile=avpf latency=200 \
        udpsrc port="$p_recv" caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96,extmap-1=(string)$URI,rtcp-fb-nack-pli=(boolean)true" \
        ! rb.recv_rtp_sink_0 udpsrc port="$((p_recv + 1))" ! rb.recv_rtcp_sink_0 \
        rb. ! rtph264depay ! fakesink \
        rb.send_rtcp_src_0 ! udpsink host=127.0.0.1 port="$((p_relay + 1))" sync=false async=false \
        > "$work/gst.log" 2>&1 &
    local gst=$!
    wait_udp "$p_recv"
    timeout 60 "$ffmpeg" -nostdin -v error -re -i "$in" -c copy -f rtp -cc 1 -max_bitrate 8000000 \
        -stats_file "$work/gst.json" -stats_interval 0 "$(url)" > "$work/gst.send.log" 2>&1 || die "sender failed"
    kill -INT "$gst" 2>/dev/null || true
    wait "$gst" || true
    wait "$relay_pid" || true
    local reports consumed acked bye before
    # the sender reads RTCP until it sends its BYE: GStreamer's reports of
    # the last frames may come after it (more of them on a busy machine,
    # 6 of 100 seen); those that reached the relay before the BYE did
    # must all have been read (the relay forwards RTCP at once)
    bye=$(tshark -r "$work/gst.pcap" -d "udp.port==$((p_relay + 1)),rtcp" \
          -Y "udp.dstport == $((p_relay + 1)) && udp.srcport == $((p_send + 1)) && rtcp.pt == 203" \
          -T fields -e frame.time_epoch 2>/dev/null | head -n 1)
    [ -n "$bye" ] || die "no BYE from the sender in the capture"
    tshark -r "$work/gst.pcap" -d "udp.port==$((p_relay + 1)),rtcp" \
        -Y "udp.dstport == $((p_relay + 1)) && rtcp.rtpfb.fmt == 15" -T fields -e frame.time_epoch \
        2>/dev/null > "$work/gst.twcc"
    reports=$(wc -l < "$work/gst.twcc")
    before=$(awk -v b="$bye" '$1 < b' "$work/gst.twcc" | wc -l)
    consumed=$(json "$work/gst.json" cc_feedbacks)
    acked=$(( $(json "$work/gst.json" acked_bitrate) / 1000 ))
    note "GStreamer sent $reports transport-cc reports (tshark), $before of them before the sender's BYE;" \
         "the sender consumed ${consumed:-0}; acknowledged rate $acked kbit/s for a $kbit kbit/s clip"
    [ "$reports" -ge 40 ] || die "GStreamer sent only $reports transport-cc reports: $(head -c 500 "$work/gst.log")"
    [ "${consumed:-0}" -ge $((before - 2)) ] && [ "${consumed:-0}" -le "$reports" ] ||
        die "the sender consumed ${consumed:-0} of the $before reports that came before its BYE ($reports in all)"
    [ $((acked * 10)) -ge $((kbit * 7)) ] && [ $((acked * 10)) -le $((kbit * 13)) ] ||
        die "acknowledged rate $acked kbit/s: not within 30 % of the clip's $kbit"
}

# an RFC 8888 receiver (tests/net/rtcpinject.c ccfb, built by hand)
test_ccfb() {
    local in kbit p q; in=$(clip_720p)
    kbit=$(( $(stat -c %s "$in") * 8 / 4 / 1000 ))
    p=$(port); q=$(port)
    while [ "$q" = "$p" ]; do q=$(port); done
    "$tools/rtcpinject" ccfb "$p" "$((q + 1))" "$SSRC" 20000 > "$work/ccfb.txt" &
    local inj=$!
    wait_udp "$p"
    timeout 60 "$ffmpeg" -nostdin -v error -re -i "$in" -c copy -f rtp -ssrc "$SSRC" -cc 1 \
        -max_bitrate 8000000 -stats_file "$work/ccfb.json" -stats_interval 0 \
        "rtp://127.0.0.1:$p?pkt_size=1200&localrtpport=$q&localrtcpport=$((q + 1))" \
        > "$work/ccfb.log" 2>&1 || die "sender failed: $(tail -3 "$work/ccfb.log")"
    wait "$inj" || die "the RFC 8888 receiver sent nothing: $(cat "$work/ccfb.txt")"
    local reports got consumed acked
    reports=$(sed -n 's/.*reports \([0-9]*\).*/\1/p' "$work/ccfb.txt")
    got=$(json "$work/ccfb.json" ccfb_reports)
    consumed=$(json "$work/ccfb.json" cc_feedbacks)
    acked=$(( $(json "$work/ccfb.json" acked_bitrate) / 1000 ))
    note "RFC 8888 receiver: $(cat "$work/ccfb.txt"); the sender counted ${got:-0} and fed ${consumed:-0} to" \
         "the estimator; acknowledged rate $acked kbit/s for a $kbit kbit/s clip"
    [ "${reports:-0}" -ge 40 ] || die "only ${reports:-0} CCFB reports"
    [ "${got:-0}" -ge $((reports - 2)) ] && [ "${consumed:-0}" -ge $((reports - 2)) ] ||
        die "the sender counted ${got:-0} and consumed ${consumed:-0} of $reports"
    [ $((acked * 10)) -ge $((kbit * 7)) ] && [ $((acked * 10)) -le $((kbit * 13)) ] ||
        die "acknowledged rate $acked kbit/s: not within 30 % of the clip's $kbit"
}

# RTSP: a publisher (-f rtsp, rtp_options cc=1) to ffmpeg's listen mode;
# the listener's RTCP must reach the publisher's rtp muxer
test_rtsp() {
    local in p r; in=$(clip_720p)
    p=$(port)
    timeout 60 "$ffmpeg" -nostdin -v verbose -rtsp_flags listen -timeout 20000000 \
        -i "rtsp://127.0.0.1:$p/live" -f null - > "$work/rtsp.recv.log" 2>&1 &
    r=$!
    for _ in $(seq 200); do grep -q ":$(printf '%04X' "$p") 00000000:0000 0A" /proc/net/tcp && break; sleep 0.05; done
    timeout 60 "$ffmpeg" -nostdin -v error -re -i "$in" -c copy -f rtsp -rtsp_transport udp \
        -rtp_options "cc=1:max_bitrate=8000000:stats_file=$work/rtsp.json:stats_interval=0" \
        "rtsp://127.0.0.1:$p/live" > "$work/rtsp.send.log" 2>&1 || die "publisher failed: $(tail -3 "$work/rtsp.send.log")"
    wait "$r" || true
    local rtcp consumed reports acked
    rtcp=$(json "$work/rtsp.json" rtcp_received)
    consumed=$(json "$work/rtsp.json" cc_feedbacks)
    reports=$(json "$work/rtsp.json" reports)
    acked=$(( $(json "$work/rtsp.json" acked_bitrate || echo 0) / 1000 ))
    note "RTSP publish -> listen: the publisher read ${rtcp:-0} RTCP datagrams, ${reports:-0} report blocks," \
         "fed ${consumed:-0} transport-cc reports to the estimator (acknowledged $acked kbit/s);" \
         "listener: $(grep -o 'RTCP of stream 0 goes to [^ ]*' "$work/rtsp.recv.log" | head -n 1)"
    [ "${consumed:-0}" -ge 40 ] || die "the listener's transport-cc feedback did not reach the publisher (${consumed:-0})"
    [ "${reports:-0}" -ge 1 ] || die "no receiver report reached the publisher"
}

# ccopt CC: the sender's option, none for "default" (cc auto: on for video)
ccopt() { [ "$1" = default ] || echo "-cc $1"; }

# live NAME CC [SENDER OPTIONS...]: 16 s of live 720p25 through the 3 Mbit/s
# link; sets drops (%), qdelay (ms), target (kbit/s) over the last 6 s
# (LIVE_LINK: the link's kbit/s instead, LIVE_BV: the encoder's -b:v)
live() {
    local name=$1 cc=$2; shift 2
    local src="testsrc2=s=1280x720:r=25,noise=alls=12:allf=t"
    local enc=(-c:v libx264 -preset veryfast -tune zerolatency -b:v ${LIVE_BV:-6M} -maxrate ${LIVE_BV:-6M}
               -bufsize 1M -g 50 -bf 0 -pix_fmt yuv420p)
    ports
    "$ffmpeg" -nostdin -v error -f lavfi -i "$src" "${enc[@]}" -frames:v 1 -f rtp $(ccopt "$cc") \
        -sdp_file "$work/$name.sdp" "rtp://127.0.0.1:$p_recv" > /dev/null
    relay "$name" 0 1 20 11 0 "${LIVE_LINK:-3000}" 65536
    timeout 60 "$ffmpeg" -nostdin -v error -protocol_whitelist file,udp,rtp -sdp_flags rtcp_to_source \
        -i "$work/$name.sdp" -f null - 2> "$work/$name.recv.log" &
    recv_pid=$!
    wait_udp "$p_recv"
    timeout 60 "$ffmpeg" -nostdin -v verbose -re -readrate_initial_burst 0 -f lavfi -i "$src" -t 16 "${enc[@]}" \
        -f rtp $(ccopt "$cc") "$@" \
        -stats_file "$work/$name.json" -stats_interval 0 "$(url)" > "$work/$name.send.log" 2>&1 ||
        die "$name: sender failed"
    wait "$recv_pid" || true
    wait "$relay_pid" || true
    [ -s "$work/$name.pcap.series" ] || die "$name: the relay wrote no series"
    set -- $(awk '!/^#/ && $1 >= 10 && $1 < 16 { o += $2; q += $3 * $6; d += $4; k += $6; n++ }
                  END { printf "%d %.1f %.2f\n", o / (n ? n : 1), q / (k ? k : 1), 100 * d / (d + k ? d + k : 1) }' \
             "$work/$name.pcap.series")
    out=$1 qdelay=$2 drops=$3
    # the lowest bit rate the encoder was set to (kbit/s), 0: never changed
    target=$(sed -n 's/.*Bit rate [0-9]* -> \([0-9]*\) bit.s (RTP congestion control).*/\1/p' \
             "$work/$name.send.log" | sort -n | head -n 1)
    target=$(( ${target:-0} / 1000 ))
}

test_constant() {
    live cc1 default
    note "cc by default: last 6 s: $out kbit/s through the link, queue delay $qdelay ms, $drops % dropped in the queue;" \
         "the encoder set down to $target kbit/s at the lowest"
    awk -v d="$drops" 'BEGIN { exit !(d <= 2) }' || die "default options: $drops % dropped in the queue (2 % allowed)"
    awk -v q="$qdelay" 'BEGIN { exit !(q <= 100) }' || die "default options: the queue added $qdelay ms on average"
    [ "$target" -gt 0 ] && [ "$target" -lt 3000 ] || die "default options: the encoder was never set below the link's 3000 kbit/s (lowest: $target)"
    [ "$out" -ge 1500 ] || die "default options: only $out kbit/s through a 3 Mbit/s link"
    live cc0 0
    note "cc 0: last 6 s: $out kbit/s through the link, queue delay $qdelay ms, $drops % dropped in the queue"
    awk -v d="$drops" 'BEGIN { exit !(d > 10) }' || die "cc 0 dropped only $drops %: the link does not bite"
}

# start: the same link from the first packet, the encoder asked for 6
# Mbit/s: with cc 1 the target starts at 1 Mbit/s (start_bitrate) and
# doubles every response time until the link pushes back: over the first
# 10 s at most 1 % of the datagrams are dropped in the queue, from second 5
# on at least 70 % of the link carries the stream, and the receiver logs
# no decode error. Started at 6 Mbit/s (start_bitrate 6000000, as before
# the start-up existed) the same link drops more than 1 % in the first 10
# s (the test bites). Sets early (% dropped over the first 10 s), later
# (kbit/s from 5 s on), errs (the receiver's decode errors)
start_run() {
    live "$@"
    early=$(awk '!/^#/ && $1 < 10 { d += $4; k += $6 } END { printf "%.2f\n", 100 * d / (d + k ? d + k : 1) }' \
            "$work/$1.pcap.series")
    later=$(awk '!/^#/ && $1 >= 5 && $1 < 16 { o += $2; n++ } END { printf "%d\n", o / (n ? n : 1) }' \
            "$work/$1.pcap.series")
    errs=$(grep -c -i 'error while decoding\|concealing\|decode_slice_header error\|non-existing PPS' \
           "$work/$1.recv.log" || true)
    # kbit/s through the link over the first second
    first1=$(awk '!/^#/ && $1 < 1 { o += $2; n++ } END { printf "%d\n", o / (n ? n : 1) }' "$work/$1.pcap.series")
    probes=$(grep -ao '[0-9]* probe clusters ([^)]*)' "$work/$1.send.log" | tail -n 1)
}

# probe: a 12 Mbit/s link (64 KB queue), the encoder asked for 12 from
# 1 Mbit/s. With default options the probe clusters (3 and 6 Mbit/s on the
# first transport feedback, then twice each measure the link took) must
# carry the stream past 4.8 Mbit/s over the first second (40 % of the
# link; 6.0-9.4 in runs here; 4.4 once in CI, before a cluster that looked
# full could still probe on), with at most 1 % dropped in the queue over
# the first 10 s and no decode error. With -probe 0 (the exponential
# start-up alone, never above 1.5 x what was acknowledged) it carried
# 3.0-3.4: it is measured and reported, and must stay below what probing
# got (the test tells the two apart).
test_probe() {
    local with
    LIVE_LINK=12000 LIVE_BV=12M start_run probe1 default
    note "probing: $early % dropped over the first 10 s, $first1 kbit/s in the first second, $later from 5 s on," \
         "$errs decode errors; $probes"
    [ "$first1" -ge 4800 ] || die "probing: only $first1 kbit/s through the 12 Mbit/s link in the first second (4800 asked)"
    awk -v d="$early" 'BEGIN { exit !(d <= 1) }' || die "probing: $early % dropped over the first 10 s (1 % allowed)"
    [ "$errs" = 0 ] || die "probing: the receiver logged $errs decode errors"
    with=$first1
    LIVE_LINK=12000 LIVE_BV=12M start_run probe0 default -probe 0
    note "-probe 0: $early % dropped over the first 10 s, $first1 kbit/s in the first second, $later from 5 s on," \
         "$errs decode errors"
    [ "$first1" -lt "$with" ] || die "-probe 0 carried $first1 kbit/s in the first second, probing $with: no difference"
}

test_start() {
    start_run start1 default
    note "default options, from 1 Mbit/s: $early % dropped in the queue over the first 10 s, $later kbit/s through" \
         "the 3 Mbit/s link from 5 s on ($first1 in the first second), $errs decode errors; $probes;" \
         "$(grep -o 'cc: starts at [0-9]* bit/s' "$work/start1.send.log")"
    awk -v d="$early" 'BEGIN { exit !(d <= 1) }' || die "default options: $early % dropped over the first 10 s (1 % allowed)"
    [ "$later" -ge 2100 ] || die "default options: only $later kbit/s through the 3 Mbit/s link from 5 s on (70 % expected)"
    [ "$errs" = 0 ] || die "default options: the receiver logged $errs decode errors"
    start_run start6 default -start_bitrate 6000000
    note "default options from 6 Mbit/s: $early % dropped over the first 10 s, $later kbit/s from 5 s on, $errs decode errors"
    awk -v d="$early" 'BEGIN { exit !(d > 1) }' || die "started at 6 Mbit/s only $early % dropped: the start does not bite"
}

# tcp: the video beside a TCP upload, through a kernel bottleneck: two
# network namespaces of the test's own (netns_link), 6 Mbit/s of tbf with
# a 64 KB drop-tail queue; live 720p25 asked for 6 Mbit/s with cc 1 and
# iperf3 (TCP CUBIC, the kernel's default) from 2 s on, 60 s in all (the
# issue's run; 45 s until 2026-12-06. Either way the check is flaky at
# this controller: a CI run got 23 % in 45 s, a 60 s run here 24 %). Over
# the last 20 s (from a capture in the receiver's namespace) the video
# must carry at least 35 % of the link, the two together at least 85 %;
# over the same 20 s of media (the frames whose timestamps fall in the
# last 20 s of what the receiver decoded: its -progress reports) the
# receiver decodes at least 95 % of the 500 frames sent; over the whole
# run it logs decode errors for at most 5 % of them (a line a broken frame
# at least). The whole run's count is reported: it includes TCP's slow
# start into the 64 KB queue at second 2, which drops what is in flight.
# The queueing delay is a ping's round trip through the same queue.
# ns_receiver NAME SECONDS: our receiver of $work/NAME.sdp in $nsb (port
# 5004), decoding, in the background; sets recv_pid once its socket is bound
ns_receiver() {
    ip netns exec "$nsb" timeout "$2" "$ffmpeg" -nostdin -v verbose -protocol_whitelist file,udp,rtp \
        -sdp_flags rtcp_to_source -i "$work/$1.sdp" -progress "$work/$1.progress" -stats_period 0.2 \
        -f null - 2> "$work/$1.recv.log" &
    recv_pid=$!
    for _ in $(seq 100); do
        ip netns exec "$nsb" grep -q ":138C 00000000:0000" /proc/net/udp && break; sleep 0.05
    done
}

# ns_decoded NAME: frames (what the receiver decoded) and errs (the lines
# of decode errors it logged)
ns_decoded() {
    frames=$(sed -n 's/.*Output stream #0:0 (video): \([0-9]*\) frames encoded.*/\1/p' "$work/$1.recv.log" | tail -n 1)
    frames=${frames:-0}
    errs=$(grep -c -i 'error while decoding\|concealing\|decode_slice_header error' "$work/$1.recv.log" || true)
}

# ns_window NAME SECONDS: the frames the receiver decoded whose timestamps
# fall in the last SECONDS of its output (from its -progress reports, a
# frame count and the last output time every 0.2 s, interpolated between
# two reports)
ns_window() {
    awk -F= -v w="$2" '
        $1 == "frame" { f = $2 } $1 == "out_time_us" && $2 ~ /^[0-9]+$/ { n++; F[n] = f; T[n] = $2 }
        END { if (n < 2) { print 0; exit }
              t0 = T[n] - w * 1e6
              for (i = 1; i <= n && T[i] < t0; i++) ;
              if (i == 1) f0 = F[1]
              else if (i > n) f0 = F[n]
              else f0 = F[i - 1] + (F[i] - F[i - 1]) * (t0 - T[i - 1]) / (T[i] - T[i - 1] > 0 ? T[i] - T[i - 1] : 1)
              printf "%.0f\n", F[n] - f0 }' "$work/$1.progress"
}

# ns_summary NAME: the receiver's and the sender's own accounts (for a failure)
ns_summary() {
    grep -h 'RTP receiver at the end\|Input stream #0:0\|frames decoded' "$work/$1.recv.log" 2> /dev/null | tail -n 2 | cut -c1-400
    grep -h 'NACK\|keyframe\|target' "$work/$1.send.log" 2> /dev/null | tail -n 3 | cut -c1-300
}

# The bench (tests/bench/rtp_cc.sh tcp) runs it to measure: TCP_DUR (s),
# TCP_QUEUE (bytes), TCP_SENDER (an ffmpeg), TCP_OPTS (its muxer options),
# TCP_DELAY (ms of one-way delay, netns_delay), TCP_MEASURE=1 (a "result"
# line, no verdict), TCP_OUT (a prefix for the
# series of the graph: .series, .target, .ping).
test_tcp() {
    local d=${TCP_DUR:-60} src="testsrc2=s=1280x720:r=25,noise=alls=12:allf=t"
    local enc=(-c:v libx264 -preset veryfast -tune zerolatency -b:v 6M -maxrate 6M -bufsize 1M
               -g 50 -bf 0 -pix_fmt yuv420p)
    local sender=${TCP_SENDER:-$ffmpeg} opts=(${TCP_OPTS:-}) stats=()
    command -v iperf3 > /dev/null || die "iperf3 is not installed (scripts/install-deps test)"
    # the bottleneck in a router of its own: in the senders' namespace a
    # tbf would hold TCP to the couple of packets TCP small queues lets a
    # socket keep in a local qdisc, whatever waits before them (TCP kept 15
    # % of the link beside a video that kept 50 ms of queue)
    netns_router 6000 "${TCP_QUEUE:-65536}"
    local peer=10.78.0.2
    [ "${TCP_DELAY:-0}" = 0 ] || netns_delay "$TCP_DELAY" $((d + 40))
    [ "$sender" = "$stock" ] || stats=(-stats_file "$work/tcp.json" -stats_interval 1)
    "$ffmpeg" -nostdin -v error -f lavfi -i "$src" "${enc[@]}" -frames:v 1 -f rtp \
        -sdp_file "$work/tcp.sdp" "rtp://$peer:5004?pkt_size=1200" > /dev/null
    ip netns exec "$nsb" timeout $((d + 20)) iperf3 -s -1 -p 5201 > "$work/tcp.iperf-s.log" 2>&1 &
    ip netns exec "$nsb" timeout $((d + 20)) tshark -q -i vb -f "udp port 5004 or tcp port 5201" \
        -w "$work/tcp.pcap" > /dev/null 2>&1 &
    local cap=$!
    ns_receiver tcp $((d + 15))
    ip netns exec "$nsa" timeout $((d + 10)) "$sender" -nostdin -v verbose -re -readrate_initial_burst 0 \
        -f lavfi -i "$src" -t "$d" "${enc[@]}" -f rtp "${opts[@]}" "${stats[@]}" \
        "rtp://$peer:5004?pkt_size=1200" > "$work/tcp.send.log" 2>&1 &
    local send=$!
    sleep 2
    ip netns exec "$nsa" timeout $((d + 5)) iperf3 -c "$peer" -p 5201 -t $((d - 3)) > "$work/tcp.iperf.log" 2>&1 &
    ip netns exec "$nsa" timeout $((d + 5)) ping -n -i 0.2 -w $((d - 1)) "$peer" > "$work/tcp.ping" 2>&1 &
    wait "$send" || die "the video sender failed: $(tail -3 "$work/tcp.send.log")"
    wait "$recv_pid" || true
    sleep 1
    kill -INT "$cap" 2> /dev/null || true
    wait "$cap" 2> /dev/null || true
    local series share
    series=$(tshark -r "$work/tcp.pcap" -T fields -E separator=, -e frame.time_relative -e udp.dstport \
                 -e tcp.dstport -e frame.len 2> /dev/null |
             awk -F, -v d="$d" '{ s = int($1); if ($2 == 5004) u[s] += $4; else if ($3 == 5201) c[s] += $4 }
                 END { for (s = d - 20; s < d; s++) { U += u[s]; C += c[s] }
                       printf "%.0f %.0f\n", U * 8 / 20000, C * 8 / 20000 }')
    set -- $series
    local video=$1 tcp=$2 frames errs sent rtt win
    ns_decoded tcp
    sent=$((d * 25))
    win=$(ns_window tcp 20)
    rtt=$(awk -F'time=' -v n=$((d * 5 - 100)) '/time=/ { k++; if (k > n) { split($2, a, " "); s += a[1]; m++ } }
              END { if (m) printf "%.1f\n", s / m }' "$work/tcp.ping")
    note "beside a TCP upload, 6 Mbit/s tbf, $((${TCP_QUEUE:-65536} / 1024)) KB queue, last 20 s of $d: video $video kbit/s" \
         "($((video * 100 / 6000)) %), TCP $tcp kbit/s ($((tcp * 100 / 6000)) %); receiver: $win of 500 frames" \
         "in those 20 s, $frames of $sent in the whole run, $errs decode errors; ping through the queue ${rtt:-?} ms"
    if [ -n "${TCP_OUT:-}" ]; then
        # per second: video and TCP kbit/s; the target (its first report
        # taken as second 1: the stats come every second from the start);
        # the ping (s, ms)
        tshark -r "$work/tcp.pcap" -T fields -E separator=, -e frame.time_relative -e udp.dstport \
            -e tcp.dstport -e frame.len 2> /dev/null |
            awk -F, '{ s = int($1); if ($2 == 5004) u[s] += $4; else if ($3 == 5201) c[s] += $4; if (s > m) m = s }
                     END { for (s = 0; s <= m; s++) printf "%d %.0f %.0f\n", s, u[s] * 8 / 1000, c[s] * 8 / 1000 }' \
            > "$TCP_OUT.series"
        local first; first=$(sed -n 's/.*"time_us":\([0-9]*\).*/\1/p' "$work/tcp.json" 2> /dev/null | head -n 1)
        sed -n 's/.*"time_us":\([0-9]*\).*"target_bitrate":\([0-9]*\).*/\1 \2/p' "$work/tcp.json" 2> /dev/null |
            awk -v f="${first:-0}" '{ printf "%.1f %.0f\n", 1 + ($1 - f) / 1e6, $2 / 1000 }' > "$TCP_OUT.target"
        awk -F'time=' '/time=/ { split($2, a, " "); printf "%.1f %s\n", 2 + n++ * 0.2, a[1] }' "$work/tcp.ping" \
            > "$TCP_OUT.ping"
        cp "$work/tcp.send.log" "$TCP_OUT.send.log"
        [ ! -e "$work/tcp.json" ] || cp "$work/tcp.json" "$TCP_OUT.json"
    fi
    if [ -n "${TCP_MEASURE:-}" ]; then
        note "result $video $tcp $((video * 100 / 6000)) $frames $sent $errs ${rtt:-?} $win"
        return 0
    fi
    [ "$((tcp))" -gt 600 ] || die "TCP carried only $tcp kbit/s: iperf3 did not run ($(tail -2 "$work/tcp.iperf.log"))"
    [ "$video" -ge 2100 ] || die "the video got $video kbit/s of the 6 Mbit/s link beside TCP (35 % expected)"
    [ $((video + tcp)) -ge 5100 ] || die "the link carried only $((video + tcp)) kbit/s"
    [ $((win * 100)) -ge $((500 * 95)) ] ||
        die "the receiver decoded $win of the 500 frames in the last 20 s ($frames of $sent in all): $(ns_summary tcp)"
    [ $((errs * 100)) -le $((sent * 5)) ] ||
        die "the receiver logged $errs decode errors (5 % of $sent frames allowed): $(ns_summary tcp)"
}

# netloss: random loss in the kernel (nftables in the receiver's namespace
# drops LOSS %, default 3, of the datagrams to port 5004, retransmissions
# included) on a link with room (8 Mbit/s tbf, 64 KB, 20 ms delay line):
# live 720p25 asked for 4 Mbit/s with default options, 20 s. Random loss
# is not congestion: over the last 10 s the target stays at 80 % of 4
# Mbit/s or more (the loss-based part cuts above 10 %); the receiver's
# NACKs repair it: 99 % of the frames decoded, decode errors for at most
# 1 %; nftables' counter shows the loss happened (half of LOSS at least).
# RATE (kbit/s asked for), LINK (kbit/s of the tbf), DELAY (ms one way)
# change the scenario.
test_netloss() {
    local d=20 loss=${LOSS:-3} kbit=${RATE:-4000} src="testsrc2=s=1280x720:r=25,noise=alls=12:allf=t"
    local enc=(-c:v libx264 -preset veryfast -tune zerolatency -b:v "${kbit}k" -maxrate "${kbit}k"
               -bufsize "$((kbit / 6))k" -g 50 -bf 0 -pix_fmt yuv420p)
    command -v nft > /dev/null || die "nft is not installed (scripts/install-deps test)"
    netns_link "${LINK:-8000}" 65536
    netns_delay "${DELAY:-20}" $((d + 40))
    ip netns exec "$nsb" nft -f - <<EOF || die "nftables refused the loss rule"
table inet lcvloss {
    chain in {
        type filter hook input priority 0;
        udp dport 5004 numgen random mod 100 lt $loss counter drop
    }
}
EOF
    "$ffmpeg" -nostdin -v error -f lavfi -i "$src" "${enc[@]}" -frames:v 1 -f rtp \
        -sdp_file "$work/loss.sdp" "rtp://10.77.0.2:5004?pkt_size=1200" > /dev/null
    ns_receiver loss $((d + 15))
    ip netns exec "$nsa" timeout $((d + 10)) "$ffmpeg" -nostdin -v verbose -re -readrate_initial_burst 0 \
        -f lavfi -i "$src" -t "$d" "${enc[@]}" -f rtp -stats_file "$work/loss.json" -stats_interval 1 \
        "rtp://10.77.0.2:5004?pkt_size=1200" > "$work/loss.send.log" 2>&1 ||
        die "the sender failed: $(tail -3 "$work/loss.send.log")"
    wait "$recv_pid" || true
    local dropped packets resent target sent
    dropped=$(ip netns exec "$nsb" nft list chain inet lcvloss in | sed -n 's/.*counter packets \([0-9]*\).*/\1/p')
    packets=$(json "$work/loss.json" packets) resent=$(json "$work/loss.json" retransmitted)
    # the mean target over the last 10 s (a line a second)
    target=$(awk '{ if (match($0, /"time_us":[0-9]+/)) t = substr($0, RSTART + 10, RLENGTH - 10)
                    if (match($0, /"target_bitrate":[0-9]+/)) v = substr($0, RSTART + 17, RLENGTH - 17)
                    if (!f) f = t; if (t - f >= 10000000) { s += v; n++ } }
                  END { printf "%d\n", n ? s / n / 1000 : 0 }' "$work/loss.json")
    ns_decoded loss
    sent=$((d * 25))
    note "$loss % random loss (nftables dropped ${dropped:-0} of $packets datagrams sent, $resent resent):" \
         "target over the last 10 s $target kbit/s; receiver: $frames of $sent frames, $errs decode errors"
    [ $(( ${dropped:-0} * 200 )) -ge $((packets * loss)) ] || die "nftables dropped only ${dropped:-0} of $packets"
    [ "$target" -ge $((kbit * 8 / 10)) ] ||
        die "the target fell to $target kbit/s under $loss % random loss ($((kbit * 8 / 10)) expected)"
    [ $((frames * 100)) -ge $((sent * 99)) ] || die "the receiver decoded $frames of $sent frames"
    [ $((errs * 100)) -le "$sent" ] || die "the receiver logged $errs decode errors (1 % of $sent allowed)"
}

# goodlink: a live sender (2.5 Mbit/s) through a link with room to spare
# (10 ms each way, no rate limit): with cc 1 the pacer must add no more
# delay than without (GCC paces at its factor x the target). The
# delay is each packet's departure against its media time (RTP timestamp),
# less the smallest such difference, from the relay's capture over the
# last 5 s (the muxer's own percentiles count from the start, the first
# IDR's wait included)
test_goodlink() {
    local src="testsrc2=s=1280x720:r=25,noise=alls=12:allf=t"
    local enc=(-c:v libx264 -preset veryfast -tune zerolatency -b:v 2500k -maxrate 2500k -bufsize 250k
               -g 250 -bf 0 -pix_fmt yuv420p)
    local cc t
    # 1: the default (cc auto, on for this stream)
    for cc in 1 0; do
        ports
        "$ffmpeg" -nostdin -v error -f lavfi -i "$src" "${enc[@]}" -frames:v 1 -f rtp $(ccopt "${cc/1/default}") \
            -sdp_file "$work/good$cc.sdp" "rtp://127.0.0.1:$p_recv" > /dev/null
        relay "good$cc" 0 1 10 11 0
        timeout 60 "$ffmpeg" -nostdin -v error -protocol_whitelist file,udp,rtp -sdp_flags rtcp_to_source \
            -i "$work/good$cc.sdp" -f null - 2> "$work/good$cc.recv.log" &
        recv_pid=$!
        wait_udp "$p_recv"
        timeout 60 "$ffmpeg" -nostdin -v error -re -readrate_initial_burst 0 -f lavfi -i "$src" -t 12 "${enc[@]}" \
            -f rtp $(ccopt "${cc/1/default}") -stats_file "$work/good$cc.json" -stats_interval 0 "$(url)" \
            > "$work/good$cc.send.log" 2>&1 || die "good$cc: sender failed"
        wait "$recv_pid" || true
        wait "$relay_pid" || true
        # p95 of (departure - media time - the smallest such) over the last 5 s, ms
        local v
        v=$("$tools/rtpcap" times "$work/good$cc.pcap" "$p_relay" | awk '
            { t[NR] = $1; ts = $3; if (NR > 1) { dt = ts - prev; if (dt < -2147483648) dt += 4294967296
                                                  else if (dt > 2147483648) dt -= 4294967296; u += dt }
              prev = ts; l[NR] = $1 / 1000 - u / 90; if (NR == 1 || l[NR] < m) m = l[NR] }
            END { for (i = 1; i <= NR; i++) if (t[i] >= t[NR] - 5000000) printf "%.1f\n", l[i] - m }' | sort -n)
        local n; n=$(echo "$v" | grep -c .)
        [ "$n" -ge 100 ] || die "good$cc: only $n packets in the last 5 s of the capture"
        eval "d$cc=$(echo "$v" | sed -n "$(( n * 95 / 100 ))p")"
    done
    t=$(json "$work/good1.json" target_bitrate)
    note "a link with room, last 5 s: packets left ${d1} ms after their media time at the 95th percentile" \
         "with cc 1 (target $((t / 1000)) kbit/s), ${d0} ms with cc 0; the muxer's own p95 since the start:" \
         "$(json "$work/good1.json" pace_delay_p95_ms) and $(json "$work/good0.json" pace_delay_p95_ms) ms"
    [ -n "$d1" ] && [ -n "$d0" ] && [ -n "$t" ] && [ "$t" -gt 0 ] || die "no delay figure, or no target (cc not on by default?)"
    awk -v a="$d1" 'BEGIN { exit !(a <= 40) }' || die "cc 1: p95 delay $d1 ms over the last 5 s, over one frame interval (40 ms)"
    # and over the whole run, the first IDR's wait included: as without cc
    # (paced at the target itself: 340 ms against 101)
    local m1 m0; m1=$(json "$work/good1.json" pace_delay_p95_ms); m0=$(json "$work/good0.json" pace_delay_p95_ms)
    awk -v a="$m1" -v b="$m0" 'BEGIN { exit !(a <= 1.3 * b + 20) }' ||
        die "cc 1: the muxer's p95 pacer wait $m1 ms against $m0 ms with cc 0 (1.3x + 20 ms at most)"
}

test_copy() {
    local in; in=$(clip_720p)
    for cc in 0 1 default; do
        local p; p=$(port)
        timeout 60 "$ffmpeg" -nostdin -v warning -re -i "$in" -c copy -f rtp $(ccopt "$cc") -max_bitrate 2000000 \
            -stats_file "$work/copy$cc.json" -stats_interval 0 "rtp://127.0.0.1:$p?pkt_size=1200" \
            > "$work/copy$cc.log" 2>&1 || die "copy cc $cc: sender failed"
    done
    local o0 o1 n0 n1 t1
    o0=$(json "$work/copy0.json" octets) o1=$(json "$work/copy1.json" octets)
    n0=$(json "$work/copy0.json" packets) n1=$(json "$work/copy1.json" packets)
    t1=$(json "$work/copy1.json" target_bitrate)
    note "-c copy: $n0 packets, $o0 payload octets (cc 0); $n1 packets, $o1 payload octets (cc 1);" \
         "cc 1 reports a target of $t1 bit/s"
    # the same H.264 stream cut into payloads 8 bytes shorter (the
    # extension's room): each extra FU-A fragment costs its 2-byte header,
    # and a NAL unit that fitted one packet and now takes two one byte more
    # (its own header byte goes, two FU headers come): 2 bytes an extra
    # packet, plus at most one for each; nothing else may differ (a CI run
    # had one such NAL unit: 11 packets, 23 bytes more)
    local extra=$((n1 - n0)) d=$((o1 - o0 - 2 * (n1 - n0)))
    [ -n "$o0" ] && [ -n "$o1" ] && [ "$extra" -ge 0 ] && [ "$d" -ge 0 ] && [ "$d" -le "$extra" ] ||
        die "-c copy with cc 1 sent $o1 payload octets in $n1 packets, cc 0 $o0 in $n0"
    [ -n "$t1" ] && [ "$t1" -gt 0 ] || die "-c copy with cc 1 reports no target"
    grep -q "the target is only reported" "$work/copy1.log" || die "-c copy with cc 1: no warning that nothing adapts"
    # by default: the same packets as cc 1, a target reported, no warning
    local nd td
    nd=$(json "$work/copydefault.json" packets) td=$(json "$work/copydefault.json" target_bitrate)
    local warned; warned=$(grep -c '^\[rtp @' "$work/copydefault.log" || true)
    note "-c copy by default: $nd packets, target $td bit/s, $warned warnings from the muxer"
    [ "$nd" = "$n1" ] && [ -n "$td" ] && [ "$td" -gt 0 ] || die "-c copy by default: $nd packets (cc 1: $n1), target $td"
    [ "$warned" = 0 ] || die "-c copy by default, the muxer warned: $(grep '^\[rtp @' "$work/copydefault.log" | head -3)"
}

# stall: a receiver whose reading stalls, as on a busy host: live 640x360
# at 1 Mbit/s with default options (send_mode mmsg: one datagram per
# capture frame) straight to our receiver on 127.0.0.1, which is stopped
# for STALL_MS (default 60) every 400 ms (SIGSTOP, SIGCONT) for 8 s. The
# datagrams that came during a stall are read together after it. tshark
# decodes the transport-cc feedback and the RTP packets' transport-wide
# numbers on the loopback capture (tests/tshark/twcc-arrivals.py): with the
# kernel's receive times (SO_TIMESTAMPNS, the rtpproto patch) the gap the
# receiver reports between two packets is within 0.5 ms of the capture's at
# the 99th percentile (a delta is in 250 us units), and the receiver counted
# every packet as kernel-stamped (kernel_stamps). The same receiver with the
# socket option refused (tests/net/sendfail.so SENDFAIL=nostamp, the time
# it read them) is measured in the same run: its largest difference is the
# stall's (10 ms at least, or the test could not tell).
test_stall() {
    local src="testsrc2=s=640x360:r=25,noise=alls=12:allf=t"
    local enc=(-c:v libx264 -preset veryfast -tune zerolatency -b:v 1M -maxrate 1M -bufsize 200k
               -g 50 -bf 0 -pix_fmt yuv420p)
    local ms=${STALL_MS:-60} k pre
    [ "$ms" -ge 1 ] && [ "$ms" -le 300 ] || die "STALL_MS $ms: 1 to 300"
    [ -e "$tools/sendfail.so" ] || die "no $tools/sendfail.so (make $tools/sendfail.so)"
    command -v tshark > /dev/null || die "tshark is not installed (scripts/install-deps test)"
    for k in stamp nostamp; do
        local p; p=$(port)
        pre=()
        [ $k = stamp ] || pre=(env LD_PRELOAD="$tools/sendfail.so" SENDFAIL=nostamp)
        "$ffmpeg" -nostdin -v error -f lavfi -i "$src" "${enc[@]}" -frames:v 1 -f rtp \
            -sdp_file "$work/stall-$k.sdp" "rtp://127.0.0.1:$p?pkt_size=1200" > /dev/null
        timeout 30 tshark -q -i lo -f "udp port $p or udp port $((p + 1))" -w "$work/stall-$k.pcap" \
            > "$work/stall-$k.tshark.log" 2>&1 &
        local cap=$!
        "${pre[@]}" timeout 30 "$ffmpeg" -nostdin -v verbose -protocol_whitelist file,udp,rtp \
            -sdp_flags rtcp_to_source -stats_file "$work/stall-$k.recv.json" -stats_interval 0 \
            -i "$work/stall-$k.sdp" -f null - 2> "$work/stall-$k.recv.log" &
        recv_pid=$!
        wait_udp "$p"
        for _ in $(seq 100); do grep -q "Capturing on" "$work/stall-$k.tshark.log" && break; sleep 0.05; done
        timeout 30 "$ffmpeg" -nostdin -v verbose -re -readrate_initial_burst 0 -f lavfi -i "$src" -t 8 "${enc[@]}" \
            -f rtp -send_mode mmsg -stats_file "$work/stall-$k.json" -stats_interval 1 \
            "rtp://127.0.0.1:$p?pkt_size=1200" > "$work/stall-$k.send.log" 2>&1 &
        local send=$! end=$((SECONDS + 20)) rpid
        sleep 0.5
        # the receiver itself, under timeout
        rpid=$(pgrep -n -P "$recv_pid") || die "stall-$k: no receiver process"
        # the stalls, bounded in count and time
        for _ in $(seq 20); do
            kill -0 "$send" 2> /dev/null && [ $SECONDS -lt $end ] || break
            kill -STOP "$rpid" 2> /dev/null || break
            sleep "$(printf '0.%03d' "$ms")"
            kill -CONT "$rpid" 2> /dev/null || break
            sleep "$(printf '0.%03d' $((400 - ms)))"
        done
        kill -CONT "$rpid" 2> /dev/null || true
        wait "$send" || die "stall-$k: the sender failed: $(tail -3 "$work/stall-$k.send.log")"
        wait "$recv_pid" || true
        sleep 0.5
        kill -INT "$cap" 2> /dev/null || true
        wait "$cap" 2> /dev/null || true
        eval "r_$k=\"$(/usr/bin/python3 "$(dirname "$0")/../tshark/twcc-arrivals.py" "$work/stall-$k.pcap" "$p")\""
    done
    local ks pk kn
    ks=$(json "$work/stall-stamp.recv.json" kernel_stamps) pk=$(json "$work/stall-stamp.recv.json" packets)
    kn=$(json "$work/stall-nostamp.recv.json" kernel_stamps)
    set -- $r_stamp; local sn=$1 s50=$2 s99=$3 smax=$4 sq=$5
    set -- $r_nostamp; local nn=$1 n50=$2 n99=$3 nmax=$4 nq=$5
    note "receiver stopped ${ms} ms every 400 ms; reported gap between two packets against the capture's," \
         "p50/p99/max ms, and the most delay reported that the capture did not show: kernel receive times" \
         "$s50/$s99/$smax, $sq ms over $sn pairs ($ks of $pk packets stamped," \
         "$(json "$work/stall-stamp.json" cc_decreases) rate decreases); the time of reading $n50/$n99/$nmax, $nq ms" \
         "over $nn pairs ($kn stamped, $(json "$work/stall-nostamp.json" cc_decreases) decreases)"
    [ -n "$ks" ] && [ -n "$pk" ] && [ "$pk" -gt 300 ] || die "no receiver statistics"
    [ "$sn" -ge 200 ] && [ "$nn" -ge 200 ] || die "too few packet pairs to compare ($sn, $nn)"
    [ "$ks" = "$pk" ] || die "only $ks of $pk packets had the kernel's receive time"
    [ "$kn" = 0 ] || die "with the socket option refused, $kn packets still had the kernel's receive time"
    awk -v a="$nq" -v m="$ms" 'BEGIN { exit !(a >= m / 2) }' ||
        die "the time of reading showed $nq ms of delay that was not there: the stalls did not show ($((ms / 2)) expected)"
    awk -v a="$s99" -v q="$sq" 'BEGIN { exit !(a <= 0.5 && q <= 1) }' ||
        die "with the kernel's receive times the reported gaps were off by $s99 ms at the 99th percentile (0.5 at most)" \
            "and showed $sq ms of delay that was not there (1 at most)"
}

case $what in
wire)     test_wire ;;
feedback) test_feedback ;;
gst-feedback) test_gst_feedback ;;
ccfb)     test_ccfb ;;
rtsp)     test_rtsp ;;
constant) test_constant ;;
start)    test_start ;;
probe)    test_probe ;;
tcp)      test_tcp ;;
netloss)  test_netloss ;;
goodlink) test_goodlink ;;
copy)     test_copy ;;
stall)    test_stall ;;
*)        die "unknown test $what" ;;
esac
echo "PASS: cc $what"

#!/usr/bin/env bash
# Loss recovery of FFmpeg's RTP receiver (libavformat/rtpdec_ext.c) at a
# camera's rate, all on 127.0.0.1: this project's ffmpeg sends a 720p25
# H.264 clip at about 4 Mbit/s (-re -c copy) through the lossy relay
# (tests/net/rtpcap.c), 20 ms round trip, 5 % of the RTP datagrams dropped,
# retransmissions included; the receiver is ffmpeg reading the SDP with
# defaults apart from sdp_flags rtcp_to_source, decoding to framemd5.
# "Intact" = the decoded frame's md5 equals the locally decoded clip's.
#   tests/rtp/lossy.sh BUILD TEST
# TEST: link (ours and stock as receivers; the sequence wraps mid-stream;
#       the delay our receiver adds to each frame) | link-ours (the same,
#       ours alone: for tests/mutate.sh) |
#       rtx (RFC 4588 retransmissions) | pli (live x264: an unrepairable gap
#       brings a PLI and an IDR) | api (lcv_rtp_demuxer_get_stats() from a
#       program, against the relay's counts) | forced (-nack 1 with an
#       RTP/AVP SDP) | tail (the stream's last two packets lost: the
#       sender's tail loss probe) | idr (live encoding, a loss the sender
#       cannot repair: the IDR within RTT + 2 frames) | rtsp (RTSP
#       publish -> listen with loss at the publisher) | au (access units
#       at the marker bit: the same bytes as FFmpeg's parser gives) | late
#       (a receiver that joins a live stream late asks for a keyframe)
set -eu
build=$1 what=$2
. "$(dirname "$0")/lib.sh"
inputs=$build/tests/rtp-inputs
SSRC=0x12345678
LOSS=50000      # ppm
DELAY=20        # ms: the relay delays the receiver's direction only, so RTT 20 ms (10 each way)

# run_link NAME RECEIVER_BIN INPUT [SENDER OPTIONS...]: one lossy transfer;
# sets n_src n_ok r_in r_drop r_rtx_drop
run_link() {
    local name=$1 bin=$2 in=$3; shift 3
    ports
    relay "$name" "$LOSS" 1 "$DELAY" 11 1
    receive "$name" "$bin" "$in" "$@"
    timeout 60 "$ffmpeg" -nostdin -v verbose -re -i "$in" -c copy -f rtp -ssrc "$SSRC" -seq 65000 "$@" \
        -stats_file "$work/$name.json" -stats_interval 0 "$(url)" > "$work/$name.send.log" 2>&1 ||
        die "$name: sender failed"
    wait "$recv_pid" || true
    wait "$relay_pid" || true   # it stops 1.5 s after the last datagram
    relay_counts "$name"
    compare "$name" "$in"
}

stats_line() { grep -h 'RTP receiver at the end' "$work/$1.recv.log" | tail -n 1 | sed 's/^\[[^]]*\] //'; }

test_link() {
    local in; in=$(clip_720p)
    RECV_TIMED=1 run_link ours "$ffmpeg" "$in"
    local ok=$n_ok src=$n_src
    note "ours: relay dropped $r_drop of $r_in datagrams ($r_rtx_drop of them retransmissions); $ok of $src frames intact"
    note "$(stats_line ours | sed 's/^[0-9:.]* \[[^]]*\] //')"
    # the receiver's added delay: a repair takes a round trip or two, and
    # a frame interval when the frame's last packet is the one lost (seen
    # on a busy machine: p95 86-94 ms, max 133 ms); never the reorder wait
    # (about 250 ms here), a late NACK or a slow retry
    local d; d=$(added_delays ours "$DELAY") || die "the receiver's frames did not match the capture's: $d"
    set -- $d
    note "ours: delay the receiver added to the $1 frames after its probe: median $2 ms, p95 $3 ms, max $4 ms"
    [ "$1" -ge 60 ] || die "only $1 frames' delays measured"
    awk -v p="$3" -v m="$4" 'BEGIN { exit !(p <= 150 && m <= 200) }' ||
        die "the receiver held frames too long: p95 $3 ms (150 at most), max $4 ms (200 at most)"
    [ $((ok * 100)) -ge $((src * 99)) ] || die "only $ok of $src frames intact (at least 99 % required)"
    [ "$r_drop" -gt $((r_in / 40)) ] || die "the relay dropped only $r_drop of $r_in: not the 5 % the test needs"
    [ "$r_rtx_drop" -gt 0 ] || die "no retransmission was dropped: the test tested first transmissions only"
    grep -q 'RTP receiver at the end' "$work/ours.recv.log" || die "the receiver logged no statistics"
    [ "$what" = link-ours ] && return

    run_link stock "$stock" "$in"
    note "stock FFmpeg receiver, same link: $n_ok of $n_src frames intact"
    # the conditions must be hard enough that stock's receiver fails them
    [ $((n_ok * 100)) -lt $((n_src * 99)) ] || die "stock's receiver got $n_ok of $n_src: the test is too easy"
}

test_rtx() {
    local in; in=$(clip_720p)
    run_link rtx "$ffmpeg" "$in" -rtx_pt 97
    local restored
    restored=$(stats_line rtx | sed -n 's/.*(\([0-9]*\) by RTX).*/\1/p')
    note "RTX PT 97: relay dropped $r_drop of $r_in ($r_rtx_drop retransmissions); $n_ok of $n_src frames intact"
    note "$(stats_line rtx)"
    grep -q 'a=rtpmap:97 rtx/90000' "$work/rtx.sdp" || die "the SDP has no RTX payload type"
    [ "${restored:-0}" -gt 0 ] || die "no RTX packet was restored"
    [ $((n_ok * 100)) -ge $((n_src * 99)) ] || die "only $n_ok of $n_src frames intact with RTX"
}

# The last two packets of the stream lost (first transmissions), on top of
# the 5 % loss: no later packet shows the receiver the gap. The sender
# sends its last packet once more before the BYE (a tail loss probe; only
# to receivers that NACK); that copy shows the gap, and the BYE waits while
# the NACKs come.
test_tail() {
    local in n last; in=$(clip_720p)
    # the number of packets of the clip (the same at every run)
    n=$("$ffmpeg" -nostdin -v verbose -i "$in" -c copy -f rtp -feedback 0 -pace 0 \
            "rtp://127.0.0.1:$(port)?pkt_size=1200" 2>&1 > /dev/null |
        sed -n 's/.*RTP send ([a-z]*): \([0-9]*\) packets.*/\1/p')
    [ -n "$n" ] || die "could not count the clip's packets"
    last=$(( (65000 + n - 1) % 65536 ))
    RTPCAP_DROP="$(( (last + 65535) % 65536 )),$last" run_link tail "$ffmpeg" "$in"
    local fin; fin=$(grep -h 'RTCP (final)' "$work/tail.send.log" | tail -n 1)
    note "last packets $(( (last + 65535) % 65536 )) and $last (of $n) dropped, and $r_drop in all;" \
         "$n_ok of $n_src frames intact"
    note "${fin#*] }"
    grep -qx "dropped $last" "$work/tail.relay" && grep -qx "dropped $(( (last + 65535) % 65536 ))" "$work/tail.relay" ||
        die "the relay did not drop the last two packets"
    echo "$fin" | grep -q '; 1 tail probes' || die "no tail probe: $fin"
    [ "$n_ok" = "$n_src" ] || die "only $n_ok of $n_src frames intact (the last one needs the probe)"
}

# Live encoding, a loss that cannot be repaired (the sender keeps no
# history: -nack_history 0): the receiver's NACK reaches a sender that
# cannot answer it, which asks its encoder for a keyframe at once; the IDR
# must be complete at the receiver within one RTT plus two frame intervals
# (20 + 2 x 40 ms) of the NACK or PLI that showed the loss (idr_costs in
# lib.sh; keyframe_min_interval at its default, 0.3 s). Twice: 640x360 at
# 1 Mbit/s (small IDRs), and 1280x720 with noise at 4 Mbit/s with a VBV
# buffer of 1 Mbit (IDRs of up to 125 KB: paced at 1.5 x 4 Mbit/s they
# would take up to 170 ms; a keyframe asked for leaves within 30 ms, so
# each IDR after the first must cross the relay within 60 ms: 30 and the
# pacer's wake-ups on a busy machine)
idr_case() {  # NAME SOURCE BITRATE BUFSIZE LOSS_PPM MIN_LOSSES MAX_MS
    local name=$1 src=$2
    local enc=(-c:v libx264 -preset ultrafast -tune zerolatency -g 1000 -bf 0 -b:v "$3" -maxrate "$3" -bufsize "$4")
    ports
    relay "$name" "$5" 1 "$DELAY" 7 0
    "$ffmpeg" -nostdin -v error -f lavfi -i "$src" "${enc[@]}" -frames:v 1 -f rtp \
        -sdp_file "$work/$name.sdp" "rtp://127.0.0.1:$p_recv" > /dev/null
    timeout 60 "$ffmpeg" -nostdin -v verbose -protocol_whitelist file,udp,rtp -sdp_flags rtcp_to_source \
        -i "$work/$name.sdp" -map 0 -c copy -f null - 2> "$work/$name.recv.log" &
    recv_pid=$!
    wait_udp "$p_recv"
    timeout 60 "$ffmpeg" -nostdin -v verbose -re -f lavfi -i "$src" -t 10 "${enc[@]}" -f rtp -ssrc "$SSRC" \
        -nack_history 0 -stats_file "$work/$name.json" -stats_interval 0 "$(url)" \
        > "$work/$name.send.log" 2>&1 || die "$name: sender failed"
    wait "$recv_pid" || true
    wait "$relay_pid" || true
    relay_counts "$name"
    idr_costs "$work/$name.pcap" "$work/$name.relay" "$DELAY" 40 > "$work/$name.costs"
    local n worst worst_loss urgent
    n=$(wc -l < "$work/$name.costs")
    worst=$(awk '{ if ($3 > m) m = $3 } END { print m + 0 }' "$work/$name.costs")
    worst_loss=$(awk '{ if ($2 > m) m = $2 } END { print m + 0 }' "$work/$name.costs")
    urgent=$(sed -n 's/.* \([0-9]*\) keyframes asked for sent within.*/\1/p' "$work/$name.send.log" | tail -n 1)
    note "$name: relay dropped $r_drop of $r_in; sender: $(json "$work/$name.json" keyframe_requests)" \
         "keyframe requests, ${urgent:-?} keyframes sent within 30 ms"
    note "$name: $n losses that broke a good picture: IDR complete at the receiver" \
         "$(awk '{ printf "%s%s", s, $3; s = ", " }' "$work/$name.costs") ms after the receiver's request" \
         "(worst $worst; from the loss itself: worst $worst_loss ms)"
    [ "$n" -ge "$6" ] || die "$name: only $n losses to measure"
    awk -v w="$worst" -v m="$7" 'BEGIN { exit !(w > 0 && w <= m) }' ||
        die "$name: an IDR came $worst ms after the request (at most $7 ms)"
    local spreads; spreads=$(idr_spreads "$work/$name.pcap" | tr '\n' ' ')
    note "$name: the IDRs asked for crossed the relay in $spreads ms (first to last packet)"
    [ -n "$spreads" ] || die "$name: no IDR after the first"
    for t in $spreads; do
        awk -v t="$t" 'BEGIN { exit !(t <= 60) }' || die "$name: an IDR asked for took $t ms to send (40, and 20 of slack)"
    done
}

test_idr() {
    # RTT 20 + 2 frames of 40 ms
    idr_case idr "testsrc2=s=640x360:r=25" 1M 250k 20000 3 100
    # 4 times the packets: 0.5 % loss for as many losses; most come within
    # 350 ms of the last IDR, so fewer are measured, but every IDR asked
    # for (20 or so) is timed across the relay. End to end it is checked to
    # 140 ms (one frame more than the target; 97.2 ms seen on a busy
    # machine), where the bench measures the target at 1080p; the spreads
    # are what this case checks
    idr_case idr720 "testsrc2=s=1280x720:r=25,noise=alls=12:allf=t" 4M 1M 5000 1 140
}

# RTSP: a publisher (-f rtsp over UDP) to ffmpeg's listen mode, 5 % of
# the publisher's RTP datagrams lost, retransmissions included. The relay
# cannot sit inside an RTSP session (the ports are negotiated), so the loss
# is made at the publisher's sends (tests/net/sendfail.c drop:PPM, one
# datagram per message: send_mode mmsg). The listener must NACK to the
# publisher (patches/0025) and recover; stock FFmpeg as the listener must not.
# rtsp_run NAME BIN IN [LISTENER OPTIONS...]
rtsp_run() {
    local name=$1 bin=$2 in=$3 p r
    shift 3
    p=$(port)
    timeout 60 "$bin" -nostdin -v verbose -rtsp_flags listen -timeout 20000000 "$@" -i "rtsp://127.0.0.1:$p/live" \
        -map 0 -fps_mode passthrough -f framemd5 "$work/$name.framemd5" > "$work/$name.recv.log" 2>&1 &
    r=$!
    for _ in $(seq 200); do grep -q ":$(printf '%04X' "$p") 00000000:0000 0A" /proc/net/tcp && break; sleep 0.05; done
    LD_PRELOAD=$tools/sendfail.so SENDFAIL=drop:$LOSS:7 timeout 60 "$ffmpeg" -nostdin -v verbose -re -i "$in" \
        -c copy -f rtsp -rtsp_transport udp -rtp_options "send_mode=mmsg:stats_file=$work/$name.json:stats_interval=0" \
        "rtsp://127.0.0.1:$p/live" > "$work/$name.send.log" 2>&1 || die "$name: publisher failed: $(tail -3 "$work/$name.send.log")"
    wait "$r" || true
    [ -f "$work/$name.framemd5" ] || : > "$work/$name.framemd5"
    compare "$name" "$in"
    drops=$(sed -n 's/^sendfail: \([0-9]*\) failures injected/\1/p' "$work/$name.send.log")
}

test_rtsp() {
    [ -f "$tools/sendfail.so" ] || die "$tools/sendfail.so is not built"
    local in; in=$(clip_720p)
    rtsp_run rtsp "$ffmpeg" "$in"
    local ours=$n_ok nack
    nack=$(json "$work/rtsp.json" nack_packets)
    note "RTSP publish -> listen, 5 % of the publisher's RTP datagrams dropped (${drops:-0}, retransmissions" \
         "included): $ours of $n_src frames intact; the publisher got ${nack:-0} NACK packets"
    note "$(stats_line rtsp)"
    [ "${drops:-0}" -gt 40 ] || die "only ${drops:-0} datagrams dropped: the test tested too little"
    [ "${nack:-0}" -gt 0 ] || die "no NACK reached the publisher"
    [ $((ours * 100)) -ge $((n_src * 99)) ] || die "only $ours of $n_src frames intact over RTSP"
    # stock 9.0.2 cannot listen without a -listen_timeout (its default of
    # -1 s is passed on to tcp as -1000 ms, out of tcp's range; patches/9.0/0029)
    rtsp_run rtsp-stock "$stock" "$in" -listen_timeout 60
    note "stock FFmpeg listening: $n_ok of $n_src frames intact"
    [ $((n_ok * 100)) -lt $((n_src * 99)) ] || die "stock's listener got $n_ok of $n_src: the test is too easy"
}

# Access units at the marker bit (au_marker, patches/0026): the same
# stream received with it and without it (FFmpeg's parser) must give the
# same bytes with -c copy, and every frame intact.
test_au() {
    local in; in=$(clip_720p)
    for m in 1 0; do
        ports
        relay "au$m" "$LOSS" 1 "$DELAY" 11 1
        "$ffmpeg" -nostdin -v error -i "$in" -c copy -frames 1 -f rtp -sdp_file "$work/au$m.sdp" \
            "rtp://127.0.0.1:$p_recv" > /dev/null
        timeout 60 "$ffmpeg" -nostdin -v verbose -protocol_whitelist file,udp,rtp -sdp_flags rtcp_to_source \
            -au_marker "$m" -i "$work/au$m.sdp" -map 0 -c copy -fflags +bitexact -f nut -y "$work/au$m.nut" \
            2> "$work/au$m.recv.log" &
        recv_pid=$!
        wait_udp "$p_recv"
        # the same sequence numbers in both runs, so that the relay drops the
        # same packets (a function of its seed and the number): with a random
        # start, the first packet was dropped in one run in ten, and a receiver
        # cannot ask for a packet before the first it sees
        timeout 60 "$ffmpeg" -nostdin -v error -re -i "$in" -c copy -f rtp -ssrc "$SSRC" -seq 65000 \
            "$(url)" > /dev/null 2>&1 || die "au$m: sender failed"
        wait "$recv_pid" || true
        wait "$relay_pid" || true
    done
    grep -q 'access units at the marker bit' "$work/au1.recv.log" || die "au_marker 1 did not gather access units"
    grep -q 'access units by the parser' "$work/au0.recv.log" || die "au_marker 0 still gathers access units"
    cmp -s "$work/au1.nut" "$work/au0.nut" ||
        die "the stream received with au_marker differs from the parser's ($(stat -c %s "$work/au1.nut") vs $(stat -c %s "$work/au0.nut") bytes)"
    "$ffmpeg" -nostdin -v error -i "$work/au1.nut" -map 0 -fps_mode passthrough -f framemd5 "$work/au.framemd5" \
        2> /dev/null || true
    compare au "$in"
    note "5 % loss, received with and without au_marker: $(stat -c %s "$work/au1.nut") bytes each, identical;" \
         "$n_ok of $n_src frames intact"
    [ "$n_ok" = "$n_src" ] || die "only $n_ok of $n_src frames intact"
}

# The sender ignores NACKs (nack=0): gaps cannot be repaired, so the
# receiver skips them and asks for a keyframe; the live encoder (-g 1000:
# no IDR unless asked) must get the PLI and code an IDR.
test_pli() {
    ports
    relay pli 20000 1 "$DELAY" 5 0
    "$ffmpeg" -nostdin -v error -f lavfi -i "testsrc2=s=320x240:r=25:d=1" -c:v libx264 -preset ultrafast \
        -tune zerolatency -frames 1 -f rtp -sdp_file "$work/pli.sdp" "rtp://127.0.0.1:$p_recv" > /dev/null
    timeout 60 "$ffmpeg" -nostdin -v verbose -protocol_whitelist file,udp,rtp -sdp_flags rtcp_to_source \
        -i "$work/pli.sdp" -f null - 2> "$work/pli.recv.log" &
    recv_pid=$!
    wait_udp "$p_recv"
    timeout 60 "$ffmpeg" -nostdin -v verbose -re -f lavfi -i "testsrc2=s=320x240:r=25:d=4" \
        -c:v libx264 -preset ultrafast -tune zerolatency -g 1000 -f rtp -ssrc "$SSRC" -nack 0 \
        -keyframe_min_interval 0 -stats_file "$work/pli.json" -stats_interval 0 "$(url)" \
        > "$work/pli.send.log" 2>&1 || die "pli: sender failed"
    wait "$recv_pid" || true
    wait "$relay_pid" || true   # it stops 1.5 s after the last datagram
    relay_counts pli
    local plis kf
    plis=$(stats_line pli | sed -n 's/.* \([0-9]*\) PLI.*/\1/p')
    kf=$(json "$work/pli.json" keyframe_requests)
    note "relay dropped $r_drop of $r_in; $(stats_line pli)"
    note "sender: $(json "$work/pli.json" pli) PLI received, ${kf:-0} keyframe requests raised"
    [ "$r_drop" -gt 0 ] || die "nothing was dropped"
    [ "${plis:-0}" -gt 0 ] || die "the receiver sent no PLI"
    [ "${kf:-0}" -gt 0 ] || die "the sender raised no keyframe request"
}

# api: the same link, received by a libav* program that reads the
# counters with lcv_rtp_demuxer_get_stats() (tests/rtp/rtp_receiver_stats.c);
# checked against the relay's own counts
test_api() {
    local in; in=$(clip_720p)
    ports
    relay api "$LOSS" 1 "$DELAY" 11 1
    "$ffmpeg" -nostdin -v error -i "$in" -c copy -frames 1 -f rtp -sdp_file "$work/api.sdp" \
        "rtp://127.0.0.1:$p_recv" > /dev/null
    timeout 60 "$tools/rtp_receiver_stats" "$work/api.sdp" 40 > "$work/api.stats" 2> "$work/api.err" &
    recv_pid=$!
    wait_udp "$p_recv"
    timeout 60 "$ffmpeg" -nostdin -v error -re -i "$in" -c copy -f rtp -ssrc "$SSRC" \
        -stats_file "$work/api.json" -stats_interval 0 "$(url)" > /dev/null 2>&1 || die "sender failed"
    wait "$recv_pid" || die "the API program failed: $(cat "$work/api.stats" "$work/api.err")"
    wait "$relay_pid" || true
    relay_counts api
    local line; line=$(cat "$work/api.stats")
    note "relay: $r_in in, $r_drop dropped ($r_rtx_drop of them retransmissions); program: $line"
    set -- $line
    local -A v; while [ $# -ge 2 ]; do v[$1]=$2; shift 2; done
    local first=$((r_drop - r_rtx_drop)) fwd=$((r_in - r_drop)) sent
    sent=$(json "$work/api.json" packets)
    [ "${v[bad_index]}" = refused ] || die "a stream index out of range was not refused"
    # every datagram the relay forwarded was counted, no more
    [ "${v[packets]}" = "$fwd" ] || die "the receiver counted ${v[packets]} packets, the relay forwarded $fwd"
    # every first transmission the relay dropped was found missing (the last
    # ones may go unseen: nothing later shows the gap)
    [ "${v[missing]}" -le "$first" ] && [ "${v[missing]}" -ge $((first - 3)) ] ||
        die "missing ${v[missing]}: the relay dropped $first first transmissions"
    [ $((v[recovered] * 100)) -ge $((v[missing] * 90)) ] || die "only ${v[recovered]} of ${v[missing]} recovered"
    [ "${v[nack_packets]}" -gt 0 ] && [ "${v[nacked]}" -ge "${v[missing]}" ] ||
        die "NACK packets ${v[nack_packets]} for ${v[nacked]} numbers, ${v[missing]} missing"
    [ "${v[ssrc]}" = "$((SSRC))" ] || die "SSRC ${v[ssrc]}, sent $((SSRC))"
    [ "${v[read_packets]}" -gt 0 ] || die "av_read_frame() returned nothing"
    # a struct of an older lcvrtp.h (it ends before rtt_ms): filled to its
    # size and not beyond
    [ "${v[older_struct]}" = filled-to-its-size ] || die "the older struct was ${v[older_struct]}"
    note "sender: $sent RTP packets"
}

# forced: an SDP that says RTP/AVP (no feedback negotiated) to a sender that
# answers NACKs anyway: by default the receiver sends none (frames lost),
# with the demuxer option -nack 1 it does (every frame intact)
test_forced() {
    local in; in=$(clip_720p)
    local mode
    local -A ok nacks
    for mode in auto forced; do
        ports
        relay "$mode" "$LOSS" 1 "$DELAY" 11 1
        "$ffmpeg" -nostdin -v error -i "$in" -c copy -frames 1 -f rtp -feedback 0 \
            -sdp_file "$work/$mode.sdp" "rtp://127.0.0.1:$p_recv" > /dev/null
        grep -q "RTP/AVP " "$work/$mode.sdp" || die "the SDP is not RTP/AVP: $(cat "$work/$mode.sdp")"
        local nack=(); [ "$mode" = forced ] && nack=(-nack 1)
        timeout 90 "$ffmpeg" -nostdin -v verbose -protocol_whitelist file,udp,rtp -sdp_flags rtcp_to_source \
            "${nack[@]}" -i "$work/$mode.sdp" -map 0 -fps_mode passthrough -y -f framemd5 "$work/$mode.framemd5" \
            2> "$work/$mode.recv.log" &
        recv_pid=$!
        wait_udp "$p_recv"
        timeout 60 "$ffmpeg" -nostdin -v error -re -i "$in" -c copy -f rtp -ssrc "$SSRC" "$(url)" \
            > /dev/null 2>&1 || die "$mode: sender failed"
        wait "$recv_pid" || true
        wait "$relay_pid" || true
        relay_counts "$mode"
        compare "$mode" "$in"
        ok[$mode]=$n_ok
        nacks[$mode]=$(sed -n 's/.* \([0-9]*\) NACK packets.*/\1/p' "$work/$mode.recv.log" | tail -n 1)
        note "$mode: $r_drop of $r_in datagrams dropped; $n_ok of $n_src frames intact; $(stats_line "$mode")"
    done
    [ "${nacks[auto]:-0}" = 0 ] || die "RTP/AVP without -nack 1: ${nacks[auto]} NACK packets sent"
    [ "${ok[auto]}" -lt "$n_src" ] || die "without NACKs every frame arrived: the loss does not bite"
    [ "${nacks[forced]:-0}" -gt 0 ] || die "-nack 1 sent no NACK"
    [ $((ok[forced] * 100)) -ge $((n_src * 99)) ] || die "-nack 1: ${ok[forced]} of $n_src frames intact"
}

# late: a receiver that joins a live stream 2 s after its start (x264,
# -g 1000: the next periodic IDR would be 40 s on) asks for a keyframe
# itself and shows its first frame within 500 ms, 20 ms round trip. The
# time is the receiver's own log clock (-loglevel +time): from its sockets'
# opening, before its first packet, to the first frame showinfo prints
# (FFmpeg's probe holds the stream until 7 H.264 frames have been decoded,
# 240 ms of it at 25 fps). Then the same join without rtcp_to_source (the receiver can ask
# for nothing): no frame at all, so the first figure is the request's.
late_join() {
    local name=$1 fb=$2 sprop=${3:-}
    ports
    relay "$name" 0 1 "$DELAY" 5 0
    "$ffmpeg" -nostdin -v error -f lavfi -i "testsrc2=s=640x360:r=25:d=1" -c:v libx264 -preset ultrafast \
        -tune zerolatency -frames 1 -f rtp -sdp_file "$work/$name.sdp" "rtp://127.0.0.1:$p_recv" > /dev/null
    grep -q 'sprop-parameter-sets=' "$work/$name.sdp" || die "$name: the live encoder's SDP has no sprop-parameter-sets"
    # nosprop: the parameter sets must come in-band, before the IDR
    [ "$sprop" != nosprop ] || sed -i 's/ sprop-parameter-sets=[^;]*;//' "$work/$name.sdp"
    # LATE_AFTER (s) and LATE_GOP (frames) vary the join by hand
    local after=${LATE_AFTER:-2}
    timeout $((after + 30)) "$ffmpeg" -nostdin -v verbose -re -f lavfi -i "testsrc2=s=640x360:r=25:d=$((after + 4))" \
        -c:v libx264 -preset ultrafast -tune zerolatency -g "${LATE_GOP:-1000}" -bf 0 -f rtp -ssrc "$SSRC" \
        -stats_file "$work/$name.json" -stats_interval 0 "$(url)" > "$work/$name.send.log" 2>&1 &
    local send_pid=$!
    sleep "$after"
    join_start=$(date +%H:%M:%S.%3N)
    timeout 30 "$ffmpeg" -nostdin -loglevel level+time+verbose -protocol_whitelist file,udp,rtp \
        ${fb:+-sdp_flags "$fb"} -stats_file "$work/$name.recv.json" -stats_interval 1 ${LATE_RECV_OPTS:-} \
        -i "$work/$name.sdp" -vf showinfo -f null - 2> "$work/$name.recv.log" || true
    wait "$send_pid" || die "$name: sender failed"
    wait "$relay_pid" || true
    frames=$(grep -c 'Parsed_showinfo.* n: *[0-9]' "$work/$name.recv.log" || true)
    first=$(grep -m1 'Parsed_showinfo.* n: *0 ' "$work/$name.recv.log" | cut -d' ' -f1 || true)
    # the demuxer's sockets are open from its first line on the stream: the
    # first packet comes after it
    opened=$(grep -m1 'RTP stream PT .*: NACK' "$work/$name.recv.log" | cut -d' ' -f1 || true)
}

# ms from HH:MM:SS.mmm $1 to $2 (across midnight too)
ms_between() {
    awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, ":"); split(b, y, ":");
        d = ((y[1] - x[1]) * 3600 + (y[2] - x[2]) * 60 + (y[3] - x[3])) * 1000;
        if (d < 0) d += 86400000; printf "%.0f\n", d }'
}

test_late() {
    late_join late rtcp_to_source
    local plis kf
    plis=$(stats_line late | sed -n 's/.* \([0-9]*\) PLI.*/\1/p')
    kf=$(json "$work/late.json" keyframe_requests)
    [ -n "$first" ] || die "the late receiver decoded no frame ($(grep -c 'non-existing PPS' "$work/late.recv.log") x 'non-existing PPS'); $(stats_line late)"
    [ -n "$opened" ] || die "the receiver did not log its stream's setup"
    local ms start_ms; ms=$(ms_between "$opened" "$first"); start_ms=$(ms_between "$join_start" "$first")
    note "receiver started ${LATE_AFTER:-2} s into the stream (GOP ${LATE_GOP:-1000}): first frame ${ms} ms after its sockets opened (${start_ms} ms after its start), $frames frames"
    note "$(stats_line late)"
    note "sender: $(json "$work/late.json" pli) PLI received, ${kf:-0} keyframe requests raised"
    [ "${plis:-0}" -ge 1 ] || die "the late receiver sent no PLI"
    [ "$ms" -le 500 ] || die "first frame $ms ms after the receiver's sockets opened (500 ms at most)"
    [ "$frames" -ge 80 ] || die "only $frames frames in the 4 s after the join (at least 80)"
    # the receiver's stats_file against its log and the sender's count
    local rplis dec
    rplis=$(grep '"final":true' "$work/late.recv.json" | sed -n 's/.*"plis":\([0-9]*\).*/\1/p')
    dec=$(grep '"final":true' "$work/late.recv.json" | sed -n 's/.*"decodable_ms":\([-0-9.]*\).*/\1/p')
    [ "$(grep -c '"final":false' "$work/late.recv.json")" -ge 2 ] || die "fewer than 2 periodic lines in the receiver's stats_file"
    [ "$rplis" = "$plis" ] || die "the receiver's stats_file says ${rplis:-no} PLI, its log $plis"
    [ "$rplis" = "$(json "$work/late.json" pli)" ] || die "the receiver sent $rplis PLI, the sender received $(json "$work/late.json" pli)"
    awk -v d="$dec" 'BEGIN { exit !(d > 0 && d <= 500) }' || die "decodable_ms ${dec:-missing} in the receiver's stats_file (0 to 500 expected)"
    note "receiver's stats_file: $rplis PLI, decodable ${dec} ms after its first packet"

    # the SDP without its sprop-parameter-sets: the sender must send them
    # in-band before the IDR it answers with (the encoder gives them as
    # global headers, which x264 then leaves out of the stream)
    late_join late-inband rtcp_to_source nosprop
    ! grep -q 'sprop-parameter-sets' "$work/late-inband.sdp" || die "late-inband: the SDP still has its parameter sets"
    [ -n "$first" ] || die "without the SDP's sprop-parameter-sets the late receiver decoded no frame: no SPS/PPS in-band before the IDR ($(grep -c 'non-existing PPS' "$work/late-inband.recv.log") x 'non-existing PPS')"
    ms=$(ms_between "$opened" "$first")
    note "the same join with the SDP's parameter sets removed (in-band only): first frame ${ms} ms after its sockets opened, $frames frames"
    [ "$ms" -le 500 ] || die "late-inband: first frame $ms ms after the receiver's sockets opened (500 ms at most)"
    [ "$frames" -ge 80 ] || die "late-inband: only $frames frames in the 4 s after the join (at least 80)"

    late_join late-nofb ""
    note "the same join without rtcp_to_source (no PLI can go): $frames frames"
    [ "$frames" -eq 0 ] || die "without feedback the late receiver still decoded $frames frames: the sender sends keyframes on its own, the test proves nothing"
}

case $what in
link|link-ours) test_link ;;
api)  test_api ;;
forced) test_forced ;;
rtx)  test_rtx ;;
pli)  test_pli ;;
tail) test_tail ;;
idr)  test_idr ;;
rtsp) test_rtsp ;;
au)   test_au ;;
late) test_late ;;
*) die "unknown test $what" ;;
esac
echo "PASS: rtp-lossy-$what"

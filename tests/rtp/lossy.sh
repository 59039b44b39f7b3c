#!/usr/bin/env bash
# Loss recovery of FFmpeg's RTP receiver (libavformat/rtpdec_ext.c) at a
# camera's rate, all on 127.0.0.1: this project's ffmpeg sends a 720p25
# H.264 clip at about 4 Mbit/s (-re -c copy) through the lossy relay
# (tests/net/rtpcap.c), 20 ms round trip, 5 % of the RTP datagrams dropped,
# retransmissions included; the receiver is ffmpeg reading the SDP with
# defaults apart from sdp_flags rtcp_to_source, decoding to framemd5.
# "Intact" = the decoded frame's md5 equals the locally decoded clip's.
#   tests/rtp/lossy.sh BUILD TEST
# TEST: link (ours and stock as receivers; the sequence wraps mid-stream) |
#       rtx (RFC 4588 retransmissions) | pli (live x264: an unrepairable gap
#       brings a PLI and an IDR)
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
    run_link ours "$ffmpeg" "$in"
    local ok=$n_ok src=$n_src
    note "ours: relay dropped $r_drop of $r_in datagrams ($r_rtx_drop of them retransmissions); $ok of $src frames intact"
    note "$(stats_line ours)"
    [ $((ok * 100)) -ge $((src * 99)) ] || die "only $ok of $src frames intact (at least 99 % required)"
    [ "$r_drop" -gt $((r_in / 40)) ] || die "the relay dropped only $r_drop of $r_in: not the 5 % the test needs"
    [ "$r_rtx_drop" -gt 0 ] || die "no retransmission was dropped: the test tested first transmissions only"
    grep -q 'RTP receiver at the end' "$work/ours.recv.log" || die "the receiver logged no statistics"

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

case $what in
link) test_link ;;
rtx)  test_rtx ;;
pli)  test_pli ;;
*) die "unknown test $what" ;;
esac
echo "PASS: rtp-lossy-$what"

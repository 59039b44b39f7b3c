#!/usr/bin/env bash
# make check-asan: a lean build of the patched tree with ASan+UBSan (clang),
# then the unit programs, the toi420 FATE fragment and a CLI run under it.
# Any sanitizer report, leaks included, fails the run.
#   tests/check-asan.sh TOP JOBS
set -u
top=$1 jobs=$2
b=$top/build/asan
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87
"$top/tests/asan-build.sh" "$top" "$jobs" || exit 1

pass=0 fail=0
run() {
    local name=$1; shift
    if "$@" > "$b.$name.log" 2>&1; then pass=$((pass + 1)); echo "PASS asan $name"
    else fail=$((fail + 1)); echo "FAIL asan $name (log: $b.$name.log)"; tail -n 30 "$b.$name.log" | sed 's/^/    /'; fi
}
run buffer "$b/ffmpeg/libavutil/tests/bufferpool"
run toi420 "$b/ffmpeg/libavfilter/tests/toi420"
. "$top/tests/fate/counts.sh"
run fate-ext sh -c 'make -C "$1" -j"$2" fate-ext; rc=$?; n=$(grep -c "^TEST " "$4");
    echo "$n FATE tests ran, $3 expected"; [ $rc = 0 ] && [ "$n" = "$3" ]' sh "$b/ffmpeg" "$jobs" "$n_ext" "$b.fate-ext.log"
run cli "$top/tests/cli/toi420-cli.sh" "$b/ffmpeg/ffmpeg"
run lcvrtcp "$b/ffmpeg/libavformat/tests/lcvrtcp"
run rtpdec-ext "$b/ffmpeg/libavformat/tests/rtpdec_ext"
run rtpcc "$b/ffmpeg/libavformat/tests/rtpcc"
run rtppacer "$b/ffmpeg/libavformat/tests/rtppacer"
run rtphist "$b/ffmpeg/libavformat/tests/rtphist"
run rtpnack "$b/ffmpeg/libavformat/tests/rtpnack"
run rtpjoin "$b/ffmpeg/libavformat/tests/rtpjoin"
run rtppeer "$b/ffmpeg/libavformat/tests/rtppeer"
# clang builds the C kernels for AVX2 too (a target attribute, where GCC
# takes a pragma): the fragment above ran them on an AVX2 host
run toi420-c-avx2-clang sh -c 'nm "$1/libavfilter/libavfilter.a" 2>/dev/null |
    grep -q " T ff_toi420dsp_init_x86_c_avx2$"' sh "$b/ffmpeg"
# the fuzz corpus: the golden vectors, the regression inputs, and the
# public janus/libwebrtc seeds from ../shared (each run once)
mkdir -p "$b/fuzz-golden"
"$b/ffmpeg/libavformat/tests/lcvrtcp" corpus "$b/fuzz-golden"
run fuzz-replay "$top/tests/fuzz/replay.sh" "$b/rtcp_fuzzer" "$b/fuzz-golden" \
    "$top/tests/fuzz/regressions" "$top/../shared/data/rtcp"
tail -n 1 "$b.fuzz-replay.log" | sed 's/^/    /'
# and a short run of it from there (a finding fails it; its input stays in
# build/asan/fuzz-artifacts)
mkdir -p "$b/fuzz-artifacts" "$b/fuzz-rtcp-short"
cp -n "$b/fuzz-golden"/* "$b/fuzz-rtcp-short"/ 2>/dev/null || true
run fuzz-rtcp-short "$b/rtcp_fuzzer" -max_len=2048 -runs=50000 \
    -artifact_prefix="$b/fuzz-artifacts/" "$b/fuzz-rtcp-short"
# fuzz_captured NAME FUZZER SEEDS_SCRIPT REGRESSIONS MAX_LEN: a fuzzer whose
# seeds come from real captures (the main tree's ffmpeg through the relay):
# the seeds made, they and the regression inputs replayed, a short run
fuzz_captured() {
    mkdir -p "$b/fuzz-$1-seeds" "$b/fuzz-$1-short"
    run "fuzz-$1-seeds" "$top/tests/fuzz/$3" "$top/build" "$b/fuzz-$1-seeds"
    run "fuzz-$1-replay" "$top/tests/fuzz/replay.sh" "$b/$2" "$b/fuzz-$1-seeds" "$top/tests/fuzz/$4"
    tail -n 1 "$b.fuzz-$1-replay.log" | sed 's/^/    /'
    cp -n "$b/fuzz-$1-seeds"/* "$b/fuzz-$1-short"/ 2>/dev/null || true
    run "fuzz-$1-short" "$b/$2" -max_len="$5" -runs=50000 \
        -artifact_prefix="$b/fuzz-artifacts/" "$b/fuzz-$1-short"
}
# the RTP receiver's packet path, and the RTP sender's RTCP reader (media
# that left, feedback that came back; its seeds are about 120 KB: whole)
fuzz_captured rtp rtp_receiver_fuzzer rtp_seeds.sh regressions-rtp 65536
fuzz_captured fb rtcp_sender_fuzzer rtcp_sender_seeds.sh regressions-rtcp-sender 131072
run ffmpeg-threads "$b/ffmpeg/ffmpeg" -nostdin -v error -f lavfi -i testsrc2=s=353x287:r=25,format=uyvy422 \
    -filter_threads 3 -vf "toi420,vflip,format=bgr24,toi420" -frames:v 20 -f null -
# the RTP send path in every mode, with connect=1 and nobody listening
# (ECONNREFUSED on both sockets), small packets, SDES and BYE
rtp_send() {
    local m
    for m in gso mmsg single; do
        "$b/ffmpeg/ffmpeg" -nostdin -v error -f lavfi -i testsrc2=s=320x240:r=25:d=2 -c:v libx264 \
            -preset ultrafast -f rtp -send_mode "$m" -cname asan -rtpflags send_bye \
            "rtp://127.0.0.1:$("$top/build/tests/freeport")?pkt_size=300&connect=1" || return 1
    done
}
run rtp-send rtp_send
# the feedback thread under hostile and valid RTCP: malformed datagrams,
# a PLI and FIRs while the sender encodes
rtp_feedback() {
    local p q s
    p=$("$top/build/tests/freeport"); q=$("$top/build/tests/freeport")
    while [ "$q" = "$p" ]; do q=$("$top/build/tests/freeport"); done
    "$b/ffmpeg/ffmpeg" -nostdin -v error -re -f lavfi -i testsrc2=s=160x120:r=25:d=3 -c:v libx264 \
        -preset ultrafast -f rtp -ssrc 0x12345678 -rtx_pt 100 -stats_interval 0.5 \
        "rtp://127.0.0.1:$p?pkt_size=300&localrtpport=$q&localrtcpport=$((q + 1))" &
    s=$!
    sleep 1
    "$top/build/tests/rtcpinject" garbage "$((q + 1))" 600 9
    "$top/build/tests/rtcpinject" pli "$((q + 1))" 0x12345678 > /dev/null
    "$top/build/tests/rtcpinject" fir "$((q + 1))" 0x12345678 3 > /dev/null
    wait "$s"
}
run rtp-feedback rtp_feedback
# congestion control at both ends: the sender numbers packets (RTX too) and
# runs the estimator on the receiver's transport-cc feedback, an injected
# REMB, TWCC and garbage; the receiver (also under ASan) sends the feedback
rtp_cc() {
    local p q s r
    p=$("$top/build/tests/freeport"); q=$("$top/build/tests/freeport")
    while [ "$q" = "$p" ] || [ "$q" = "$((p + 1))" ] || [ "$p" = "$((q + 1))" ]; do
        q=$("$top/build/tests/freeport")
    done
    "$b/ffmpeg/ffmpeg" -nostdin -v error -f lavfi -i testsrc2=s=160x120:r=25:d=1 -c:v libx264 \
        -preset ultrafast -frames:v 1 -f rtp -cc 1 -rtx_pt 100 -sdp_file "$b.cc.sdp" "rtp://127.0.0.1:$p" > /dev/null || return 1
    timeout 30 "$b/ffmpeg/ffmpeg" -nostdin -v error -protocol_whitelist file,udp,rtp \
        -sdp_flags rtcp_to_source -i "$b.cc.sdp" -f null - &
    r=$!
    for _ in $(seq 200); do grep -q ":$(printf '%04X' "$p") 00000000:0000" /proc/net/udp && break; sleep 0.05; done
    "$b/ffmpeg/ffmpeg" -nostdin -v error -re -f lavfi -i testsrc2=s=320x240:r=25:d=3 -c:v libx264 \
        -preset ultrafast -b:v 1M -maxrate 1M -bufsize 200k -f rtp -ssrc 0x12345678 -cc 1 -rtx_pt 100 \
        -stats_interval 0.5 "rtp://127.0.0.1:$p?pkt_size=1200&localrtpport=$q&localrtcpport=$((q + 1))" &
    s=$!
    sleep 1
    "$top/build/tests/rtcpinject" twcc "$((q + 1))" 0x12345678 > /dev/null
    "$top/build/tests/rtcpinject" remb "$((q + 1))" 0x12345678 400000 > /dev/null
    "$top/build/tests/rtcpinject" garbage "$((q + 1))" 300 11
    wait "$s" || return 1
    wait "$r"
}
run rtp-cc rtp_cc
# RTSP output with rtp_options (UDP, RTX, feedback) and over TCP, to the
# main build's RTSP listener; then refusals of bad rtp_options before the
# ANNOUNCE, which must exit with the error and no sanitizer report (86/87)
rtsp_options() {
    local p r tr o out
    for tr in udp tcp; do
        p=$("$top/build/tests/freeport")
        timeout 60 "$top/build/ffmpeg/ffmpeg" -nostdin -v error -rtsp_flags listen -timeout 20000000 \
            -i "rtsp://127.0.0.1:$p/live" -f null - &
        r=$!
        for _ in $(seq 200); do grep -q ":$(printf '%04X' "$p") 00000000:0000 0A" /proc/net/tcp && break; sleep 0.05; done
        "$b/ffmpeg/ffmpeg" -nostdin -v error -re -f lavfi -i testsrc2=s=160x120:r=25:d=1 -c:v libx264 \
            -preset ultrafast -f rtsp -rtsp_transport "$tr" -rtp_options rtx_pt=97:bye_delay=0.1:send_mode=mmsg \
            "rtsp://127.0.0.1:$p/live" || return 1
        wait "$r" || return 1
    done
    for o in "bogus=1|'bogus' is not an option" "rtx_pt=200|'rtx_pt' out of range" \
             "stats_file=s.json|shared by the 2 streams"; do
        r=0
        out=$("$b/ffmpeg/ffmpeg" -nostdin -v error -f lavfi -i testsrc2=s=160x120:r=25:d=1 \
              -f lavfi -i sine=d=1 -c:v libx264 -preset ultrafast -c:a pcm_s16be -f rtsp \
              -rtp_options "${o%%|*}" rtsp://127.0.0.1:9/live 2>&1) || r=$?
        echo "$out"
        case $r in 0|86|87) echo "rtp_options ${o%%|*}: exit $r"; return 1 ;; esac
        echo "$out" | grep -q -- "${o#*|}" || { echo "rtp_options ${o%%|*}: no '${o#*|}'"; return 1; }
    done
}
run rtsp-options rtsp_options
echo "asan: $pass passed, $fail failed"
[ "$fail" = 0 ]

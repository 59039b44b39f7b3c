#!/usr/bin/env bash
# make check: runs every test group against the build in FFB, prints one
# line per group and a final "N passed, N failed".
#   tests/check.sh FFB SHIM
set -u
ffb=$1 shim=$2
top=$(cd "$(dirname "$0")/.." && pwd)
log=$ffb/../tests/logs
mkdir -p "$log"
pass=0 fail=0
failed=()

ok()  { pass=$((pass + 1)); echo "PASS $1"; }
bad() { fail=$((fail + 1)); failed+=("$1"); echo "FAIL $1 (log: $2)"; tail -n 20 "$2" | sed 's/^/    /'; }

# run NAME CMD...: one test
run() {
    local name=$1; shift
    if "$@" > "$log/$name.log" 2>&1; then ok "$name"; else bad "$name" "$log/$name.log"; fi
}

# fate NAME TARGET COUNT [VARS...]: FATE tests, counted one by one; COUNT
# is how many must run (a test whose program or fragment failed to build
# prints no TEST line and would otherwise drop out unseen): change it with
# the tests, after checking the new list (make -C build/ffmpeg fate-list)
fate() {
    local name=$1 target=$2 want=$3; shift 3
    make -C "${FATE_FFB:-$ffb}" -k -j"$(nproc)" "$target" "$@" > "$log/$name.log" 2>&1
    local total failures ignored
    total=$(grep -c '^TEST ' "$log/$name.log")
    ignored=$(grep -c '^IGNORE' "$log/$name.log")
    total=$((total - ignored))
    # "make:" or, when make check itself runs under make, "make[1]:"
    failures=$(grep -E '^make(\[[0-9]+\])?: \*\*\* .*(fate-[^]]*)\] Error' "$log/$name.log" | sed -E 's/.*(fate-[^]]*)\].*/\1/')
    local nf=0
    [ -n "$failures" ] && nf=$(echo "$failures" | wc -l)
    if [ "$total" -eq 0 ]; then
        bad "$name: no FATE test ran" "$log/$name.log"; return
    fi
    local count=""
    if [ "$total" -ne "$want" ]; then
        fail=$((fail + 1)); failed+=("$name: $total FATE tests ran, $want expected")
        count="; $want expected"
    fi
    pass=$((pass + total - nf))
    for t in $failures; do fail=$((fail + 1)); failed+=("$name/$t"); done
    # anything else make could not build (a test program, a library): the
    # tests that needed it never printed TEST, so they are not in total
    local broken
    broken=$(grep -E '^make(\[[0-9]+\])?: \*\*\* ' "$log/$name.log" | grep -vE '(fate-[^]]*)\] Error' |
             sed -E 's/.*[ :[]([^] :]*)\] Error.*/\1/' | sort -u)
    for t in $broken; do fail=$((fail + 1)); failed+=("$name: could not build $t"); done
    echo "$( [ "$nf" = 0 ] && [ -z "$broken" ] && [ -z "$count" ] && echo PASS || echo FAIL ) $name: $((total - nf))/$total FATE tests$count$( [ "$ignored" = 0 ] || echo ", $ignored ignored")$( [ -z "$broken" ] || echo "; could not build: $(echo $broken)")"
    [ "$nf" = 0 ] || grep -B5 -A20 -E '^(TEST|make(\[[0-9]+\])?: \*\*\*)' "$log/$name.log" | grep -v '^TEST' | head -n 40 | sed 's/^/    /'
}

series=$(cat "$ffb/../.series" 2>/dev/null || echo 9.0)
echo "== FFmpeg $(cat "$ffb/../src/RELEASE") (series $series)"
. "$top/tests/fate/counts.sh"     # n_toi420, n_ext, n_all

echo "== FATE: toi420 references, reference programs, buffer pool"
fate fate-ext fate-ext "$([ "$series" != 7.1 ] && echo "$n_ext_whip" || echo "$n_ext")"
fate fate-toi420-threads4 fate-toi420 "$n_toi420" THREADS=4
fate fate-toi420-cpuflags0 fate-toi420 "$n_toi420" CPUFLAGS=0
fate fate-toi420-ssse3 fate-toi420 "$n_toi420" CPUFLAGS=ssse3
fate fate-toi420-avx2 fate-toi420 "$n_toi420" CPUFLAGS=avx2

echo "== the same toi420 tests in a lean build without x86 assembly (--disable-x86asm)"
if "$top/tests/noasm-build.sh" "$top" "$(nproc)" > "$log/noasm-build.log" 2>&1; then
    ok noasm-build
    FATE_FFB=$top/build/noasm/ffmpeg fate fate-ext-noasm fate-ext "$n_ext"
    FATE_FFB=$top/build/noasm/ffmpeg fate fate-toi420-noasm-threads4 fate-toi420 "$n_toi420" THREADS=4
else
    bad noasm-build "$log/noasm-build.log"
fi

echo "== toi420 on x86 CPUs without AVX2 or AVX-512 (qemu-x86_64 -cpu MODEL): checkasm and the FATE fragment"
# the kernel versions each model must test: a kernel of an ISA the model
# lacks would die with SIGILL (core2duo and Nehalem did, through the row
# tails, before vf_toi420_c_avx2.c); the FATE fragment must match the same
# references as the host
k_rgb=rgba,bgra,argb,abgr,rgb24,bgr24 k_planar=chroma_h2v2,chroma_nv,yuyv,uyvy
k_all=$k_rgb,$k_planar,chroma_v2
for m in core2duo Nehalem Haswell; do
    want=(sse2=chroma_v2 ssse3=$k_rgb,$k_planar)
    [ "$m" = Haswell ] && want+=(avx2=$k_all)
    run "checkasm-x86-$m" "$top/tests/cpu/checkasm.sh" "qemu-x86_64 -cpu $m" \
        "$ffb/tests/checkasm/checkasm" "${want[@]}"
    sed -n 's/^  /    /p' "$log/checkasm-x86-$m.log"
    fate "fate-toi420-x86-$m" fate-toi420 "$n_toi420" "TARGET_EXEC=qemu-x86_64 -cpu $m"
done

echo "== aarch64 (cross-built lean tree, qemu-aarch64): NEON kernels against C; FATE with and without NEON"
qa="qemu-aarch64 -L /usr/aarch64-linux-gnu"
if "$top/tests/cross-build.sh" "$top" "$(nproc)" aarch64 > "$log/build-aarch64.log" 2>&1; then
    ok build-aarch64
    run checkasm-aarch64 "$top/tests/cpu/checkasm.sh" "$qa" \
        "$top/build/aarch64/ffmpeg/tests/checkasm/checkasm" neon=$k_all
    sed -n 's/^  /    /p' "$log/checkasm-aarch64.log"
    FATE_FFB=$top/build/aarch64/ffmpeg fate fate-toi420-aarch64-neon fate-toi420 "$n_toi420" "TARGET_EXEC=$qa"
    FATE_FFB=$top/build/aarch64/ffmpeg fate fate-toi420-aarch64-c fate-toi420 "$n_toi420" "TARGET_EXEC=$qa" CPUFLAGS=0
else
    bad build-aarch64 "$log/build-aarch64.log"
fi

echo "== 32-bit x86 (cross-built lean tree): builds (vf_toi420.asm assembles empty, C kernels);"
echo "   checkasm under qemu-i386 -cpu Haswell: the C kernels built for AVX2"
# (ffmpeg itself and the toi420 test program spin forever under qemu-i386
# 7.2 once a filter graph starts, so the FATE fragment is not run there)
qi="qemu-i386 -L /usr/i686-linux-gnu"
if "$top/tests/cross-build.sh" "$top" "$(nproc)" x86-32 > "$log/build-x86-32.log" 2>&1; then
    ok build-x86-32
    run checkasm-x86-32-Haswell "$top/tests/cpu/checkasm.sh" "$qi -cpu Haswell" \
        "$top/build/x86-32/ffmpeg/tests/checkasm/checkasm" avx2=$k_all
    sed -n 's/^  /    /p' "$log/checkasm-x86-32-Haswell.log"
else
    bad build-x86-32 "$log/build-x86-32.log"
fi

echo "== make demo's lean tree (build/demo) and the demo on it"
run build-demo "$top/tests/cross-build.sh" "$top" "$(nproc)" demo
run demo "$top/tests/demo/run.sh" "$top/build/demo" "$shim"
sed -n 's/^frames \(sent\|received\): */    frames \1: /p' "$log/demo.log"

echo "== the builds FFmpeg users make: --disable-network, no rtp muxer with mov, --enable-shared (lean)"
for b in nonetwork nortp shared; do
    run "build-$b" "$top/tests/cross-build.sh" "$top" "$(nproc)" "$b"
done
run build-nonetwork-run sh -c '! grep -q "CONFIG_NETWORK 1" "$1/config.h" &&
    "$1/ffmpeg" -nostdin -v error -f lavfi -i testsrc2=s=97x61:d=0.4,format=nv12 -vf toi420 -f framemd5 - &&
    "$1/ffmpeg" -nostdin -v error -y -f lavfi -i testsrc2=s=160x120:d=0.4 -c:v libx264 -packetsize 1200 \
        -f rtp "$1/nonetwork.rtp" > /dev/null && test -s "$1/nonetwork.rtp"' sh "$top/build/nonetwork/ffmpeg"
run build-nortp-run sh -c 'grep -q "define CONFIG_RTP_MUXER 0" "$1/config_components.h" &&
    grep -q "define CONFIG_MOV_MUXER 1" "$1/config_components.h" &&
    "$1/ffmpeg" -nostdin -v error -y -f lavfi -i testsrc2=s=96x64:d=0.4 -c:v libx264 -preset ultrafast "$1/nortp.mov" &&
    test -s "$1/nortp.mov"' sh "$top/build/nortp/ffmpeg"
if [ "$series" != 7.1 ]; then
    # upstream's whip muxer (8.0+), a peer to measure against: it needs DTLS (GnuTLS)
    run whip-muxer-built sh -c 'for f in "$1" "$2"; do "$f" -hide_banner -h muxer=whip | grep -q "^Muxer whip" &&
        grep -q "^CONFIG_GNUTLS=yes" "$(dirname "$f")/ffbuild/config.mak" || { echo "no whip muxer in $f"; exit 1; }; done' \
        sh "$ffb/ffmpeg" "$ffb/../stock/ffmpeg"
fi
run build-shared-api "$top/tests/build/shared-api.sh" "$top"
sed -n 's/^  /    /p' "$log/build-shared-api.log"
run install-prefix-refused sh -c 'out=$(make -C "$1" install PREFIX=/nonexistent/prefix 2>&1); rc=$?;
    echo "$out" | tail -n 3; [ $rc != 0 ] && echo "$out" | grep -q "./configure --prefix=/nonexistent/prefix"' sh "$top"

echo "== configure refuses what it cannot verify: an unknown series, a tarball that is not the pinned one"
run configure-refuses sh -c 'set -u; t=$(mktemp -d); trap "rm -rf $t" EXIT
    out=$("$1/configure" --build-dir="$t/b" --ffmpeg=8.1 2>&1) && exit 1
    echo "$out" | tail -n 1; echo "$out" | grep -q "not a supported FFmpeg series (supported: 9.0 7.1)" || exit 1
    mkdir -p "$t/x/ffmpeg-9.0.2" && echo 9.0.2 > "$t/x/ffmpeg-9.0.2/RELEASE" &&
        tar cJf "$t/ffmpeg_9.0.2.orig.tar.xz" -C "$t/x" ffmpeg-9.0.2 || exit 1
    out=$("$1/configure" --build-dir="$t/b" --ffmpeg-source="$t/ffmpeg_9.0.2.orig.tar.xz" 2>&1) && exit 1
    echo "$out" | tail -n 1; echo "$out" | grep -q "checksum mismatch for .*pinned 8c385028" || exit 1
    [ ! -e "$t/b/src" ]' sh "$top"
sed 's/^/    /' "$log/configure-refuses.log"

echo "== FFmpeg's own sample-free FATE suite on the patched tree (patches/0001 changes libavutil)"
# fate-source lists files with git ls-files; the tree is unpacked from a
# tarball, not a git checkout, so it fails the same way on stock FFmpeg
fate fate-all fate "$n_all" IGNORE_TESTS=source
# the same with 2 threads (-threads 2 -filter_threads 2): every slice-threaded
# filter and codec of the suite goes through patches/0016–0018's slicethread
fate fate-all-threads2 fate "$n_all" THREADS=2 IGNORE_TESTS=source

echo "== FATE references against the independent reference conversion"
# (the references FATE uses: tests/ref/fate with the series's own, synced into the tree)
run fate-refs-independent "$top/tests/fate/verify-refs.sh" "$ffb" "$ffb/../src/tests/ref/fate"

echo "== allocations per frame over null (preload shim, N and 2N frames)"
run alloc-api env LD_PRELOAD="$shim" "$ffb/libavfilter/tests/toi420" alloc 100
run alloc-cli-yuyv422 env CHECK_ZERO=1 "$top/tests/alloc/cli-allocs.sh" "$ffb/ffmpeg" "$shim" 5000 toi420 yuyv422
run alloc-cli-rgba    env CHECK_ZERO=1 "$top/tests/alloc/cli-allocs.sh" "$ffb/ffmpeg" "$shim" 5000 toi420 rgba
run alloc-cli-yuv420p env CHECK_ZERO=1 "$top/tests/alloc/cli-allocs.sh" "$ffb/ffmpeg" "$shim" 5000 toi420 yuv420p
run alloc-cli-nv12    env CHECK_ZERO=1 "$top/tests/alloc/cli-allocs.sh" "$ffb/ffmpeg" "$shim" 5000 toi420 nv12
for t in alloc-api alloc-cli-yuyv422 alloc-cli-rgba alloc-cli-yuv420p alloc-cli-nv12; do sed 's/^/    /' "$log/$t.log"; done

echo "== lcv_rtcp: tshark cross-check, allocations, out-of-memory"
run rtcp-tshark "$top/tests/tshark/cross-check.sh" "$ffb/libavformat/tests/lcvrtcp"
run rtcp-alloc env LD_PRELOAD="$shim" "$ffb/libavformat/tests/lcvrtcp" alloc 1000
run rtcp-oom env LD_PRELOAD="$shim" "$ffb/libavformat/tests/lcvrtcp" oom
run rtcp-pool-race env LD_PRELOAD="$shim" "$ffb/libavformat/tests/lcvrtcp" race 3000
for t in rtcp-tshark rtcp-alloc rtcp-oom; do sed 's/^/    /' "$log/$t.log"; done

echo "== RTP send path: wire identity, decoding, packet sizes, ECONNREFUSED, allocations, VP9 descriptors (127.0.0.1)"
build=$(cd "$ffb/.." && pwd)
for t in wire decode edges refused formats faults vp9; do
    run "rtp-$t" "$top/tests/rtp/sendpath.sh" "$build" "$t"
    sed -n 's/^  /    /p' "$log/rtp-$t.log"
done
# the sender as a second muxer (whip) drives it: its own socket, RTP and
# RTCP on one port, a protect hook on every datagram, an incoming hook
for m in gso mmsg single; do
    for p in 0 1; do
        run "rtp-transport-api-$m-pace$p" "$build/tests/transport_api" "$m" "$p"
        sed 's/^/    /' "$log/rtp-transport-api-$m-pace$p.log"
    done
done
run rtp-transport-api-fail "$build/tests/transport_api" gso 1 fail
sed 's/^/    /' "$log/rtp-transport-api-fail.log"
for m in gso mmsg single; do
    # pace=0: with the pacer the counts are not yet deterministic (see the
    # note in tests/rtp/rtpsend_alloc.c)
    run "rtp-alloc-$m" env LD_PRELOAD="$shim" "$build/tests/rtpsend_alloc" "$("$build/tests/freeport")" 200 "$m" 1200 feedback=0:pace=0
    sed 's/^/    /' "$log/rtp-alloc-$m.log"
done
run rtp-alloc-feedback env LD_PRELOAD="$shim" "$build/tests/rtpsend_alloc" "$("$build/tests/freeport")" 200 gso 1200 nack_history=0:pace=0
sed 's/^/    /' "$log/rtp-alloc-feedback.log"
# the feedback reader and the NACK history on, as by default (1 s of
# media: full after the warm-up, so its buffers come back to the pool)
run rtp-alloc-history env LD_PRELOAD="$shim" "$build/tests/rtpsend_alloc" "$("$build/tests/freeport")" 200 gso 1200 pace=0
sed 's/^/    /' "$log/rtp-alloc-history.log"

echo "== RTCP feedback in the muxer: loss recovery vs stock, PLI/FIR, statistics, restart, hostile RTCP;"
echo "   receivers: FFmpeg's RTP demuxer and GStreamer's rtpbin (127.0.0.1)"
# GStreamer builds its plugin registry on first use (seconds on a new
# machine): build it now, not while the first receiver should be starting
# (on a new machine gst-recovery lost the stream's first frames to it)
gst-inspect-1.0 rtpbin > /dev/null 2>&1 || echo "    gst-inspect-1.0 rtpbin failed (GStreamer tests will say why)"
for t in sdp nack history gone repeat firstsecond budget remb recovery keyframe kfinterval stats restart hostile leavers squatters spoof gst-recovery gst-rtx gst-stats gst-pli gst-restart; do
    run "rtp-feedback-$t" "$top/tests/rtp/feedback.sh" "$build" "$t"
    sed -n 's/^  /    /p' "$log/rtp-feedback-$t.log"
done
run rtp-keyframe-api "$build/tests/rtp_keyframe_example" "$build/tests/rtcpinject" "$("$build/tests/freeport")"
sed 's/^/    /' "$log/rtp-keyframe-api.log"

echo "== paced sending: a 2x bottleneck with a 64 KB queue, resends ahead of the pacer, the BYE after it,"
echo "   the same datagrams paced or not, DSCP, SO_TXTIME departure times (127.0.0.1)"
for t in bottleneck resend bye wire kernel; do
    run "rtp-pacing-$t" "$top/tests/rtp/pacing.sh" "$build" "$t"
    sed -n 's/^  /    /p' "$log/rtp-pacing-$t.log"
done

echo "== congestion control (on by default for video): the transport-cc extension on the wire, the receiver's feedback,"
echo "   live 720p asked for 6 Mbit/s through 3 Mbit/s (and from its first packet), probing a 12 Mbit/s link, beside a TCP upload"
echo "   through a kernel bottleneck (network namespaces of its own), random loss by nftables, no added pacer wait on a good link,"
echo "   -c copy unchanged, transport-cc arrival times from the kernel under a stalling receiver (127.0.0.1)"
for t in wire feedback gst-feedback ccfb rtsp constant start probe tcp netloss goodlink copy stall; do
    run "rtp-cc-$t" "$top/tests/rtp/cc.sh" "$build" "$t"
    sed -n 's/^  /    /p' "$log/rtp-cc-$t.log"
done

if [ "$series" != 7.1 ]; then
    echo "== WHIP into GStreamer's webrtcbin, libwebrtc and the Janus SFU (network namespaces of its own): live 720p"
    echo "   H.264 (webrtcbin; live, and copied from Matroska), VP8 and VP9 (libwebrtc; Janus with a libwebrtc viewer that joins mid-GOP) decoded, a keyframe"
    echo "   request answered, transport-cc and SRTCP read, the DELETE; 5 % random loss repaired by RTX; a 1.5 Mbit/s"
    echo "   router queue under a 2.5 Mbit/s request (H.264 and VP8)"
    # janus-loss is in make bench only: one timing-bound run against an
    # SFU that NACKs a packet twice, 155 ms apart (doc/whip.md). The H.264
    # bottleneck runs 40 s: its share lost after second 5 is a steady-state
    # figure, and one cut's 20-26 drops decide a 15 s window (doc/whip.md)
    for t in gst copy loss bottleneck wrtc wrtc-loss wrtc-bottleneck janus; do
        run "whip-$t" env DUR=$(case $t in gst|copy|wrtc|janus) echo 10 ;; janus-loss) echo 15 ;; bottleneck) echo 40 ;; *) echo 20 ;; esac) \
            "$top/tests/whip/whip.sh" "$build" "$t"
        sed -n 's/^  /    /p' "$log/whip-$t.log"
    done
    # VP9 into libwebrtc, clean and with 5 % loss, and through Janus
    for t in wrtc wrtc-loss janus; do
        run "whip-$t-vp9" env CODEC=vp9 DUR=$([ $t = wrtc ] && echo 10 || echo 20) "$top/tests/whip/whip.sh" "$build" "$t"
        sed -n 's/^  /    /p' "$log/whip-$t-vp9.log"
    done
    # H.264 whose codec parameters lack the profile and level (a libav*
    # program's): from avcC or Annex B extradata into the offer (127.0.0.1)
    run whip-profile "$top/tests/whip/profile.sh" "$build"
    sed -n 's/^  /    /p' "$log/whip-profile.log"
fi

echo "== loss recovery in FFmpeg's RTP receiver: 720p at 4 Mbit/s, 5 % loss on retransmissions too,"
echo "   20 ms RTT; RTX; PLI from an unrepairable gap; the last packets lost; the IDR after an"
echo "   unrepairable loss; RTSP with loss; a receiver that joins late (127.0.0.1)"
for t in link rtx pli api forced tail idr rtsp au late; do
    run "rtp-lossy-$t" "$top/tests/rtp/lossy.sh" "$build" "$t"
    sed -n 's/^  /    /p' "$log/rtp-lossy-$t.log"
done
echo "== RTP receiver under hostile RTP: memory of access-unit gathering and of the reorder queue"
echo "   (64,000-byte floods), packets far ahead that would take the stream over, its RTCP under a"
echo "   NACK storm (127.0.0.1)"
for t in au queue takeover storm; do
    run "rtp-hostile-$t" "$top/tests/rtp/hostile.sh" "$build" "$t"
    sed -n 's/^  /    /p' "$log/rtp-hostile-$t.log"
done

# after the main tree's network tests: the 7.1 tree shares build/tests, whose
# RTP inputs are made by the main tree's ffmpeg (the lean one lacks muxers
# they need, yuv4mpegpipe for x265)
if [ "$series" != 7.1 ]; then
    echo "== FFmpeg 7.1, the other supported series (--ffmpeg=7.1, patches/7.1/): a lean build, the"
    echo "   extensions' FATE tests and checkasm, RTP decoding (VP9 too) and loss recovery (127.0.0.1)"
    if "$top/tests/cross-build.sh" "$top" "$(nproc)" 7.1 > "$log/build-7.1.log" 2>&1; then
        ok build-7.1
        run build-7.1-release grep -qx '7\.1\.[0-9]*' "$top/build/7.1/src/RELEASE"
        FATE_FFB=$top/build/7.1/ffmpeg fate fate-ext-7.1 fate-ext "$n_ext"
        run checkasm-7.1 "$top/build/7.1/ffmpeg/tests/checkasm/checkasm" --test=vf_toi420
        run fate-refs-independent-7.1 "$top/tests/fate/verify-refs.sh" "$top/build/7.1/ffmpeg" "$top/build/7.1/src/tests/ref/fate"
        for t in decode vp9; do
            run "rtp-$t-7.1" "$top/tests/rtp/sendpath.sh" "$top/build/7.1" "$t"
            sed -n 's/^  /    /p' "$log/rtp-$t-7.1.log"
        done
        for t in rtx pli; do
            run "rtp-lossy-$t-7.1" "$top/tests/rtp/lossy.sh" "$top/build/7.1" "$t"
            sed -n 's/^  /    /p' "$log/rtp-lossy-$t-7.1.log"
        done
    else
        bad build-7.1 "$log/build-7.1.log"
    fi
fi

echo "== command line"
run cli-options "$top/tests/cli/toi420-cli.sh" "$ffb/ffmpeg"

echo "== documentation"
run docs-manpage sh -c "make -C '$ffb' doc/ffmpeg-filters.1 && \
    grep -q '^\.SS \"toi420\"' '$ffb/doc/ffmpeg-filters.1' && grep -q 'full range' '$ffb/doc/ffmpeg-filters.1'"
run docs-manpage-rtp "$top/tests/cli/rtp-docs.sh" "$ffb" send_mode base_timestamp feedback nack nack_history \
    nack_max_share nack_dup_loss rtx_pt rtx_ssrc sr_interval stats_interval stats_file keyframe_min_interval bye bye_delay \
    pace pace_factor pace_burst pace_max_delay pace_kernel dscp cc min_bitrate max_bitrate start_bitrate probe
run docs-manpage-rtp-receiver sh -c "make -C '$ffb' doc/ffmpeg-protocols.1 && \
    grep -q 'nack_max_retries' '$ffb/doc/ffmpeg-protocols.1' && grep -q 'Loss recovery of the RTP receiver' '$ffb/doc/ffmpeg-protocols.1' && \
    grep -q 'au_marker' '$ffb/doc/ffmpeg-protocols.1' && \
    '$ffb/ffmpeg' -hide_banner -h demuxer=sdp | grep -q 'nack_max_retries' && \
    '$ffb/ffmpeg' -hide_banner -h demuxer=sdp | grep -q 'au_marker'"
run docs-stats "$top/tests/cli/stats-doc.sh" "$build"
run readme-program "$top/tests/build/readme-program.sh" "$top" "$build"
run readme-commands "$top/tests/cli/readme-commands.sh" "$top" "$build"
sed -n "s/^  /    /p" "$log/readme-commands.log"

echo "== valgrind memcheck (short runs, no leaks, no errors)"
vg="valgrind -q --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --error-exitcode=99"
run valgrind-buffer $vg "$ffb/libavutil/tests/bufferpool"
run valgrind-lcvrtcp $vg "$ffb/libavformat/tests/lcvrtcp"
run valgrind-rtpdec-ext $vg "$ffb/libavformat/tests/rtpdec_ext"
run valgrind-rtpcc $vg "$ffb/libavformat/tests/rtpcc"
run valgrind-rtppacer $vg "$ffb/libavformat/tests/rtppacer"
run valgrind-rtphist $vg "$ffb/libavformat/tests/rtphist"
run valgrind-rtpnack $vg "$ffb/libavformat/tests/rtpnack"
run valgrind-rtpjoin $vg "$ffb/libavformat/tests/rtpjoin"
run valgrind-rtppeer $vg "$ffb/libavformat/tests/rtppeer"
if [ "$series" != 7.1 ]; then run valgrind-whip-ext $vg "$ffb/libavformat/tests/whip_ext"; fi
run valgrind-rtp $vg "$ffb/ffmpeg" -nostdin -v error -f lavfi -i testsrc2=s=160x120:r=25:d=1 \
    -c:v libx264 -preset ultrafast -f rtp -rtpflags send_bye "rtp://127.0.0.1:$("$build/tests/freeport")?pkt_size=200"
run valgrind-ffmpeg $vg "$ffb/ffmpeg" -nostdin -v error -f lavfi -i testsrc2=s=97x61:r=10,format=nv21 \
    -filter_threads 2 -vf "toi420,vflip,format=bgra,toi420" -frames:v 8 -f null -

if [ "${SKIP_ASAN:-0}" != 1 ]; then
    echo "== ThreadSanitizer (clang): the lcv_rtcp unit test, whose pool tests run 12 threads on one"
    echo "   pool handing contexts to each other, and releases racing with the pool's free"
    # libavutil's buffer.c (AVBufferPool, under the lcv_rtcp pool) is built with
    # the sanitizer too: its atomics would be invisible to it in libavutil.a,
    # which gives false reports when the last buffers come back concurrently
    src=$(cd "$ffb/.." && pwd)/src
    run rtcp-tsan-build clang -g -O1 -fsanitize=thread -DHAVE_AV_CONFIG_H -I"$src" -I"$ffb" \
        -o "$ffb/../tests/lcvrtcp-tsan" "$src/libavformat/tests/lcvrtcp.c" "$src/libavformat/lcvrtcp.c" \
        "$src/libavformat/lcvrtcp_write.c" "$src/libavutil/buffer.c" "$ffb/libavutil/libavutil.a" \
        -lm -lpthread -ldl
    run rtcp-tsan env TSAN_OPTIONS=halt_on_error=1:exitcode=88 "$ffb/../tests/lcvrtcp-tsan"
    run rtcp-tsan-race env TSAN_OPTIONS=halt_on_error=1:exitcode=88 "$ffb/../tests/lcvrtcp-tsan" race 3000
    grep '^pool' "$log/rtcp-tsan.log" "$log/rtcp-tsan-race.log" | sed 's/^[^:]*:/    /'

    echo "== ASan+UBSan build (lean, clang) and the tests under it"
    "$top/tests/check-asan.sh" "$top" "$(nproc)" > "$log/asan.log" 2>&1
    sed 's/^/    /' "$log/asan.log" | grep -E '^    (PASS|FAIL|asan:)' || tail -n 30 "$log/asan.log" | sed 's/^/    /'
    ap=$(sed -n 's/^asan: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$log/asan.log")
    af=$(sed -n 's/^asan: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$log/asan.log")
    if [ -z "$ap" ]; then
        fail=$((fail + 1)); failed+=("asan: build or setup failed (log: $log/asan.log)")
    else
        pass=$((pass + ap)); fail=$((fail + af))
        [ "$af" = 0 ] || failed+=("asan: $af failed (log: $log/asan.log)")
    fi
fi

echo
echo "${pass} passed, ${fail} failed"
[ "$fail" = 0 ] || { printf 'failed: %s\n' "${failed[@]}"; exit 1; }

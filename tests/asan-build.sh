#!/usr/bin/env bash
# The lean ASan+UBSan (clang) build in build/asan, and the libFuzzer
# harnesses linked against it: lcv_rtcp (build/asan/rtcp_fuzzer), the
# RTP receiver's packet path (build/asan/rtp_receiver_fuzzer) and the RTP
# sender's RTCP reader (build/asan/rtcp_sender_fuzzer).
#   tests/asan-build.sh TOP JOBS
set -eu
top=$1 jobs=$2
b=$top/build/asan
cc=clang
command -v ccache >/dev/null 2>&1 && cc="ccache clang"

"$top/configure" --build-dir="$b" --lean --toolchain=clang-asan "--cc=$cc" \
    "--extra-ffmpeg-flags=--extra-cflags=-fsanitize=undefined --extra-cflags=-fno-sanitize-recover=undefined --extra-ldflags=-fsanitize=undefined" \
    > "$b.configure.log" 2>&1 || { cat "$b.configure.log"; exit 1; }
"$top/scripts/sync-ext" "$top" "$b/src" > /dev/null
make -C "$b/ffmpeg" -j"$jobs" ffmpeg libavutil/tests/bufferpool libavfilter/tests/toi420 \
    libavformat/tests/lcvrtcp libavformat/tests/rtpdec_ext libavformat/tests/rtpcc > "$b.build.log" 2>&1 || { tail -n 40 "$b.build.log"; exit 1; }

# the library's sources are compiled into the fuzzer, so that libFuzzer's
# coverage instrumentation sees them; libavutil comes from the ASan build
libs="$b/src/libavformat/lcvrtcp.c $b/src/libavformat/lcvrtcp_write.c $b/ffmpeg/libavutil/libavutil.a"
extra=$(sed -n 's/^EXTRALIBS-[a-z]*=//p' "$b/ffmpeg/ffbuild/config.mak" | tr ' ' '\n' | awk 'NF && !seen[$0]++' | tr '\n' ' ')
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -DHAVE_AV_CONFIG_H -I"$b/src" -I"$b/ffmpeg" -o "$b/rtcp_fuzzer" "$top/tests/fuzz/rtcp_fuzzer.c" $libs $extra

# the receiver's packet path: FFmpeg's RTP demuxer context, this project's
# extension and the H.264 depacketizer compiled in (coverage), the rest of
# libavformat from the ASan build; libavutil's time functions are the
# harness's own (its clock), so time.o is never linked
rtp_srcs=
for f in rtpdec.c rtpdec_h264.c rtpdec_ext.c rtpnack.c rtpau.c rtpjoin.c rtptwcc.c; do
    rtp_srcs="$rtp_srcs $b/src/libavformat/$f"
done
clang -w -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -DHAVE_AV_CONFIG_H -I"$b/src" -I"$b/ffmpeg" -o "$b/rtp_receiver_fuzzer" \
    "$top/tests/fuzz/rtp_receiver_fuzzer.c" $rtp_srcs "$b/ffmpeg/libavformat/libavformat.a" \
    "$b/ffmpeg/libavcodec/libavcodec.a" "$b/ffmpeg/libswresample/libswresample.a" \
    "$b/ffmpeg/libavutil/libavutil.a" $extra

# the sender's RTCP reader: rtpfb.c (included by the harness) and the parts
# it drives compiled in (coverage); the sender itself is the harness's. Its
# history and send log hold 1,024 packets (32,768 and 8,192 in the muxer):
# a run allocates and clears a few hundred KB less, and inputs reach their
# wrap and their limits sooner
fb_srcs=
for f in rtphist.c rtpcc.c rtptwcc.c rtphdrext.c lcvrtcp.c lcvrtcp_write.c; do
    fb_srcs="$fb_srcs $b/src/libavformat/$f"
done
clang -w -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -DHAVE_AV_CONFIG_H -DFF_RTP_HIST_MAX_PACKETS=1024 -DFF_RTP_TWCC_LOG=1024 \
    -I"$b/src" -I"$b/ffmpeg" -o "$b/rtcp_sender_fuzzer" \
    "$top/tests/fuzz/rtcp_sender_fuzzer.c" $fb_srcs "$b/ffmpeg/libavformat/libavformat.a" \
    "$b/ffmpeg/libavcodec/libavcodec.a" "$b/ffmpeg/libswresample/libswresample.a" \
    "$b/ffmpeg/libavutil/libavutil.a" $extra

#!/usr/bin/env bash
# The lean ASan+UBSan (clang) build in build/asan, and the lcv_rtcp
# libFuzzer harness linked against it (build/asan/rtcp_fuzzer).
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

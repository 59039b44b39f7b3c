#!/usr/bin/env bash
# The other builds make check makes, each a lean tree of its own in
# build/NAME (configured by ./configure --lean with more flags):
#   aarch64     cross-compiled with Debian's gcc-aarch64-linux-gnu; run
#               under qemu-aarch64 (checkasm, the toi420 FATE fragment)
#   x86-32      32-bit x86 (Debian's gcc-i686-linux-gnu: gcc-multilib and
#               the aarch64 cross compiler exclude each other), C kernels;
#               run under qemu-i386
#   nonetwork   --disable-network
#   nortp       --disable-muxer=rtp(,rtp_mpegts,rtsp) with the mov muxer
#               (rtpenc_chain.c)
#   shared      --enable-shared; an API program is linked against it with
#               pkg-config alone (tests/build/shared-api.sh)
#   demo        make demo's tree: the lean components, nothing more (the
#               test tools of build/tests are shared)
#   7.1         FFmpeg 7.1, the other supported series (--ffmpeg=7.1), with
#               its own patch series; the test tools of build/tests are
#               shared (build/7.1/tests links to them)
#   tests/cross-build.sh TOP JOBS NAME
set -eu
top=$1 jobs=$2 name=$3
b=$top/build/$name
targets=(ffmpeg)

case "$name" in
aarch64)
    flags=(--cc="ccache aarch64-linux-gnu-gcc"
           --extra-ffmpeg-flags="--enable-cross-compile --arch=aarch64 --target-os=linux
               --cross-prefix=aarch64-linux-gnu- --disable-libx264 --disable-xlib --disable-libxcb")
    targets+=(libavfilter/tests/toi420 tests/checkasm/checkasm) ;;
x86-32)
    flags=(--cc="ccache i686-linux-gnu-gcc"
           --extra-ffmpeg-flags="--enable-cross-compile --arch=x86_32 --target-os=linux
               --cross-prefix=i686-linux-gnu- --disable-libx264 --disable-xlib --disable-libxcb")
    targets+=(libavfilter/tests/toi420 tests/checkasm/checkasm) ;;
nonetwork)
    flags=(--extra-ffmpeg-flags="--disable-network") ;;
nortp)
    # rtsp and rtp_mpegts select the rtp muxer: they go too
    flags=(--extra-ffmpeg-flags="--disable-muxer=rtp,rtp_mpegts,rtsp --enable-muxer=mov") ;;
shared)
    flags=(--prefix="$b/inst" --extra-ffmpeg-flags="--enable-shared --disable-static")
    targets+=(install) ;;
demo)
    # make demo's tree: the lean components alone
    flags=()
    mkdir -p "$b" && ln -sfn ../tests "$b/tests" ;;
7.1)
    # VP9's decoder and parser: the VP9 packetizer's test (sendpath.sh vp9)
    flags=(--ffmpeg=7.1 --extra-ffmpeg-flags="--enable-decoder=vp9 --enable-parser=vp9")
    targets+=(libavfilter/tests/toi420 tests/checkasm/checkasm)
    mkdir -p "$b" && ln -sfn ../tests "$b/tests" ;;
*)
    echo "cross-build.sh: unknown build '$name'" >&2; exit 2 ;;
esac

mkdir -p "$b"
"$top/configure" --build-dir="$b" --lean "${flags[@]}" > "$b.configure.log" 2>&1 ||
    { tail -n 40 "$b.configure.log"; exit 1; }
"$top/scripts/sync-ext" "$top" "$b/src" > /dev/null
make -C "$b/ffmpeg" -j"$jobs" "${targets[@]}" > "$b.build.log" 2>&1 || { tail -n 40 "$b.build.log"; exit 1; }
echo "build/$name: built ${targets[*]}"

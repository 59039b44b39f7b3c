#!/usr/bin/env bash
# make bench: prints the benchmark tables. Every ratio compares figures
# taken in this same run.
#   tests/bench/run.sh BUILD SHIM
set -eu
build=$1 shim=$2
top=$(cd "$(dirname "$0")/../.." && pwd)

echo "## toi420: conversion to yuv420p"
echo
"$build/tests/toi420_bench" 31
echo
"$build/tests/toi420_bench" 11 cold
echo
"$build/tests/toi420_bench" 1000 threads
echo
echo "## Heap allocations per frame (preload shim, filtergraph thread, 3000 and 6000 frames, 320x240)"
echo
for fmt in yuyv422 rgba; do
    "$top/tests/alloc/cli-allocs.sh" "$build/ffmpeg/ffmpeg" "$shim" 3000 toi420 "$fmt" | sed 's/^/patched  /'
    "$top/tests/alloc/cli-allocs.sh" "$build/ffmpeg/ffmpeg" "$shim" 3000 format=yuv420p "$fmt" | sed 's/^/patched  /'
    "$top/tests/alloc/cli-allocs.sh" "$build/stock/ffmpeg" "$shim" 3000 format=yuv420p "$fmt" | sed 's/^/stock    /'
done

echo
echo "## RTP send path: the live555 table (stock FFmpeg vs send_mode single, mmsg, gso)"
echo
"$top/tests/bench/rtp_send.sh" "$build"

echo
echo "## Paced sending: bottlenecks with a 64 KB queue, and the send path's system calls at 20 Mbit/s"
echo
"$top/tests/bench/rtp_pacing.sh" "$build"
"$top/tests/bench/rtp_pacing.sh" "$build" sweep

echo
echo "## Congestion control: live encoding through a 3 Mbit/s link, capacity steps, two senders"
echo
"$top/tests/bench/rtp_cc.sh" "$build"

echo
echo "## WHIP: the whip muxer on this transport and stock 9.0.2's, into webrtcbin"
echo
if grep -q 'CONFIG_WHIP_MUXER 1' "$build/ffmpeg/config_components.h"; then
    "$top/tests/bench/whip.sh" "$build"
    echo
    echo "SRTP alone (tests/bench/srtp_bench.c): this build's and stock's ff_srtp against libsrtp2, CPU per packet"
    "$build/tests/srtp_bench"
    "$build/tests/srtp_bench_stock"
else
    echo "(no whip muxer in this build: FFmpeg 9.0 with the default profile has it)"
fi

echo
echo "## RTCP feedback in the muxer"
echo
"$top/tests/bench/rtp_feedback.sh" "$build"

echo
echo "## Loss recovery in FFmpeg's RTP receiver (8 Mbit/s 1080p, ours and stock as receivers)"
echo
"$top/tests/bench/rtp_recovery.sh" "$build"

echo
echo "## lcv_rtcp against pion/rtcp (same run, one core)"
echo
"$top/tests/bench/rtcp.sh" "$build" "$shim"

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
"$build/tests/toi420_bench" 31 threads
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
echo "## RTCP feedback in the muxer"
echo
"$top/tests/bench/rtp_feedback.sh" "$build"

echo
echo "## lcv_rtcp against pion/rtcp (same run, one core)"
echo
pion_file=$top/../shared/data/rtcp/pion-unmarshal-bench.bin
if [ ! -f "$pion_file" ]; then
    echo "(no $pion_file: RTCP benchmark skipped)"
    exit 0
fi
LD_PRELOAD=$shim taskset -c 0 "$build/tests/rtcp_bench" "$pion_file" | tee "$build/tests/rtcp_bench.txt"
dir=$(mktemp -d)
"$build/tests/rtcp_bench" "$pion_file" dump "$dir"
echo
if command -v go >/dev/null 2>&1 && [ -d /usr/share/gocode/src/github.com/pion/rtcp ]; then
    gocache=$build/tests/gocache
    (cd "$top/tests/bench/pion" && RTCP_BENCH_DIR=$dir GO111MODULE=off GOPATH=/usr/share/gocode \
        GOCACHE=$gocache taskset -c 0 go test -bench . -benchmem -benchtime=1s 2>&1) \
        | tee "$build/tests/pion_bench.txt" | grep -E 'Benchmark|ok|FAIL'
    echo
    echo "| datagram | lcv_rtcp ns/op | pion ns/op | pion B/op | pion allocs/op | pion / lcv_rtcp |"
    echo "|---|--:|--:|--:|--:|--:|"
    for i in 1 2 3 4; do
        ours=$(awk -F'|' -v i="$i" '$2 ~ "^ "i"\\." { gsub(/ /, "", $5); print $5 }' "$build/tests/rtcp_bench.txt")
        name=$(awk -F'|' -v i="$i" '$2 ~ "^ "i"\\." { sub(/^ /, "", $2); sub(/ $/, "", $2); print $2 }' "$build/tests/rtcp_bench.txt")
        read -r ns bytes allocs < <(awk -v i="$i" '$1 ~ "datagram"i"(-[0-9]+)?$" { print $3, $5, $7 }' "$build/tests/pion_bench.txt")
        ratio=$(awk -v a="$ns" -v b="$ours" 'BEGIN { if (b > 0) printf "%.1fx", a / b }')
        echo "| $name | $ours | $ns | $bytes | $allocs | $ratio |"
    done
else
    echo "(go or golang-github-pion-rtcp-dev not installed: no pion peer)"
fi
rm -rf "$dir"

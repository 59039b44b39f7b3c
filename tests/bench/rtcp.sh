#!/usr/bin/env bash
# The lcv_rtcp benchmark (part of make bench): rtcp_bench with the
# malloc-counting shim, and pion/rtcp's Unmarshal on the same four
# datagrams in the same run, both pinned to one core.
#   tests/bench/rtcp.sh BUILD SHIM
set -eu
build=$1 shim=$2
top=$(cd "$(dirname "$0")/../.." && pwd)

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
if [ -x "$build/tests/gst_rtcp_bench" ]; then
    echo
    echo "GStreamer's gst_rtcp_buffer (validate + map + walk every packet, same datagrams, one core):"
    echo
    LD_PRELOAD=$shim taskset -c 0 "$build/tests/gst_rtcp_bench" "$dir" | tee "$build/tests/gst_rtcp_bench.txt"
    echo
    echo "| datagram | lcv_rtcp ns/op | GStreamer ns/op | GStreamer / lcv_rtcp |"
    echo "|---|--:|--:|--:|"
    # datagram 4: GStreamer does not decode TWCC, so lcv_rtcp's column is
    # its validation without decoding (rtcp_bench's "parse only")
    for i in 1 2 3 4; do
        col=$([ "$i" = 4 ] && echo 6 || echo 5)
        ours=$(awk -F'|' -v i="$i" -v c="$col" '$2 ~ "^ "i"\\." { gsub(/ /, "", $c); print $c }' "$build/tests/rtcp_bench.txt")
        name=$(awk -F'|' -v i="$i" '$2 ~ "^ "i"\\." { sub(/^ /, "", $2); sub(/ $/, "", $2); print $2 }' "$build/tests/gst_rtcp_bench.txt")
        gst=$(awk -F'|' -v i="$i" '$2 ~ "^ "i"\\." { gsub(/ /, "", $3); print $3 }' "$build/tests/gst_rtcp_bench.txt")
        ratio=$(awk -v a="$gst" -v b="$ours" 'BEGIN { if (b > 0) printf "%.1fx", a / b }')
        echo "| $name | $ours | $gst | $ratio |"
    done
fi
rm -rf "$dir"

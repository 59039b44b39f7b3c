#!/usr/bin/env bash
# Heap allocations per frame of ffmpeg -vf FILTER over -vf null, counted by
# the preload shim over N and 2N frames (the difference cancels start-up).
#   cli-allocs.sh FFMPEG SHIM N FILTER [INPUT_FORMAT] [SIZE]
# Prints "FILTER: X allocations per frame over null" and fails unless X is 0
# when CHECK_ZERO=1.
set -eu
ffmpeg=$1 shim=$2 n=$3 filter=$4 fmt=${5:-yuyv422} size=${6:-640x480}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count() {   # count VF FRAMES
    LD_PRELOAD=$shim MALLOC_COUNT_FILE=$tmp/count timeout 120 \
        "$ffmpeg" -nostdin -hide_banner -loglevel error -threads 1 -filter_threads 1 \
        -f lavfi -i "testsrc2=s=$size:r=25,format=$fmt" -vf "$1" -frames:v "$2" -f null - 
    cat "$tmp/count"
}

f1=$(count "$filter" "$n");   f2=$(count "$filter" $((2 * n)))
n1=$(count null "$n");        n2=$(count null $((2 * n)))
per_frame=$(awk -v a=$((f2 - f1)) -v b=$((n2 - n1)) -v n="$n" 'BEGIN { printf "%.2f", (a - b) / n }')
echo "$filter on $fmt $size: $(awk -v a=$((f2 - f1)) -v n="$n" 'BEGIN { printf "%.2f", a / n }') allocations per frame," \
     "null: $(awk -v a=$((n2 - n1)) -v n="$n" 'BEGIN { printf "%.2f", a / n }'); over null: $per_frame"
if [ "${CHECK_ZERO:-0}" = 1 ] && [ "$per_frame" != "0.00" ] && [ "$per_frame" != "-0.00" ]; then
    echo "FAIL: $filter allocates $per_frame times per frame more than null" >&2
    exit 1
fi

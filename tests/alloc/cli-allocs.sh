#!/usr/bin/env bash
# Heap allocations per frame of ffmpeg -vf FILTER over -vf null, counted by
# the preload shim over N and 2N frames (the difference cancels start-up).
#   cli-allocs.sh FFMPEG SHIM N FILTER [INPUT_FORMAT] [SIZE]
# The ffmpeg CLI runs demuxing, decoding, filtering, encoding and muxing on
# threads of their own, and its process-wide total varies by dozens of
# allocations from run to run with their timing. So only the filtergraph
# thread ("vf#0:0", MALLOC_COUNT_THREAD=vf; set it empty for the whole
# process) is counted. What still varies there is warm-up: the thread
# queues' object pools and toi420's buffer pool grow to however many frames
# the threads downstream happen to hold at once (up to about 10: 40
# allocations, once). N of 5000 keeps that below 0.02 per frame. With
# CHECK_ZERO=1 it fails unless the figure over null is below 0.1 per frame.
# (The libavfilter API program, whose counts are deterministic, asserts
# exactly 0.)
set -eu
ffmpeg=$1 shim=$2 n=$3 filter=$4 fmt=${5:-yuyv422} size=${6:-320x240}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

count() {   # count VF FRAMES
    rm -f "$tmp/count"
    timeout 120 env LD_PRELOAD="$shim" MALLOC_COUNT_FILE="$tmp/count" MALLOC_COUNT_THREAD="${MALLOC_COUNT_THREAD-vf}" \
        "$ffmpeg" -nostdin -hide_banner -loglevel error -filter_threads 1 \
        -f lavfi -i "testsrc2=s=$size:r=25,format=$fmt" -vf "$1" -frames:v "$2" -f null -
    # no count, or none at all, means the shim counted nothing (not loaded,
    # or no thread of that name): that is no measurement
    local c; c=$(cat "$tmp/count" 2>/dev/null || true)
    case "$c" in
        ''|*[!0-9]*) echo "FAIL: the shim wrote no count (is $shim preloaded?)" >&2; exit 1 ;;
        0) echo "FAIL: 0 allocations counted in thread '${MALLOC_COUNT_THREAD-vf}': it counted nothing" >&2; exit 1 ;;
    esac
    echo "$c"
}

per_frame() {   # per_frame VF: allocations per frame
    local a b
    a=$(count "$1" "$n") || exit 1
    b=$(count "$1" $((2 * n))) || exit 1
    awk -v d=$((b - a)) -v n="$n" 'BEGIN { printf "%.3f", d / n }'
}

f=$(per_frame "$filter") || exit 1
z=$(per_frame null) || exit 1
# every frame that passes the filtergraph thread costs it allocations
# (3 to 5 per frame with -vf null, by input format): less than one per frame
# is not the thread this script means to count
if [ "${MALLOC_COUNT_THREAD-vf}" = vf ] && ! awk -v z="$z" 'BEGIN { exit !(z >= 1) }'; then
    echo "FAIL: -vf null counted $z allocations per frame on the filtergraph thread, less than one" >&2
    exit 1
fi
over=$(awk -v f="$f" -v z="$z" 'BEGIN { printf "%.2f", f - z }')
echo "$filter on $fmt $size: $f allocations per frame, null: $z; over null: $over"
if [ "${CHECK_ZERO:-0}" = 1 ] && awk -v o="$over" 'BEGIN { exit !(o >= 0.1 || o <= -0.1) }'; then
    echo "FAIL: $filter allocates $over times per frame more than null" >&2
    exit 1
fi

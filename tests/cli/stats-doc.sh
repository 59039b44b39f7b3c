#!/usr/bin/env bash
# doc/stats.md names every field: each key of a real -stats_file line (a
# live sender with cc 1 and this project's receiver on 127.0.0.1, so that
# the receivers' objects and the cc fields are there) and each member of
# LCVRTPReceiveStats in lcvrtp.h must have its row (`name` in the table).
#   tests/cli/stats-doc.sh BUILD
set -eu
build=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
doc=$top/doc/stats.md
ffmpeg=$build/ffmpeg/ffmpeg
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

p=$("$build/tests/freeport")
enc=(-c:v libx264 -preset ultrafast -tune zerolatency -b:v 500k -g 50 -bf 0)
"$ffmpeg" -nostdin -v error -f lavfi -i testsrc2=s=320x240:r=25 "${enc[@]}" -frames:v 1 \
    -f rtp -cc 1 -sdp_file "$work/s.sdp" "rtp://127.0.0.1:$p" > /dev/null
timeout 20 "$ffmpeg" -nostdin -v error -protocol_whitelist file,udp,rtp -sdp_flags rtcp_to_source \
    -i "$work/s.sdp" -f null - 2> "$work/recv.log" &
for _ in $(seq 100); do grep -q ":$(printf '%04X' "$p") " /proc/net/udp && break; sleep 0.05; done
timeout 20 "$ffmpeg" -nostdin -v error -re -f lavfi -i testsrc2=s=320x240:r=25:d=2 "${enc[@]}" \
    -f rtp -cc 1 -stats_file "$work/stats.json" -stats_interval 0.5 "rtp://127.0.0.1:$p" > /dev/null ||
    fail "the sender failed"
wait || true
line=$(grep '"receivers":\[{' "$work/stats.json" | tail -n 1)
[ -n "$line" ] || fail "no stats line with a receiver in it: $(tail -n 1 "$work/stats.json")"

keys=$(echo "$line" | grep -o '"[a-z0-9_]*":' | tr -d '":' | sort -u)
n=0
for k in $keys; do
    grep -q "\`$k\`" "$doc" || fail "stats_file field '$k' is not in doc/stats.md"
    n=$((n + 1))
done
[ "$n" -ge 50 ] || fail "only $n fields in the stats line: $line"

# the receiver's fields, from the public header
members=$(sed -n '/^typedef struct LCVRTPReceiveStats/,/^} LCVRTPReceiveStats/p' "$top/libavformat-ext/lcvrtp.h" |
          sed -n 's/^ *[a-z0-9_]* *\([a-z_, ]*\);.*/\1/p' | tr ',' '\n' | tr -d ' ')
m=0
for k in $members; do
    sed -n '/^## The receiver/,$p' "$doc" | grep -q "\`$k\`" ||
        fail "LCVRTPReceiveStats.$k is not in doc/stats.md's receiver table"
    m=$((m + 1))
done
[ "$m" -ge 18 ] || fail "only $m members read from LCVRTPReceiveStats"
echo "doc/stats.md: all $n fields of a stats_file line and all $m receiver fields"

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
    -stats_file "$work/recv.json" -stats_interval 0.5 -i "$work/s.sdp" -f null - 2> "$work/recv.log" &
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

# the receiver's stats_file: every key in the receiver's section, lines
# every 0.5 s and the final one
rline=$(grep '"final":true' "$work/recv.json" | tail -n 1)
[ -n "$rline" ] || fail "the receiver's stats_file has no final line: $(tail -n 1 "$work/recv.json")"
nr=$(grep -c '"final":false' "$work/recv.json" || true)
[ "$nr" -ge 2 ] || fail "only $nr periodic lines in the receiver's stats_file over 2 s at 0.5 s"
r=0
for k in $(echo "$rline" | grep -o '"[a-z0-9_]*":' | tr -d '":' | sort -u); do
    sed -n '/^## The receiver/,$p' "$doc" | grep -q "\`$k\`" ||
        fail "the receiver's stats_file field '$k' is not in doc/stats.md's receiver section"
    r=$((r + 1))
done
[ "$r" -ge 20 ] || fail "only $r fields in the receiver's line: $rline"

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
echo "doc/stats.md: all $n fields of a sender's stats_file line, all $r of a receiver's and all $m of LCVRTPReceiveStats"

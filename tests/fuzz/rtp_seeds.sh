#!/usr/bin/env bash
# Seeds for the RTP receiver fuzzer from real captures: this project's
# ffmpeg sends live H.264 (RTX, transport-cc) through the lossy relay, whose
# capture of what reached the receiver's port becomes a sequence of
# [flags][length][datagram] records (rtp_receiver_fuzzer.c): each moves the
# clock on by the time to the next datagram in the capture (up to 63 ms),
# every 8th ends the reorder wait, every 5th lets the receiver send
# feedback. One seed per loss rate, 400 datagrams each at most. All on
# 127.0.0.1.
#   tests/fuzz/rtp_seeds.sh BUILD OUTDIR
set -eu
build=$1 out=$2
. "$(dirname "$0")/../rtp/lib.sh"
mkdir -p "$out"
for loss in 0 50000 200000; do
    ports
    relay "seed$loss" "$loss" 3 5 7 0
    # a receiver that asks for what it misses, so that the capture has RTX
    live_through_relay seed 160x120 -c:v libx264 -preset ultrafast -tune zerolatency -g 25 -f rtp \
        -ssrc 0x5eed5eed -cc 1 -rtx_pt 97
    # what reached the relay, less what it dropped (its "dropped SEQ" lines;
    # retransmissions pass): what reached the receiver
    tshark -r "$work/seed$loss.pcap" -Y "udp.dstport == $p_relay" -T fields -e frame.time_epoch -e udp.payload 2> /dev/null |
        python3 -c '
import sys
drops = set()
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 2 and f[0] == "dropped":
        drops.add(int(f[1]))
out = bytearray()
n = 0
prev = None
for line in sys.stdin:
    t, hexdata = line.split()
    t = float(t)
    ms = 0 if prev is None else min(63, int((t - prev) * 1000))
    prev = t
    d = bytes.fromhex(hexdata.replace(":", ""))
    if len(d) >= 12 and (d[1] & 0x7f) != 97 and ((d[2] << 8) | d[3]) in drops:
        drops.discard((d[2] << 8) | d[3])
        continue
    flags = (1 if n % 8 == 7 else 0) | (2 if n % 5 == 4 else 0) | (ms << 2)
    out += bytes([flags, len(d) >> 8, len(d) & 255]) + d
    n += 1
    if n == 400:
        break
sys.stdout.buffer.write(out)' "$work/seed$loss.relay" > "$out/capture-loss$loss"
    [ -s "$out/capture-loss$loss" ] || die "no datagrams captured at loss $loss"
done
ls -l "$out" | sed 's/^/  /'

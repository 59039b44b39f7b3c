#!/usr/bin/env bash
# Seeds for the RTP sender's RTCP fuzzer (rtcp_sender_fuzzer.c) from real
# captures: this project's ffmpeg sends live H.264 (transport-cc, with and
# without RTX) through the lossy relay to this project's receiver, which
# asks for what it misses; the relay's capture of the media that left the
# sender and of the RTCP that came back becomes the harness's records in
# the order they were captured: a media packet (op 1; the RTX copies too,
# which the harness only numbers in its send log, so that the feedback's
# transport-wide numbers match), an RTCP datagram (op 0), the
# timer after every 10th record (op 2), the muxer's polling after every
# 25th (op 3), each moving the clock on by the time since the last one
# (up to 63 ms). One seed per loss rate and RTX setting, 400 records each
# at most. All on 127.0.0.1.
#   tests/fuzz/rtcp_sender_seeds.sh BUILD OUTDIR
set -eu
build=$1 out=$2
. "$(dirname "$0")/../rtp/lib.sh"
mkdir -p "$out"
for rtx in -1 97; do
    for loss in 20000 100000; do
        name=rtx$rtx-loss$loss
        ports
        relay "$name" "$loss" 3 10 7 0
        live_through_relay "$name" 160x120 -c:v libx264 -preset ultrafast -tune zerolatency -g 25 \
            -f rtp -ssrc 0x5eed5eed -cc 1 -rtx_pt "$rtx"
        # config: NACKs, RTX as the run had it, cc, RFC 3550's SR interval;
        # at 2 % loss 250 kB/s of media and a resend share of 0.3, at 10 %
        # no media rate known and a share of 0: a budget of 8 packets in
        # all, which the seed's own NACKs come near; the run's SSRC
        if [ "$loss" = 20000 ]; then rate=2 share=2; else rate=0 share=0; fi
        cfg=$(( 0x01 | (rtx == 97 ? 0x02 : 0) | 0x04 | (rate << 4) | (share << 6) ))
        tshark -r "$work/$name.pcap" -Y "udp.dstport == $p_relay || udp.dstport == $((p_relay + 1))" \
            -T fields -e frame.time_epoch -e udp.dstport -e udp.payload 2> /dev/null |
            python3 -c '
import sys
media_port, cfg = int(sys.argv[1]), int(sys.argv[2])
out = bytearray([cfg, 0x5e, 0xed, 0x5e, 0xed])
n = 0
prev = None
def record(op, ms, d=b""):
    global out
    out += bytes([op | (ms << 2), len(d) >> 8, len(d) & 255]) + d
for line in sys.stdin:
    f = line.split()
    if len(f) < 3:
        continue
    t, port, d = float(f[0]), int(f[1]), bytes.fromhex(f[2].replace(":", ""))
    ms = 0 if prev is None else max(0, min(63, int((t - prev) * 1000)))
    prev = t
    if port == media_port:
        if len(d) < 12:
            continue
        record(1, ms, d)
    else:
        record(0, ms, d)
    n += 1
    if n % 10 == 0:
        record(2, 0)
    if n % 25 == 0:
        record(3, 0)
    if n == 400:
        break
sys.stdout.buffer.write(out)' "$p_relay" "$cfg" > "$out/capture-$name"
        # the seed must hold RTCP: the receiver's feedback reached the relay
        [ "$(tshark -r "$work/$name.pcap" -Y "udp.dstport == $((p_relay + 1))" 2> /dev/null | wc -l)" -gt 10 ] ||
            die "$name: no RTCP from the receiver in the capture"
    done
done
ls -l "$out" | sed 's/^/  /'

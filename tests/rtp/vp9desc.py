#!/usr/bin/python3
"""Check the VP9 payload descriptors (RFC 9628) of an RTP capture.

    vp9desc.py DUMP SOURCE_CRC WIDTH HEIGHT

DUMP: "LENGTH HEX" per datagram (tests/net/rtpcap.c dump), the RTP packets
of one VP9 stream. SOURCE_CRC: the source's packets as FFmpeg's framecrc
muxer lists them (", F=0x0" on a packet that is not a key frame). Written
from the RFC, apart from the packetizer: the frames (packets of one
timestamp, in sequence order) are the source's in order, each with a
15-bit picture ID one more than the frame before; B on a frame's first
packet only, E and the marker on its last only; P exactly on the source's
inter frames; the scalability structure (one spatial layer, its size WIDTH
x HEIGHT) on the first packet of each key frame and nowhere else. Prints
what it found on its last line; exits 1 with the first difference.
"""
import sys


def fail(msg):
    print('FAIL: ' + msg)
    sys.exit(1)


def rtp_payload(d):
    """(seq, timestamp, marker, payload type, payload) of an RTP datagram"""
    if len(d) < 12 or d[0] >> 6 != 2:
        fail('not an RTP packet: %s' % d[:12].hex())
    cc, x = d[0] & 15, d[0] & 16
    pos = 12 + 4 * cc
    if x:
        pos += 4 + 4 * int.from_bytes(d[pos + 2:pos + 4], 'big')
    end = len(d) - (d[-1] if d[0] & 32 else 0)
    return (int.from_bytes(d[2:4], 'big'), int.from_bytes(d[4:8], 'big'), d[1] >> 7,
            d[1] & 127, d[pos:end])


def main():
    dump, crc, width, height = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    keys = [', F=0x' not in l for l in open(crc) if l.strip() and not l.startswith('#')]
    pkts = []
    for line in open(dump):
        n, h = line.split()
        d = bytes.fromhex(h)
        if len(d) != int(n):
            fail('a record of %d bytes said %s' % (len(d), n))
        pkts.append(rtp_payload(d))
    pkts = [p for p in pkts if p[3] >= 96]
    if not pkts:
        fail('no RTP packets')
    # frames: runs of one timestamp in sequence order (no loss on 127.0.0.1)
    frames = []
    prev_seq = None
    for seq, ts, m, pt, pl in pkts:
        if prev_seq is not None and seq != (prev_seq + 1) & 0xffff:
            fail('sequence %d after %d' % (seq, prev_seq))
        prev_seq = seq
        if not frames or frames[-1][0] != ts:
            frames.append((ts, []))
        frames[-1][1].append((m, pl))
    if len(frames) != len(keys):
        fail('%d frames sent, %d in the source' % (len(frames), len(keys)))
    prev_pid = None
    nkey = 0
    for i, (ts, fp) in enumerate(frames):
        pid = None
        for j, (m, pl) in enumerate(fp):
            if len(pl) < 4:
                fail('frame %d: a %d-byte payload' % (i, len(pl)))
            b = pl[0]
            I, P, L, F, B, E, V = (b >> 7) & 1, (b >> 6) & 1, (b >> 5) & 1, (b >> 4) & 1, \
                (b >> 3) & 1, (b >> 2) & 1, (b >> 1) & 1
            first, last = j == 0, j == len(fp) - 1
            if not I or not pl[1] & 0x80:
                fail('frame %d packet %d: no 15-bit picture ID (%02x %02x)' % (i, j, b, pl[1]))
            p = (pl[1] & 0x7f) << 8 | pl[2]
            if pid is None:
                pid = p
            elif p != pid:
                fail('frame %d: picture ID %d then %d within the frame' % (i, pid, p))
            if L or F:
                fail('frame %d: layer indices or flexible mode (%02x), one layer sent' % (i, b))
            if B != first or E != last or m != last:
                fail('frame %d packet %d of %d: B %d E %d marker %d' % (i, j, len(fp), B, E, m))
            if P != (not keys[i]):
                fail('frame %d (%s in the source): P %d' % (i, 'key' if keys[i] else 'inter', P))
            if V != (first and keys[i]):
                fail('frame %d packet %d: V %d' % (i, j, V))
            if V:
                ss = pl[3:]
                if len(ss) < 5 or ss[0] != 0x10:
                    fail('frame %d: scalability structure %s, want one layer with its size' % (i, ss[:5].hex()))
                w, h = int.from_bytes(ss[1:3], 'big'), int.from_bytes(ss[3:5], 'big')
                if (w, h) != (width, height):
                    fail('frame %d: size %dx%d in the SS, the source is %dx%d' % (i, w, h, width, height))
        if prev_pid is not None and pid != (prev_pid + 1) & 0x7fff:
            fail('frame %d: picture ID %d after %d' % (i, pid, prev_pid))
        prev_pid = pid
        nkey += keys[i]
    print('%d packets, %d frames (%d key frames with their size, %d inter frames with P), '
          'picture IDs %d..%d one by one' % (len(pkts), len(frames), nkey, len(frames) - nkey,
                                              (prev_pid - len(frames) + 1) & 0x7fff, prev_pid))


main()

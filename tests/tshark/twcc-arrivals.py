#!/usr/bin/python3
"""
How far the arrival times a receiver reports in transport-cc feedback are
from the times the datagrams were captured, both as tshark decodes them.

  twcc-arrivals.py CAPTURE RTP_PORT

CAPTURE holds the RTP datagrams (to RTP_PORT, each on its own: not GSO) with
the transport-wide sequence number extension (id 1) and the receiver's RTCP
(to or from RTP_PORT + 1). From each report whose packets all arrived (as
many receive deltas as the status count says, all of one byte) the arrival
times it reports (its reference time plus the deltas); the gap between each
two consecutive packets, in one report or across two, is compared with the
gap between their capture times. Prints: pairs, then the 50th, 99th
percentile and the largest difference in ms; and the largest delay the
reports show that the capture does not (the reported arrival less the
capture time, less the smallest such, in ms): a queue that was not there.
"""
import subprocess
import sys


def main():
    cap, port = sys.argv[1], int(sys.argv[2])
    out = subprocess.run(
        ["tshark", "-r", cap, "-d", "udp.port==%d,rtp" % port, "-d", "udp.port==%d,rtcp" % (port + 1),
         "-T", "fields", "-E", "separator=;", "-e", "frame.time_epoch", "-e", "rtp.ext.rfc5285.id",
         "-e", "rtp.ext.rfc5285.data", "-e", "rtcp.rtpfb.transportcc.baseseq",
         "-e", "rtcp.rtpfb.transportcc.statuscount", "-e", "rtcp.rtpfb.transportcc.reftime",
         "-e", "rtcp.rtpfb.transportcc.recv_delta"],
        capture_output=True, text=True, check=True).stdout
    sent = {}           # transport-wide number -> capture time (s)
    reports = []
    for line in out.splitlines():
        f = line.split(";")
        if len(f) < 7:
            continue
        if f[1] and f[2]:
            ids, data = f[1].split(","), f[2].split(",")
            for i, d in zip(ids, data):
                if i == "1" and len(d) == 4:
                    sent.setdefault(int(d, 16), float(f[0]))
        elif f[3] and f[4] and f[5] and f[6] and "," not in f[3]:
            # one report in the datagram (with more, tshark's lists run together)
            reports.append((int(f[3]), int(f[4]), int(f[5]), [int(x, 16) for x in f[6].split(",") if x]))
    arrival = {}        # transport-wide number -> reported arrival (ms, the receiver's clock)
    for base, count, ref, deltas in reports:
        if len(deltas) != count or any(d > 255 for d in deltas):
            continue
        t = ref * 64.0
        for k in range(count):
            t += deltas[k] * 0.25
            arrival[(base + k) & 0xffff] = t
    diffs, offsets = [], []
    for b in sorted(arrival):
        a = (b - 1) & 0xffff
        if b in sent:
            offsets.append(arrival[b] - sent[b] * 1000)
        if a in arrival and a in sent and b in sent:
            diffs.append(abs((arrival[b] - arrival[a]) - (sent[b] - sent[a]) * 1000))
    if not diffs:
        print("0 0 0 0 0")
        return
    diffs.sort()
    low = min(offsets)
    spread = sorted(o - low for o in offsets)
    n = len(diffs)
    print("%d %.3f %.3f %.3f %.3f" % (n, diffs[n // 2], diffs[min(n - 1, n * 99 // 100)], diffs[-1], spread[-1]))


if __name__ == "__main__":
    main()

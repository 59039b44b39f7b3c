# Helpers shared by the RTP end-to-end tests (sourced). Everything stays on
# 127.0.0.1, or in network namespaces the test makes itself (netns_link).
# Expects $build; sets ffmpeg, stock, tools, work (removed on exit).
ffmpeg=$build/ffmpeg/ffmpeg
stock=$build/stock/ffmpeg
tools=$build/tests
work=$(mktemp -d)
netns_made=
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true
      for n in $netns_made; do ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null; ip netns del "$n"; done
      [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

# netns_link RATE_KBIT QUEUE_BYTES: two network namespaces of this test's
# own, $nsa (10.77.0.1) and $nsb (10.77.0.2), joined by a veth pair and
# nothing else; what $nsa sends goes through a kernel bottleneck (tbf) of
# RATE_KBIT with a drop-tail queue of QUEUE_BYTES (tbf cuts TCP's
# offloaded super-segments into segments), the other way is free. Removed
# on exit.
netns_link() {
    nsa=lcv$$a nsb=lcv$$b
    ip netns add "$nsa" && netns_made="$netns_made $nsa" || die "cannot make a network namespace (root needed)"
    ip netns add "$nsb" && netns_made="$netns_made $nsb" || die "cannot make a network namespace"
    ip link add va netns "$nsa" type veth peer name vb netns "$nsb" || die "no veth pair"
    ip -n "$nsa" addr add 10.77.0.1/24 dev va
    ip -n "$nsb" addr add 10.77.0.2/24 dev vb
    ip -n "$nsa" link set lo up; ip -n "$nsa" link set va up
    ip -n "$nsb" link set lo up; ip -n "$nsb" link set vb up
    tc -n "$nsa" qdisc add dev va root tbf rate "${1}kbit" burst 6000 limit "$2" || die "no tbf qdisc"
}

# netns_router RATE_KBIT QUEUE_BYTES: three namespaces of this test's own,
# $nsa (10.77.0.1) - $nsr (a router) - $nsb (10.78.0.2): what goes from
# $nsa to $nsb leaves the router through a tbf of RATE_KBIT with a
# drop-tail queue of QUEUE_BYTES. Unlike netns_link, whose bottleneck is
# the sender's own device (a full queue there blocks the sending socket,
# as no router on a real path does), the queue overflows and drops.
netns_router() {
    local rate=$1 queue=$2
    nsa=lcv$$a nsb=lcv$$b nsr=lcv$$r
    for n in "$nsa" "$nsb" "$nsr"; do
        ip netns add "$n" && netns_made="$netns_made $n" || die "cannot make a network namespace (root needed)"
        ip -n "$n" link set lo up
    done
    ip link add va netns "$nsa" type veth peer name ra netns "$nsr" || die "no veth pair"
    ip link add vb netns "$nsb" type veth peer name rb netns "$nsr" || die "no veth pair"
    ip -n "$nsa" addr add 10.77.0.1/24 dev va
    ip -n "$nsr" addr add 10.77.0.254/24 dev ra
    ip -n "$nsr" addr add 10.78.0.254/24 dev rb
    ip -n "$nsb" addr add 10.78.0.2/24 dev vb
    for l in "$nsa va" "$nsr ra" "$nsr rb" "$nsb vb"; do set -- $l; ip -n "$1" link set "$2" up; done
    ip -n "$nsa" route add default via 10.77.0.254
    ip -n "$nsb" route add default via 10.78.0.254
    ip netns exec "$nsr" sysctl -qw net.ipv4.ip_forward=1
    tc -n "$nsr" qdisc add dev rb root tbf rate "${rate}kbit" burst 6000 limit "$queue" || die "no tbf qdisc"
}

# netns_delay MS SECONDS: after netns_link (or netns_router), what $nsa
# sends to 10.77.0.2 (10.78.0.2) waits MS before its bottleneck
# (tests/net/delayline.c, a tun device in $nsa; the way back is direct),
# for SECONDS at most: a real round trip for TCP and the video alike, where
# the kernel has no netem
netns_delay() {
    local mac dst=10.77.0.2
    if [ -n "${nsr:-}" ]; then
        mac=$(ip -n "$nsr" link show ra | awk '/link\/ether/ { print $2 }') dst=10.78.0.2
    else
        mac=$(ip -n "$nsb" link show vb | awk '/link\/ether/ { print $2 }')
    fi
    ip netns exec "$nsa" sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.va.rp_filter=0
    ip netns exec "$nsa" "$tools/delayline" dl0 va "$mac" "$1" "$2" > "$work/delayline.log" 2>&1 &
    for _ in $(seq 100); do grep -q ready "$work/delayline.log" && break; sleep 0.05; done
    grep -q ready "$work/delayline.log" || die "delayline did not start: $(cat "$work/delayline.log")"
    ip -n "$nsa" link set dl0 up
    ip -n "$nsa" route replace "$dst/32" dev dl0 src 10.77.0.1 || die "no route through the delay line"
}

die() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "  $*"; }
port() { "$tools/freeport"; }
# wait_file FILE: until FILE exists (10 s at most)
wait_file() { for _ in $(seq 200); do [ -e "$1" ] && return 0; sleep 0.05; done; die "timeout waiting for $1"; }
# wait_udp PORT: until some socket is bound to 127.0.0.1:PORT (10 s at most)
wait_udp() {
    local hex; hex=$(printf '%04X' "$1")
    for _ in $(seq 200); do grep -q ":$hex 00000000:0000" /proc/net/udp && return 0; sleep 0.05; done
    die "timeout waiting for a receiver on port $1"
}
md5list() { grep -v '^#' "$1" | awk -F', *' '{ print $NF }'; }
# json FILE KEY: the last value of KEY in a JSON-lines file
json() { sed -n "s/.*\"$2\":\\([-0-9.e]*\\).*/\\1/p" "$1" | tail -n 1; }

# ports: relay in (p_relay, +1), receiver (p_recv, +1), sender's own (p_send, +1)
ports() {
    p_relay=$(port); p_recv=$(port); p_send=$(port)
    while [ "$p_recv" = "$p_relay" ]; do p_recv=$(port); done
    while [ "$p_send" = "$p_relay" ] || [ "$p_send" = "$p_recv" ]; do p_send=$(port); done
}

# mkinputs: the send-path and feedback tests' inputs in $inputs (made once):
# h264.mkv (640x360 3 Mbit/s, noise), big.mkv (1080p frames of 80-100 KB),
# hevc.mkv (x265), pcm.mkv
inputs=$build/tests/rtp-inputs
mkinputs() {
    [ -f "$inputs/done" ] && return 0
    mkdir -p "$inputs"
    local noise="noise=alls=24:allf=t"
    "$ffmpeg" -nostdin -v error -y -f lavfi -i "testsrc2=s=640x360:r=25:d=2,$noise" \
        -c:v libx264 -preset veryfast -b:v 3M -g 25 "$inputs/h264.mkv"
    # 1080p frames of 80-100 KB, one NAL each, for pkt_size 65507
    "$ffmpeg" -nostdin -v error -y -f lavfi -i "testsrc2=s=1920x1080:r=25:d=1" \
        -c:v libx264 -preset veryfast -crf 6 -g 25 "$inputs/big.mkv"
    "$ffmpeg" -nostdin -v error -y -f lavfi -i "testsrc2=s=640x360:r=25:d=2,$noise" \
        -f yuv4mpegpipe - | x265 --input - --y4m --preset ultrafast --bitrate 2000 \
        --keyint 25 --bframes 0 --log-level error -o "$work/h.hevc" 2> /dev/null
    "$ffmpeg" -nostdin -v error -y -framerate 25 -i "$work/h.hevc" -c copy "$inputs/hevc.mkv"
    "$ffmpeg" -nostdin -v error -y -f lavfi -i "sine=f=440:d=2:r=48000" -ac 2 \
        -c:a pcm_s16be "$inputs/pcm.mkv"
    touch "$inputs/done"
}

# capture NAME IDLE_MS TOTAL_MS PORT[:FWD[:DELAY_MS]]...: the capturing relay
# (tests/net/rtpcap.c capture) in the background, into NAME.pcap; sets cap_pid
capture() {
    local name=$1 idle=$2 total=$3; shift 3
    rm -f "$work/$name.ready"
    "$tools/rtpcap" capture "$work/$name.pcap" "$work/$name.ready" 1000000 "$idle" "$total" "$@" \
        2> "$work/$name.cap.log" &
    cap_pid=$!
    wait_file "$work/$name.ready"
}

# relay NAME LOSS_PPM BURST DELAY_MS [SEED] [RTX_LOSS] [RATE_KBIT QUEUE_BYTES]:
# tests/net/rtpcap.c relay (with a bottleneck if RATE_KBIT is given)
relay() {
    rm -f "$work/$1.ready"
    "$tools/rtpcap" relay "$work/$1.pcap" "$work/$1.ready" "${5:-11}" "$2" "$3" "$4" 1500 90000 \
        "$p_relay" "$p_recv" "$((p_send + 1))" "${6:-0}" ${7:+"$7" "$8"} > "$work/$1.relay" &
    relay_pid=$!
    wait_file "$work/$1.ready"
}

# relay_counts NAME: sets r_in r_drop r_rtx_drop r_qdrop from the relay's last line
relay_counts() {
    local line; line=$(grep '^rtp_in' "$work/$1.relay") || die "$1: the relay printed no counts"
    set -- $line
    r_in=$2 r_drop=$4 r_rtx_drop=${12:-0} r_qdrop=${14:-0}
}

# clip_720p: a 4 s 720p25 clip, x264 veryfast zerolatency at ~4 Mbit/s,
# GOP 50, with temporal noise so that every frame costs bits (made once in
# $build/tests/rtp-inputs, then reused); prints its path
clip_720p() {
    local f=$build/tests/rtp-inputs/720p25-4M-4s.mkv
    mkdir -p "$build/tests/rtp-inputs"
    if [ ! -s "$f" ]; then
        "$ffmpeg" -nostdin -v error -y -f lavfi -i "testsrc2=s=1280x720:r=25:d=4,noise=alls=12:allf=t" \
            -c:v libx264 -preset veryfast -tune zerolatency -b:v 4M -maxrate 4M -bufsize 2M \
            -g 50 -bf 0 "$f.tmp.mkv" && mv "$f.tmp.mkv" "$f"
    fi
    echo "$f"
}

# clip_8m: the 8 s 1080p25 H.264 clip at about 8 Mbit/s (x264 veryfast
# zerolatency, GOP 50, temporal noise) of the loss and pacing benchmarks,
# made once in $build/bench; prints its path
clip_8m() {
    local in=$build/bench/h264-1080p25-8M-8s.mkv
    mkdir -p "$build/bench"
    if [ ! -s "$in" ]; then
        "$ffmpeg" -nostdin -v error -y -f lavfi -i "testsrc2=s=1920x1080:r=25:d=8,noise=alls=12:allf=t" \
            -c:v libx264 -preset veryfast -tune zerolatency -b:v 8M -maxrate 8M -bufsize 4M -g 50 -bf 0 \
            "$in.tmp.mkv" && mv "$in.tmp.mkv" "$in"
    fi
    echo "$in"
}

url() { echo "rtp://127.0.0.1:$p_relay?pkt_size=1200&localrtpport=$p_send&localrtcpport=$((p_send + 1))"; }

# live_through_relay NAME SIZE SENDER_OPTIONS...: 3 s of live H.264 of
# SIZE (testsrc2, 25 fps) sent with those options through the relay already
# started (relay), to this project's receiver asking for what it misses
# (rtcp_to_source); waits for the three to end. The fuzzers' seeds.
live_through_relay() {
    local name=$1 size=$2; shift 2
    "$ffmpeg" -nostdin -v error -f lavfi -i "testsrc2=s=$size:r=25:d=1" "$@" -frames 1 \
        -sdp_file "$work/$name.sdp" "rtp://127.0.0.1:$p_recv" > /dev/null
    timeout 60 "$ffmpeg" -nostdin -v error -protocol_whitelist file,udp,rtp -sdp_flags rtcp_to_source \
        -i "$work/$name.sdp" -f null - > /dev/null 2>&1 &
    recv_pid=$!
    wait_udp "$p_recv"
    timeout 60 "$ffmpeg" -nostdin -v error -re -f lavfi -i "testsrc2=s=$size:r=25:d=3" "$@" \
        "$(url)" > /dev/null 2>&1 || die "$name: the sender failed"
    wait "$recv_pid" || true
    wait "$relay_pid"
}

# compare NAME INPUT: decoded frames (NAME.framemd5) vs the source's; sets n_src n_ok
compare() {
    "$ffmpeg" -nostdin -v error -y -i "$2" -map 0 -fps_mode passthrough -f framemd5 "$work/$1.src.framemd5"
    md5list "$work/$1.src.framemd5" > "$work/$1.src.list"
    md5list "$work/$1.framemd5" > "$work/$1.recv.list"
    n_src=$(wc -l < "$work/$1.src.list")
    n_ok=$(paste "$work/$1.src.list" "$work/$1.recv.list" | awk '$1 == $2' | wc -l)
}

# receive NAME BIN INPUT [SENDER OPTIONS...]: the SDP of INPUT sent with
# those options, then BIN reading it on p_recv with defaults apart from
# rtcp_to_source, decoding to NAME.framemd5 (log NAME.recv.log, verbose;
# with RECV_TIMED=1 each line with the time of day, and each packet the
# demuxer hands on with its timestamps: -debug_ts, for added_delays)
receive() {
    local name=$1 bin=$2 in=$3 log=(-v verbose); shift 3
    [ -n "${RECV_TIMED:-}" ] && log=(-loglevel level+time+verbose -debug_ts)
    "$ffmpeg" -nostdin -v error -i "$in" -c copy -frames 1 -f rtp "$@" -sdp_file "$work/$name.sdp" \
        "rtp://127.0.0.1:$p_recv" > /dev/null
    timeout 90 "$bin" -nostdin "${log[@]}" -protocol_whitelist file,udp,rtp -sdp_flags rtcp_to_source \
        -i "$work/$name.sdp" -map 0 -fps_mode passthrough -y -f framemd5 "$work/$name.framemd5" \
        2> "$work/$name.recv.log" &
    recv_pid=$!
    wait_udp "$p_recv"
}

# added_delays NAME DELAY_MS: the delay the receiver (run with
# RECV_TIMED=1) added to each frame: when its demuxer handed the frame on
# (its log's time of day, ms) less when the frame's last packet reached
# the relay (the capture NAME.pcap, first transmissions) and the relay's
# DELAY_MS. Frames are matched by timestamp (the demuxer's pts advance as
# the RTP timestamps do; the offset is the one that matches most); only
# frames that reached the receiver after it handed on its first count
# (FFmpeg's probe holds the first ones). Prints
# "N MEDIAN P95 MAX" (ms); fails if fewer than half the frames match.
added_delays() {
    tshark -r "$work/$1.pcap" -d "udp.port==$p_relay,rtp" -Y "udp.dstport == $p_relay && rtp" \
        -T fields -e frame.time_epoch -e rtp.seq -e rtp.timestamp -e rtp.marker 2> /dev/null > "$work/$1.arrivals"
    grep -a 'demuxer -> ist_index:0:0 type:video' "$work/$1.recv.log" |
        sed -n 's/^\([0-9:.]*\) .* pkt_pts:\([-0-9]*\) .*/\1 \2/p' > "$work/$1.handed"
    python3 - "$work/$1.arrivals" "$work/$1.handed" "$2" <<'PY'
import sys, time, datetime
arr, handed, delay = sys.argv[1], sys.argv[2], float(sys.argv[3]) / 1000
seen, last, prev = set(), {}, None
base = 0
for line in open(arr):
    f = line.split()
    if len(f) < 4:
        continue
    t, seq, ts = float(f[0]), int(f[1]), int(f[2])
    if seq in seen:
        continue                    # a retransmission
    seen.add(seq)
    if prev is not None and ts - prev < -(1 << 31):
        base += 1 << 32
    prev = ts
    last[base + ts] = t             # the frame's last packet so far
first_t = min(last.values())
day = datetime.datetime.fromtimestamp(first_t).replace(hour=0, minute=0, second=0, microsecond=0)
out = []
for line in open(handed):
    hms, pts = line.split()
    h, m, s = hms.split(":")
    t = day.timestamp() + int(h) * 3600 + int(m) * 60 + float(s)
    if t < first_t - 43200:
        t += 86400
    out.append((t, int(pts)))
if not out:
    print("0 0 0 0"); sys.exit(1)
stamps = sorted(last)
best = max(stamps[:25], key=lambda s0: sum(1 for _, p in out if s0 + p - out[0][1] in last))
# frames that reached the receiver after it handed on its first: those
# before waited for FFmpeg's probe, not for repairs
delays = [t - (last[best + p - out[0][1]] + delay) for t, p in out
          if best + p - out[0][1] in last and last[best + p - out[0][1]] + delay >= out[0][0]]
matched = sum(1 for _, p in out if best + p - out[0][1] in last)
if matched * 2 < len(out) or not delays:
    print("%d 0 0 0" % matched); sys.exit(1)
delays.sort()
ms = lambda x: round(x * 1000, 1)
print(len(delays), ms(delays[len(delays) // 2]), ms(delays[min(len(delays) - 1, int(len(delays) * 0.95))]), ms(delays[-1]))
PY
}

# gst_receiver NAME SDP_OF_THE_STREAM RETRANSMIT [LATENCY_MS] [BANDWIDTH]:
# GStreamer's rtpbin on p_recv (AVPF), its RTCP back to the relay; the
# depayloaded H.264 goes to NAME.h264; sets gst_pid. BANDWIDTH (bit/s, the
# stream's rate) is the RTP session's "bandwidth", which rtspsrc takes from
# an SDP's b=AS: without it rtpsession budgets its RTCP for 64 kbit/s and
# allows an early feedback packet only every T_rr, about 0.4 s (its debug
# log: "can't allow early RTCP yet ... + 0:00:00.395..."), so a NACK for a
# loss right after another one waits up to that long. With it, T_rr is a
# few ms at a camera's rate. gst-launch reaches the session rtpbin creates
# as the child rtpsession0 (a program: "get-internal-session").
gst_receiver() {
    local sprop bw=()
    sprop=$(sed -n 's/.*sprop-parameter-sets=\([^;]*\);.*/\1/p' "$2" | tr -d '\r')
    [ -n "${5:-}" ] && bw=("rtpsession0::bandwidth=$5")
    # the caps say what the SDP says: PLI and NACK feedback are allowed
    timeout 90 gst-launch-1.0 -e rtpbin name=rb rtp-profile=avpf do-retransmission="$3" do-lost=true \
        latency="${4:-500}" "${bw[@]}" \
        udpsrc port="$p_recv" buffer-size=8388608 caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96,rtcp-fb-nack=(boolean)true,rtcp-fb-nack-pli=(boolean)true${sprop:+,sprop-parameter-sets=(string)\"$sprop\"}" \
        ! rb.recv_rtp_sink_0 udpsrc port="$((p_recv + 1))" ! rb.recv_rtcp_sink_0 \
        rb. ! rtph264depay request-keyframe=true ! "video/x-h264,stream-format=byte-stream,alignment=au" \
        ! filesink location="$work/$1.h264" \
        rb.send_rtcp_src_0 ! udpsink host=127.0.0.1 port="$((p_relay + 1))" sync=false async=false \
        > "$work/$1.gst.log" 2>&1 &
    gst_pid=$!
    wait_udp "$p_recv"
}

# stop_gst: EOS (SIGINT with -e) so that filesink finishes
stop_gst() {
    sleep 1
    pkill -INT -P "$gst_pid" 2>/dev/null || true
    wait "$gst_pid" 2>/dev/null || true
}

# bitrate FILE: its average bit rate in bit/s (file size over duration)
bitrate() {
    local d
    d=$("$ffmpeg" -nostdin -i "$1" 2>&1 | sed -n 's/.*Duration: \([0-9:.]*\),.*/\1/p' | head -n 1)
    awk -v d="$d" -v s="$(stat -c %s "$1")" \
        'BEGIN { split(d, t, ":"); sec = t[1] * 3600 + t[2] * 60 + t[3]; if (sec <= 0) exit 1
                 printf "%d\n", s * 8 / sec }'
}

# idr_costs PCAP RELAY_LOG DELAY_MS FRAME_MS: for the first transmissions
# the relay dropped (RELAY_LOG's "dropped SEQ"; its capture PCAP, the relay
# at p_relay): each loss that broke a good picture (the first after the
# end of the previous IDR, at least 1.5 s into the stream and 350 ms after
# that IDR began, so that keyframe_min_interval cannot hold a request back)
# and the IDR that restored it: one line "SEQ FROM_LOSS_MS FROM_REQUEST_MS"
# each: when the IDR's last packet reached the receiver (relay + DELAY_MS)
# less when the lost packet reached the relay, and less when the
# receiver's first NACK or PLI after the loss reached the relay.
# awk functions for the H.264 payloads tshark prints (hex with colons):
# h(hex) its value; nal(payload) the NAL unit type, of the fragment's
# unit for a starting FU-A, -1 for a later fragment
NAL_AWK='function h(s,  i, v) { v = 0; s = tolower(s)
    for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
    return v }
function nal(p,  n, fu) { gsub(":", "", p); n = h(substr(p, 1, 2)) % 32
    if (n == 28) { fu = h(substr(p, 3, 2)); n = int(fu / 128) % 2 ? fu % 32 : -1 }
    return n }'

# idr_spreads PCAP: for each IDR after the first, in ms, from its first to
# its last packet (first transmissions) as they reached the relay
idr_spreads() {
    tshark -r "$1" -d "udp.port==$p_relay,rtp" -Y "udp.dstport == $p_relay && rtp" \
        -T fields -E separator=' ' -e frame.time_epoch -e rtp.seq -e rtp.timestamp -e rtp.payload 2>/dev/null |
    awk "$NAL_AWK"'
        { t = $1 * 1000; if ($2 in seen) next; seen[$2] = 1
          if (!($3 in start)) { start[$3] = t; order[no++] = $3 }; end[$3] = t
          if (nal($4) == 5) idr[$3] = 1 }
        END { for (i = 0; i < no; i++) if (order[i] in idr && k++) printf "%.1f\n", end[order[i]] - start[order[i]] }'
}

idr_costs() {
    tshark -r "$1" -d "udp.port==$p_relay,rtp" -d "udp.port==$((p_relay + 1)),rtcp" \
        -Y "(udp.dstport == $p_relay && rtp) || (udp.dstport == $((p_relay + 1)) && (rtcp.pt == 205 || rtcp.pt == 206))" \
        -T fields -E separator=' ' -E occurrence=a -E aggregator=, \
        -e frame.time_epoch -e udp.dstport -e rtp.seq -e rtp.timestamp -e rtp.payload 2>/dev/null |
    awk -v relay="$2" -v d="$3" -v rp="$p_relay" "$NAL_AWK"'
        BEGIN { while ((getline l < relay) > 0) if (split(l, f, " ") == 2 && f[1] == "dropped") drop[f[2]] = 1 }
        {
            t = $1 * 1000
            if (t0 == "") t0 = t
            if ($2 != rp) { req[nr++] = t; next }
            seq = $3; ts = $4
            if (seq in seen) next           # a retransmission
            seen[seq] = 1
            if (!(ts in start)) { start[ts] = t; order[no++] = ts }
            end[ts] = t
            if (nal($5) == 5) idr[ts] = 1
            if (seq in drop) { lost[nl] = t; lseq[nl++] = seq }
        }
        END {
            # the IDRs in order
            for (i = 0; i < no; i++) if (order[i] in idr) { is[ni] = start[order[i]]; ie[ni++] = end[order[i]] }
            k = 0; r = 0; prev_end = -1e18; prev_start = -1e18; last_counted = -1e18
            for (j = 0; j < nl; j++) {
                tl = lost[j]
                while (k < ni && is[k] <= tl) { prev_start = is[k]; prev_end = ie[k]; k++ }
                if (k == ni) break                      # no IDR after it
                if (tl < t0 + 1500 || tl - prev_start < 350 || last_counted > prev_end) continue
                if (prev_end > tl) continue             # lost inside the previous IDR
                last_counted = tl
                while (r < nr && req[r] < tl) r++
                printf "%s %.1f %.1f\n", lseq[j], ie[k] + d - tl, r < nr ? ie[k] + d - req[r] : -1
            }
        }'
}

#!/usr/bin/env bash
# Paced sending in the rtp muxer (libavformat/rtpsend.c), all on 127.0.0.1.
#   tests/rtp/pacing.sh BUILD TEST
# TEST:
#   bottleneck  the 720p25 ~4 Mbit/s clip (-re -c copy) through the relay's
#               bottleneck, 2x the clip's rate behind a 64 KB drop-tail queue,
#               20 ms towards the receiver (ours, defaults): ours paced loses
#               at most 0.5 % of the datagrams in the queue and keeps 99 % of
#               the frames intact; unpaced (pace=0) and stock lose more than
#               2 %. The relay's capture (kernel arrival times) shows the
#               spacing: at most pace_burst + one packet within any 1 ms for
#               ours, and the whole IDR within a few ms unpaced.
#   resend      retransmissions jump the queue: with the pacer holding a
#               backlog (pace_factor 1), NACKs (tests/net/rtcpinject.c) are
#               answered within 20 ms at the 90th percentile while paced
#               packets wait more than 60 ms (95th percentile).
#   bye         the BYE comes after the last paced packet (bye_delay after
#               it), and every packet arrives, with the pacer slow.
#   wire        pace=1, pace=0 and pace_kernel=1 put byte-identical datagrams
#               on the wire; dscp 34 marks RTP and RTCP (tshark reads the
#               DSCP), and nothing is marked without it.
#   kernel      SO_TXTIME: by default (pace_kernel auto) the sender checks
#               the qdisc of the device its packets leave by; lo has no fq,
#               so it says so and its timer paces. With pace_kernel 1 every
#               burst carries a departure time (tests/net/sendfail.c txtime
#               logs what the kernel is given, as no fq is here to act on
#               it): handed over at most 20 ms ahead of it, at most
#               pace_burst and a packet per 1 ms of departure times, and the
#               BYE bye_delay after the last departure time.
set -eu
build=$1 what=$2
. "$(dirname "$0")/lib.sh"
SSRC=0x12345678

# peak NAME PORT: the most bytes of datagrams to PORT within any 1 ms, and
# the first-to-last spread of the largest frame, in ms
peak() {
    "$tools/rtpcap" times "$work/$1.pcap" "$2" | awk '
        { t[m] = $1; b[m++] = $4; if (!($3 in f)) f[$3] = $1; l[$3] = $1; s[$3] += $4 }
        END { for (i = 0; i < m; i++) { sum += b[i]; while (t[i] - t[j] >= 1000) sum -= b[j++]; if (sum > p) p = sum }
              for (k in s) if (s[k] > s[big] || big == "") big = k
              printf "%d %.1f\n", p, (l[big] - f[big]) / 1000 }'
}

# through NAME BIN [SENDER OPTIONS...]: the clip through the bottleneck
through() {
    local name=$1 bin=$2; shift 2
    ports
    relay "$name" 0 1 20 11 0 "$rate" 65536
    receive "$name" "$ffmpeg" "$in"
    timeout 60 "$bin" -nostdin -v verbose -re -i "$in" -c copy -f rtp "$@" "$(url)" \
        > "$work/$name.send.log" 2>&1 || die "$name: sender failed"
    wait "$recv_pid" || true
    wait "$relay_pid" || true
    relay_counts "$name"
    compare "$name" "$in"
    set -- $(peak "$name" "$p_relay")
    pk=$1 spread=$2
    note "$name: $r_qdrop of $r_in datagrams lost in the queue; $n_ok of $n_src frames intact;" \
         "at most $pk bytes within 1 ms; largest frame sent over $spread ms"
}

test_bottleneck() {
    in=$(clip_720p)
    local kbit=$(( $(stat -c %s "$in") * 8 / 4 / 1000 ))
    rate=$((kbit * 2))
    note "clip $kbit kbit/s; bottleneck $rate kbit/s, 64 KB drop-tail queue"
    through ours "$ffmpeg" ${PACE_OPTS:-}
    [ $((r_qdrop * 200)) -le "$r_in" ] || die "ours lost $r_qdrop of $r_in in the queue (0.5 % allowed)"
    [ $((n_ok * 100)) -ge $((n_src * 99)) ] || die "ours: $n_ok of $n_src frames intact"
    [ "$pk" -le $((16384 + 1200)) ] || die "ours sent $pk bytes within 1 ms: more than pace_burst and a packet"
    through unpaced "$ffmpeg" -pace 0
    [ $((r_qdrop * 50)) -gt "$r_in" ] || die "unpaced lost only $r_qdrop of $r_in: the bottleneck does not bite"
    [ "$pk" -ge 65536 ] || die "unpaced sent only $pk bytes within 1 ms: not the burst expected"
    through stock "$stock"
    [ $((r_qdrop * 50)) -gt "$r_in" ] || die "stock lost only $r_qdrop of $r_in: the bottleneck does not bite"
}

test_resend() {
    local in p q r; in=$(clip_720p)
    p=$(port); q=$(port)
    while [ "$q" = "$p" ]; do q=$(port); done
    "$tools/rtcpinject" nack "$p" "$((q + 1))" "$SSRC" 20 20000 > "$work/nack.txt" &
    local inj=$!
    wait_udp "$p"
    timeout 60 "$ffmpeg" -nostdin -v error -re -i "$in" -c copy -f rtp -ssrc "$SSRC" \
        -pace_factor 1 -pace_max_delay 1 -stats_file "$work/resend.json" -stats_interval 0 \
        "rtp://127.0.0.1:$p?pkt_size=1200&localrtpport=$q&localrtcpport=$((q + 1))" \
        > /dev/null 2>&1 || die "sender failed"
    wait "$inj" || die "NACKs unanswered: $(cat "$work/nack.txt")"
    r=$(cat "$work/nack.txt")
    local p90 wait95
    p90=$(echo "$r" | sed -n 's/.*p90_us \([0-9]*\).*/\1/p')
    wait95=$(json "$work/resend.json" pace_delay_p95_ms)
    note "pacer holding a backlog (packets waited $wait95 ms at the 95th percentile); NACKs: $r"
    awk -v w="$wait95" 'BEGIN { exit !(w > 60) }' || die "the pacer held no backlog ($wait95 ms): the test tests nothing"
    [ -n "$p90" ] && [ "$p90" -lt 20000 ] || die "retransmissions waited behind the paced media: p90 $p90 us"
}

test_bye() {
    local in p; in=$(clip_720p)
    p=$(port)
    capture bye 1500 30000 "$p" "$((p + 1))"
    timeout 60 "$ffmpeg" -nostdin -v verbose -re -i "$in" -c copy -f rtp -ssrc "$SSRC" \
        -pace_factor 1 -pace_max_delay 1 -stats_file "$work/bye.json" -stats_interval 0 \
        "rtp://127.0.0.1:$p?pkt_size=1200" > "$work/bye.log" 2>&1 || die "sender failed"
    wait "$cap_pid"
    local sent got last bye wait95
    sent=$(json "$work/bye.json" packets)
    got=$("$tools/rtpcap" times "$work/bye.pcap" "$p" | wc -l)
    last=$("$tools/rtpcap" times "$work/bye.pcap" "$p" | awk '{ if ($1 > t) t = $1 } END { print t }')
    # the BYE: the RTCP datagram with packet type 203 in it
    bye=$(tshark -r "$work/bye.pcap" -d "udp.port==$((p + 1)),rtcp" -Y "rtcp.pt == 203" \
          -T fields -e frame.time_epoch 2>/dev/null | head -n 1)
    wait95=$(json "$work/bye.json" pace_delay_p95_ms)
    [ -n "$bye" ] || die "no BYE captured"
    local gap; gap=$(awk -v b="$bye" -v l="$last" 'BEGIN { printf "%.1f", (b * 1e6 - l) / 1000 }')
    note "$got of $sent RTP packets arrived; packets waited up to $wait95 ms in the pacer (p95);" \
         "the BYE came $gap ms after the last of them"
    [ "$got" = "$sent" ] || die "$got of $sent packets arrived"
    awk -v w="$wait95" 'BEGIN { exit !(w > 60) }' || die "the pacer held no backlog ($wait95 ms): the test tests nothing"
    awk -v g="$gap" 'BEGIN { exit !(g >= 45) }' || die "the BYE came $gap ms after the last paced packet (bye_delay 50 ms)"
}

test_wire() {
    local in p; in=$(clip_720p)
    local common=(-ssrc "$SSRC" -seq 100 -base_timestamp 1000 -cname wire)
    for v in "pace 1" "pace 0" "dscp 34" "pace_kernel 1"; do
        set -- $v
        local name=$1$2
        p=$(port)
        capture "$name" 1500 30000 "$p" "$((p + 1))"
        timeout 60 "$ffmpeg" -nostdin -v error -re -i "$in" -c copy -f rtp "${common[@]}" -"$1" "$2" \
            "rtp://127.0.0.1:$p?pkt_size=1200" > /dev/null 2>&1 || die "$name: sender failed"
        wait "$cap_pid"
        "$tools/rtpcap" dump "$work/$name.pcap" "$p" > "$work/$name.dump"
        tshark -r "$work/$name.pcap" -T fields -e udp.dstport -e ip.dsfield.dscp 2>/dev/null |
            sort | uniq -c | awk '{ printf "%s%s:%s x%s", (NR > 1 ? ", " : ""), $2, $3, $1 }' > "$work/$name.dscp"
        # RTP to p, RTCP to p + 1
        ports_seen=$(tshark -r "$work/$name.pcap" -T fields -e udp.dstport 2>/dev/null | sort -u | tr '\n' ' ')
        [ "$ports_seen" = "$p $((p + 1)) " ] || die "$name: datagrams to ports $ports_seen"
        local want=0
        [ "$1" = dscp ] && want=34
        tshark -r "$work/$name.pcap" -T fields -e ip.dsfield.dscp 2>/dev/null | grep -qvx "$want" &&
            die "$name: DSCP other than $want: $(cat "$work/$name.dscp")"
        note "$name: $(wc -l < "$work/$name.dump") RTP datagrams; port:DSCP $(cat "$work/$name.dscp")"
    done
    cmp -s "$work/pace1.dump" "$work/pace0.dump" || die "pace 1 and pace 0 differ on the wire"
    cmp -s "$work/pace1.dump" "$work/dscp34.dump" || die "dscp changed the datagrams"
    cmp -s "$work/pace1.dump" "$work/pace_kernel1.dump" || die "pace_kernel 1 changed the datagrams"
    note "pace=1, pace=0, dscp=34 and pace_kernel=1: byte-identical RTP datagrams"
}

test_kernel() {
    local in p; in=$(clip_720p)
    p=$(port)
    # the default: lo's qdisc is no fq, the timer paces
    timeout 60 "$ffmpeg" -nostdin -v verbose -re -i "$in" -t 1 -c copy -f rtp \
        "rtp://127.0.0.1:$p?pkt_size=1200" > "$work/auto.log" 2>&1 || die "auto: sender failed"
    grep -q 'SO_TXTIME pacing not used: qdisc of lo is' "$work/auto.log" &&
        grep -q 'packets wait 500 ms at most (timer in a thread)' "$work/auto.log" ||
        { grep -i 'txtime\|paced at' "$work/auto.log"; die "auto: no fallback to the timer on lo"; }
    note "default: $(grep -o 'SO_TXTIME pacing not used: [^;]*' "$work/auto.log")"

    # forced: what the kernel is given, with a backlog in the pacer
    p=$(port)
    capture kernel 1500 30000 "$p" "$((p + 1))"
    env LD_PRELOAD="$tools/sendfail.so" SENDFAIL="txtime:$work/tx.log" \
        timeout 60 "$ffmpeg" -nostdin -v verbose -re -i "$in" -c copy -f rtp -ssrc "$SSRC" \
        -pace_kernel 1 -pace_factor 1.2 -stats_file "$work/kernel.json" -stats_interval 0 \
        "rtp://127.0.0.1:$p?pkt_size=1200" > "$work/kernel.log" 2>&1 || die "kernel: sender failed"
    wait "$cap_pid"
    grep -q 'SO_TXTIME pacing on lo' "$work/kernel.log" || die "pace_kernel 1: SO_TXTIME not set"
    local sent got r
    sent=$(json "$work/kernel.json" packets)
    got=$("$tools/rtpcap" times "$work/kernel.pcap" "$p" | wc -l)
    [ "$got" = "$sent" ] || die "$got of $sent packets arrived"
    # RTP (second byte < 200) with and without a departure time; the lead
    # (departure - call) range; the most bytes departing within 1 ms; the
    # last departure, and the last RTCP datagram (the BYE's) after it
    r=$(awk '$4 >= 200 && $4 <= 207 { rtcp = $1; next }
             !$2 { none++; next }
             { n++; lead = $2 - $1; if (n == 1 || lead < lo) lo = lead; if (lead > hi) hi = lead
               t[m] = $2; b[m++] = $3; if ($2 > last) last = $2 }
             END { for (i = 0; i < m; i++) { sum += b[i]; while (t[i] - t[j] >= 1000) sum -= b[j++]; if (sum > pk) pk = sum }
                   printf "%d %d %d %d %d %d", n, none, lo, hi, pk, rtcp - last }' "$work/tx.log")
    set -- $r
    note "pace_kernel 1: $1 messages with a departure time, $2 without; handed over $3..$4 us ahead;" \
         "at most $5 bytes departing within 1 ms; the BYE $(( $6 / 1000 )) ms after the last departure; $got of $sent packets arrived"
    [ "$1" -gt 50 ] && [ "$2" = 0 ] || die "want every RTP message with a departure time: $1 with, $2 without"
    # (a burst handed over late, as a busy machine may, just leaves at once)
    [ "$4" -le 22000 ] || die "handed over up to $4 us ahead of its departure, want at most 20 ms"
    [ "$4" -ge 5000 ] || die "no burst was handed over ahead of its time ($4 us at most)"
    [ "$5" -le $((16384 + 1200)) ] || die "$5 bytes depart within 1 ms: more than pace_burst and a packet"
    [ "$6" -ge 45000 ] || die "the BYE came $(( $6 / 1000 )) ms after the last departure (bye_delay 50 ms)"
}

case "$what" in
    bottleneck|resend|bye|wire|kernel) "test_$what" ;;
    *) die "unknown test $what" ;;
esac
echo "PASS rtp-pacing-$what"

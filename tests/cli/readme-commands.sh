#!/usr/bin/env bash
# Every ffmpeg command in the README's sh blocks, as written, run on
# 127.0.0.1. The only substitutions: the camera (v4l2) and the screen
# (x11grab) become lavfi test sources in their pixel formats, in.mkv a file
# made here (5 s of H.264 without B-frames, a keyframe a second, and AAC
# audio), the documentation address 192.0.2.1:5004 and the RTSP servers
# 127.0.0.1 with free ports, the WHIP endpoint 192.0.2.1:8080 webrtcbin in
# a network namespace, out.mkv and s.sdp files in a work directory,
# and -nostdin. Each command must exit 0 and what it writes must decode;
# a sender runs with its receiver, started as the README says (the
# receiver of an SDP after the sender wrote it). A command in the README
# that no case here covers fails the test.
#   tests/cli/readme-commands.sh TOP BUILD
set -u
top=$1 build=$2
ffmpeg=$build/ffmpeg/ffmpeg
ffprobe=$build/ffmpeg/ffprobe
freeport=$build/tests/freeport
work=$(mktemp -d)
netns=
trap 'kill $(jobs -p) 2>/dev/null; for n in $netns; do ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null; ip netns del "$n"; done
      rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
note() { echo "  $*"; }

# the commands: the ffmpeg lines of the sh blocks, continuations joined,
# trailing comments cut
awk '/^```sh/ { on = 1; next } /^```/ { on = 0 } on' "$top/README.md" |
    sed -e ':a' -e '/\\$/N; s/\\\n *//; ta' | sed -n 's/^\(ffmpeg .*\)$/\1/p' |
    sed 's/   *# .*$//' > "$work/commands"
n=$(wc -l < "$work/commands")
[ "$n" -ge 8 ] || fail "only $n ffmpeg commands found in the README"

"$ffmpeg" -nostdin -v error -f lavfi -i testsrc2=s=640x360:r=25:d=5 -f lavfi -i sine=d=5 \
    -c:v libx264 -preset ultrafast -bf 0 -g 25 -c:a aac "$work/in.mkv" || fail "could not make in.mkv"

frames() {  # video frames that decode without an error
    local f=$1 err
    err=$("$ffmpeg" -nostdin -v error -i "$f" -map 0:v:0 -f null - 2>&1 | grep -v 'Last message repeated' | head -n 3)
    [ -z "$err" ] || { echo "ERR $err"; return; }
    "$ffprobe" -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$f"
}

# the substitutions, then the command run in the work directory
subst() {
    sed -e "s|^ffmpeg |$ffmpeg -nostdin |" \
        -e 's|-f v4l2 -input_format yuyv422 -i /dev/video0|-re -f lavfi -i testsrc2=s=640x360:r=25:d=2,format=yuyv422|' \
        -e 's|-f v4l2 -i /dev/video0|-re -f lavfi -i testsrc2=s=1280x720:r=25:d=5,format=yuyv422|' \
        -e 's|-f x11grab -i :0|-re -f lavfi -i testsrc2=s=1280x720:r=25:d=2,format=bgr0|' \
        -e "s|192\.0\.2\.1:5004|127.0.0.1:$2|" \
        -e "s|rtsp://server/live|rtsp://127.0.0.1:$2/live|" \
        -e "s|rtsp://0\.0\.0\.0:8554/live|rtsp://127.0.0.1:$2/live|" \
        -e "s| out\.mkv| $3|" <<< "$1"
}
run_cmd() {  # NAME COMMAND PORT OUT: in the background, its log in NAME.log
    local c; c=$(subst "$2" "$3" "$4")
    echo "$c" > "$work/$1.cmd"
    (cd "$work" && exec timeout 30 bash -c "$c") > "$work/$1.log" 2>&1 &
}
check_out() {  # NAME OUT MIN
    local got; got=$(frames "$2")
    case $got in ERR*|'') fail "$1: $2 does not decode: ${got#ERR }; log: $(tail -n 3 "$work/$1.log")" ;; esac
    [ "$got" -ge "$3" ] || fail "$1: $got frames in $(basename "$2") ($3 at least); log: $(tail -n 3 "$work/$1.log")"
    note "$1: $got frames ($(cat "$work/$1.cmd" | sed "s|$ffmpeg|ffmpeg|; s|$work/||g"))"
}
wait_for() {  # PID NAME
    wait "$1" || fail "$2 exited with $?: $(tail -n 3 "$work/$2.log")"
}
recv_cmd=$(grep -- '-sdp_flags rtcp_to_source -i s.sdp' "$work/commands") || fail "no SDP receiver command in the README"
covered=0
i=0
while IFS= read -r c; do
    i=$((i + 1))
    p=$("$freeport")
    case $c in
    *'-sdp_flags rtcp_to_source -i s.sdp'*)
        covered=$((covered + 1)); continue ;;        # with each sender below
    *'-f v4l2'*'-f rtp '*|*'-i in.mkv'*'-f rtp '*)
        rm -f "$work/s.sdp"
        run_cmd "send$i" "$c" "$p" ""; sp=$!
        for _ in $(seq 100); do [ -s "$work/s.sdp" ] && break; sleep 0.05; done
        [ -s "$work/s.sdp" ] || fail "send$i wrote no s.sdp"
        run_cmd "recv$i" "$recv_cmd" "$p" "$work/out$i.mkv"; rp=$!
        wait_for "$sp" "send$i"; wait_for "$rp" "recv$i"
        # the receiver starts after the sender: a live encoder's IDR comes
        # at its PLI, a copied file's at the next keyframe (1 s)
        check_out "send$i" "$work/out$i.mkv" 75 ;;
    *'-f rtsp '*)
        lc=$(grep -- '-rtsp_flags listen' "$work/commands") || fail "no RTSP listen command for the RTSP sender"
        run_cmd "listen$i" "$lc" "$p" "$work/out$i.mkv"; rp=$!
        for _ in $(seq 100); do grep -q ":$(printf '%04X' "$p") 00000000:0000 0A" /proc/net/tcp && break; sleep 0.05; done
        run_cmd "rtsp$i" "$c" "$p" ""; sp=$!
        wait_for "$sp" "rtsp$i"; wait_for "$rp" "listen$i"
        check_out "rtsp$i" "$work/out$i.mkv" 110 ;;
    *'-rtsp_flags listen'*)
        covered=$((covered + 1)); continue ;;        # with the RTSP sender
    *'-i rtsp://server/live'*)
        /usr/bin/python3 "$top/tests/net/rtsp-server.py" "$p" "$work/in.mkv" 25 > "$work/server.log" 2>&1 &
        for _ in $(seq 100); do grep -q ready "$work/server.log" && break; sleep 0.05; done
        grep -q ready "$work/server.log" || fail "the RTSP server did not start: $(tail -n 3 "$work/server.log")"
        run_cmd "pull$i" "$c" "$p" "$work/out$i.mkv"; rp=$!
        # the file is 5 s long; the client reads until the server's BYE or
        # stops at the timeout: -t would change the command, so the server
        # limit ends it
        wait "$rp"; rc=$?
        [ "$rc" = 0 ] || [ "$rc" = 124 ] || fail "pull$i exited with $rc: $(tail -n 3 "$work/pull$i.log")"
        check_out "pull$i" "$work/out$i.mkv" 110 ;;
    *'-f whip '*)
        # a WHIP endpoint (GStreamer's webrtcbin, tests/whip) in a network
        # namespace of this test's own, the command in another: WebRTC
        # stacks leave loopback out of their candidates
        na=lcvr$$a$i nb=lcvr$$b$i
        ip netns add "$na" && netns="$netns $na" && ip netns add "$nb" && netns="$netns $nb" ||
            fail "whip$i: cannot make network namespaces (root needed)"
        ip link add va netns "$na" type veth peer name vb netns "$nb"
        ip -n "$na" addr add 10.77.0.1/24 dev va; ip -n "$nb" addr add 10.77.0.2/24 dev vb
        for l in "$na va" "$nb vb"; do set -- $l; ip -n "$1" link set lo up; ip -n "$1" link set "$2" up
            ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1; done
        for _ in $(seq 100); do ip -n "$nb" link show vb | grep -q 'state UP' && break; sleep 0.02; done
        ip netns exec "$nb" /usr/bin/python3 "$top/tests/whip/gst_whip_endpoint.py" 10.77.0.2 "$p" \
            "$work/whip$i.json" --timeout 40 > "$work/endpoint$i.log" 2>&1 &
        for _ in $(seq 100); do grep -q ready "$work/endpoint$i.log" && break; sleep 0.05; done
        grep -q ready "$work/endpoint$i.log" || fail "whip$i: the endpoint did not start: $(tail -n 3 "$work/endpoint$i.log")"
        wc=$(subst "$c" 0 "" | sed "s|192\.0\.2\.1:8080|10.77.0.2:$p|")
        echo "$wc" > "$work/whip$i.cmd"
        (cd "$work" && exec timeout 30 ip netns exec "$na" bash -c "$wc") > "$work/whip$i.log" 2>&1 &
        wait_for $! "whip$i"
        for _ in $(seq 100); do [ -s "$work/whip$i.json" ] && break; sleep 0.1; done
        got=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["frames"])' \
              "$work/whip$i.json" 2>/dev/null) || fail "whip$i: the endpoint wrote no result: $(tail -n 3 "$work/endpoint$i.log")"
        [ "$got" -ge 110 ] || fail "whip$i: $got frames decoded at the endpoint (110 at least); log: $(tail -n 3 "$work/whip$i.log")"
        note "whip$i: $got frames decoded by webrtcbin ($(sed "s|$ffmpeg|ffmpeg|; s|$work/||g" "$work/whip$i.cmd"))" ;;
    *'-vf toi420'*' out.mkv')
        run_cmd "toi420-$i" "$c" "$p" "$work/out$i.mkv"; rp=$!
        wait_for "$rp" "toi420-$i"
        check_out "toi420-$i" "$work/out$i.mkv" 50 ;;
    *) fail "README command not covered by this test: $c" ;;
    esac
    covered=$((covered + 1))
done < "$work/commands"
[ "$covered" = "$n" ] || fail "$covered of $n commands covered"
echo "all $n ffmpeg commands of the README ran and their output decoded"

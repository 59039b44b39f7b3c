#!/usr/bin/env bash
# The whip muxer's H.264 profile-level-id when the codec parameters a
# libav* program hands it carry no profile or level (whip_profile.c): the
# muxer takes them from the extradata, avcC (Matroska) or Annex B (raw
# H.264), for constrained baseline, high and high 10 intra (libx264).
# Against two references: ffmpeg copying the same file into the muxer,
# whose codec parameters libavcodec filled from the stream (the whole
# profile-level-id, constraint flags included), and the profile_idc and
# level_idc bytes of the file's own SPS. A cut avcC is refused with a
# message. All on 127.0.0.1: the endpoint keeps each offer and answers 403,
# so no session starts.
#   tests/whip/profile.sh BUILD
set -eu
build=$(cd "$1" && pwd)
. "$(dirname "$0")/../rtp/lib.sh"
prog=$tools/whip_profile
[ -x "$prog" ] || die "$prog is not built"

port=$("$tools/freeport")
/usr/bin/python3 - "$port" "$work" > "$work/endpoint.log" 2>&1 <<'PY' &
import http.server, sys, os
work = sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get('Content-Length', 0))
        body = self.rfile.read(min(n, 1 << 20))
        open(os.path.join(work, 'offer-' + os.path.basename(self.path)), 'wb').write(body)
        self.send_response(403)
        self.send_header('Content-Length', '0')
        self.end_headers()
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), H)
s.timeout = 1
print('ready', flush=True)
for _ in range(120):  # 2 minutes at most
    s.handle_request()
PY
for _ in $(seq 100); do grep -q ready "$work/endpoint.log" && break; sleep 0.05; done
grep -q ready "$work/endpoint.log" || die "the endpoint did not start: $(cat "$work/endpoint.log")"

plid() {  # NAME -> the offer's profile-level-id
    [ -f "$work/offer-$1" ] || { echo none; return; }
    sed -n 's/.*profile-level-id=\([0-9a-fA-F]\{6\}\).*/\1/p' "$work/offer-$1" | head -n 1 | tr A-F a-f
}
sps_bytes() {  # FILE.h264 -> profile_idc and level_idc of its first SPS, hex
    /usr/bin/python3 -c '
import sys
d = open(sys.argv[1], "rb").read()
i = 0
while True:
    i = d.find(b"\0\0\1", i)
    if i < 0 or i + 6 > len(d):
        sys.exit("no SPS")
    if d[i + 3] & 0x1f == 7:
        print("%02x %02x" % (d[i + 4], d[i + 6]))
        break
    i += 3' "$1"
}

fails=0
check() {  # CONDITION MESSAGE
    if eval "$1"; then echo "  ok: $2"; else echo "  FAIL: $2"; fails=$((fails + 1)); fi
}
for p in cb high hi10i; do
    case $p in
    cb)    enc=(-profile:v baseline) ;;
    high)  enc=(-profile:v high) ;;
    hi10i) enc=(-pix_fmt yuv420p10le -profile:v high10 -g 1) ;;
    esac
    "$ffmpeg" -nostdin -v error -f lavfi -i testsrc2=size=320x240:rate=25 -frames:v 5 \
        -c:v libx264 -preset veryfast -bf 0 "${enc[@]}" "$work/$p.h264" || die "could not encode $p"
    "$ffmpeg" -nostdin -v error -i "$work/$p.h264" -c copy "$work/$p.mkv" || die "could not remux $p"
    read -r sp sl < <(sps_bytes "$work/$p.h264")
    for c in mkv h264; do
        echo "$p, $c:"
        # the reference: the codec parameters libavcodec filled
        "$ffmpeg" -nostdin -v error -i "$work/$p.$c" -c copy -f whip "http://127.0.0.1:$port/ref-$p-$c" \
            > "$work/ref-$p-$c.log" 2>&1 || true
        ret=0
        "$prog" "$work/$p.$c" "http://127.0.0.1:$port/api-$p-$c" > "$work/api-$p-$c.log" 2>&1 || ret=$?
        sed 's/^/    /' "$work/api-$p-$c.log" | grep -E 'input:|muxer:|write_header|profile found|SPS' || true
        ref=$(plid "ref-$p-$c") api=$(plid "api-$p-$c")
        check '[ "$ret" = 0 ]' "the muxer found a profile and level (exit status $ret)"
        check '[ "$ref" != none ] && [ "$api" = "$ref" ]' "profile-level-id $api, as from libavcodec's parameters ($ref)"
        check '[ "${api:0:2}" = "$sp" ] && [ "${api:4:2}" = "$sl" ]' \
            "profile_idc and level_idc as in the SPS ($sp, $sl)"
    done
    # the constraint flags that the cases are about: set1 (constrained
    # baseline), set3 (the intra profiles)
    case $p in
    cb)    check '[ $((0x$(plid ref-cb-mkv | cut -c3-4) & 0x40)) != 0 ]' "constrained baseline's flag in the reference" ;;
    hi10i) check '[ $((0x$(plid ref-hi10i-mkv | cut -c3-4) & 0x10)) != 0 ]' "high 10 intra's flag in the reference" ;;
    esac
done

# a cut avcC: refused, with a message, and no offer
echo "cut avcC:"
ret=0
"$prog" "$work/cb.mkv" "http://127.0.0.1:$port/cut" 12 > "$work/cut.log" 2>&1 || ret=$?
sed 's/^/    /' "$work/cut.log" | grep -E 'write_header|SPS' || true
check '[ "$ret" = 1 ] && grep -q "No SPS in the avcC extradata (12 bytes)" "$work/cut.log" && [ ! -e "$work/offer-cut" ]' \
    "refused before any offer, the message says why"
[ "$fails" = 0 ] || die "$fails checks failed"
echo "PASS: whip profile"

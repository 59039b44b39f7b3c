#!/usr/bin/env bash
# Cross-check lcv_rtcp's decoding of the golden vectors against tshark, an
# independent decoder: the test program writes the vectors into a pcap (UDP
# to 127.0.0.1:5005) and prints its own decoding in tshark's field names;
# tshark decodes the pcap; every field must agree.
#   cross-check.sh LCVRTCP_TEST_PROGRAM
#
# tshark 4.0 (Debian 12) cannot decode, so they are checked by the golden
# vectors alone: CCFB (RFC 8888), the rapid resynchronisation request, and
# the bodies of RPSI, TSTR/TSTN and VBCM (shown raw).
set -u
prog=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$prog" tshark "$tmp/v.pcap" > "$tmp/ours.txt" || { echo "FAIL: the test program failed"; exit 1; }
# the tshark fields involved, the calculated ones split into theirs
fields=$(cut -f2 "$tmp/ours.txt" | sed 's/^=//; s/<</\n/' | sort -u)
args=()
for f in $fields; do args+=(-e "$f"); done
tshark -r "$tmp/v.pcap" -d udp.port==5005,rtcp -T fields -E header=y -e frame.number "${args[@]}" \
    > "$tmp/theirs.txt" 2> "$tmp/tshark.err" || { cat "$tmp/tshark.err"; echo "FAIL: tshark"; exit 1; }

awk -F'\t' '
    NR == FNR { want[NR] = $0; n = NR; next }          # ours.txt
    FNR == 1  { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { for (f in col) got[$1, f] = $col[f] }
    END {
        bad = 0
        for (i = 1; i <= n; i++) {
            split(want[i], w, "\t")
            frame = w[1]; field = w[2]; value = w[3]
            if (field ~ /^=/) {         # mantissa << exp
                split(substr(field, 2), parts, "<<")
                theirs = got[frame, parts[1]] * 2 ^ got[frame, parts[2]]
                theirs = sprintf("%.0f", theirs)
            } else {
                theirs = got[frame, field]
            }
            if (theirs != value) {
                printf "FAIL frame %s %s: lcv_rtcp %s, tshark %s\n", frame, field, value, theirs
                bad++
            }
        }
        printf "%d fields of %d golden vectors agree with tshark, %d differ\n", n - bad, frame, bad
        exit bad != 0
    }' "$tmp/ours.txt" "$tmp/theirs.txt"

#!/usr/bin/env bash
# Check the committed toi420 FATE references independently of the filter:
# dump the exact input each test feeds to toi420 (same lavfi chain, same
# flags, rawvideo), convert it with the plain reference conversion of
# libavfilter/tests/toi420 (refmd5 mode), and compare the MD5 of every frame
# with the reference file.
#   verify-refs.sh FFB REFDIR
set -u
ffb=$1 refdir=$2
sws="scale=sws_flags=+accurate_rnd+bitexact+full_chroma_int"
fails=0 n=0

check() {   # check REF FMT SIZE CHAIN MATRIX RANGE FLIP
    local ref=$refdir/$1 fmt=$2 size=$3 chain=$4 matrix=$5 range=$6 flip=$7
    [ -f "$ref" ] || { echo "FAIL $1: no reference file"; fails=$((fails + 1)); return; }
    local want got
    want=$(grep -v '^#' "$ref" | awk -F', *' '{ print $6 }')
    got=$("$ffb/ffmpeg" -nostdin -nostats -noauto_conversion_filters -v error -lavfi "$chain" \
              -bitexact -f rawvideo - | "$ffb/libavfilter/tests/toi420" refmd5 "$fmt" "$size" "$matrix" "$range" "$flip")
    n=$((n + 1))
    if [ -z "$want" ] || [ "$want" != "$got" ]; then
        echo "FAIL $1: reference conversion gives different frames"; fails=$((fails + 1))
    else
        echo "ok   $1: $(echo "$want" | wc -l) frames match the reference conversion"
    fi
}

for fmt in yuv420p yuvj420p yuv422p yuvj422p yuv444p yuvj444p nv12 nv21 yuyv422 uyvy422 \
           rgba bgra argb abgr rgb0 bgr0 0rgb 0bgr rgb24 bgr24 gray; do
    range=tv in=
    case $fmt in yuvj*|gray) range=pc ;; esac
    # as tests/fate/ext-toi420.mak makes them (TOI420_IN_*)
    case $fmt in yuyv422|uyvy422) in="format=yuv422p,$sws," ;; esac
    for size in 352x288 353x287; do
        check "toi420-$fmt-$size" "$fmt" "$size" "testsrc2=s=$size:r=5:d=1,format=rgba,$sws,${in}format=$fmt" bt601 $range 0
    done
done
for m in bt601 bt709 bt2020; do
    for r in tv pc; do
        check "toi420-matrix-$m-$r" rgb24 353x287 "smptehdbars=s=353x287:r=5:d=0.4,$sws,format=rgb24" $m $r 0
    done
done
for fmt in bgra nv12; do
    check "toi420-vflip-$fmt" $fmt 353x287 "testsrc2=s=353x287:r=5:d=0.4,format=rgba,$sws,format=$fmt" bt601 tv 1
done
echo "$((n - fails)) of $n FATE references match the independent reference conversion"
[ $fails = 0 ]

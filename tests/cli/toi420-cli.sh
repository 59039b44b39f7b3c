#!/usr/bin/env bash
# toi420 on the ffmpeg command line: help shows every option, bad options
# and formats fail with a message naming them.
#   toi420-cli.sh FFMPEG
set -u
ffmpeg=$1
fails=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

expect() {   # expect DESCRIPTION STATUS(0|fail) PATTERN -- ffmpeg args
    local what=$1 want=$2 pattern=$3; shift 4
    timeout 60 "$ffmpeg" -nostdin -hide_banner "$@" > "$tmp" 2>&1
    local st=$?
    if { [ "$want" = 0 ] && [ $st != 0 ]; } || { [ "$want" = fail ] && [ $st = 0 ]; }; then
        echo "FAIL: $what: exit status $st"; sed 's/^/  /' "$tmp" | tail -n 5; fails=$((fails + 1)); return
    fi
    if ! grep -qE -- "$pattern" "$tmp"; then
        echo "FAIL: $what: output lacks /$pattern/"; sed 's/^/  /' "$tmp" | tail -n 5; fails=$((fails + 1)); return
    fi
    echo "ok: $what"
}

src=(-f lavfi -i testsrc2=s=64x48:d=0.2)
expect "help lists matrix"  0 'matrix +<int> .*YCbCr matrix' -- -h filter=toi420
expect "help lists range"   0 'range +<int> .*output range'  -- -h filter=toi420
expect "help lists bt2020"  0 'bt2020 '                      -- -h filter=toi420
expect "help: slice threads" 0 'slice threading'             -- -h filter=toi420
expect "bad matrix name"    fail "Error applying option 'matrix' to filter 'toi420'" -- "${src[@]}" -vf toi420=matrix=bt999 -f null -
expect "matrix out of range" fail "Value 99.000000 for parameter 'matrix' out of range \[-1 - 9\]" -- "${src[@]}" -vf toi420=matrix=99 -f null -
expect "matrix not supported" fail "Invalid value 4 for option 'matrix': valid values are auto" -- "${src[@]}" -vf toi420=matrix=4 -f null -
expect "range 0"            fail "Invalid value 0 for option 'range': valid values are auto \(-1\), tv \(1\), pc \(2\)" -- "${src[@]}" -vf toi420=range=0 -f null -
expect "unsupported format" fail "Unsupported input pixel format 'yuv410p'; toi420 converts: yuv420p, yuvj420p" -- \
    -f lavfi -i testsrc2=s=64x48:d=0.2,format=yuv410p -vf toi420 -f null -
expect "rgba converts"      0 '' -- -f lavfi -i testsrc2=s=64x48:d=0.2,format=rgba -vf toi420 -f null -
expect "stats at verbose"   0 '5 frames converted \(luma referenced in 0\), 0 passed through; [0-9]+ pool buffers created in 1 pool' -- \
    -v verbose -f lavfi -i testsrc2=s=64x48:d=0.2:r=25,format=rgba -vf toi420 -f null -
expect "nv12 luma referenced" 0 '5 frames converted \(luma referenced in 5\)' -- \
    -v verbose -f lavfi -i testsrc2=s=64x48:d=0.2:r=25,format=nv12 -vf toi420 -f null -
expect "copy_luma=1 copies" 0 '5 frames converted \(luma referenced in 0\)' -- \
    -v verbose -f lavfi -i testsrc2=s=64x48:d=0.2:r=25,format=nv12 -vf toi420=copy_luma=1 -f null -
# 7.1: 'Unable to parse option value "maybe" as boolean'; 9.0 names the option
expect "bad copy_luma value" fail 'Unable to parse (option value|"copy_luma" option value) "maybe" as boolean' -- "${src[@]}" -vf toi420=copy_luma=maybe -f null -
expect "bad copy_luma name" fail "Error applying option 'copy_luma' to filter 'toi420': Invalid argument" -- \
    "${src[@]}" -vf toi420=copy_luma=maybe -f null -
[ $fails = 0 ]

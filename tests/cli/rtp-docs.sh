#!/bin/sh
# The rtp muxer's options in the ffmpeg-formats man page and in
# ffmpeg -h muxer=rtp: each option given must have its own item in the one
# and a line in the other.
#   tests/cli/rtp-docs.sh FFMPEG_BUILD_DIR OPTION...
set -eu
ffb=$1; shift
make -s -C "$ffb" doc/ffmpeg-formats.1 > /dev/null
man=$ffb/doc/ffmpeg-formats.1
grep -q '^\.SS "rtp"' "$man" || { echo "no rtp section in $man"; exit 1; }
"$ffb/ffmpeg" -hide_banner -h muxer=rtp > "${TMPDIR:-/tmp}/rtp-help.$$"
for o in "$@"; do
    grep -qF "\\fB$o\\fR" "$man" || { echo "$o: not in the man page"; rm -f "${TMPDIR:-/tmp}/rtp-help.$$"; exit 1; }
    grep -q "^  -$o " "${TMPDIR:-/tmp}/rtp-help.$$" || { echo "$o: not in -h muxer=rtp"; rm -f "${TMPDIR:-/tmp}/rtp-help.$$"; exit 1; }
done
rm -f "${TMPDIR:-/tmp}/rtp-help.$$"
echo "documented: $*"

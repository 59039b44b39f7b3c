#!/usr/bin/env bash
# The README's "From a program" snippet, exactly as the README shows it,
# compiled inside a function and linked against the build tree with the
# pkg-config line the README gives (make pc's uninstalled files), then run
# (the calls refuse a context that is not an rtp output: ENOSYS, 0).
#   tests/build/readme-program.sh TOP BUILD
set -eu
top=$1 build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# the snippet: the first ```c block after the "From a program" heading
snippet=$(sed -n '/^### From a program/,/^## /p' "$top/README.md" | sed -n '/^```c$/,/^```$/p' | sed '1d;$d')
[ -n "$snippet" ] || fail "no C snippet under \"From a program\" in README.md"
# the compile line: the README's, with the snippet's file name
line=$(sed -n '/^### From a program/,/^## /p' "$top/README.md" |
       grep -m1 '^gcc .*$(PKG_CONFIG_PATH=build/pkgconfig pkg-config --cflags --libs libavformat)') ||
    fail "no 'gcc ... \$(PKG_CONFIG_PATH=build/pkgconfig pkg-config ...)' line under \"From a program\" in README.md"
[ "$build" = "$top/build" ] || fail "the README's line names build/ in the top directory, not $build"

{
    echo "$snippet" | grep '^#include'
    cat <<'C'
#include <inttypes.h>
#include <stdio.h>
#include <libavformat/avformat.h>
#include <libavutil/frame.h>

static int snippet(AVFormatContext *oc, AVFrame *frame)
{
C
    echo "$snippet" | grep -v '^#include'
    cat <<'C'
    return (int)target;
}

int main(void)
{
    AVFormatContext *oc = avformat_alloc_context();
    AVFrame *frame = av_frame_alloc();
    int ret;

    if (!oc || !frame)
        return 2;
    ret = snippet(oc, frame);           /* not an rtp output: no stats, 0 */
    printf("snippet ran: target %d, pict_type %d\n", ret, frame->pict_type);
    av_frame_free(&frame);
    avformat_free_context(oc);
    return ret != 0;
}
C
} > "$work/prog.c"
# the README's line, run in the top directory on this file
cmd=${line//prog.c/$work/prog.c}
cmd=${cmd//-o prog /-o $work/prog }
(cd "$top" && eval "$cmd") > "$work/cc.log" 2>&1 || { cat "$work/cc.log"; fail "the README's compile line failed: $cmd"; }
"$work/prog" || fail "the program failed"
echo "README snippet compiled with: $line"

#!/usr/bin/env bash
# The lean build without NASM (--disable-x86asm) in build/noasm: what
# "make check" runs the toi420 FATE tests against, so that the C kernels
# alone are tested as a CPU or a build without x86 assembly gets them.
#   tests/noasm-build.sh TOP JOBS
set -eu
top=$1 jobs=$2
b=$top/build/noasm

"$top/configure" --build-dir="$b" --lean --disable-x86asm > "$b.configure.log" 2>&1 ||
    { cat "$b.configure.log"; exit 1; }
"$top/scripts/sync-ext" "$top" "$b/src" > /dev/null
make -C "$b/ffmpeg" -j"$jobs" ffmpeg > "$b.build.log" 2>&1 || { tail -n 40 "$b.build.log"; exit 1; }
grep -q '^#define HAVE_X86ASM 0' "$b/ffmpeg/config.h" || { echo "build/noasm has x86 assembly enabled"; exit 1; }

#!/usr/bin/env bash
# The shared build (tests/cross-build.sh shared), installed into its
# prefix: the lcv_rtcp symbols are exported from libavformat.so, the
# installed .pc files carry the configured prefix, and an API program
# builds against the install with pkg-config alone and runs.
#   tests/build/shared-api.sh TOP
set -eu
top=$1
b=$top/build/shared
inst=$b/inst
so=$(ls "$inst"/lib/libavformat.so.* | head -n 1)

nm -D --defined-only "$so" | grep -Eq ' T lcv_rtcp_parse(@@LIBAVFORMAT_[0-9]+)?$' || { echo "lcv_rtcp_parse not exported by $so"; exit 1; }
n=$(nm -D --defined-only "$so" | grep -c ' T lcv_' || true)
echo "  $(basename "$so") exports $n lcv_* functions"
[ "$n" -ge 30 ] || { echo "expected at least 30 exported lcv_* functions"; exit 1; }

export PKG_CONFIG_PATH=$inst/lib/pkgconfig PKG_CONFIG_LIBDIR=$inst/lib/pkgconfig
cflags=$(pkg-config --cflags libavformat)
libs=$(pkg-config --libs libavformat)
echo "  pkg-config --cflags libavformat: $cflags"
case "$cflags" in *"-I$inst/include"*) ;; *) echo "the .pc files do not point at $inst"; exit 1 ;; esac

# the flags are pkg-config's; LD_LIBRARY_PATH says where this prefix, which
# the dynamic linker does not search, is (ld looks there too for
# libavformat's own dependencies)
export LD_LIBRARY_PATH=$inst/lib
gcc -O2 -Wall -Werror -o "$b/shared_api" "$top/tests/build/shared_api.c" $cflags $libs
# the program runs against the installed library, not a static copy
ldd "$b/shared_api" | grep -q "$inst/lib/libavformat.so" ||
    { echo "shared_api is not linked against $inst/lib/libavformat.so"; exit 1; }
"$b/shared_api"

#!/usr/bin/env bash
# Run the fuzzer once on every file of the given folders and files (the
# corpus replay of make check). Fails on any crash or sanitizer report.
#   tests/fuzz/replay.sh FUZZER PATH...
set -eu
fuzzer=$1; shift
list=$(mktemp)
trap 'rm -f "$list"' EXIT
for p in "$@"; do
    [ -e "$p" ] && find "$p" -type f ! -name '*.md' >> "$list"
done
n=$(wc -l < "$list")
[ "$n" -gt 0 ] || { echo "no inputs"; exit 1; }
xargs -d '\n' "$fuzzer" -runs=1 < "$list" 2>&1 | grep -v '^Running: ' || true
# xargs and grep hide the status: run again for it, quietly
xargs -d '\n' "$fuzzer" -runs=1 < "$list" > /dev/null 2>&1
echo "replayed $n inputs without a finding"

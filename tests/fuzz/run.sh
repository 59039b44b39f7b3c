#!/usr/bin/env bash
# make fuzz-rtcp: fuzz lcv_rtcp under ASan+UBSan for a bounded time
# (FUZZ_SECONDS, default 60) or number of runs (FUZZ_RUNS), starting from
# the golden vectors, the regression inputs and the public seed corpora.
# A finding is written to tests/fuzz/regressions/ for make check to replay.
#   tests/fuzz/run.sh TOP JOBS
set -eu
top=$1 jobs=$2
b=$top/build/asan
"$top/tests/asan-build.sh" "$top" "$jobs"
corpus=$top/build/fuzz-corpus
mkdir -p "$corpus"
"$b/ffmpeg/libavformat/tests/lcvrtcp" corpus "$corpus"
for d in "$top/../shared/data/rtcp/seeds"/*; do
    [ -d "$d" ] && cp -n "$d"/* "$corpus"/ 2>/dev/null || true
done
find "$top/tests/fuzz/regressions" -type f ! -name '*.md' -exec cp -n {} "$corpus"/ \;
"$b/rtcp_fuzzer" -max_len=2048 -max_total_time="${FUZZ_SECONDS:-60}" \
    ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} -print_final_stats=1 \
    -artifact_prefix="$top/tests/fuzz/regressions/" "$corpus" 2>&1 |
    grep -E '^(#[0-9]+.*(pulse|DONE)|stat::number_of_executed_units|stat::average_exec_per_sec|==[0-9]+==ERROR|SUMMARY)' || true

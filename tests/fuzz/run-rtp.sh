#!/usr/bin/env bash
# make fuzz-rtp: fuzz the RTP receiver's packet path under ASan+UBSan for a
# bounded time (FUZZ_SECONDS, default 60) or number of runs (FUZZ_RUNS),
# starting from seeds made from real captures (tests/fuzz/rtp_seeds.sh)
# and the regression inputs. A finding is written to
# tests/fuzz/regressions-rtp/ for make check to replay.
#   tests/fuzz/run-rtp.sh TOP JOBS
set -eu
top=$1 jobs=$2
b=$top/build/asan
reg=$top/tests/fuzz/regressions-rtp
"$top/tests/asan-build.sh" "$top" "$jobs"
corpus=$top/build/fuzz-corpus-rtp
mkdir -p "$corpus"
# the seeds need the main tree's ffmpeg and the test tools (the relay)
"$top/tests/fuzz/rtp_seeds.sh" "$top/build" "$corpus"
find "$reg" -type f ! -name '*.md' -exec cp -n {} "$corpus"/ \;
before=$(find "$reg" -type f | wc -l)
set +e
"$b/rtp_receiver_fuzzer" -max_len=65536 -max_total_time="${FUZZ_SECONDS:-60}" \
    ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} -print_final_stats=1 \
    -artifact_prefix="$reg/" "$corpus" > "$b/fuzz-rtp.log" 2>&1
rc=$?
set -e
grep -E '^(#[0-9]+.*(pulse|DONE)|stat::number_of_executed_units|stat::average_exec_per_sec|==[0-9]+==ERROR|SUMMARY)' "$b/fuzz-rtp.log" || true
after=$(find "$reg" -type f | wc -l)
if [ "$rc" != 0 ] || [ "$after" != "$before" ]; then
    echo "fuzz-rtp: FAILED (libFuzzer exit $rc); new inputs in $reg/:" >&2
    find "$reg" -type f -newer "$b/rtp_receiver_fuzzer" ! -name '*.md' >&2 || true
    exit 1
fi
echo "fuzz-rtp: no finding"

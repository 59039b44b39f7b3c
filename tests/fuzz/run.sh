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
# the seed corpora: FUZZ_SEEDS, by default the shared data beside the checkout
seeds=${FUZZ_SEEDS:-$top/../shared/data/rtcp/seeds}
n=0
for d in "$seeds"/*; do
    [ -d "$d" ] || continue
    cp -n "$d"/* "$corpus"/ 2>/dev/null || true
    n=$((n + 1))
done
# the public corpora are part of what this target promises: say so, loudly,
# when they are not there (FUZZ_NO_SEEDS=1 fuzzes without them)
if [ "$n" = 0 ] && [ -z "${FUZZ_NO_SEEDS:-}" ]; then
    echo "fuzz-rtcp: no seed corpora in $seeds (FUZZ_NO_SEEDS=1 runs without them)" >&2
    exit 1
fi
echo "seed corpora: $n folders from $seeds"
find "$top/tests/fuzz/regressions" -type f ! -name '*.md' -exec cp -n {} "$corpus"/ \;
before=$(find "$top/tests/fuzz/regressions" -type f | wc -l)
set +e
"$b/rtcp_fuzzer" -max_len=2048 -max_total_time="${FUZZ_SECONDS:-60}" \
    ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} -print_final_stats=1 \
    -artifact_prefix="$top/tests/fuzz/regressions/" "$corpus" > "$b/fuzz.log" 2>&1
rc=$?
set -e
grep -E '^(#[0-9]+.*(pulse|DONE)|stat::number_of_executed_units|stat::average_exec_per_sec|==[0-9]+==ERROR|SUMMARY)' "$b/fuzz.log" || true
after=$(find "$top/tests/fuzz/regressions" -type f | wc -l)
# a crash, a leak or a timeout: libFuzzer exits non-zero and writes the input
if [ "$rc" != 0 ] || [ "$after" != "$before" ]; then
    echo "fuzz-rtcp: FAILED (libFuzzer exit $rc); new inputs in tests/fuzz/regressions/:" >&2
    find "$top/tests/fuzz/regressions" -type f -newer "$b/rtcp_fuzzer" ! -name '*.md' >&2 || true
    exit 1
fi
echo "fuzz-rtcp: no finding"

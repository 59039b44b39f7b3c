#!/usr/bin/env bash
# make fuzz-rtp and make fuzz-rtcp-sender: fuzz the RTP receiver's packet
# path (receiver, the default) or the RTP sender's RTCP reader (sender)
# under ASan+UBSan for a bounded time (FUZZ_SECONDS, default 60) or number
# of runs (FUZZ_RUNS), starting from seeds made from real captures
# (tests/fuzz/rtp_seeds.sh, rtcp_sender_seeds.sh) and the regression
# inputs. A finding is written to the regression folder for make check to
# replay.
#   tests/fuzz/run-rtp.sh TOP JOBS [receiver|sender]
set -eu
top=$1 jobs=$2 which=${3:-receiver}
b=$top/build/asan
case $which in
receiver) fuzzer=rtp_receiver_fuzzer seeds=rtp_seeds.sh reg=regressions-rtp name=fuzz-rtp max_len=65536 ;;
# the sender's seeds are about 120 KB: whole, so that their NACKs come
sender)   fuzzer=rtcp_sender_fuzzer seeds=rtcp_sender_seeds.sh reg=regressions-rtcp-sender name=fuzz-rtcp-sender
          max_len=131072 ;;
*) echo "run-rtp.sh: unknown fuzzer '$which' (receiver or sender)" >&2; exit 2 ;;
esac
reg=$top/tests/fuzz/$reg
"$top/tests/asan-build.sh" "$top" "$jobs"
corpus=$top/build/${name/fuzz-/fuzz-corpus-}
mkdir -p "$corpus"
# the seeds need the main tree's ffmpeg and the test tools (the relay)
"$top/tests/fuzz/$seeds" "$top/build" "$corpus"
find "$reg" -type f ! -name '*.md' -exec cp -n {} "$corpus"/ \;
before=$(find "$reg" -type f | wc -l)
set +e
"$b/$fuzzer" -max_len=$max_len -max_total_time="${FUZZ_SECONDS:-60}" \
    ${FUZZ_RUNS:+-runs=$FUZZ_RUNS} -print_final_stats=1 \
    -artifact_prefix="$reg/" "$corpus" > "$b/$name.log" 2>&1
rc=$?
set -e
grep -E '^(#[0-9]+.*(pulse|DONE)|stat::number_of_executed_units|stat::average_exec_per_sec|==[0-9]+==ERROR|SUMMARY)' "$b/$name.log" || true
after=$(find "$reg" -type f | wc -l)
if [ "$rc" != 0 ] || [ "$after" != "$before" ]; then
    echo "$name: FAILED (libFuzzer exit $rc); new inputs in $reg/:" >&2
    find "$reg" -type f -newer "$b/$fuzzer" ! -name '*.md' >&2 || true
    exit 1
fi
echo "$name: no finding"

#!/usr/bin/env bash
# Runs each fuzzer for FUZZ_SECONDS (default 60) on its committed seed corpus; new inputs go to
# .build/fuzz/corpus/TARGET (not committed), crash reproducers to .build/fuzz/crashes/TARGET.
# Prints executions and findings per target; exits 1 if any target found a crash.
#   FUZZ_SECONDS=600 Fuzz/run.sh [TARGET...]
#   Fuzz/run.sh --smoke [TARGET...]   (make test, so CI: builds every target, runs each
#                                      FUZZ_SMOKE_SECONDS, default 5, on its seed corpus only)
set -uo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
smoke=0
if [ "${1:-}" = --smoke ]; then
    smoke=1
    seconds="${FUZZ_SMOKE_SECONDS:-5}"
    shift
fi
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=($(ls Fuzz/targets | grep -v Common.swift | sed 's/\.swift$//'))
Fuzz/build.sh "${targets[@]}" 2> >(grep -v "Cannot export local symbol" >&2) || exit 1
failed=0
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0"
for target in "${targets[@]}"; do
    work=.build/fuzz/corpus/$target
    crashes=.build/fuzz/crashes/$target
    # The smoke run starts from the committed seeds alone, in a fresh folder: what CI sees is what
    # a clean clone has, not what an earlier long run found.
    if [ "$smoke" = 1 ]; then
        work=.build/fuzz/smoke/$target
        crashes=.build/fuzz/smoke/crashes-$target
        rm -rf "$work" "$crashes"
    fi
    mkdir -p "$work" "$crashes"
    # The smoke run mutates in one fixed order (-seed=1), so CI tries the same inputs each time, as
    # far as its seconds reach; the long run draws a new order each time, to find new inputs.
    seed=()
    [ "$smoke" = 1 ] && seed=(-seed=1)
    log=.build/fuzz/$target.log
    # stdout is the CLI's own output (charts, timelines): not wanted here.
    .build/fuzz/fuzz-$target "${seed[@]}" -max_total_time="$seconds" -max_len=4096 -timeout=20 -rss_limit_mb=4096 \
        -artifact_prefix="$crashes/" "$work" "Fuzz/corpus/$target" > /dev/null 2> "$log"
    status=$?
    runs=$(grep -o 'Done [0-9]* runs' "$log" | grep -o '[0-9]*' || true)
    [ -z "$runs" ] && runs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
    found=$(ls "$crashes" | wc -l)
    echo "fuzz $target: ${runs:-0} executions in ${seconds} s, $found crash reproducer(s), status $status"
    if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
        failed=1
        grep -m 5 -E "invariant broken|Fatal error|ERROR: |SUMMARY" "$log" | cut -c1-300
    fi
done
exit $failed

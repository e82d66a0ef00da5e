#!/usr/bin/env bash
# The cancel storm at full size, in release mode, RUNS times in a row (default 1); extra arguments
# go to retryflow-stress. Stops at the first run that crashes or reports a problem.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${RUNS:-1}"
swift build -c release --product retryflow-stress
binary="$(swift build -c release --show-bin-path)/retryflow-stress"
for run in $(seq 1 "$runs"); do
    echo "== stress run $run of $runs: $(date -u +%H:%M:%S)"
    status=0
    # GNU time (Debian's `time` package, not in a minimal image) adds wall time and peak RSS when present.
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f "wall %e s, peak RSS %M KB (time)" "$binary" "$@" || status=$?
    else
        "$binary" "$@" || status=$?
    fi
    if [ "$status" -ne 0 ]; then
        echo "== stress run $run failed with status $status" >&2
        exit 1
    fi
done
echo "== $runs of $runs stress runs clean"

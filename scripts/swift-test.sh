#!/usr/bin/env bash
# `swift test ARGS`, run once more when, and only when, the test process died in libdispatch's event
# loop (`_dispatch_event_loop_drain`). Its main trigger in this repo was FlakyServer's listener
# shutdown and is fixed; the same libdispatch race remains reachable through URLSession's own sockets
# when a server resets them (docs/reliability.md, "A libdispatch crash"), with no code of ours on the
# crashed thread. A failed expectation, a ThreadSanitizer report or any other crash fails at once,
# and a second crash fails too. The rerun is announced, so a log shows how often it happens.
set -uo pipefail
SWIFT=${SWIFT:-swift}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# The crashed thread's first frame is libdispatch's event loop (Swift's backtracer, or TSan's SEGV
# report), and nothing else went wrong before it.
died_in_dispatch_event_loop() {
    { grep -A3 'crashed:$' "$log" | grep -q '_dispatch_event_loop_drain' ||
        grep -A8 'ERROR: ThreadSanitizer: SEGV' "$log" | grep -q '#0 _dispatch_event_loop_drain'; } &&
        ! grep -q 'recorded an issue\|WARNING: ThreadSanitizer\|^Test Case .* failed' "$log"
}

for attempt in 1 2; do
    "$SWIFT" test "$@" 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
    [ "$status" -eq 0 ] && exit 0
    if [ "$attempt" -eq 1 ] && died_in_dispatch_event_loop; then
        echo "scripts/swift-test.sh: the test process died in libdispatch's event loop" \
            "(_dispatch_event_loop_drain, docs/reliability.md); running the tests once more" >&2
        continue
    fi
    exit "$status"
done

#!/usr/bin/env bash
# Smoke test of the benchmarks, run by `make test`: `retryflow-bench --quick --json` must run and
# produce every figure (so a benchmark that stops compiling or crashes is caught). Timing is never
# asserted here: the figures are only meaningful from a release build on a quiet machine.
set -euo pipefail
SWIFT="${SWIFT:-swift}"
# Arguments go to `swift build --show-bin-path` (e.g. `-c release`); the debug build by default.
bin="$("$SWIFT" build --show-bin-path "$@")"
if [[ ! -x "$bin/retryflow-bench" ]]; then
    echo "bench-smoke: $bin/retryflow-bench is missing (run swift build first)" >&2
    exit 1
fi
json="$(mktemp /tmp/retryflow-bench-smoke.XXXXXX.json)"
trap 'rm -f "$json"' EXIT
"$bin/retryflow-bench" --quick --json "$json" > /dev/null
# Every figure the tool knows (from --help) must be present, and none may have failed.
python3 - "$json" "$("$bin/retryflow-bench" --help | sed -n 's/^benchmarks: //p')" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))
names = {r["name"] for r in results}
expected = set(sys.argv[2].split())
# A benchmark's figures are named for it ("machine-step-allocations", "transport-paths delegate").
problems = [f"missing figure {n}" for n in sorted(expected) if not any(name.startswith(n) for name in names)]
# Each table-step figure comes with its allocation count (machine-, budget-, breaker-, transfer-step).
problems += [f"missing figure {n}-allocations" for n in sorted(expected) if n.endswith("-step") and f"{n}-allocations" not in names]
problems += [f"{r['name']}: {r['note']}" for r in results if (r.get("note") or "").startswith("failed")]
if problems:
    print("bench-smoke: " + "; ".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"bench-smoke: {len(results)} figures from retryflow-bench --quick (timing not asserted)")
PY

#!/usr/bin/env bash
# The user-steps promise from outside, run by `make test`: Examples/OutsideStep is a package that
# depends only on RetryFlow's products (as a user's would), adds a "refresh credentials" step on 401
# and a "use mirror" step after two failures of the primary, and runs both against FlakyServer. This
# builds it (in .build/outside-package, so a second run only relinks what changed), runs it, and fails
# unless each run succeeded and its chart and trace show its step by name. Then it builds Examples/DocSamples,
# the docs' samples from outside the package (in .build/outside-docs), so no sample leans on `package` API.
set -euo pipefail
SWIFT="${SWIFT:-swift}"
root="$(cd "$(dirname "$0")/.." && pwd)"
"$SWIFT" build --package-path "$root/Examples/OutsideStep" --scratch-path "$root/.build/outside-package" "$@"
bin="$("$SWIFT" build --package-path "$root/Examples/OutsideStep" --scratch-path "$root/.build/outside-package" --show-bin-path "$@")"
output="$(mktemp /tmp/retryflow-outside-package.XXXXXX.txt)"
trap 'rm -f "$output"' EXIT
if ! "$bin/OutsideStep" > "$output"; then
    cat "$output" >&2
    echo "outside-package: OutsideStep failed (a run did not end as its sample says)" >&2
    exit 1
fi
python3 - "$output" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
problems = []
for step in ["refresh credentials", "use mirror"]:
    def section(part):
        match = re.search(rf"== {step}: {part} ==\n(.*?)\n== {step}: ", text, re.S)
        return match.group(1) if match else None
    chart, trace = section("chart"), section("trace")
    if chart is None or trace is None:
        problems.append(f"no chart or trace printed for {step!r}")
        continue
    # The chart draws the step as a state with a way in and a way out; the trace enters and leaves it.
    if f'"{step}" [' not in chart: problems.append(f"the chart of {step!r} has no state {step!r}")
    if f'-> "{step}"' not in chart or f'"{step}" -> ' not in chart:
        problems.append(f"the chart of {step!r} has no edge into and out of it")
    if f"[to {step}]" not in trace or f"retry → {step}" not in trace or f"{step} → " not in trace:
        problems.append(f"the trace of {step!r} does not enter and leave {step!r}")
if problems:
    print("outside-package: " + "; ".join(problems), file=sys.stderr)
    sys.exit(1)
print("outside-package: both steps ran from a package outside the repo's targets, by name on chart and trace")
PY
"$SWIFT" build --package-path "$root/Examples/DocSamples" --scratch-path "$root/.build/outside-docs" "$@"
echo "outside-package: the docs' samples compile against the products' public API alone"

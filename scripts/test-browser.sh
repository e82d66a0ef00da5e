#!/usr/bin/env bash
# The browser tests of run reports: writes reports with the retryflow tool (simulated runs, a
# trace rendered to a page, the demo's live runs, the teaching pages), then drives headless Chromium over each with
# Selenium (Tests/Browser/test_report.py). Needs chromium, chromium-driver and selenium
# (scripts/install-deps.sh). Usage: scripts/test-browser.sh
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in "${CHROMIUM:-chromium}" "${CHROMEDRIVER:-chromedriver}"; do
  command -v "$tool" >/dev/null 2>&1 || { echo "test-browser: $tool not found; run scripts/install-deps.sh --browser" >&2; exit 1; }
done
swift build --product retryflow >/dev/null
tool="$(swift build --show-bin-path)/retryflow"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

"$tool" simulate --outcomes reset,503:retry-after=1,503,200 --attempts 5 --jitter none --report "$out/flaky.html" >/dev/null
"$tool" simulate --outcomes 503 --attempts 3 --jitter none --report "$out/gives-up.html" >/dev/null
"$tool" simulate --outcomes 503:after=0.4 --attempts 10 --deadline 2 --jitter none --report "$out/deadline.html" >/dev/null
"$tool" render --trace diagrams/example-fail-fail-succeed.trace.json -o "$out/rendered.html"
reports="$out/flaky.html:$out/gives-up.html:$out/deadline.html:$out/rendered.html"
# The pages a newcomer opens after `make run`: live runs against the in-process flaky server.
# Its progress is not wanted here, but its error is when it fails (set -e would end the run silently).
"$tool" demo -o "$out/demo" >/dev/null 2>"$out/demo.log" || { cat "$out/demo.log" >&2; exit 1; }
for page in "$out"/demo/*.html; do reports="$reports:$page"; done
# Runs made with a policy open on its chart; render --trace and the teaching pages draw the whole table.
policy_reports="$out/flaky.html:$out/gives-up.html:$out/deadline.html"
for page in "$out"/demo/*.html; do policy_reports="$policy_reports:$page"; done
for page in docs/runs/*.html; do
  [ -e "$page" ] && reports="$reports:$page"
done
# The teaching pages of the retry machine are simulated runs with a policy too.
for page in docs/runs/retryflow-*.html; do
  [ -e "$page" ] && policy_reports="$policy_reports:$page"
done
# Bounded: a hung browser or driver ends the run (exit 124) instead of holding CI to its own limit.
RETRYFLOW_REPORTS="$reports" RETRYFLOW_POLICY_REPORTS="$policy_reports" timeout --kill-after=30 "${RETRYFLOW_BROWSER_TIMEOUT:-900}" \
  python3 Tests/Browser/test_report.py

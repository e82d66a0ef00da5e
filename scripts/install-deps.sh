#!/usr/bin/env bash
# Installs what the package needs from Debian when it is missing: the Graphviz C library
# (libgvc, for RetryFlowGraphviz), pkg-config (SwiftPM finds libgvc through it) and
# curl (the CLI tests run it beside retryflow fetch).
# With --browser, also what the browser tests of run reports need (scripts/test-browser.sh):
# Debian's chromium and chromium-driver, and PyPI's selenium. `make test` asks for them;
# `make run` does not.
# On macOS: `brew install graphviz pkg-config` (Package.swift names the same providers); for the
# browser tests, a Chromium or Chrome with its chromedriver (set CHROMIUM and CHROMEDRIVER) and
# `python3 -m pip install selenium`.
set -euo pipefail

browser=0
[ "${1:-}" = "--browser" ] && browser=1

missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
# curl: the CLI tests run it side by side with `retryflow fetch` (CurlSideBySideTests).
command -v curl >/dev/null 2>&1 || missing+=(curl)
if ! pkg-config --exists libgvc 2>/dev/null; then missing+=(libgraphviz-dev); fi
if [ "$browser" -eq 1 ]; then
  command -v "${CHROMIUM:-chromium}" >/dev/null 2>&1 || missing+=(chromium)
  command -v "${CHROMEDRIVER:-chromedriver}" >/dev/null 2>&1 || missing+=(chromium-driver)
fi

if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: missing ${missing[*]}; install them with your system's package manager" >&2
    exit 1
  fi
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "install-deps: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  pkg-config --exists libgvc
fi

if [ "$browser" -eq 1 ] && ! python3 -c 'import selenium' >/dev/null 2>&1; then
  echo "install-deps: installing selenium (PyPI)" >&2
  python3 -m pip install --quiet selenium
fi

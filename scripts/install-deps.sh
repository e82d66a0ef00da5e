#!/usr/bin/env bash
# Installs what the package needs from Debian when it is missing: the Graphviz C library
# (libgvc, for RetryFlowGraphviz) and pkg-config (SwiftPM finds libgvc through it); for the
# browser tests of the run reports (scripts/test-browser.sh), Debian's chromium and
# chromium-driver and PyPI's selenium.
# On macOS: `brew install graphviz pkg-config` (Package.swift names the same providers), plus a
# Chrome and `pip install selenium` for the browser tests.
set -euo pipefail

missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
if ! pkg-config --exists libgvc 2>/dev/null; then missing+=(libgraphviz-dev); fi
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)

if [ ${#missing[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: missing ${missing[*]}; install Graphviz's development files, pkg-config and Chromium" >&2
    exit 1
  fi
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "install-deps: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  pkg-config --exists libgvc
fi

if ! python3 -c 'import selenium' >/dev/null 2>&1; then
  echo "install-deps: installing selenium (PyPI)" >&2
  python3 -m pip install --quiet selenium
fi

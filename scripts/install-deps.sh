#!/usr/bin/env bash
# Installs what the package needs from Debian when it is missing: the Graphviz C library and its
# headers (libgraphviz-dev: RetryFlowGraphviz compiles against <graphviz/gvc.h> and opens libgvc on
# first render), curl (the CLI tests run it beside retryflow fetch; so does the download-resume benchmark),
# nginx and wrk (the real server of the nginx tests and benchmarks, and its load reference).
# With --browser, also what the browser tests of run reports need (scripts/test-browser.sh):
# Debian's chromium and chromium-driver, and PyPI's selenium. `make test` asks for them;
# `make run` does not.
# On macOS: `brew install graphviz` (on Apple silicon, build with -Xcc -I/opt/homebrew/include); for the
# browser tests, a Chromium or Chrome with its chromedriver (set CHROMIUM and CHROMEDRIVER) and
# `python3 -m pip install selenium`.
set -euo pipefail

browser=0
[ "${1:-}" = "--browser" ] && browser=1

missing=()
# curl: the CLI tests run it side by side with `retryflow fetch` (CurlSideBySideTests).
command -v curl >/dev/null 2>&1 || missing+=(curl)
graphviz_header=/usr/include/graphviz/gvc.h
[ -f "$graphviz_header" ] || missing+=(libgraphviz-dev)
# nginx: the real server of the nginx tests and benchmarks (NginxServer starts its own on 127.0.0.1);
# wrk: the benchmarks' reference load generator beside it.
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null 2>&1 || missing+=(nginx-light)
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
if [ "$browser" -eq 1 ]; then
  command -v "${CHROMIUM:-chromium}" >/dev/null 2>&1 || missing+=(chromium)
  command -v "${CHROMEDRIVER:-chromedriver}" >/dev/null 2>&1 || missing+=(chromium-driver)
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
updated=0
apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: missing $*; install them with your system's package manager" >&2
    exit 1
  fi
  echo "install-deps: installing $*" >&2
  [ "$updated" -eq 1 ] || { $sudo apt-get update -qq; updated=1; }
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

if [ ${#missing[@]} -gt 0 ]; then
  apt_install "${missing[@]}"
  [ -f "$graphviz_header" ]
  if [ "$browser" -eq 1 ]; then
    command -v "${CHROMIUM:-chromium}" >/dev/null && command -v "${CHROMEDRIVER:-chromedriver}" >/dev/null
  fi
fi

if [ "$browser" -eq 1 ] && ! python3 -c 'import selenium' >/dev/null 2>&1; then
  # A Debian python3 comes without pip, and (PEP 668) refuses to install into itself unless told to.
  python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
  echo "install-deps: installing selenium (PyPI)" >&2
  python3 -m pip install --quiet selenium 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages selenium
  python3 -c 'import selenium'
fi

#!/usr/bin/env bash
# Installs what the package needs from Debian when it is missing: the Graphviz C library
# (libgvc, for RetryFlowGraphviz), pkg-config (SwiftPM finds libgvc through it), and curl (the
# download-resume benchmark runs it side by side with RetryFlow).
# On macOS: `brew install graphviz pkg-config` (Package.swift names the same providers).
set -euo pipefail

missing=()
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if ! pkg-config --exists libgvc 2>/dev/null; then missing+=(libgraphviz-dev); fi
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-deps: missing ${missing[*]}; install Graphviz's development files and pkg-config" >&2
  exit 1
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "install-deps: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
pkg-config --exists libgvc

#!/usr/bin/env bash
# Builds the DocC sites of the library products offline: symbol graphs from the compiler,
# then the toolchain's own `docc convert` (no plugin package can be fetched here).
# Usage: scripts/build-docs.sh [OUTPUT_DIR]   (default .build/docs); warnings are errors.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-.build/docs}"
graphs=".build/symbol-graphs"
rm -rf "$graphs" .build/docs-build
mkdir -p "$graphs" "$out"
# A scratch path of its own: the compiler writes symbol graphs only for modules it compiles.
swift build --scratch-path .build/docs-build --target RetryFlowCharts \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" >/dev/null
for module in RetryFlow RetryFlowHTTP RetryFlowCharts; do
  only="$graphs/$module"
  rm -rf "$only"
  mkdir -p "$only"
  cp "$graphs/$module".symbols.json "$only/"
  cp "$graphs/$module"@*.symbols.json "$only/" 2>/dev/null || true
  docc convert "Sources/$module/$module.docc" \
    --additional-symbol-graph-dir "$only" \
    --fallback-display-name "$module" --fallback-bundle-identifier "org.retryflow.$module" \
    --output-path "$out/$module" --transform-for-static-hosting --warnings-as-errors >/dev/null
  echo "docs: $out/$module"
done

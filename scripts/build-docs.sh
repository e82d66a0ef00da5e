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
# Every library product's modules: RetryFlowTesting's target builds the core, HTTP, Charts and the test
# support it re-exports; RetryFlowGraphviz's adds itself.
for target in RetryFlowTesting RetryFlowGraphviz; do
  swift build --scratch-path .build/docs-build --target "$target" \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" >/dev/null
done
for module in RetryFlow RetryFlowHTTP RetryFlowCharts RetryFlowGraphviz RetryFlowTestSupport RetryFlowTesting; do
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

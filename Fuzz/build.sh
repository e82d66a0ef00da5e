#!/usr/bin/env bash
# Builds the libFuzzer fuzzers (swiftc -sanitize=fuzzer,address) into .build/fuzz: the package's
# modules are compiled here with coverage instrumentation (SwiftPM cannot link libFuzzer's main
# next to our executables), then each target in Fuzz/targets links against them.
#   Fuzz/build.sh [TARGET...]     (default: every target)
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/fuzz
mkdir -p "$out"
flags=(-sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -package-name retryflow -I "$out" -L "$out")
graphviz=(-I Sources/CGraphviz -Xcc -I/usr/include/graphviz)

# module NAME SOURCES...: a static library and its .swiftmodule, rebuilt when a source is newer.
module() {
    local name=$1
    shift
    local library="$out/lib$name.a"
    if [ -f "$library" ] && [ -z "$(find "$@" -newer "$library" 2>/dev/null | head -1)" ]; then return; fi
    echo "fuzz: compiling $name" >&2
    swiftc "${flags[@]}" "${graphviz[@]}" -module-name "$name" -emit-module -emit-module-path "$out/$name.swiftmodule" \
        -emit-library -static -o "$library" "$@"
}

module RetryFlow $(find Sources/RetryFlow -name '*.swift' | sort)
module RetryFlowHTTP $(find Sources/RetryFlowHTTP -name '*.swift' | sort)
module RetryFlowGraphviz $(find Sources/RetryFlowGraphviz -name '*.swift' | sort)
module RetryFlowTesting $(find Sources/RetryFlowTesting -name '*.swift' | sort)

libraries=(-lRetryFlowTesting -lRetryFlowGraphviz -lRetryFlowHTTP -lRetryFlow -lgvc -lcgraph -lcdt)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=($(ls Fuzz/targets | grep -v Common.swift | sed 's/\.swift$//'))
for target in "${targets[@]}"; do
    sources=(Fuzz/targets/Common.swift "Fuzz/targets/$target.swift")
    module_name="fuzz_${target//-/_}"
    if [ "$target" = cli-arguments ]; then
        # The CLI's own code, without main.swift's top-level program, in the CLI's module.
        sources+=($(ls Sources/retryflow/*.swift | grep -v '/main.swift$'))
        module_name=retryflow
    fi
    echo "fuzz: linking fuzz-$target" >&2
    swiftc "${flags[@]}" "${graphviz[@]}" -module-name "$module_name" "${sources[@]}" "${libraries[@]}" -o "$out/fuzz-$target"
done

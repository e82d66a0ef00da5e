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

# module NAME SOURCES...: a static library and its .swiftmodule, rebuilt when a source is newer or
# a module before it (one it may import) was rebuilt.
rebuilt=0
module() {
    local name=$1
    shift
    local library="$out/lib$name.a"
    if [ "$rebuilt" = 0 ] && [ -f "$library" ] && [ -z "$(find "$@" -newer "$library" 2>/dev/null | head -1)" ]; then
        return
    fi
    rebuilt=1
    echo "fuzz: compiling $name" >&2
    swiftc "${flags[@]}" "${graphviz[@]}" -module-name "$name" -emit-module -emit-module-path "$out/$name.swiftmodule" \
        -emit-library -static -o "$library" "$@"
}

# The package's library targets in dependency order, read from Package.swift itself (its own scratch
# path: no wait on a build holding .build): a module added there is compiled and linked here too, so
# the fuzzers cannot fall behind the package again (cli-arguments once failed on RetryFlowSnippets).
modules=($(swift package --scratch-path "$out/package" dump-package | python3 -c '
import json, sys
targets = {t["name"]: t for t in json.load(sys.stdin)["targets"] if t["type"] == "regular"}
done = []
def visit(name):
    if name in targets and name not in done:
        for dependency in targets[name].get("dependencies", []):
            visit(next(iter(dependency.values()))[0])
        done.append(name)
for name in targets:
    visit(name)
print(" ".join(done))'))
[ ${#modules[@]} -gt 0 ] || { echo "fuzz: no library targets read from Package.swift" >&2; exit 1; }
libraries=()
for name in "${modules[@]}"; do
    module "$name" $(find "Sources/$name" -name '*.swift' | sort)
    libraries=("-l$name" "${libraries[@]}") # dependants before their dependencies, as the linker wants
done
libraries+=(-lgvc -lcgraph -lcdt)
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

// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "RetryFlow",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "RetryFlow", targets: ["RetryFlow"]),
        .library(name: "RetryFlowHTTP", targets: ["RetryFlowHTTP"]),
        .library(name: "RetryFlowGraphviz", targets: ["RetryFlowGraphviz"]),
        .library(name: "RetryFlowTesting", targets: ["RetryFlowTesting"]),
        .executable(name: "retryflow", targets: ["retryflow"]),
        .executable(name: "retryflow-bench", targets: ["retryflow-bench"]),
    ],
    targets: [
        // The machine, policies, engine and trace: needs nothing but the toolchain.
        .target(name: "RetryFlow"),
        .target(name: "RetryFlowHTTP", dependencies: ["RetryFlow"]),
        // The original snippets retold as tables, for the docs' charts: teaching material, not a product.
        .target(name: "RetryFlowSnippets", dependencies: ["RetryFlow"]),
        // Graphviz is needed only to render images; DOT text comes from RetryFlow alone.
        .systemLibrary(
            name: "CGraphviz",
            pkgConfig: "libgvc",
            providers: [.apt(["libgraphviz-dev"]), .brew(["graphviz"])]
        ),
        .target(name: "RetryFlowGraphviz", dependencies: ["RetryFlow", "CGraphviz"]),
        // What users' tests need too: a manual clock, a scripted loopback server, simulations.
        .target(name: "RetryFlowTesting", dependencies: ["RetryFlow", "RetryFlowHTTP"]),
        .executableTarget(
            name: "retryflow",
            dependencies: ["RetryFlow", "RetryFlowHTTP", "RetryFlowGraphviz", "RetryFlowTesting", "RetryFlowSnippets"]
        ),
        .executableTarget(
            name: "retryflow-bench",
            dependencies: ["RetryFlow", "RetryFlowHTTP", "RetryFlowGraphviz", "RetryFlowTesting"]
        ),
        // The cancel storm at full size (`make stress`); a scaled-down run is in RetryFlowHTTPTests.
        .executableTarget(name: "retryflow-stress", dependencies: ["RetryFlow", "RetryFlowHTTP", "RetryFlowTesting"]),
        .testTarget(name: "RetryFlowTests", dependencies: ["RetryFlow", "RetryFlowTesting", "RetryFlowSnippets"]),
        .testTarget(name: "RetryFlowTestingTests", dependencies: ["RetryFlow", "RetryFlowTesting"]),
        .testTarget(name: "RetryFlowHTTPTests", dependencies: ["RetryFlowHTTP", "RetryFlowTesting"]),
        .testTarget(name: "RetryFlowCLITests", dependencies: ["retryflow", "RetryFlowTesting"]),
        // Every Swift sample of README.md and docs/, generated into one file: if a sample stops compiling, so does this.
        .testTarget(
            name: "RetryFlowDocSamplesTests", dependencies: ["RetryFlowHTTP", "RetryFlowGraphviz", "RetryFlowTesting"]),
        .testTarget(
            name: "RetryFlowGraphvizTests",
            dependencies: ["RetryFlowGraphviz", "RetryFlowHTTP", "RetryFlowTesting", "RetryFlowSnippets"]),
    ],
    swiftLanguageModes: [.v6]
)

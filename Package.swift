// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "RetryFlow",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "RetryFlow", targets: ["RetryFlow"]),
        .library(name: "RetryFlowHTTP", targets: ["RetryFlowHTTP"]),
        .library(name: "RetryFlowCharts", targets: ["RetryFlowCharts"]),
        .library(name: "RetryFlowGraphviz", targets: ["RetryFlowGraphviz"]),
        .library(name: "RetryFlowTesting", targets: ["RetryFlowTesting"]),
        .executable(name: "retryflow", targets: ["retryflow"]),
    ],
    targets: [
        // The machine, policies, engine and trace: needs nothing but the toolchain.
        .target(name: "RetryFlow"),
        .target(name: "RetryFlowHTTP", dependencies: ["RetryFlow"]),
        // What reads a table to draw, check or prove it: DOT/Mermaid/Markdown, check-chart, the
        // exploration behind `retryflow verify`, the chart of a policy, timelines. Tools need it, runs
        // do not. It proves the HTTP module's tables (credential, transfer) too, hence RetryFlowHTTP.
        .target(name: "RetryFlowCharts", dependencies: ["RetryFlow", "RetryFlowHTTP"]),
        // The original snippets retold as tables, for the docs' charts: teaching material, not a product.
        .target(name: "RetryFlowSnippets", dependencies: ["RetryFlow", "RetryFlowCharts"]),
        // Graphviz is needed only to render images; DOT text comes from RetryFlowCharts alone. Its headers
        // are read at build time (<graphviz/gvc.h> from the default include path), but the library is
        // opened on first render, not linked (Sources/CGraphviz/shim.h): no pkg-config, whose flags
        // would link it into every program and load it at every start. A run report draws a hedged
        // run's races (RetryFlowHTTP's `HedgingRecord`), hence RetryFlowHTTP.
        .systemLibrary(name: "CGraphviz", providers: [.apt(["libgraphviz-dev"]), .brew(["graphviz"])]),
        .target(
            name: "RetryFlowGraphviz", dependencies: ["RetryFlow", "RetryFlowHTTP", "RetryFlowCharts", "CGraphviz"]),
        // What users' tests need too: a manual clock, a scripted loopback server, simulations. The
        // support needs no test framework, so the CLI can link it; RetryFlowTesting adds swift-testing's
        // `expectConsistent` and re-exports the support, so users import one module.
        .target(name: "RetryFlowTestSupport", dependencies: ["RetryFlow", "RetryFlowHTTP", "RetryFlowCharts"]),
        .target(name: "RetryFlowTesting", dependencies: ["RetryFlow", "RetryFlowTestSupport"]),
        // The simulations behind the CLI's figures, not for users' tests: the fleet and adaptive
        // simulations (`retryflow simulate`) and the classic figures (`retryflow teach`). Not a product.
        .target(
            name: "RetryFlowFigures",
            dependencies: ["RetryFlow", "RetryFlowHTTP", "RetryFlowCharts", "RetryFlowTestSupport"]),
        // Real servers for our own tests and benchmarks, not for users: the nginx harness and the
        // proxy that cuts bodies. Not a product.
        .target(name: "RetryFlowTestServers", dependencies: ["RetryFlow", "RetryFlowTestSupport"]),
        .executableTarget(
            name: "retryflow",
            dependencies: [
                "RetryFlow", "RetryFlowHTTP", "RetryFlowCharts", "RetryFlowGraphviz", "RetryFlowTestSupport",
                "RetryFlowFigures", "RetryFlowSnippets",
            ]
        ),
        // The cancel storm at full size (`make stress`); a scaled-down run is in RetryFlowHTTPTests.
        .executableTarget(
            name: "retryflow-stress", dependencies: ["RetryFlow", "RetryFlowHTTP", "RetryFlowTestSupport"]),
        .testTarget(
            name: "RetryFlowTests",
            dependencies: ["RetryFlow", "RetryFlowCharts", "RetryFlowTesting", "RetryFlowSnippets"]),
        // Charts and proofs; Graphviz reads their DOT back to check what was drawn.
        .testTarget(
            name: "RetryFlowChartsTests",
            dependencies: [
                "RetryFlowCharts", "RetryFlowGraphviz", "RetryFlowHTTP", "RetryFlowTesting", "RetryFlowSnippets",
            ]),
        .testTarget(
            name: "RetryFlowTestingTests", dependencies: ["RetryFlow", "RetryFlowTesting", "RetryFlowFigures"]),
        .testTarget(name: "RetryFlowTestServersTests", dependencies: ["RetryFlowTestServers", "RetryFlowTesting"]),
        .testTarget(
            name: "RetryFlowHTTPTests",
            dependencies: ["RetryFlowHTTP", "RetryFlowCharts", "RetryFlowTesting", "RetryFlowTestServers"]),
        .testTarget(name: "RetryFlowCLITests", dependencies: ["retryflow", "RetryFlowCharts", "RetryFlowTesting"]),
        // Every Swift sample of README.md and docs/, generated into one file: if a sample stops compiling, so does this.
        .testTarget(
            name: "RetryFlowDocSamplesTests",
            dependencies: ["RetryFlowHTTP", "RetryFlowCharts", "RetryFlowGraphviz", "RetryFlowTesting"]),
        .testTarget(
            name: "RetryFlowGraphvizTests",
            dependencies: [
                "RetryFlowGraphviz", "RetryFlowCharts", "RetryFlowHTTP", "RetryFlowTesting", "RetryFlowSnippets",
                "RetryFlowFigures",
            ]),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version:6.0
import PackageDescription

// RetryFlow's benchmarks, a package of their own (as swift-nio keeps its benchmarks): they use
// RetryFlow only through its products, as a user's package would, so what they measure is what users
// get. `make bench` runs them; `make test` only builds them, so they cannot rot, and times nothing.
let package = Package(
    name: "RetryFlowBenchmarks",
    platforms: [.macOS(.v13)],
    // `name:` because a path package is known by its directory's name, and a clone may be called anything.
    dependencies: [.package(name: "RetryFlow", path: "..")],
    targets: [
        // The real servers the benchmarks meet (RetryFlowTestServers: nginx and the proxy that cuts its
        // bodies) are not a product of RetryFlow, so another package cannot depend on them: this target
        // compiles the same files, through symbolic links into ../Sources, with the process launcher and
        // lock they use. They import RetryFlowTestSupport, which RetryFlowTesting builds.
        .target(
            name: "BenchSupport",
            dependencies: [
                .product(name: "RetryFlow", package: "RetryFlow"),
                .product(name: "RetryFlowTesting", package: "RetryFlow"),
            ]
        ),
        .executableTarget(
            name: "retryflow-bench",
            dependencies: [
                "BenchSupport",
                .product(name: "RetryFlow", package: "RetryFlow"),
                .product(name: "RetryFlowHTTP", package: "RetryFlow"),
                .product(name: "RetryFlowCharts", package: "RetryFlow"),
                .product(name: "RetryFlowGraphviz", package: "RetryFlow"),
                .product(name: "RetryFlowTesting", package: "RetryFlow"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

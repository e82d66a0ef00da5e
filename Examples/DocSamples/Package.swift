// swift-tools-version:6.0
import PackageDescription

// The docs' samples, compiled from outside RetryFlow's package (scripts/outside-package.sh): its DocSamples.swift
// is a link to Tests/RetryFlowDocSamplesTests/DocSamples.swift, generated from the docs. Inside the package the
// samples could use RetryFlow's `package` API unnoticed; here only the products' public API is in reach.
let package = Package(
    name: "DocSamples",
    platforms: [.macOS(.v13)],
    // `name:` because a path package is known by its directory's name, and a clone may be called anything.
    dependencies: [.package(name: "RetryFlow", path: "../..")],
    targets: [
        .target(
            name: "DocSamples",
            dependencies: [
                .product(name: "RetryFlow", package: "RetryFlow"),
                .product(name: "RetryFlowCharts", package: "RetryFlow"),
                .product(name: "RetryFlowGraphviz", package: "RetryFlow"),
                .product(name: "RetryFlowHTTP", package: "RetryFlow"),
                .product(name: "RetryFlowTesting", package: "RetryFlow"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)

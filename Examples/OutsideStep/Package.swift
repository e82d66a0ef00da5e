// swift-tools-version:6.0
import PackageDescription

// A package outside RetryFlow's targets that depends only on its products, as a user's would: it adds
// its own steps to the retry table and runs them against FlakyServer (scripts/outside-package.sh).
let package = Package(
    name: "OutsideStep",
    platforms: [.macOS(.v13)],
    // `name:` because a path package is known by its directory's name, and a clone may be called anything.
    dependencies: [.package(name: "RetryFlow", path: "../..")],
    targets: [
        .executableTarget(
            name: "OutsideStep",
            dependencies: [
                .product(name: "RetryFlow", package: "RetryFlow"),
                .product(name: "RetryFlowCharts", package: "RetryFlow"),
                .product(name: "RetryFlowHTTP", package: "RetryFlow"),
                .product(name: "RetryFlowTesting", package: "RetryFlow"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Taskbase",
    products: [
        .library(name: "PGStore", targets: ["PGStore"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .target(name: "PGStore", dependencies: ["CLibPQ"]),
        .testTarget(name: "PGStoreTests", dependencies: ["PGStore"]),
        .executableTarget(name: "pgstore-loop", dependencies: ["PGStore"], path: "Benchmarks/pgstore-loop"),
        .executableTarget(name: "pgstore-batch", dependencies: ["PGStore"], path: "Benchmarks/pgstore-batch"),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Taskbase",
    products: [
        .library(name: "PGStore", targets: ["PGStore"]),
        .library(name: "Migrations", targets: ["Migrations"]),
        .executable(name: "taskmigrate", targets: ["taskmigrate"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .target(name: "PGStore", dependencies: ["CLibPQ"]),
        .target(name: "Migrations", dependencies: ["PGStore"]),
        .executableTarget(name: "taskmigrate", dependencies: ["Migrations", "PGStore"]),
        .testTarget(name: "PGStoreTests", dependencies: ["PGStore"]),
        .testTarget(name: "MigrationsTests", dependencies: ["Migrations", "PGStore", "taskmigrate"]),
        .executableTarget(name: "pgstore-loop", dependencies: ["PGStore"], path: "Benchmarks/pgstore-loop"),
    ],
    swiftLanguageModes: [.v6]
)

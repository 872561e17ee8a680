// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Taskbase",
    products: [
        .library(name: "PGStore", targets: ["PGStore"]),
        .library(name: "Migrations", targets: ["Migrations"]),
        .executable(name: "taskmigrate", targets: ["taskmigrate"]),
        .library(name: "CommandLineToolkit", targets: ["CommandLineToolkit"]),
        .library(name: "CSVImport", targets: ["CSVImport"]),
        .library(name: "TaskCore", targets: ["TaskCore"]),
        .library(name: "TaskStoreMemory", targets: ["TaskStoreMemory"]),
    ],
    targets: [
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .target(name: "PGStore", dependencies: ["CLibPQ"]),
        .target(name: "Migrations", dependencies: ["PGStore"]),
        .executableTarget(name: "taskmigrate", dependencies: ["Migrations", "PGStore", "CommandLineToolkit"]),
        .testTarget(name: "PGStoreTests", dependencies: ["PGStore"]),
        .testTarget(name: "MigrationsTests", dependencies: ["Migrations", "PGStore", "taskmigrate"]),
        .executableTarget(name: "pgstore-roundtrip", dependencies: ["PGStore"], path: "Examples/pgstore-roundtrip"),
        .executableTarget(name: "pgstore-loop", dependencies: ["PGStore"], path: "Benchmarks/pgstore-loop"),
        .target(name: "CommandLineToolkit"),
        .testTarget(name: "CommandLineToolkitTests", dependencies: ["CommandLineToolkit", "toolkit-example"]),
        .executableTarget(name: "toolkit-example", dependencies: ["CommandLineToolkit"], path: "Examples/toolkit-example"),
        .target(name: "CSVImport"),
        .testTarget(name: "CSVImportTests", dependencies: ["CSVImport"]),
        .executableTarget(name: "csvbench", dependencies: ["CSVImport"], path: "Benchmarks/csvbench"),
        .target(name: "TaskCore"),
        .target(name: "TaskStoreMemory", dependencies: ["TaskCore"]),
        // The store contract: checks every TaskCore store must pass. Linked only by test targets.
        .target(name: "TaskStoreContract", dependencies: ["TaskCore"]),
        .testTarget(name: "TaskCoreTests", dependencies: ["TaskCore"]),
        .testTarget(name: "TaskStoreMemoryTests", dependencies: ["TaskStoreMemory", "TaskStoreContract"]),
    ],
    swiftLanguageModes: [.v6]
)

// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Taskbase",
    products: [
        .library(name: "PGStore", targets: ["PGStore"]),
        .library(name: "TaskCore", targets: ["TaskCore"]),
        .library(name: "TaskStoreMemory", targets: ["TaskStoreMemory"]),
        .library(name: "Migrations", targets: ["Migrations"]),
        .executable(name: "taskmigrate", targets: ["taskmigrate"]),
        .library(name: "CommandLineToolkit", targets: ["CommandLineToolkit"]),
        .library(name: "CSVImport", targets: ["CSVImport"]),
        .executable(name: "taskctl", targets: ["taskctl"]),
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
        .executableTarget(name: "pgstore-roundtrip", dependencies: ["PGStore"], path: "Examples/pgstore-roundtrip"),
        .testTarget(name: "MigrationsTests", dependencies: ["Migrations", "PGStore", "taskmigrate"]),
        .executableTarget(
            name: "taskbase-bench", dependencies: ["TaskCore", "TaskStorePG", "PGStore", "Migrations"],
            path: "Benchmarks/taskbase-bench"),
        .executableTarget(name: "pgstore-loop", dependencies: ["PGStore"], path: "Benchmarks/pgstore-loop"),
        .target(name: "TaskCore"),
        .target(name: "TaskStoreMemory", dependencies: ["TaskCore"]),
        // The store contract: checks every TaskCore store must pass. Linked only by test targets.
        .target(name: "TaskStoreContract", dependencies: ["TaskCore"]),
        .testTarget(name: "TaskCoreTests", dependencies: ["TaskCore"]),
        .testTarget(name: "TaskStoreMemoryTests", dependencies: ["TaskStoreMemory", "TaskStoreContract"]),
        .target(name: "TaskStorePG", dependencies: ["TaskCore", "PGStore"]),
        // Test databases on the server scripts/test names. Linked only by test targets.
        .target(name: "TaskbaseTestSupport", dependencies: ["PGStore", "Migrations"]),
        .testTarget(name: "TaskStorePGTests", dependencies: ["TaskStorePG", "TaskStoreContract", "TaskbaseTestSupport", "PGStore"]),
        .target(name: "CommandLineToolkit"),
        .testTarget(name: "CommandLineToolkitTests", dependencies: ["CommandLineToolkit", "toolkit-example"]),
        .executableTarget(name: "toolkit-example", dependencies: ["CommandLineToolkit"], path: "Examples/toolkit-example"),
        .target(name: "CSVImport"),
        .testTarget(name: "CSVImportTests", dependencies: ["CSVImport"]),
        .executableTarget(name: "csvbench", dependencies: ["CSVImport"], path: "Benchmarks/csvbench"),
        .executableTarget(name: "taskctl", dependencies: ["CommandLineToolkit", "TaskCore", "TaskStorePG", "PGStore"]),
        .testTarget(name: "TaskctlTests", dependencies: ["taskctl", "CommandLineToolkit", "TaskCore", "TaskStoreMemory", "CSVImport", "TaskbaseTestSupport", "PGStore"]),
    ],
    swiftLanguageModes: [.v6]
)

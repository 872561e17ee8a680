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
        .testTarget(name: "TaskStorePGTests", dependencies: ["TaskStorePG", "TaskStoreContract", "Migrations", "PGStore"]),
        .target(name: "CommandLineToolkit"),
        .testTarget(name: "CommandLineToolkitTests", dependencies: ["CommandLineToolkit", "toolkit-example"]),
        .executableTarget(name: "toolkit-example", dependencies: ["CommandLineToolkit"], path: "Examples/toolkit-example"),
        .target(name: "CSVImport"),
        .testTarget(name: "CSVImportTests", dependencies: ["CSVImport"]),
        .executableTarget(name: "csvbench", dependencies: ["CSVImport"], path: "Benchmarks/csvbench"),
        // Faults on purpose: concurrent and killed migrations, racing updates, hostile input,
        // CSV fuzzing, failover to a promoted standby, PgBouncer in transaction mode.
        .testTarget(
            name: "ReliabilityTests",
            dependencies: ["TaskCore", "TaskStorePG", "TaskStoreContract", "Migrations", "PGStore", "CSVImport", "taskmigrate"]),
    ],
    swiftLanguageModes: [.v6]
)

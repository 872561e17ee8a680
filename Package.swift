// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Taskbase",
    products: [
        .library(name: "PGStore", targets: ["PGStore"]),
        .library(name: "Migrations", targets: ["Migrations"]),
        .library(name: "TaskCore", targets: ["TaskCore"]),
        .library(name: "TaskStorePG", targets: ["TaskStorePG"]),
        .library(name: "TaskStoreMemory", targets: ["TaskStoreMemory"]),
        .library(name: "CSVImport", targets: ["CSVImport"]),
        .library(name: "CommandLineToolkit", targets: ["CommandLineToolkit"]),
        .library(name: "TaskbaseWire", targets: ["TaskbaseWire"]),
        .library(name: "TaskbaseClient", targets: ["TaskbaseClient"]),
        .executable(name: "taskmigrate", targets: ["taskmigrate"]),
        .executable(name: "taskctl", targets: ["taskctl"]),
        .executable(name: "taskimport", targets: ["taskimport"]),
        .executable(name: "taskserve", targets: ["taskserve"]),
        .library(name: "TaskbaseServer", targets: ["TaskbaseServer"]),
    ],
    targets: [
        // PostgreSQL client.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(name: "PGStore", dependencies: ["CLibPQ"]),
        .testTarget(name: "PGStoreTests", dependencies: ["PGStore", "TaskbaseTestSupport"]),

        // Migrations.
        .target(name: "Migrations", dependencies: ["PGStore", "Hashing"]),
        .executableTarget(name: "taskmigrate", dependencies: ["Migrations", "PGStore", "CommandLineToolkit", "SafeText", "CStopSignalsAtStart"]),
        .testTarget(
            name: "MigrationsTests", dependencies: ["Migrations", "Hashing", "PGStore", "taskmigrate", "TaskbaseTestSupport"],
            exclude: ["LintCorpus"]),

        // Domain, service layer and its two stores.
        .target(name: "TaskCore"),
        .target(name: "TaskStoreMemory", dependencies: ["TaskCore"]),
        .target(name: "TaskStorePG", dependencies: ["TaskCore", "PGStore"]),
        // The store contract: checks every TaskCore store must pass. Linked only by test targets.
        .target(name: "TaskStoreContract", dependencies: ["TaskCore"]),
        // The session contract: checks every TaskSession (in process, over HTTP) must pass. Tests only.
        .target(name: "TaskSessionContract", dependencies: ["TaskCore", "TaskStoreContract"]),
        // Test databases on the server scripts/test names. Linked only by test targets.
        .target(name: "TaskbaseTestSupport", dependencies: ["PGStore", "Migrations"]),
        .testTarget(name: "TaskCoreTests", dependencies: ["TaskCore"]),
        .testTarget(name: "TaskStoreMemoryTests", dependencies: ["TaskStoreMemory", "TaskStoreContract"]),
        .testTarget(
            name: "TaskStorePGTests", dependencies: ["TaskStorePG", "TaskStoreContract", "TaskbaseTestSupport", "PGStore", "Migrations"]),

        // The JSON documents taskctl prints and the HTTP API and its client exchange.
        .target(name: "TaskbaseWire", dependencies: ["TaskCore"]),
        .testTarget(name: "TaskbaseWireTests", dependencies: ["TaskbaseWire", "TaskCore"]),

        // API tokens: random secrets and their keyed hash, with libcrypto.
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "APITokens", dependencies: ["TaskCore", "CLibCrypto"]),
        // SHA-256 over libcrypto: migration checksums, request fingerprints.
        .target(name: "Hashing", dependencies: ["CLibCrypto"]),

        // The HTTP API: libmicrohttpd, the router and handlers, and the program.
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // gzip for the API's larger answers.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "TaskbaseServer",
            dependencies: [
                "CMicroHTTPD", "CZlib", "CLibCrypto", "TaskCore", "TaskbaseWire", "TaskbaseExport", "APITokens", "PGStore", "CSVImport", "Hashing",
            ]),
        .executableTarget(
            name: "taskserve",
            dependencies: [
                "TaskbaseServer", "TaskbaseCommandLine", "CommandLineToolkit", "TaskCore", "TaskbaseWire", "APITokens", "PGStore", "TaskStorePG",
                "CStopSignalsAtStart",
            ]),
        .testTarget(
            name: "TaskbaseServerTests",
            dependencies: [
                "TaskbaseServer", "TaskbaseWire", "TaskbaseExport", "TaskCore", "TaskStoreMemory", "TaskStorePG", "APITokens", "TaskbaseTestSupport",
                "PGStore", "Hashing", "CLibCrypto",
                "CSVImport", "taskserve",
                "taskctl",
            ]),

        // The HTTP client: TaskCore types over the API, no libpq, no libmicrohttpd.
        .target(name: "TaskbaseClient", dependencies: ["TaskCore", "TaskbaseWire", "SafeFiles"]),
        .testTarget(
            name: "TaskbaseClientTests",
            dependencies: [
                "TaskbaseClient", "TaskCore", "TaskStoreMemory", "TaskStorePG", "TaskSessionContract", "TaskStoreContract", "TaskbaseTestSupport",
                "TaskbaseServer", "APITokens", "taskserve", "taskctl", "PGStore", "board-watch",
            ],
            exclude: ["Fixtures"]),

        // Command line: the shared toolkit and the programs.
        .target(name: "SafeText"),
        .target(name: "SafeFiles"),
        .testTarget(name: "SafeFilesTests", dependencies: ["SafeFiles", "TaskbaseTestSupport"]),
        .target(name: "CommandLineToolkit", dependencies: ["SafeText", "CStopSignals"]),
        // Handlers that record SIGINT, SIGTERM and SIGHUP until CommandRunner.main takes over,
        // installed before a program's libraries start by CStopSignalsAtStart: link that only
        // into programs whose main is CommandRunner.main (in any other the signals would be
        // recorded and never acted on).
        .target(name: "CStopSignals"),
        .target(name: "CStopSignalsAtStart", dependencies: ["CStopSignals"]),
        .testTarget(name: "CommandLineToolkitTests", dependencies: ["CommandLineToolkit", "SafeText", "toolkit-example", "TaskbaseTestSupport"]),
        // A team's tasks as the importer's CSV or as JSON, page by page: taskctl export and the API's.
        .target(name: "TaskbaseExport", dependencies: ["CommandLineToolkit", "TaskCore", "TaskbaseWire"]),
        // What taskctl and taskimport share: reaching TaskService, and its errors as exit codes.
        .target(name: "TaskbaseCommandLine", dependencies: ["CommandLineToolkit", "TaskCore", "TaskStorePG", "PGStore", "SafeFiles"]),
        .executableTarget(
            name: "taskctl",
            dependencies: [
                "CommandLineToolkit", "SafeText", "TaskbaseCommandLine", "TaskCore", "TaskbaseWire", "TaskbaseExport", "APITokens",
                "TaskStorePG", "PGStore", "CStopSignalsAtStart",
            ]),
        .testTarget(
            name: "TaskctlTests",
            dependencies: [
                "taskctl", "CommandLineToolkit", "SafeText", "TaskCore", "TaskbaseWire", "TaskStoreMemory", "CSVImport", "TaskbaseTestSupport",
                "TaskbaseCommandLine", "TaskbaseExport", "PGStore", "TaskStorePG",
            ]),

        // Import.
        .target(name: "CSVImport", dependencies: ["TaskCore", "TaskbaseWire", "SafeText"]),
        .testTarget(name: "CSVImportTests", dependencies: ["CSVImport", "TaskCore", "TaskStoreMemory"]),
        .executableTarget(
            name: "taskimport",
            dependencies: [
                "CSVImport", "TaskbaseCommandLine", "TaskCore", "TaskbaseWire", "TaskStorePG", "PGStore", "CommandLineToolkit", "CStopSignalsAtStart",
            ]),
        // Conformance/ holds the edge-case files, their manifest and the Python reference reader.
        .testTarget(
            name: "TaskimportTests", dependencies: ["taskimport", "taskctl", "TaskCore", "TaskStorePG", "TaskbaseTestSupport", "PGStore"],
            exclude: ["Conformance"]),

        // Faults on purpose: concurrent and killed migrations, racing updates, hostile input,
        // CSV fuzzing, server restart, failover to a promoted standby, PgBouncer in transaction mode.
        .testTarget(
            name: "ReliabilityTests",
            dependencies: [
                "TaskCore", "TaskStorePG", "TaskStoreContract", "TaskbaseTestSupport", "Migrations", "PGStore", "CSVImport", "taskmigrate",
                "taskctl", "taskimport",
            ]),

        // Examples and benchmarks.
        .executableTarget(name: "pgstore-roundtrip", dependencies: ["PGStore"], path: "Examples/pgstore-roundtrip"),
        .executableTarget(name: "board-watch", dependencies: ["TaskbaseClient", "TaskCore"], path: "Examples/board-watch"),
        .executableTarget(name: "toolkit-example", dependencies: ["CommandLineToolkit", "CStopSignalsAtStart"], path: "Examples/toolkit-example"),
        .executableTarget(name: "csvbench", dependencies: ["CSVImport"], path: "Benchmarks/csvbench"),
        .executableTarget(
            name: "taskbase-bench",
            dependencies: ["TaskCore", "TaskStorePG", "TaskStoreMemory", "PGStore", "Migrations", "TaskbaseServer", "APITokens", "TaskbaseClient"],
            path: "Benchmarks/taskbase-bench"),
    ],
    swiftLanguageModes: [.v6]
)

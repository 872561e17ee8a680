import Foundation
import Testing

/// The deployment files against the package: the image carries every C library the programs
/// link, and compose starts the API only after the migration. (`scripts/image-check` builds and
/// runs the image itself; it needs root and debootstrap, so it is not part of `scripts/test`.)
@Suite("The Dockerfile and docker-compose.yml carry what the programs need")
struct DeploymentFilesTests {
    /// The Debian (bookworm) packages of each library a module map links: the runtime library,
    /// and what building against it needs.
    static let packages: [String: (runtime: String, build: String)] = [
        "pq": ("libpq5", "libpq-dev"),
        "microhttpd": ("libmicrohttpd12", "libmicrohttpd-dev"),
        "crypto": ("libssl3", "libssl-dev"),
        "z": ("zlib1g", "zlib1g-dev"),
    ]

    static func text(_ path: String) throws -> String {
        try String(contentsOf: PackagePaths.root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The words of the `apt-get install` line of the Dockerfile stage named `stage`.
    static func installed(in stage: String, of dockerfile: String) throws -> Set<Substring> {
        let stages = dockerfile.components(separatedBy: "\nFROM ")
        let body = try #require(stages.first { $0.split(separator: "\n").first?.hasSuffix(" AS \(stage)") == true }, "no stage \(stage)")
        let install = try #require(body.split(separator: "\n").first { $0.contains("apt-get install") }, "stage \(stage) installs nothing")
        return Set(install.split(separator: " "))
    }

    @Test("every library a module map links is installed in the image: its runtime package in the runtime stage, its -dev in the build stage")
    func linkedLibrariesAreInstalled() throws {
        let sources = PackagePaths.root.appendingPathComponent("Sources")
        var linked: [String] = []
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let map = sources.appendingPathComponent(module).appendingPathComponent("module.modulemap")
            guard let text = try? String(contentsOf: map, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix("link \"") {
                linked.append(String(line.split(separator: "\"")[1]))
            }
        }
        #expect(Set(linked).isSuperset(of: ["pq", "microhttpd"]), "\(linked)")
        let dockerfile = try Self.text("Dockerfile")
        let (runtime, build) = (try Self.installed(in: "runtime", of: dockerfile), try Self.installed(in: "build", of: dockerfile))
        for library in linked {
            let package = try #require(
                Self.packages[library],
                "a module map links \"\(library)\": add its Debian packages to the Dockerfile's two stages and to DeploymentFilesTests.packages")
            #expect(runtime.contains(Substring(package.runtime)), "the runtime stage lacks \(package.runtime) (for -l\(library))")
            #expect(build.contains(Substring(package.build)), "the build stage lacks \(package.build) (for -l\(library))")
        }
    }

    @Test("the image builds every program an operator runs, taskserve included")
    func imageBuildsThePrograms() throws {
        let dockerfile = try Self.text("Dockerfile")
        let loop = try #require(dockerfile.split(separator: "\n").first { $0.contains("for tool in") })
        for program in ["taskmigrate", "taskctl", "taskimport", "taskserve"] {
            #expect(loop.split(whereSeparator: { !$0.isLetter }).contains(Substring(program)), "\(program) is not built into the image")
            #expect(FileManager.default.fileExists(atPath: PackagePaths.root.appendingPathComponent("Sources/\(program)").path))
        }
    }

    @Test("compose's api service runs taskserve once the migration and the runtime role are done, on the host's loopback")
    func composeStartsTheAPIAfterTheMigration() throws {
        let compose = try Self.text("docker-compose.yml").split(separator: "\n", omittingEmptySubsequences: false)
        // The service's lines: from "  api:" to the next line at its indentation or less.
        let start = try #require(compose.firstIndex(of: "  api:"), "no api service")
        let rest = compose[(start + 1)...]
        let end = rest.firstIndex { !$0.isEmpty && !$0.hasPrefix("   ") } ?? compose.endIndex
        let service = compose[(start + 1)..<end].joined(separator: "\n")
        #expect(service.contains(#"command: ["taskserve""#), "\(service)")
        for step in ["migrate", "runtime-role"] {
            #expect(
                service.contains("      \(step):\n        condition: service_completed_successfully"),
                "the api service does not wait for \(step) to complete: \(service)")
        }
        #expect(service.contains("\"127.0.0.1:"), "the API's port is not published on the loopback only: \(service)")
    }
}

import Foundation
import TaskbaseClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Fixtures/fault_server.py` as a child process: a stand-in that fails on purpose (503s,
/// slowness, a dropping event stream) where the real server would have to be broken. The real
/// server's behaviour is tested against `taskserve` itself; this only drives the transport.
final class FaultServer: Sendable {
    let port: Int
    private let process: Process
    private let input: Pipe

    /// The fixture's script.
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/fault_server.py")

    /// Starts the fixture; with `redirectTo`, its "redirect" scenario answers 302 to that server.
    init(redirectTo: String? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path] + (redirectTo.map { ["--redirect-to", $0] } ?? [])
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line += byte }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else { throw TaskbaseClientError.configuration("fault server did not start") }
        self.port = port
        self.process = process
        self.input = input
    }

    deinit {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// A client whose requests go to `scenario` (unavailable, slow, dropping, plain) for one run.
    func client(_ scenario: String, run: String, _ adjust: (inout ClientConfiguration) -> Void = { _ in }) -> TaskbaseClient {
        var configuration = ClientConfiguration(baseURL: URL(string: "http://127.0.0.1:\(port)/\(scenario)/\(run)/")!, token: "tb_test")
        configuration.backoff = .milliseconds(20)
        adjust(&configuration)
        return TaskbaseClient(configuration)
    }

    /// What each request of `run` carried, in order.
    func log(_ run: String) async throws -> [[String: String?]] {
        let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/log/\(run)")!)
        return try JSONDecoder().decode([[String: String?]].self, from: data)
    }
}

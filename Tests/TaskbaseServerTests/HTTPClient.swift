import Foundation
import TaskbaseWire
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real HTTP client for the tests: URLSession, one request at a time, every response read whole.
struct HTTPClient: Sendable {
    /// What came back.
    struct Reply: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data

        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }

        var text: String { String(decoding: body, as: UTF8.self) }

        /// The next page's path and query, from the `Link: <…>; rel="next"` header the paged
        /// routes send while there is more; nil on the last page.
        var nextPath: String? { header("Link").map { String($0.dropFirst().prefix { $0 != ">" }) } }

        func decode<Document: Decodable>(_ type: Document.Type) throws -> Document {
            try WireJSON.makeDecoder().decode(type, from: body)
        }

        var problem: ProblemDocument? { try? decode(ProblemDocument.self) }
    }

    let baseURL: String
    var token: String?
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        return URLSession(configuration: configuration)
    }()

    func with(token: String?) -> HTTPClient {
        HTTPClient(baseURL: baseURL, token: token)
    }

    func send(_ method: String, _ path: String, json: String? = nil, body: Data? = nil, headers: [String: String] = [:]) async throws -> Reply {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.httpBody = Data(json.utf8)
            request.setValue(method == "PATCH" ? "application/merge-patch+json" : "application/json", forHTTPHeaderField: "Content-Type")
        }
        if let body { request.httpBody = body }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await Self.session.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields[String(describing: name)] = String(describing: value) }
        return Reply(status: http.statusCode, headers: fields, body: data)
    }

    func get(_ path: String, headers: [String: String] = [:]) async throws -> Reply { try await send("GET", path, headers: headers) }
}

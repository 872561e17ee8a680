import Foundation
import TaskbaseClient
import Testing

@Suite("The token is never printed")
struct TokenPrintingTests {
    static let secret = "tb_k3Vq9xZpL2mN8rT4wY7aB1cD5eF0gH6jS"
    static let hidden = String(secret.dropFirst(6))

    /// Every form a configuration or client is printed in: print, String(reflecting:), dump.
    static func printed(_ value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        return [String(describing: value), String(reflecting: value), dumped]
    }

    @Test("a configuration prints, debug-prints and dumps its token as a short prefix and an ellipsis")
    func configurationMasksToken() throws {
        let configuration = ClientConfiguration(baseURL: try #require(URL(string: "http://127.0.0.1:8080/")), token: Self.secret)
        for text in Self.printed(configuration) {
            #expect(!text.contains(Self.hidden), "\(text)")
            #expect(text.contains("tb_k3V…") && text.contains("http://127.0.0.1:8080/"), "\(text)")
        }
    }

    @Test("a client, and the transport it holds, never print the token either")
    func clientMasksToken() throws {
        let client = TaskbaseClient(baseURL: try #require(URL(string: "http://127.0.0.1:8080/")), token: Self.secret)
        for text in Self.printed(client) {
            #expect(!text.contains(Self.hidden), "\(text)")
        }
    }

    @Test("a short token shows no more than a quarter of itself, and a token provider only that there is one")
    func shortTokenAndProvider() throws {
        let url = try #require(URL(string: "http://127.0.0.1:8080/"))
        for text in Self.printed(ClientConfiguration(baseURL: url, token: "tb_test1")) {
            #expect(!text.contains("tb_") && text.contains("tb…"), "\(text)")
        }
        for text in Self.printed(ClientConfiguration(baseURL: url) { _ in Self.secret }) {
            #expect(!text.contains("tb_k3V") && text.contains("token provider"), "\(text)")
        }
    }
}

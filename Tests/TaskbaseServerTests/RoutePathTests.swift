@testable import TaskbaseServer
import Testing

/// The router cuts each request's path byte by byte, as RFC 3986 reads a path: at each `/`.
@Suite("Cutting a request's path")
struct RoutePathTests {
    @Test(
        "a path is cut at every slash, empty pieces dropped, whatever the text around it",
        arguments: [
            "", "/", "//", "/v1/tasks/CORE-42", "/v1/tasks/CORE-42/", "v1/tasks", "/v1//teams", "///a///b///", "/v1/teams/CORE%2Fmembers",
            "/v1/teams/\u{00E9}quipe/tasks", "/v1/teams/😀/x", "/a\u{0301}/b", "/v1/teams/a\r\n/b", "/\u{FF0F}/x", "/x/\u{0}/y",
        ])
    func segments(path: String) {
        let scalars = path.unicodeScalars.split(separator: "/").map { String(String.UnicodeScalarView($0)) }
        #expect(Router.segments(of: path).map(String.init) == scalars, "\(path.debugDescription)")
        // Where no combining mark follows a slash, as the split by characters it replaced.
        #expect(Router.segments(of: path) == path.split(separator: "/"), "\(path.debugDescription)")
    }

    @Test("a combining mark after a slash does not hide the slash (the split by characters joined them into one character)")
    func combiningMark() {
        #expect(Router.segments(of: "/\u{301}/x") == ["\u{301}", "x"])
        #expect("/\u{301}/x".split(separator: "/") == ["/\u{301}", "x"])
    }
}

import Foundation
import PGStore
import TaskCore
import TaskStorePG
import TaskbaseTestSupport
import Testing

@testable import TaskbaseServer

@Suite("/metrics: what the server answered, for Prometheus")
struct MetricsTests {
    @Test("the exposition: counters by route and status, cumulative buckets, samples described once, label values escaped")
    func exposition() throws {
        let metrics = APIMetrics()
        metrics.record(route: "GET /v1/tasks/{key}", status: 200, duration: .milliseconds(3))
        metrics.record(route: "GET /v1/tasks/{key}", status: 200, duration: .milliseconds(30))
        metrics.record(route: "GET /v1/tasks/{key}", status: 404, duration: .seconds(20))
        let text = metrics.exposition([
            MetricsSample("x_connections", .gauge, help: "Connections.", labels: [("state", "idle")], value: 2),
            MetricsSample("x_connections", .gauge, help: "Connections.", labels: [("state", #"in "use"\ now"# + "\n")], value: 0.5),
        ])
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains(#"taskbase_http_requests_total{route="GET /v1/tasks/{key}",status="200"} 2"#))
        #expect(lines.contains(#"taskbase_http_requests_total{route="GET /v1/tasks/{key}",status="404"} 1"#))
        let route = #"route="GET /v1/tasks/{key}""#
        #expect(lines.contains("taskbase_http_request_duration_seconds_bucket{\(route),le=\"0.001\"} 0"))
        #expect(lines.contains("taskbase_http_request_duration_seconds_bucket{\(route),le=\"0.005\"} 1"))
        #expect(lines.contains("taskbase_http_request_duration_seconds_bucket{\(route),le=\"0.05\"} 2"))
        #expect(lines.contains("taskbase_http_request_duration_seconds_bucket{\(route),le=\"10\"} 2"), "20 s is over every bound")
        #expect(lines.contains("taskbase_http_request_duration_seconds_bucket{\(route),le=\"+Inf\"} 3"))
        #expect(lines.contains("taskbase_http_request_duration_seconds_count{\(route)} 3"))
        let sum = lines.first { $0.hasPrefix("taskbase_http_request_duration_seconds_sum{\(route)} ") }?.split(separator: " ").last.flatMap {
            Double($0)
        }
        let seconds = try #require(sum, "no sum")
        #expect(abs(seconds - 20.033) < 1e-9, "\(seconds)")
        #expect(lines.filter { $0 == "# TYPE x_connections gauge" }.count == 1)
        #expect(lines.contains(#"x_connections{state="idle"} 2"#))
        #expect(lines.contains(#"x_connections{state="in \"use\"\\ now\n"} 0.5"#))
        // Every sample line belongs to a metric described before it.
        var described: Set<String> = []
        for line in lines {
            if line.hasPrefix("# TYPE ") { described.insert(String(line.split(separator: " ")[2])) }
            guard !line.hasPrefix("#") else { continue }
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            let family = ["_bucket", "_sum", "_count"].reduce(name) { name, suffix in
                described.contains(name) || !name.hasSuffix(suffix) ? name : String(name.dropLast(suffix.count))
            }
            #expect(described.contains(family), "\(line)")
        }
    }

    @Test("a server started without metrics refuses to serve /metrics rather than counters that never move")
    func noCounters() async throws {
        let f = try await ServerFixture.start(.memory)
        #expect(throws: HTTPServerStartFailure.self) { _ = try f.server.startMetrics(host: "127.0.0.1", port: 0) }
        await f.stop()
    }

    @Test("a server's /metrics port counts what the API port answered, with the pool's gauges; neither port serves the other's routes")
    func server() async throws {
        let store = try await StoreKind.postgresStore.value
        let pool = try #require(store.source as? PGPool)
        let f = try await ServerFixture.start(store: store, metrics: APIMetrics())
        let metricsServer = try f.server.startMetrics(host: "127.0.0.1", port: 0) { MetricsSample.pool(pool.statistics) }
        let scrape = HTTPClient(baseURL: "http://127.0.0.1:\(metricsServer.port)")
        let task = try await f.service.createTask(in: f.team, try TaskDraft(title: "Counted"), as: .id(f.member.id))
        for _ in 1...3 { #expect(try await f.client("member").get("/v1/tasks/\(task.key)").status == 200) }
        #expect(try await f.client("outsider").get("/v1/tasks/\(task.key)").status == 404)
        #expect(try await f.client().get("/v1/me").status == 401)
        #expect(try await f.client().get("/nowhere").status == 404)
        let reply = try await scrape.get("/metrics")
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        let lines = Set(reply.text.split(separator: "\n").map(String.init))
        #expect(lines.contains(#"taskbase_http_requests_total{route="GET /v1/tasks/{key}",status="200"} 3"#), "\(reply.text)")
        #expect(lines.contains(#"taskbase_http_requests_total{route="GET /v1/tasks/{key}",status="404"} 1"#))
        #expect(lines.contains(#"taskbase_http_requests_total{route="GET /v1/me",status="401"} 1"#))
        #expect(lines.contains(#"taskbase_http_requests_total{route="-",status="404"} 1"#), "no route: one series, not one per path")
        #expect(lines.contains(#"taskbase_http_request_duration_seconds_count{route="GET /v1/tasks/{key}"} 4"#))
        #expect(lines.contains(#"taskbase_build_info{version="test"} 1"#))
        #expect(lines.contains("taskbase_event_streams_open 0"))
        #expect(lines.contains { $0.hasPrefix(#"taskbase_db_pool_connections{state="idle"} "#) })
        #expect(lines.contains { $0.hasPrefix("taskbase_db_pool_connections_created_total ") && !$0.hasSuffix(" 0") })
        // A scrape is not a request of the API, and the two ports stay apart.
        #expect(try await scrape.get("/metrics").text.contains(#"taskbase_http_requests_total{route="-",status="404"} 1"#))
        #expect(try await f.client("member").get("/metrics").status == 404)
        #expect(try await scrape.get("/v1/me").status == 404)
        #expect(try await scrape.send("POST", "/metrics").status == 405)
        // A method taskserve takes on no path is 501 there too, as on the API's port.
        let unimplemented = try await scrape.send("FOO", "/metrics")
        #expect(unimplemented.status == 501 && unimplemented.problem?.code == "not_implemented", "\(unimplemented.text)")
        await metricsServer.shutdown(grace: .seconds(1))
        await f.stop()
    }
}

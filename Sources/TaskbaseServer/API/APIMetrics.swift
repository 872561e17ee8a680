import Foundation
import Synchronization
import TaskCore

/// What a taskserve process has answered, for Prometheus to scrape from `GET /metrics` on
/// `--metrics-listen` (text format 0.0.4), a port of its own so the API's port never shows it:
/// requests by route pattern and status, their durations by route, and the gauges the server
/// adds when scraped (`MetricsSample`). Labels are route patterns (`GET /v1/tasks/{key}`, `-`
/// for no route), never paths, so the series stay as few as the routes.
public final class APIMetrics: Sendable {
    /// The histogram's upper bounds in seconds, as Prometheus's client libraries default them.
    static let bounds: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    struct Answered: Hashable {
        var route: String
        var status: Int
    }

    struct Durations {
        /// Per bound, the requests that took at most that long (not yet cumulative).
        var buckets = [Int](repeating: 0, count: APIMetrics.bounds.count)
        var count = 0
        var sum = 0.0
    }

    struct State {
        var answered: [Answered: Int] = [:]
        var durations: [String: Durations] = [:]
    }

    private let state = Mutex(State())

    /// Counters from zero.
    public init() {}

    /// Counts one request that `route` answered with `status` after `duration`.
    public func record(route: String, status: Int, duration: Duration) {
        let seconds = duration.seconds
        let bucket = Self.bounds.firstIndex { seconds <= $0 }
        state.withLock { state in
            state.answered[Answered(route: route, status: status), default: 0] += 1
            state.durations[route, default: Durations()].record(seconds, bucket: bucket)
        }
    }

    /// The exposition: the request counters and histograms, then `samples` (gauges and
    /// counters of the moment), in Prometheus's text format.
    public func exposition(_ samples: [MetricsSample]) -> String {
        let (answered, durations) = state.withLock { ($0.answered, $0.durations) }
        var text = ""
        text += "# HELP taskbase_http_requests_total Requests answered, by route pattern and status.\n"
        text += "# TYPE taskbase_http_requests_total counter\n"
        for (key, count) in answered.sorted(by: { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) }) {
            text += "taskbase_http_requests_total{route=\"\(Self.escaped(key.route))\",status=\"\(key.status)\"} \(count)\n"
        }
        text += "# HELP taskbase_http_request_duration_seconds Time from a request's arrival to its answer, by route pattern.\n"
        text += "# TYPE taskbase_http_request_duration_seconds histogram\n"
        for (route, series) in durations.sorted(by: { $0.key < $1.key }) {
            let label = "route=\"\(Self.escaped(route))\""
            var cumulative = 0
            for (bound, count) in zip(Self.bounds, series.buckets) {
                cumulative += count
                text += "taskbase_http_request_duration_seconds_bucket{\(label),le=\"\(Self.number(bound))\"} \(cumulative)\n"
            }
            text += "taskbase_http_request_duration_seconds_bucket{\(label),le=\"+Inf\"} \(series.count)\n"
            text += "taskbase_http_request_duration_seconds_sum{\(label)} \(Self.number(series.sum))\n"
            text += "taskbase_http_request_duration_seconds_count{\(label)} \(series.count)\n"
        }
        var described: Set<String> = []
        for sample in samples {
            if described.insert(sample.name).inserted {
                text += "# HELP \(sample.name) \(sample.help)\n# TYPE \(sample.name) \(sample.kind.rawValue)\n"
            }
            let labels = sample.labels.map { "\($0.name)=\"\(Self.escaped($0.value))\"" }.joined(separator: ",")
            text += sample.name + (labels.isEmpty ? "" : "{\(labels)}") + " \(Self.number(sample.value))\n"
        }
        return text
    }

    /// A label value as the format quotes it: backslash, double quote and newline escaped.
    static func escaped(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A value as Prometheus reads it: integers without a fraction.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

extension APIMetrics.Durations {
    mutating func record(_ seconds: Double, bucket: Int?) {
        if let bucket { buckets[bucket] += 1 }
        count += 1
        sum += seconds
    }
}

/// One value of the moment for `/metrics`: a gauge (connections open) or a counter kept
/// elsewhere (connections the pool has made).
public struct MetricsSample: Sendable {
    /// Prometheus's metric types used here.
    public enum Kind: String, Sendable {
        case gauge, counter
    }

    /// The metric's name (`taskbase_db_pool_connections`).
    public var name: String
    /// What it measures, for `# HELP`.
    public var help: String
    /// Gauge or counter.
    public var kind: Kind
    /// Its labels, in order.
    public var labels: [(name: String, value: String)]
    /// The value.
    public var value: Double

    /// A sample with these parts.
    public init(_ name: String, _ kind: Kind, help: String, labels: [(name: String, value: String)] = [], value: Double) {
        self.name = name
        self.help = help
        self.kind = kind
        self.labels = labels
        self.value = value
    }
}

import Foundation

/// Counters, histograms and gauges in Prometheus' text exposition format (version 0.0.4), for
/// `GET /metrics` on its own address. Label values come only from the service itself (route
/// patterns, methods, status codes, result names), never from a request, so the number of series
/// is bounded.
///
/// `@unchecked Sendable`: every table is touched only while holding `lock`; gauges are read by
/// their own closures, which must be thread-safe.
public final class Metrics: @unchecked Sendable {
    public typealias Labels = [(String, String)]

    private struct Family {
        let help: String
        let type: String
        var samples: [String: Double] = [:]      // rendered label set → value (counters)
        var histograms: [String: Histogram] = [:]  // rendered label set → histogram
    }

    private struct Histogram {
        var counts = [UInt64](repeating: 0, count: Metrics.latencyBuckets.count)
        var sum = 0.0
        var count: UInt64 = 0

        mutating func add(_ value: Double) {
            // Buckets are cumulative: the first bound at or above the value, and every one after.
            if let first = Metrics.latencyBuckets.firstIndex(where: { value <= $0 }) {
                for index in first..<counts.count { counts[index] += 1 }
            }
            sum += value
            count += 1
        }
    }

    /// One route's requests: by method and status, with a latency histogram by method. Kept
    /// apart from the generic families so a request costs a hash of three small values and no
    /// string building (labels are rendered at scrape time only).
    private struct RequestKey: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    private struct LatencyKey: Hashable {
        let route: String
        let method: String
    }

    private var requestCounts: [RequestKey: UInt64] = [:]
    private var requestLatency: [LatencyKey: Histogram] = [:]

    /// Seconds: from a fast cached read to a long-poll.
    public static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    private let lock = NSLock()
    private var families: [String: Family] = [:]
    private var order: [String] = []
    private var gauges: [(name: String, help: String, read: @Sendable () -> [(Labels, Double)])] = []

    public init() {}

    /// Adds `amount` to a counter.
    public func increment(_ name: String, help: String, labels: Labels = [], by amount: Double = 1) {
        let key = Self.render(labels)
        lock.lock()
        register(name, help: help, type: "counter")
        families[name]!.samples[key, default: 0] += amount
        lock.unlock()
    }

    /// Records one observation in a histogram with `latencyBuckets`.
    public func observe(_ name: String, help: String, labels: Labels = [], value: Double) {
        let key = Self.render(labels)
        lock.lock()
        register(name, help: help, type: "histogram")
        families[name]!.histograms[key, default: Histogram()].add(value)
        lock.unlock()
    }

    /// A gauge read at every scrape.
    public func gauge(_ name: String, help: String, _ read: @escaping @Sendable () -> [(Labels, Double)]) {
        lock.lock()
        gauges.append((name, help, read))
        lock.unlock()
    }

    /// One HTTP request answered: its count by route, method and status, and its latency.
    public func request(route: String, method: String, status: Int, seconds: Double) {
        lock.lock()
        requestCounts[RequestKey(route: route, method: method, status: status), default: 0] += 1
        requestLatency[LatencyKey(route: route, method: method), default: Histogram()].add(seconds)
        lock.unlock()
    }

    /// The exposition text.
    public func render() -> String {
        lock.lock()
        var snapshot = order.map { ($0, families[$0]!) }
        let readers = gauges
        var counts = Family(help: "HTTP requests answered, by route pattern, method and status.", type: "counter")
        for (key, value) in requestCounts {
            counts.samples[Self.render([("route", key.route), ("method", key.method), ("status", String(key.status))])] = Double(value)
        }
        var latency = Family(help: "Time from a request's arrival to its answer, by route pattern and method.", type: "histogram")
        for (key, histogram) in requestLatency {
            latency.histograms[Self.render([("route", key.route), ("method", key.method)])] = histogram
        }
        lock.unlock()
        snapshot.insert(("hosted_http_request_duration_seconds", latency), at: 0)
        snapshot.insert(("hosted_http_requests_total", counts), at: 0)
        var out = ""
        for (name, family) in snapshot {
            out += "# HELP \(name) \(family.help)\n# TYPE \(name) \(family.type)\n"
            for (labels, value) in family.samples.sorted(by: { $0.key < $1.key }) {
                out += "\(name)\(labels.isEmpty ? "" : "{\(labels)}") \(Self.number(value))\n"
            }
            for (labels, histogram) in family.histograms.sorted(by: { $0.key < $1.key }) {
                let prefix = labels.isEmpty ? "" : labels + ","
                for (index, bound) in Self.latencyBuckets.enumerated() {
                    out += "\(name)_bucket{\(prefix)le=\"\(Self.number(bound))\"} \(histogram.counts[index])\n"
                }
                out += "\(name)_bucket{\(prefix)le=\"+Inf\"} \(histogram.count)\n"
                out += "\(name)_sum\(labels.isEmpty ? "" : "{\(labels)}") \(Self.number(histogram.sum))\n"
                out += "\(name)_count\(labels.isEmpty ? "" : "{\(labels)}") \(histogram.count)\n"
            }
        }
        for gauge in readers {
            out += "# HELP \(gauge.name) \(gauge.help)\n# TYPE \(gauge.name) gauge\n"
            for (labels, value) in gauge.read() {
                let rendered = Self.render(labels)
                out += "\(gauge.name)\(rendered.isEmpty ? "" : "{\(rendered)}") \(Self.number(value))\n"
            }
        }
        return out
    }

    private func register(_ name: String, help: String, type: String) {  // under `lock`
        guard families[name] == nil else { return }
        order.append(name)
        families[name] = Family(help: help, type: type)
    }

    static func render(_ labels: Labels) -> String {
        labels.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: ",")
    }

    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

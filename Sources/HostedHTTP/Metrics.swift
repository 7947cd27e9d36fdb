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
        var counts: [UInt64]
        var sum = 0.0
        var count: UInt64 = 0
    }

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
        var family = family(name, help: help, type: "counter")
        family.samples[key, default: 0] += amount
        families[name] = family
        lock.unlock()
    }

    /// Records one observation in a histogram with `latencyBuckets`.
    public func observe(_ name: String, help: String, labels: Labels = [], value: Double) {
        let key = Self.render(labels)
        lock.lock()
        var family = family(name, help: help, type: "histogram")
        var histogram = family.histograms[key] ?? Histogram(counts: Array(repeating: 0, count: Self.latencyBuckets.count))
        for (index, bound) in Self.latencyBuckets.enumerated() where value <= bound { histogram.counts[index] += 1 }
        histogram.sum += value
        histogram.count += 1
        family.histograms[key] = histogram
        families[name] = family
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
        increment("hosted_http_requests_total", help: "HTTP requests answered, by route pattern, method and status.",
                  labels: [("route", route), ("method", method), ("status", String(status))])
        observe("hosted_http_request_duration_seconds", help: "Time from a request's arrival to its answer, by route pattern and method.",
                labels: [("route", route), ("method", method)], value: seconds)
    }

    /// The exposition text.
    public func render() -> String {
        lock.lock()
        let snapshot = order.map { ($0, families[$0]!) }
        let readers = gauges
        lock.unlock()
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

    private func family(_ name: String, help: String, type: String) -> Family {  // under `lock`
        if let existing = families[name] { return existing }
        order.append(name)
        return Family(help: help, type: type)
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

import Foundation
import HostedTestSupport

/// The metrics address of a `hosted serve` started with `HOSTED_METRICS_LISTEN`: what a test
/// reads to know what the process is doing (a long-poll open) rather than sleeping and hoping.
extension ServerProcess {
    /// The port from the "metrics on http://127.0.0.1:PORT/metrics" part of the serving line.
    var metricsPort: UInt16? {
        let log = self.log
        guard let line = log.range(of: #"metrics on http://127\.0\.0\.1:(\d+)/metrics"#, options: .regularExpression) else { return nil }
        return UInt16(log[line].split(separator: ":").last?.split(separator: "/").first ?? "")
    }

    /// Scrapes `/metrics` until a scrape contains `sample` (e.g. `hosted_long_polls_open 1`) or
    /// `seconds` pass; the last scrape, for the caller to check.
    func scrape(until sample: String, within seconds: TimeInterval = 10) throws -> RawHTTPConnection.Response {
        guard let port = metricsPort else { throw RawHTTPConnection.Failure(description: "no metrics address in the log") }
        var scrape: RawHTTPConnection.Response?
        try eventually(within: seconds, pause: 0.02) {
            let latest = try RawHTTPConnection(port: port).request("GET", "/metrics")
            scrape = latest
            return latest.text.contains(sample)
        }
        guard let scrape else { throw RawHTTPConnection.Failure(description: "no scrape was made") }
        return scrape
    }
}

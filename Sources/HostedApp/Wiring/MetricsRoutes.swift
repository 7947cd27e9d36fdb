import Foundation
import HostedCore
import HostedHTTP
import HostedObservability
import HostedStorage

/// `GET /metrics` on `HOSTED_METRICS_LISTEN`: what the process counts (requests, webhook
/// attempts, SMS sends) and gauges read at each scrape (the connection pool, open long-polls,
/// the background queues' depth and the age of their oldest due item).
enum ServiceMetrics {
    static func registerGauges(_ metrics: Metrics, database: any Database, longPoll: LongPoll, clock: any WallClock) {
        metrics.gauge("hosted_db_pool_connections", help: "Database connections of this process, by state (in_use, size).") {
            let stats = database.poolStatistics
            return [([("state", "in_use")], Double(stats.inUse)), ([("state", "size")], Double(stats.size))]
        }
        metrics.gauge("hosted_db_pool_waiting", help: "Callers waiting for a database connection.") {
            [([], Double(database.poolStatistics.waiting))]
        }
        metrics.gauge("hosted_long_polls_open", help: "Long-polls waiting for a change in this process.") {
            [([], Double(longPoll.waiting))]
        }
        // Per queue: how many items wait, and the SQL of the oldest due one's time at `now` (ms).
        let queues: [(name: String, depth: SQL, oldestDue: @Sendable (Int64) -> SQL)] = [
            ("sms", "SELECT COUNT(*) AS n FROM sms_queue",
             { "SELECT MIN(available_at) AS oldest FROM sms_queue WHERE available_at <= \($0)" }),
            ("webhooks", "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'",
             { "SELECT MIN(next_attempt_at) AS oldest FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= \($0)" }),
        ]
        metrics.gauge("hosted_background_queue_depth", help: "Items waiting in a background queue (shared by every process).") {
            queues.compactMap { queue in
                (try? database.query(queue.depth).first?.int("n")).flatMap { $0 }.map { ([("queue", queue.name)], Double($0)) }
            }
        }
        metrics.gauge("hosted_background_queue_oldest_due_seconds",
                      help: "Age of the oldest item that is due and not yet done, per background queue (0 when none).") {
            let now = clock.now().unixMilliseconds
            return queues.compactMap { queue in
                guard let row = try? database.query(queue.oldestDue(now)).first else { return nil }
                let value = (try? row.optionalInt("oldest")).flatMap { $0 }
                return ([("queue", queue.name)], value.map { Double(max(0, now - $0)) / 1000 } ?? 0)
            }
        }
    }

    /// The router of the metrics address: `GET /metrics` only.
    static func responder(_ metrics: Metrics) -> any HTTPResponder {
        var routes = Router.Builder()
        routes.add("GET", "/metrics") { _, _ in
            Response(status: 200, headers: HTTPHeaders([("Content-Type", "text/plain; version=0.0.4; charset=utf-8"),
                                                        ("Cache-Control", "no-store")]),
                     body: Array(metrics.render().utf8))
        }
        return routes.build()
    }
}

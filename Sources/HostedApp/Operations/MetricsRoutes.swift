import Foundation
import HostedCore
import HostedHTTP
import HostedObservability
import HostedStorage

/// `GET /metrics` on `HOSTED_METRICS_LISTEN`: what the process counts (requests, webhook
/// attempts, SMS sends) and gauges read at each scrape (the connection pool, open long-polls,
/// the background queues' depth and the age of their oldest due item).
enum ServiceMetrics {
    static func registerGauges(_ metrics: Metrics, database: any Database, queues: QueueStatisticsStore, longPoll: LongPoll,
                               clock: any WallClock) {
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
        metrics.gauge("hosted_background_queue_depth", help: "Items waiting in a background queue (shared by every process).") {
            QueueStatisticsStore.Queue.allCases.compactMap { queue in
                (try? queues.depth(queue)).map { ([("queue", queue.rawValue)], Double($0)) }
            }
        }
        metrics.gauge("hosted_background_queue_oldest_due_seconds",
                      help: "Age of the oldest item that is due and not yet done, per background queue (0 when none).") {
            let now = clock.now()
            return QueueStatisticsStore.Queue.allCases.compactMap { queue -> (Metrics.Labels, Double)? in
                let oldest: Date?
                do { oldest = try queues.oldestDue(queue, at: now) } catch { return nil }
                return ([("queue", queue.rawValue)], oldest.map { Double(max(0, now.unixMilliseconds - $0.unixMilliseconds)) / 1000 } ?? 0)
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

import Foundation
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedImaging
import HostedObservability
import HostedOutbound
import HostedStorage

/// The wired service: store, services and the HTTP responder. `main` and the tests build it the
/// same way, through `buildApplication(configuration:)`.
public struct Application: Sendable {
    public let configuration: Configuration
    public let database: any Database
    public let migrator: Migrator
    public let accounts: AccountService
    /// What `GET /metrics` shows.
    public let metrics: Metrics
    /// Operators of the console (the `hosted operators` commands use it).
    public let console: ConsoleService
    public let responder: any HTTPResponder
    public let log: any ServerLog
    let longPoll: LongPoll
    /// Every route served, as (method, pattern).
    public let routeTable: [(method: String, pattern: String)]

    let changes: any ChangeFeed
    let background: BackgroundWork
    let webhooks: WebhookDispatcher

    let draining: DrainFlag
    /// The threads uploads are decoded on.
    let decodes: DecodeQueue
    /// The answers kept for repeated creates (tests look at how many).
    let repeatedCreates: RepeatedCreates

    /// Readiness (`/readyz`) answers 503 from now on, while everything else is still served:
    /// the first step of stopping, so a balancer that checks readiness stops sending here.
    public func beginDraining() { draining.set() }

    /// Answers waiting long-polls at once (call when shutting down).
    public func releaseWaiters() { longPoll.closeAll() }

    /// Starts this process's share of the background work (`serve` does; tests call
    /// `runBackgroundWork()` instead, to decide when it happens).
    public func startBackgroundWork() {
        background.start()
        webhooks.start()
    }

    /// One pass of the background work on the calling thread: queued SMS sent, expired rows pruned.
    public func runBackgroundWork() { background.runOnce() }

    /// Every webhook attempt due now, made on the calling thread (tests); returns how many.
    @discardableResult
    public func runWebhookDeliveries() -> Int { webhooks.deliverDueNow() }

    /// Stops listening for changes and closes the store.
    public func close() {
        background.stop()
        webhooks.stop()
        longPoll.closeAll()
        decodes.stop()
        changes.stop()
        database.close()
    }

    /// A server for this application on the configured address.
    public func makeServer() -> HTTPServer {
        HTTPServer(configuration: .init(host: configuration.listen.host, port: configuration.listen.port,
                                        threads: configuration.threads,
                                        connectionTimeoutSeconds: configuration.connectionTimeoutSeconds,
                                        headerTimeoutSeconds: configuration.headerTimeoutSeconds,
                                        connectionsPerAddress: configuration.connectionsPerAddress,
                                        maximumBufferedBytes: configuration.maximumBufferedBytes,
                                        minimumBodyBytesPerSecond: configuration.minimumBodyBytesPerSecond,
                                        trustedProxies: TrustedProxies(configuration.trustedProxies)),
                   responder: responder, log: log, metrics: metrics)
    }

    /// The server of `GET /metrics` on `HOSTED_METRICS_LISTEN`, if it is set.
    public func makeMetricsServer() -> HTTPServer? {
        guard let address = configuration.metricsListen else { return nil }
        return HTTPServer(configuration: .init(host: address.host, port: address.port, threads: 2, connectionTimeoutSeconds: 15,
                                               connectionsPerAddress: 16, maximumBufferedBytes: 1 << 20),
                          responder: ServiceMetrics.responder(metrics), log: log)
    }
}

import CMicroHTTPD
import HostedCore
import Foundation
import HostedObservability

/// Serves an `HTTPResponder` over libmicrohttpd: an internal pool of worker threads using
/// poll(2) (the shim says why not epoll), keep-alive, a connection timeout, a deadline for each
/// request head (`OpenConnections`), per-route body limits, shares of the body budget, request
/// ids and an access log.
/// libmicrohttpd's callbacks cross into Swift in one file, `HTTPServer+Callbacks.swift`; the
/// other `HTTPServer+…` files follow a request from there: its body, its reply, its answer.
///
/// `@unchecked Sendable`: `daemon`, `listenSocket` and `reaper` are written only by `start()` and
/// `shutdown()`, which the owner calls from one thread; the in-flight count and the request-id
/// suspended connections are guarded by `lock`; everything else is immutable.
public final class HTTPServer: @unchecked Sendable {
    public let configuration: Configuration
    let responder: any HTTPResponder
    let log: any ServerLog

    private var daemon: OpaquePointer?
    private var listenSocket: Int32 = -1
    /// Not private, like the state it guards: the `HTTPServer+…` extensions take it too.
    let lock = NSLock()
    private var inFlight = 0
    /// Connections waiting for a deferred response (under `lock`), answered at shutdown if their
    /// work has not finished by the end of the grace period.
    var suspendedConnections: [ObjectIdentifier: Suspended] = [:]
    /// Set (under `lock`) once shutdown answers the suspended connections: from then on none is
    /// suspended, because libmicrohttpd aborts the process when it is stopped with one that is.
    var stopping = false
    /// `MHD_resume_connection` calls under way on other threads (under `lock`): the daemon is
    /// stopped only when none is, so no resume runs while it frees its connections.
    var resumesInProgress = 0

    /// The bound port, known after `start()`.
    public private(set) var port: UInt16 = 0
    /// Bytes of request bodies held right now, across all connections.
    public let bodyBudget: BodyBudget
    /// Open connections, their head deadlines and who makes room for whom.
    let connections: OpenConnections
    /// Wakes every quarter second to close connections whose request head is overdue.
    private var reaper: DispatchSourceTimer?
    let requestIDs = RequestIDs()

    /// Requests by route and status, and their latency (nil: not counted).
    let metrics: Metrics?
    /// libmicrohttpd's own messages, rate-limited into the log.
    let libraryMessages = LibraryMessages()

    public init(configuration: Configuration, responder: any HTTPResponder, log: any ServerLog = StandardErrorLog(),
                metrics: Metrics? = nil) {
        self.configuration = configuration
        self.responder = responder
        self.log = log
        self.metrics = metrics
        self.bodyBudget = BodyBudget(capacity: configuration.maximumBufferedBytes,
                                     share: configuration.maximumBufferedBytesPerClient ?? configuration.maximumBufferedBytes / 4)
        self.connections = OpenConnections(headTimeoutSeconds: configuration.headerTimeoutSeconds,
                                           idleTimeoutSeconds: configuration.connectionTimeoutSeconds,
                                           softLimit: OpenConnections.softLimit(below: max(1, configuration.connectionLimit)),
                                           shutDown: { _ = Glibc.shutdown($0, Int32(SHUT_RDWR)) })
    }

    /// Binds and starts serving on the worker threads; returns at once.
    public func start() throws(StartError) {
        // A write to a connection the client has already closed must be an error for the
        // writer, not SIGPIPE for the whole process (whatever library writes).
        _ = Self.ignoreBrokenPipes
        let context = Unmanaged.passUnretained(self).toOpaque()
        let started: OpaquePointer?
        if configuration.host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = configuration.port.bigEndian
            guard inet_pton(AF_INET6, configuration.host, &address.sin6_addr) == 1 else {
                throw .invalidAddress(configuration.host)
            }
            started = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { start(address: $0, ipv6: true, context: context) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = configuration.port.bigEndian
            guard inet_pton(AF_INET, configuration.host, &address.sin_addr) == 1 else {
                throw .invalidAddress(configuration.host)
            }
            started = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { start(address: $0, ipv6: false, context: context) }
            }
        }
        guard let started else { throw .cannotListen(host: configuration.host, port: configuration.port) }
        lock.lock()
        stopping = false
        lock.unlock()
        daemon = started
        port = hosted_mhd_bound_port(started)
        startReaper()
    }

    private func startReaper() {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "hosted.http.head-deadlines"))
        timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250), leeway: .milliseconds(50))
        timer.setEventHandler { [connections] in connections.cutOverdue() }
        timer.resume()
        reaper = timer
    }

    /// Stops accepting connections, runs `beforeDraining`, lets in-flight requests finish (up to
    /// `gracePeriod`), then stops the worker threads. Idempotent.
    public func shutdown(gracePeriod: TimeInterval = 10, beforeDraining: () -> Void = {}) {
        guard let daemon else { return }
        listenSocket = MHD_quiesce_daemon(daemon)
        // Quiescing only tells the workers to stop polling the socket, and a worker may still
        // be about to accept; shutting the listening socket down makes the kernel refuse new
        // connections at once. It is closed only after MHD_stop_daemon, as libmicrohttpd requires.
        if listenSocket >= 0 { _ = Glibc.shutdown(listenSocket, Int32(SHUT_RDWR)) }
        // E.g. answer long-polls now rather than at their timeout.
        beforeDraining()
        let deadline = Date().addingTimeInterval(gracePeriod)
        while currentInFlight > 0 && Date() < deadline {
            usleep(5_000)
        }
        // A connection still suspended must not outlive the daemon (libmicrohttpd panics, and
        // resuming it later would touch freed memory): answer it now, and give the workers a
        // moment to send the answers.
        if answerSuspendedAndStopSuspending() {
            let flushDeadline = Date().addingTimeInterval(1)
            while currentInFlight > 0 && Date() < flushDeadline { usleep(5_000) }
        }
        // Each resume under way is one short library call: wait it out.
        while resumingNow > 0 { usleep(1_000) }
        reaper?.cancel()
        reaper = nil
        MHD_stop_daemon(daemon)
        if listenSocket >= 0 { close(listenSocket) }
        self.daemon = nil
        log.flush()
    }

    /// Requests received but not yet completed.
    public var currentInFlight: Int {
        lock.lock()
        defer { lock.unlock() }
        return inFlight
    }

    private var resumingNow: Int {
        lock.lock()
        defer { lock.unlock() }
        return resumesInProgress
    }

    func adjustInFlight(_ delta: Int) {
        lock.lock()
        inFlight += delta
        lock.unlock()
    }

    deinit { shutdown(gracePeriod: 0) }

    /// Set once per process, before the first server starts.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Bytes of an over-limit chunked body read and dropped before the connection is cut.
    static let maximumDiscardedBytes = 16 << 20
}

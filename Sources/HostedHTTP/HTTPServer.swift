import CMicroHTTPD
import HostedCore
import Foundation
import HostedObservability

/// Serves an `HTTPResponder` over libmicrohttpd: an internal pool of worker threads using
/// poll(2) (the shim says why not epoll), keep-alive, a connection timeout, a deadline for each
/// request head (`OpenConnections`), per-route body limits, shares of the body budget, request
/// ids and an access log.
/// This is the only file where libmicrohttpd's callbacks cross into Swift.
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
    private let lock = NSLock()
    private var inFlight = 0
    /// Connections waiting for a deferred response (under `lock`), answered at shutdown if their
    /// work has not finished by the end of the grace period.
    private var suspendedConnections: [ObjectIdentifier: Suspended] = [:]
    /// Set (under `lock`) once shutdown answers the suspended connections: from then on none is
    /// suspended, because libmicrohttpd aborts the process when it is stopped with one that is.
    private var stopping = false
    /// `MHD_resume_connection` calls under way on other threads (under `lock`): the daemon is
    /// stopped only when none is, so no resume runs while it frees its connections.
    private var resumesInProgress = 0

    /// The bound port, known after `start()`.
    public private(set) var port: UInt16 = 0
    /// Bytes of request bodies held right now, across all connections.
    public let bodyBudget: BodyBudget
    /// Open connections, their head deadlines and who makes room for whom.
    let connections: OpenConnections
    /// Wakes every quarter second to close connections whose request head is overdue.
    private var reaper: DispatchSourceTimer?
    private let requestIDs = RequestIDs()

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

    private func start(address: UnsafePointer<sockaddr>, ipv6: Bool, context: UnsafeMutableRawPointer) -> OpaquePointer? {
        hosted_mhd_start(address, ipv6 ? 1 : 0, UInt32(clamping: max(1, configuration.threads)),
                         UInt32(clamping: max(0, configuration.connectionTimeoutSeconds)),
                         UInt32(clamping: max(1, configuration.connectionLimit)),
                         UInt32(clamping: max(0, configuration.connectionsPerAddress)),
                         max(4096, configuration.headerMemoryBytes),
                         accessHandler, context, requestCompleted, context, connectionNotice, context, context)
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

    private func adjustInFlight(_ delta: Int) {
        lock.lock()
        inFlight += delta
        lock.unlock()
    }

    deinit { shutdown(gracePeriod: 0) }

    /// Set once per process, before the first server starts.
    private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Bytes of an over-limit chunked body read and dropped before the connection is cut.
    static let maximumDiscardedBytes = 16 << 20

    // MARK: - Callbacks

    /// libmicrohttpd calls this once with the headers, once per body chunk, and once at the end.
    /// Answering on the first call makes it close the connection (no keep-alive), so normal
    /// requests are answered on the last call; the first call answers only what must be refused
    /// before any of the body is read — and then closing the connection is what is wanted.
    fileprivate func handle(connection: OpaquePointer, line: RequestLine,
                            upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                            slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let stored = slot.pointee else {
            openConnection(connection)?.headArrived()
            let (exchange, violation) = begin(connection: connection, line: line)
            slot.pointee = Unmanaged.passRetained(exchange).toOpaque()
            adjustInFlight(1)
            if let refusal = violation.map(Self.malformed) ?? (exchange.invalidQuery ? Self.invalidQuery.response : nil)
                ?? admit(exchange) {
                return answer(connection, exchange, refusal)
            }
            return MHD_Result.YES
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(stored).takeUnretainedValue()
        if let ready = takeReadyReply(exchange) {
            exchange.phase = .receiving
            return dispatch(ready, connection, exchange)
        }
        if uploadSize.pointee > 0 {
            let size = uploadSize.pointee
            uploadSize.pointee = 0  // consumed (or discarded)
            return receive(upload, size: size, into: exchange)
        }
        switch exchange.phase {
        case .waiting, .answered:
            return MHD_Result.YES
        case .discarding(let refusal):
            return answer(connection, exchange, refusal)
        case .receiving:
            var request = exchange.request
            request.body = exchange.body
            exchange.body = []
            return dispatch(respond(to: request, exchange: exchange), connection, exchange)
        }
    }

    /// Answers a ready reply, runs a worker task here (this is a worker thread), or suspends the
    /// connection until deferred work settles.
    private func dispatch(_ reply: Reply, _ connection: OpaquePointer, _ exchange: Exchange) -> MHD_Result {
        var reply = reply
        while case .deferred(let deferred) = reply, let task = deferred.workerTask { reply = task() }
        switch reply {
        case .ready(let response): return answer(connection, exchange, response)
        case .deferred(let deferred): return suspend(connection, exchange, deferred)
        }
    }

    /// One chunk of the body: kept while it fits the route's limit and the server's budget.
    private func receive(_ upload: UnsafePointer<CChar>?, size: Int, into exchange: Exchange) -> MHD_Result {
        let elapsed = DispatchTime.now().uptimeNanoseconds &- exchange.started.uptimeNanoseconds
        if elapsed / 1_000_000_000 > UInt64(max(1, configuration.requestTimeoutSeconds)) {
            log.error("body not complete after \(configuration.requestTimeoutSeconds) s; closing", requestID: exchange.requestID)
            return MHD_Result.NO
        }
        // `size` is at most libmicrohttpd's read buffer, and the connection is cut long before
        // this count could overflow (the discard cap, the route's limit).
        exchange.received += size
        if isTooSlow(received: exchange.received, elapsedNanoseconds: elapsed) {
            log.error("body slower than \(configuration.minimumBodyBytesPerSecond) bytes/s; closing", requestID: exchange.requestID)
            return MHD_Result.NO
        }
        switch exchange.phase {
        case .waiting, .answered:
            return MHD_Result.YES
        case .discarding:
            // libmicrohttpd 0.9.75 cannot queue a response mid-upload, so the rest is dropped
            // unread-into-memory and the refusal goes out when the body ends; a client that keeps
            // streaming far past the limit is disconnected.
            // `size` is at most libmicrohttpd's read buffer, and `discarded` stops growing past the cap.
            exchange.discarded += size
            return exchange.discarded > Self.maximumDiscardedBytes ? MHD_Result.NO : MHD_Result.YES
        case .receiving:
            break
        }
        guard let upload, size <= exchange.bodyLimit - exchange.body.count else {
            // A body without Content-Length (chunked) passed the limit.
            refuseBody(exchange, with: Problem.payloadTooLarge(limit: exchange.bodyLimit).response, discarding: size)
            return MHD_Result.YES
        }
        let needed = exchange.body.count + size - exchange.reserved
        if needed > 0 {
            if let refusal = bodyBudget.reserve(needed, for: exchange.budgetHolders) {
                refuseBody(exchange, with: Self.refusal(refusal).response, discarding: size)
                return MHD_Result.YES
            }
            exchange.reserved += needed
        }
        upload.withMemoryRebound(to: UInt8.self, capacity: size) {
            exchange.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size))
        }
        return MHD_Result.YES
    }

    /// Whether a body that has brought `received` bytes so far has fallen behind the minimum
    /// rate, which counts from the grace period's end.
    private func isTooSlow(received: Int, elapsedNanoseconds: UInt64) -> Bool {
        let rate = configuration.minimumBodyBytesPerSecond
        guard rate > 0 else { return false }
        let counted = Double(elapsedNanoseconds) / 1e9 - Double(max(0, configuration.bodyRateGraceSeconds))
        return counted > 0 && Double(received) < Double(rate) * counted
    }

    private func refuseBody(_ exchange: Exchange, with refusal: Response, discarding size: Int) {
        exchange.phase = .discarding(answer: refusal)
        exchange.body = []
        exchange.discarded = size
        bodyBudget.release(exchange.reserved, for: exchange.budgetHolders)
        exchange.reserved = 0
    }

    /// The header phase of a request that announces a body: the route, its credentials, its size
    /// and room in the server's budget are all decided before a byte of the body is read.
    /// nil when the body may come.
    private func admit(_ exchange: Exchange) -> Response? {
        let headers = exchange.request.headers
        let declared = headers["Content-Length"].flatMap { Int($0.trimmedASCIIWhitespace) }
        guard declared.map({ $0 > 0 }) ?? headers.contains("Transfer-Encoding") else { return nil }
        var context = RequestContext(requestID: exchange.requestID, receivedAt: exchange.receivedAt, log: log, routeNote: exchange.routeNote)
        do {
            exchange.bodyLimit = try responder.admit(exchange.request, context: &context)
            exchange.admitted = context
        } catch let problem as Problem {
            return problem.response
        } catch {
            log.error("admission failed: \(String(reflecting: error))", requestID: exchange.requestID)
            return Problem.internalError.response
        }
        // Counted against the client's address and, when the admission named one, its holder.
        exchange.budgetHolders = ["address " + configuration.trustedProxies.clientAddress(of: exchange.request)]
        if let holder = context[BodyHolder.self] { exchange.budgetHolders.append("holder " + holder) }
        guard let declared else { return nil }
        if declared > exchange.bodyLimit { return Problem.payloadTooLarge(limit: exchange.bodyLimit).response }
        if let refusal = bodyBudget.reserve(declared, for: exchange.budgetHolders) { return Self.refusal(refusal).response }
        exchange.reserved = declared
        exchange.body.reserveCapacity(declared)
        return nil
    }

    private func begin(connection: OpaquePointer, line: RequestLine) -> (Exchange, violation: String?) {
        let method = String(cString: line.method), url = String(cString: line.url)
        let version = line.version.map { String(cString: $0) } ?? ""
        let collected = Collected()
        let box = Unmanaged.passUnretained(collected).toOpaque()
        MHD_get_connection_values(connection, MHD_ValueKind.HEADER_KIND, collectHeader, box)
        MHD_get_connection_values(connection, MHD_ValueKind.GET_ARGUMENT_KIND, collectArgument, box)
        // The peer's address, formatted on the stack (the shim NUL-terminates it).
        let peer = withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN) + 1) { buffer in
            hosted_mhd_client_address(connection, buffer.baseAddress, socklen_t(buffer.count)) == 0
                ? String(cString: buffer.baseAddress!) : ""
        }
        let request = Request(method: method, path: url, query: collected.query,
                              headers: HTTPHeaders(named: collected.fields), peerAddress: peer)
        let exchange = Exchange(request: request, requestID: requestIDs.next(incoming: request.headers["X-Request-Id"]))
        exchange.invalidQuery = collected.invalidQuery
        return (exchange, RequestFraming.violation(version: version, fields: request.headers.fields,
                                                   hidesBytes: hosted_mhd_headers_hide_bytes(connection) != 0,
                                                   malformedLine: hosted_mhd_request_line_is_malformed(
                                                       connection, line.method, line.url, line.version) != 0))
    }

    /// Runs the responder; a thrown `Problem` becomes its response, anything else a generic 500.
    private func respond(to request: Request, exchange: Exchange) -> Reply {
        let context = exchange.admitted
            ?? RequestContext(requestID: exchange.requestID, receivedAt: exchange.receivedAt, log: log, routeNote: exchange.routeNote)
        do {
            return try responder.respond(to: request, context: context)
        } catch let problem as Problem {
            return .ready(problem.response)
        } catch {
            log.error("unhandled error: \(String(reflecting: error))", requestID: exchange.requestID)
            return .ready(Problem.internalError.response)
        }
    }

    private func takeReadyReply(_ exchange: Exchange) -> Reply? {
        lock.lock()
        defer { lock.unlock() }
        let ready = exchange.readyReply
        exchange.readyReply = nil
        return ready
    }

    /// Suspends the connection (its worker moves on) until the deferred response completes.
    /// Once shutdown has answered the suspended connections, a new deferred response is refused
    /// at once instead.
    private func suspend(_ connection: OpaquePointer, _ exchange: Exchange, _ deferred: DeferredResponse) -> MHD_Result {
        let suspended = Suspended(connection: connection, exchange: exchange)
        // Suspending and registering happen together under the lock, so shutdown either sees
        // this connection (and answers it) or has already refused it.
        lock.lock()
        guard !stopping else {
            lock.unlock()
            return answer(connection, exchange, Self.shuttingDown.response)
        }
        exchange.phase = .waiting
        MHD_suspend_connection(connection)
        suspendedConnections[ObjectIdentifier(suspended)] = suspended
        lock.unlock()
        deferred.begin { [self] reply in resume(suspended, with: reply) }
        return MHD_Result.YES
    }

    /// Resumes a suspended connection with `reply` (sent, or gone on with, on its worker thread),
    /// unless it was answered already.
    private func resume(_ suspended: Suspended, with reply: Reply) {
        guard suspended.claim() else { return }
        lock.lock()
        suspendedConnections[ObjectIdentifier(suspended)] = nil
        suspended.exchange.readyReply = reply
        resumesInProgress += 1
        lock.unlock()
        MHD_resume_connection(suspended.connection)
        lock.lock()
        resumesInProgress -= 1
        lock.unlock()
    }

    /// Answers every connection still waiting for a deferred response, and refuses to suspend
    /// any more; true if there were any.
    private func answerSuspendedAndStopSuspending() -> Bool {
        lock.lock()
        stopping = true
        let waiting = Array(suspendedConnections.values)
        lock.unlock()
        let reply = Reply.ready(Self.shuttingDown.response)
        for suspended in waiting { resume(suspended, with: reply) }
        return !waiting.isEmpty
    }

    private func answer(_ connection: OpaquePointer, _ exchange: Exchange, _ response: Response) -> MHD_Result {
        exchange.phase = .answered
        // The body has been handed to the responder and answered: its budget is free again.
        bodyBudget.release(exchange.reserved, for: exchange.budgetHolders)
        exchange.reserved = 0
        let mhdResponse = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                            MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
        }
        guard let mhdResponse else { return MHD_Result.NO }
        defer { MHD_destroy_response(mhdResponse) }
        // withCString lends a native string's own bytes: no C copy per header.
        for (name, value) in response.headers where !name.caseInsensitiveEquals("Content-Length") {
            _ = name.withCString { name in value.withCString { value in MHD_add_response_header(mhdResponse, name, value) } }
        }
        _ = exchange.requestID.withCString { MHD_add_response_header(mhdResponse, "X-Request-Id", $0) }
        let result = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - exchange.started.uptimeNanoseconds) / 1_000_000
        log.access(AccessLogEntry(time: exchange.receivedAt, requestID: exchange.requestID,
                                  method: exchange.request.method, path: exchange.routeNote.loggedPath ?? exchange.request.path,
                                  status: response.status, bytes: response.body.count,
                                  durationMilliseconds: (elapsed * 1000).rounded() / 1000))
        if let metrics {
            // Noted by the router as it dispatched; matched here only for a request refused
            // before it reached the router (malformed framing, an undecodable query).
            let route = exchange.routeNote.pattern
                ?? responder.routePattern(method: exchange.request.method, path: exchange.request.path) ?? "unmatched"
            metrics.request(route: route, method: exchange.request.method, status: response.status, seconds: elapsed / 1000)
        }
        return result
    }

    fileprivate func complete(connection: OpaquePointer?, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        if let connection { openConnection(connection).map(connections.answered) }
        guard let slot, let stored = slot.pointee else { return }
        let exchange = Unmanaged<Exchange>.fromOpaque(stored).takeRetainedValue()
        bodyBudget.release(exchange.reserved, for: exchange.budgetHolders)
        exchange.reserved = 0
        slot.pointee = nil
        adjustInFlight(-1)
    }

    /// The record `connectionOpened` left in the connection's socket context: read back through
    /// libmicrohttpd (a switch and a field), not looked up in a table, since every request asks.
    private func openConnection(_ connection: OpaquePointer) -> OpenConnections.Connection? {
        hosted_mhd_socket_context(connection).map { Unmanaged<OpenConnections.Connection>.fromOpaque($0).takeUnretainedValue() }
    }

    fileprivate func connectionOpened(_ connection: OpaquePointer, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        _ = hosted_mhd_client_address_bits(connection, &high, &low)
        let opened = connections.opened(address: .init(high: high, low: low), socket: hosted_mhd_connection_socket(connection))
        context.pointee = Unmanaged.passRetained(opened).toOpaque()
    }

    fileprivate func connectionClosed(context: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        guard let stored = context.pointee else { return }
        context.pointee = nil
        connections.closed(Unmanaged<OpenConnections.Connection>.fromOpaque(stored).takeRetainedValue())
    }

    /// The request line as libmicrohttpd parsed it: C strings inside its read buffer, which the
    /// first call checks in place (the shim's `hosted_mhd_request_line_is_malformed`).
    fileprivate struct RequestLine {
        let method: UnsafePointer<CChar>
        let url: UnsafePointer<CChar>
        let version: UnsafePointer<CChar>?
    }

    /// Headers and query arguments gathered by libmicrohttpd's iterator.
    fileprivate final class Collected {
        var fields: [(name: String, value: String)] = []
        var query: [(name: String, value: String)] = []
        /// A query argument did not decode to UTF-8 without NULs.
        var invalidQuery = false

        /// Room for a browser's usual 20 header fields without growing.
        init() { fields.reserveCapacity(24) }
    }
}

// MARK: - C entry points

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, upload, uploadSize, slot in
    guard let cls, let connection, let url, let method, let uploadSize, let slot else { return MHD_Result.NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    return server.handle(connection: connection, line: HTTPServer.RequestLine(method: method, url: url, version: version),
                         upload: upload, uploadSize: uploadSize, slot: slot)
}

private let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, slot, _ in
    guard let cls else { return }
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().complete(connection: connection, slot: slot)
}

/// A connection opened or closed: its record goes into (and comes out of) its socket context.
private let connectionNotice: MHD_NotifyConnectionCallback = { cls, connection, context, notice in
    guard let cls, let connection, let context else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    if notice == .CONNECTION_NOTIFY_STARTED {
        server.connectionOpened(connection, context: context)
    } else {
        server.connectionClosed(context: context)
    }
}

/// libmicrohttpd's own messages (formatted by the shim): a cut connection or a malformed head
/// each write one, so a flood of bad clients would flood the log; `LibraryMessages` lets one
/// line a second through and counts the rest.
@_cdecl("hosted_mhd_log_message")
func libraryMessage(_ cls: UnsafeMutableRawPointer?, _ message: UnsafePointer<CChar>?) {
    guard let cls, let message else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    server.libraryMessages.note(String(cString: message), log: server.log)
}

private let collectHeader: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return MHD_Result.YES }
    let collected = Unmanaged<HTTPServer.Collected>.fromOpaque(cls).takeUnretainedValue()
    collected.fields.append((name: String(cString: key), value: value.map { String(cString: $0) } ?? ""))
    return MHD_Result.YES
}

/// Query arguments arrive still percent-encoded (see the shim); an undecodable one makes the
/// request a 400 (dropping it would silently widen a filter such as `?user_id=%FF`).
private let collectArgument: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return MHD_Result.YES }
    let collected = Unmanaged<HTTPServer.Collected>.fromOpaque(cls).takeUnretainedValue()
    if let name = Request.formDecode(String(cString: key)),
       let decoded = Request.formDecode(value.map { String(cString: $0) } ?? ""),
       !name.utf8.contains(0), !decoded.utf8.contains(0) {
        collected.query.append((name: name, value: decoded))
    } else {
        collected.invalidQuery = true
    }
    return MHD_Result.YES
}

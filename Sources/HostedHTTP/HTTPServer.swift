import CMicroHTTPD
import Foundation

/// Serves an `HTTPResponder` over libmicrohttpd: an internal pool of worker threads using epoll,
/// keep-alive, a connection timeout, per-route body limits, request ids and an access log.
/// This is the only file where libmicrohttpd's callbacks cross into Swift.
///
/// `@unchecked Sendable`: `daemon` and `listenSocket` are written only by `start()` and
/// `shutdown()`, which the owner calls from one thread; the in-flight count and the request-id
/// sequence are guarded by `lock`; everything else is immutable.
public final class HTTPServer: @unchecked Sendable {
    /// Where and how to listen.
    public struct Configuration: Sendable {
        /// Numeric IPv4 or IPv6 address to bind, e.g. `127.0.0.1` or `::1`.
        public var host: String
        /// Port to bind; 0 picks a free one (see `port` after `start()`).
        public var port: UInt16
        /// Worker threads; defaults to the number of cores.
        public var threads: Int
        /// Idle seconds before a connection is closed.
        public var connectionTimeoutSeconds: Int
        /// Most simultaneous connections.
        public var connectionLimit: Int

        public init(host: String = "127.0.0.1", port: UInt16 = 8080,
                    threads: Int = ProcessInfo.processInfo.activeProcessorCount,
                    connectionTimeoutSeconds: Int = 30, connectionLimit: Int = 1000) {
            self.host = host
            self.port = port
            self.threads = threads
            self.connectionTimeoutSeconds = connectionTimeoutSeconds
            self.connectionLimit = connectionLimit
        }
    }

    /// Why the server could not start.
    public enum StartError: Error, CustomStringConvertible {
        case invalidAddress(String)
        case cannotListen(host: String, port: UInt16)

        public var description: String {
            switch self {
            case .invalidAddress(let host): "not a numeric IP address: \(host)"
            case .cannotListen(let host, let port): "cannot listen on \(host):\(port) (in use, or not permitted)"
            }
        }
    }

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

    /// The bound port, known after `start()`.
    public private(set) var port: UInt16 = 0

    public init(configuration: Configuration, responder: any HTTPResponder, log: any ServerLog = StandardErrorLog()) {
        self.configuration = configuration
        self.responder = responder
        self.log = log
    }

    /// Binds and starts serving on the worker threads; returns at once.
    public func start() throws(StartError) {
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
        daemon = started
        port = hosted_mhd_bound_port(started)
    }

    private func start(address: UnsafePointer<sockaddr>, ipv6: Bool, context: UnsafeMutableRawPointer) -> OpaquePointer? {
        hosted_mhd_start(address, ipv6 ? 1 : 0, UInt32(max(1, configuration.threads)),
                         UInt32(configuration.connectionTimeoutSeconds), UInt32(configuration.connectionLimit),
                         accessHandler, context, requestCompleted, context)
    }

    /// Stops accepting connections, runs `beforeDraining`, lets in-flight requests finish (up to
    /// `gracePeriod`), then stops the worker threads. Idempotent.
    public func shutdown(gracePeriod: TimeInterval = 10, beforeDraining: () -> Void = {}) {
        guard let daemon else { return }
        listenSocket = MHD_quiesce_daemon(daemon)
        // Quiescing only takes the socket out of the workers' epoll sets, and a worker may still
        // be about to accept; shutting the listening socket down makes the kernel refuse new
        // connections at once. It is closed only after MHD_stop_daemon, as libmicrohttpd requires.
        if listenSocket >= 0 { _ = Glibc.shutdown(listenSocket, Int32(SHUT_RDWR)) }
        // E.g. answer long-polls now rather than at their timeout.
        beforeDraining()
        let deadline = Date().addingTimeInterval(gracePeriod)
        while currentInFlight > 0 && Date() < deadline {
            usleep(5_000)
        }
        // A connection still suspended must not outlive the daemon (resuming it later would touch
        // freed memory): answer it now, and give the workers a moment to send the answers.
        if answerSuspended(with: Problem(status: 503, code: "shutting_down", title: "Service Unavailable",
                                         detail: "The server is restarting. Please try again.",
                                         headers: [("Retry-After", "1")]).response) {
            let flushDeadline = Date().addingTimeInterval(1)
            while currentInFlight > 0 && Date() < flushDeadline { usleep(5_000) }
        }
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

    private func adjustInFlight(_ delta: Int) {
        lock.lock()
        inFlight += delta
        lock.unlock()
    }

    deinit { shutdown(gracePeriod: 0) }

    /// Bytes of an over-limit chunked body read and dropped before the connection is cut.
    static let maximumDiscardedBytes = 16 << 20

    // MARK: - Per-request state

    /// Everything known about one request while libmicrohttpd calls back for it.
    fileprivate final class Exchange {
        let request: Request
        let requestID: String
        let started: DispatchTime
        let receivedAt: Date
        let bodyLimit: Int
        var body: [UInt8] = []
        var answered = false
        var overLimit = false
        var discarded = 0
        /// Set (under the server's lock) when a deferred response is ready to be sent.
        var readyResponse: Response?

        init(request: Request, requestID: String, bodyLimit: Int) {
            self.request = request
            self.requestID = requestID
            self.bodyLimit = bodyLimit
            self.started = .now()
            self.receivedAt = Date()
        }
    }

    /// A well-formed incoming id is kept (so a proxy's id ties the logs together); anything else is
    /// replaced by this process's random prefix and a sequence number: unique without a syscall.
    func requestID(from incoming: String?) -> String {
        if let incoming, (1...128).contains(incoming.utf8.count),
           incoming.utf8.allSatisfy({ Self.isIDCharacter($0) }) {
            return incoming
        }
        lock.lock()
        sequence &+= 1
        let number = sequence
        lock.unlock()
        return requestIDPrefix + String(number, radix: 16)
    }

    /// 64 random bits per server instance, so ids from several processes never collide.
    private let requestIDPrefix: String = {
        var generator = SystemRandomNumberGenerator()
        let prefix = String(generator.next() as UInt64, radix: 16)
        return String(repeating: "0", count: 16 - prefix.count) + prefix + "-"
    }()
    private var sequence: UInt64 = 0

    private static func isIDCharacter(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
            || c == 0x2D || c == 0x2E || c == 0x5F || c == 0x3A
    }

    // MARK: - Callbacks

    /// libmicrohttpd calls this once with the headers, once per body chunk, and once at the end.
    /// Answering on the first call would make it close the connection (no keep-alive), so normal
    /// requests are answered on the last call; only a body whose declared Content-Length is too
    /// large is refused on the first, before any of it is read.
    fileprivate func handle(connection: OpaquePointer, url: String, method: String,
                            upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
                            slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let stored = slot.pointee else {
            let exchange = begin(connection: connection, url: url, method: method)
            slot.pointee = Unmanaged.passRetained(exchange).toOpaque()
            adjustInFlight(1)
            if let declared = exchange.request.headers["Content-Length"].flatMap(Int.init), declared > exchange.bodyLimit {
                return answer(connection, exchange, Problem.payloadTooLarge(limit: exchange.bodyLimit).response)
            }
            return MHD_Result.YES
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(stored).takeUnretainedValue()
        if let ready = takeReadyResponse(exchange) {
            exchange.answered = false
            return answer(connection, exchange, ready)
        }
        if uploadSize.pointee > 0 {
            let size = uploadSize.pointee
            uploadSize.pointee = 0  // consumed (or discarded)
            if exchange.answered { return MHD_Result.YES }
            if exchange.overLimit || exchange.body.count + size > exchange.bodyLimit || upload == nil {
                // A body without Content-Length (chunked) passed the limit. libmicrohttpd 0.9.75
                // cannot queue a response mid-upload, so the rest is discarded unread-into-memory
                // and the 413 goes out when the body ends; a client that keeps streaming far past
                // the limit is disconnected.
                exchange.overLimit = true
                exchange.body = []
                exchange.discarded += size
                return exchange.discarded > Self.maximumDiscardedBytes ? MHD_Result.NO : MHD_Result.YES
            }
            upload?.withMemoryRebound(to: UInt8.self, capacity: size) {
                exchange.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size))
            }
            return MHD_Result.YES
        }
        if exchange.answered { return MHD_Result.YES }
        if exchange.overLimit {
            return answer(connection, exchange, Problem.payloadTooLarge(limit: exchange.bodyLimit).response)
        }
        var request = exchange.request
        request.body = exchange.body
        exchange.body = []
        return answer(connection, exchange, respond(to: request, exchange: exchange))
    }

    private func begin(connection: OpaquePointer, url: String, method: String) -> Exchange {
        let collected = Collected()
        let box = Unmanaged.passUnretained(collected).toOpaque()
        MHD_get_connection_values(connection, MHD_ValueKind.HEADER_KIND, collectHeader, box)
        MHD_get_connection_values(connection, MHD_ValueKind.GET_ARGUMENT_KIND, collectArgument, box)
        var addressBuffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let peer = hosted_mhd_client_address(connection, &addressBuffer, socklen_t(addressBuffer.count)) == 0
            ? String(decoding: addressBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        let request = Request(method: method, path: url, query: collected.query,
                              headers: HTTPHeaders(collected.headers), peerAddress: peer)
        // Only a request that announces a body needs its route's limit (saves a route match per GET).
        let hasBody = request.headers.contains("Content-Length") || request.headers.contains("Transfer-Encoding")
        return Exchange(request: request, requestID: requestID(from: request.headers["X-Request-Id"]),
                        bodyLimit: hasBody ? responder.bodyLimit(method: method, path: url) : Router.defaultBodyLimit)
    }

    /// Runs the responder; a thrown `Problem` becomes its response, anything else a generic 500.
    private func respond(to request: Request, exchange: Exchange) -> Response {
        let context = RequestContext(requestID: exchange.requestID, receivedAt: exchange.receivedAt)
        do {
            return try responder.respond(to: request, context: context)
        } catch let problem as Problem {
            return problem.response
        } catch {
            log.error("unhandled error: \(String(reflecting: error))", requestID: exchange.requestID)
            return Problem.internalError.response
        }
    }

    private func takeReadyResponse(_ exchange: Exchange) -> Response? {
        lock.lock()
        defer { lock.unlock() }
        let ready = exchange.readyResponse
        exchange.readyResponse = nil
        return ready
    }

    /// Suspends the connection (its worker moves on) until the deferred response completes.
    private func suspend(_ connection: OpaquePointer, _ exchange: Exchange, _ deferred: DeferredResponse) -> MHD_Result {
        exchange.answered = true  // body chunks and repeated calls are ignored while suspended
        MHD_suspend_connection(connection)
        let suspended = Suspended(connection: connection, exchange: exchange)
        lock.lock()
        suspendedConnections[ObjectIdentifier(suspended)] = suspended
        lock.unlock()
        deferred.start { [self] response in resume(suspended, with: response) }
        return MHD_Result.YES
    }

    /// Sends `response` on a suspended connection, unless it was answered already.
    private func resume(_ suspended: Suspended, with response: Response) {
        guard suspended.claim() else { return }
        lock.lock()
        suspendedConnections[ObjectIdentifier(suspended)] = nil
        suspended.exchange.readyResponse = response
        lock.unlock()
        MHD_resume_connection(suspended.connection)
    }

    /// Answers every connection still waiting for a deferred response; true if there were any.
    private func answerSuspended(with response: Response) -> Bool {
        lock.lock()
        let waiting = Array(suspendedConnections.values)
        lock.unlock()
        for suspended in waiting { resume(suspended, with: response) }
        return !waiting.isEmpty
    }

    private func answer(_ connection: OpaquePointer, _ exchange: Exchange, _ response: Response) -> MHD_Result {
        if let deferred = response.deferred { return suspend(connection, exchange, deferred) }
        exchange.answered = true
        let mhdResponse = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                            MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
        }
        guard let mhdResponse else { return MHD_Result.NO }
        defer { MHD_destroy_response(mhdResponse) }
        for (name, value) in response.headers where !name.caseInsensitiveEquals("Content-Length") {
            MHD_add_response_header(mhdResponse, name, value)
        }
        MHD_add_response_header(mhdResponse, "X-Request-Id", exchange.requestID)
        let result = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - exchange.started.uptimeNanoseconds) / 1_000_000
        log.access(AccessLogEntry(time: exchange.receivedAt, requestID: exchange.requestID,
                                  method: exchange.request.method, path: exchange.request.path,
                                  status: response.status, bytes: response.body.count,
                                  durationMilliseconds: (elapsed * 1000).rounded() / 1000))
        return result
    }

    fileprivate func complete(slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let slot, let stored = slot.pointee else { return }
        Unmanaged<Exchange>.fromOpaque(stored).release()
        slot.pointee = nil
        adjustInFlight(-1)
    }

    /// A suspended connection waiting for its deferred response; completes at most once.
    ///
    /// `@unchecked Sendable`: `done` is only touched while holding `lock`; the exchange's
    /// `readyResponse` only under the server's lock; and `MHD_resume_connection` may be called
    /// from any thread.
    fileprivate final class Suspended: @unchecked Sendable {
        let connection: OpaquePointer
        let exchange: Exchange
        private let lock = NSLock()
        private var done = false

        init(connection: OpaquePointer, exchange: Exchange) {
            self.connection = connection
            self.exchange = exchange
        }

        func claim() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            if done { return false }
            done = true
            return true
        }
    }

    /// Headers and query arguments gathered by libmicrohttpd's iterator.
    fileprivate final class Collected {
        var headers: [(String, String)] = []
        var query: [(name: String, value: String)] = []
    }
}

// MARK: - C entry points

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, upload, uploadSize, slot in
    guard let cls, let connection, let url, let method, let uploadSize, let slot else { return MHD_Result.NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    return server.handle(connection: connection, url: String(cString: url), method: String(cString: method),
                         upload: upload, uploadSize: uploadSize, slot: slot)
}

private let requestCompleted: MHD_RequestCompletedCallback = { cls, _, slot, _ in
    guard let cls else { return }
    Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().complete(slot: slot)
}

private let collectHeader: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return MHD_Result.YES }
    let collected = Unmanaged<HTTPServer.Collected>.fromOpaque(cls).takeUnretainedValue()
    collected.headers.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
    return MHD_Result.YES
}

/// Query arguments arrive still percent-encoded (see the shim); undecodable ones are dropped.
private let collectArgument: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return MHD_Result.YES }
    let collected = Unmanaged<HTTPServer.Collected>.fromOpaque(cls).takeUnretainedValue()
    if let name = Request.formDecode(String(cString: key)),
       let decoded = Request.formDecode(value.map { String(cString: $0) } ?? "") {
        collected.query.append((name: name, value: decoded))
    }
    return MHD_Result.YES
}

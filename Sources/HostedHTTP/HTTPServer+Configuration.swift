import Foundation

extension HTTPServer {
    /// Where and how to listen, and the limits that keep one client from holding what it has
    /// not earned.
    public struct Configuration: Sendable {
        /// Numeric IPv4 or IPv6 address to bind, e.g. `127.0.0.1` or `::1`.
        public var host: String
        /// Port to bind; 0 picks a free one (see `port` after `start()`).
        public var port: UInt16
        /// Worker threads; defaults to the number of cores.
        public var threads: Int
        /// Seconds a connection may sit idle (no bytes from the client) before it is closed;
        /// a connection waiting for a deferred response (a long-poll) is not idle.
        public var connectionTimeoutSeconds: Int
        /// Seconds a connection has to send a request's line and headers, however it trickles
        /// them: from its accept, or — for the next request on a kept-alive connection — from
        /// the previous answer plus `connectionTimeoutSeconds` (an idle connection is closed by
        /// that timeout first). Past it the connection is closed; 0 for no deadline.
        public var headerTimeoutSeconds: Int
        /// Most simultaneous connections. Past nine tenths of it, a new connection closes one
        /// still waiting for its request head — the oldest from the address with the most
        /// such — so slow clients never keep new ones out.
        public var connectionLimit: Int
        /// Most simultaneous connections from one peer address; 0 for no limit (behind a load
        /// balancer every client has the balancer's address).
        public var connectionsPerAddress: Int
        /// Request bodies buffered across all connections at once; past it a body is refused (503).
        public var maximumBufferedBytes: Int
        /// Request bodies one client may have buffered at once, counted both by its address (see
        /// `trustedProxies`) and by the session, account or operator the route's admission named
        /// (`BodyHolder`); past it a body is refused (429). nil: a quarter of `maximumBufferedBytes`.
        public var maximumBufferedBytesPerClient: Int?
        /// The slowest a body may arrive, in bytes per second, counted from `bodyRateGraceSeconds`
        /// after its headers: a body that falls behind has its connection closed (and its share of
        /// the budget given back) long before `requestTimeoutSeconds`. 0 for no minimum.
        public var minimumBodyBytesPerSecond: Int
        /// Seconds after the headers before `minimumBodyBytesPerSecond` starts counting.
        public var bodyRateGraceSeconds: Int
        /// Proxies whose `X-Forwarded-For` names the client whose share of the body budget a body takes.
        public var trustedProxies: TrustedProxies
        /// Seconds from the request's headers to the last byte of its body; a body still
        /// trickling in after that has its connection closed.
        public var requestTimeoutSeconds: Int
        /// Bytes of request line and headers per connection (libmicrohttpd's connection pool).
        public var headerMemoryBytes: Int

        public init(host: String = "127.0.0.1", port: UInt16 = 8080,
                    threads: Int = ProcessInfo.processInfo.activeProcessorCount,
                    connectionTimeoutSeconds: Int = 15, headerTimeoutSeconds: Int = 10, connectionLimit: Int = 1000,
                    connectionsPerAddress: Int = 200, maximumBufferedBytes: Int = 64 << 20,
                    maximumBufferedBytesPerClient: Int? = nil, minimumBodyBytesPerSecond: Int = 8 << 10,
                    bodyRateGraceSeconds: Int = 5, trustedProxies: TrustedProxies = TrustedProxies([]),
                    requestTimeoutSeconds: Int = 60, headerMemoryBytes: Int = 16 << 10) {
            self.host = host
            self.port = port
            self.threads = threads
            self.connectionTimeoutSeconds = connectionTimeoutSeconds
            self.headerTimeoutSeconds = headerTimeoutSeconds
            self.connectionLimit = connectionLimit
            self.connectionsPerAddress = connectionsPerAddress
            self.maximumBufferedBytes = maximumBufferedBytes
            self.maximumBufferedBytesPerClient = maximumBufferedBytesPerClient
            self.minimumBodyBytesPerSecond = minimumBodyBytesPerSecond
            self.bodyRateGraceSeconds = bodyRateGraceSeconds
            self.trustedProxies = trustedProxies
            self.requestTimeoutSeconds = requestTimeoutSeconds
            self.headerMemoryBytes = headerMemoryBytes
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
}

import Foundation
import HostedObservability
import Synchronization

/// Per-request facts every handler may use, and what middleware learned on the way (the
/// authenticated account, the journey session), stored under typed keys.
public struct RequestContext: Sendable {
    /// Echoed as `X-Request-Id` and written to the access log.
    public let requestID: String
    public let receivedAt: Date
    /// Path parameters bound by the router, percent-decoded.
    public var parameters: [String: String]
    /// Error lines written through it carry this request's id.
    public let log: RequestLog
    /// What middleware stored, by key: a handful at most, so a list searched in order (a
    /// dictionary hashed every key on every request).
    private var values: [(key: ObjectIdentifier, value: any Sendable)] = []
    /// Where the router notes the pattern it matched, for the server's metrics (nil: not asked).
    let routeNote: RouteNote?
    /// The route the router matched in the header phase, so `respond` does not match again.
    var admittedRoute: Router.Route?

    public init(requestID: String, receivedAt: Date = Date(), parameters: [String: String] = [:], log: (any ServerLog)? = nil) {
        self.init(requestID: requestID, receivedAt: receivedAt, parameters: parameters, log: log, routeNote: nil)
    }

    init(requestID: String, receivedAt: Date, parameters: [String: String] = [:], log: (any ServerLog)?, routeNote: RouteNote?) {
        self.requestID = requestID
        self.receivedAt = receivedAt
        self.parameters = parameters
        self.log = RequestLog(requestID: requestID, sink: log)
        self.routeNote = routeNote
    }

    /// What a middleware stored under `key`, or nil.
    public subscript<Key: ContextKey>(_ key: Key.Type) -> Key.Value? {
        get {
            let id = ObjectIdentifier(key)
            return values.first { $0.key == id }?.value as? Key.Value
        }
        set {
            let id = ObjectIdentifier(key)
            values.removeAll { $0.key == id }
            if let newValue {
                if values.capacity == 0 { values.reserveCapacity(4) }
                values.append((key: id, value: newValue))
            }
        }
    }
}

/// The route pattern a request matched, noted by the router as it dispatches, so the server's
/// metrics need not match the path a second time.
///
/// Behind a `Mutex` (a deferred response is answered on another thread than the one that
/// matched); one is made per request, and a `Mutex` is stored inline, where an `NSLock` was an
/// object of its own to allocate and initialise.
final class RouteNote: Sendable {
    private let noted = Mutex<(pattern: String?, loggedPath: String?)>((nil, nil))

    var pattern: String? {
        get { noted.withLock { $0.pattern } }
        set { noted.withLock { $0.pattern = newValue } }
    }

    /// The path as the access log shows it, when the route masks a parameter (nil: as sent).
    var loggedPath: String? {
        get { noted.withLock { $0.loggedPath } }
        set { noted.withLock { $0.loggedPath = newValue } }
    }
}

/// A typed slot in `RequestContext`, e.g. `enum AuthenticatedAccount: ContextKey { typealias Value = Account }`.
public protocol ContextKey {
    associatedtype Value: Sendable
}

/// Turns a request into a response. Called on the server's worker threads, so it may block on
/// the database; it must not throw anything it wants a client to see except a `Problem`.
public protocol HTTPResponder: Sendable {
    func respond(to request: Request, context: RequestContext) throws -> Reply
    /// The largest body accepted for this method and path, checked before the body is read.
    func bodyLimit(method: String, path: String) -> Int
    /// Decides from the request line and headers alone — before any of the body is read —
    /// whether a request that announces a body may send it: throws the refusal (a `Problem`:
    /// unknown route, no credentials, wrong origin), or returns the largest body accepted.
    /// The context it leaves is the one `respond` gets for this request.
    func admit(_ request: Request, context: inout RequestContext) throws -> Int
    /// The pattern of the route that answers this method and path (`/v1/verifications/{id}`),
    /// for metrics; nil when none does.
    func routePattern(method: String, path: String) -> String?
}

extension HTTPResponder {
    public func routePattern(method: String, path: String) -> String? { nil }
    public func bodyLimit(method: String, path: String) -> Int { Router.defaultBodyLimit }
    public func admit(_ request: Request, context: inout RequestContext) throws -> Int {
        bodyLimit(method: request.method, path: request.path)
    }
}

/// A check a route makes in the header phase, before its body is read (see `HTTPResponder.admit`).
public typealias Admission = @Sendable (Request, inout RequestContext) throws -> Void

/// A handler for one route.
public typealias RouteHandler = @Sendable (Request, RequestContext) throws -> Response
/// A handler that may answer later (`Reply.deferred`), e.g. a long-poll.
public typealias DeferrableRouteHandler = @Sendable (Request, RequestContext) throws -> Reply

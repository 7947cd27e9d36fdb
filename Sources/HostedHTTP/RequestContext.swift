import Foundation
import HostedObservability

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

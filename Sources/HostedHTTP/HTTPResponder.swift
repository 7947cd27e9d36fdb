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

/// Work around a group of routes' handlers — authentication, origin checks — in Hummingbird's
/// shape: `handle` runs before the handler and calls `next` to go on (with a context it may have
/// added to), or throws to refuse. `admit` is the same decision made from the headers alone, for
/// a request that announces a body, before the body is read (see `HTTPResponder.admit`); what it
/// adds to the context (the caller it found) reaches `handle`, so the decision is not made twice.
public protocol Middleware: Sendable {
    func admit(_ request: Request, context: inout RequestContext) throws
    func handle(_ request: Request, context: RequestContext, next: (Request, RequestContext) throws -> Reply) throws -> Reply
}

extension Middleware {
    public func admit(_ request: Request, context: inout RequestContext) throws {}
}

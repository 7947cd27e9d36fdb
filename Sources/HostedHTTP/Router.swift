/// Matches method and path to a handler. Patterns are literal segments and `{name}` parameters,
/// e.g. `/v1/verifications/{id}`. Build it with `Router.Builder`; the built router is immutable.
public struct Router: HTTPResponder {
    /// Default cap on request bodies: 1 MiB.
    public static let defaultBodyLimit = 1 << 20

    struct Route: Sendable {
        let method: String
        let segments: [Segment]
        let bodyLimit: Int
        let admission: Admission?
        let handler: DeferrableRouteHandler
        /// The pattern as written (`/v1/verifications/{id}`), for the table and metrics.
        let pattern: String
    }

    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        /// Matches the rest of the path (one or more segments), e.g. static files.
        case rest(String)
    }

    /// Collects routes, then builds the immutable router.
    public struct Builder {
        var routes: [Route] = []
        /// The middleware of the groups being registered, outermost first.
        var middleware: [any Middleware] = []

        public init() {}

        /// Adds a route; the middleware of the enclosing groups runs around `handler`, and their
        /// `admit` decides in the header phase whether a body for it is read at all.
        public mutating func add(_ method: String, _ pattern: String, bodyLimit: Int = Router.defaultBodyLimit,
                                 _ handler: @escaping RouteHandler) {
            addDeferrable(method, pattern, bodyLimit: bodyLimit) { request, context in .ready(try handler(request, context)) }
        }

        /// Adds a route whose handler may answer later (a long-poll); otherwise like `add`.
        public mutating func addDeferrable(_ method: String, _ pattern: String, bodyLimit: Int = Router.defaultBodyLimit,
                                           _ handler: @escaping DeferrableRouteHandler) {
            let chain = middleware
            var wrapped: DeferrableRouteHandler = handler
            for layer in chain.reversed() {
                let next = wrapped
                wrapped = { @Sendable request, context in try layer.handle(request, context: context, next: next) }
            }
            var admission: Admission?
            if !chain.isEmpty {
                admission = { @Sendable request, context in
                    for layer in chain { try layer.admit(request, context: &context) }
                }
            }
            let segments = Router.parse(pattern)
            routes.append(Route(method: method, segments: segments, bodyLimit: bodyLimit,
                                admission: admission, handler: wrapped, pattern: Router.pattern(segments)))
        }

        /// Registers routes behind `layer` (inside any enclosing group's middleware).
        public mutating func group(_ layer: any Middleware, _ register: (inout Builder) -> Void) {
            middleware.append(layer)
            register(&self)
            middleware.removeLast()
        }

        public func build() -> Router { Router(routes: routes) }
    }

    let routes: [Route]

    /// Every route as (method, pattern), e.g. ("GET", "/v1/verifications/{id}"): for checking the
    /// router against the API document.
    public var table: [(method: String, pattern: String)] {
        routes.map { route in (route.method, route.pattern) }
    }

    static func pattern(_ segments: [Segment]) -> String {
        "/" + segments.map { segment in
            switch segment {
            case .literal(let text): text
            case .parameter(let name): "{\(name)}"
            case .rest(let name): "{\(name)...}"
            }
        }.joined(separator: "/")
    }

    public func routePattern(method: String, path: String) -> String? {
        if case .found(let route, _) = match(method: method, path: path) { return route.pattern }
        return nil
    }

    /// The result of matching a path.
    enum Match {
        case found(Route, [String: String])
        case wrongMethod(allowed: [String])
        case notFound
    }

    static func parse(_ pattern: String) -> [Segment] {
        pattern.split(separator: "/", omittingEmptySubsequences: true).map { piece in
            if piece.hasPrefix("{"), piece.hasSuffix("...}") { return .rest(String(piece.dropFirst().dropLast(4))) }
            if piece.hasPrefix("{"), piece.hasSuffix("}") { return .parameter(String(piece.dropFirst().dropLast())) }
            return .literal(String(piece))
        }
    }

    /// Splits the raw path on `/` first and percent-decodes each segment after, so an encoded
    /// slash stays inside its segment. nil when the path is not a valid absolute path.
    static func segments(of path: String) -> [String]? {
        guard path.hasPrefix("/") else { return nil }
        var result: [String] = []
        for raw in path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            guard raw.utf8.contains(UInt8(ascii: "%")) else {
                result.append(String(raw))
                continue
            }
            // A NUL or an invalid escape names no resource (and must never reach a query).
            guard let decoded = String(raw).removingPercentEncoding, !decoded.utf8.contains(0) else { return nil }
            result.append(decoded)
        }
        // "/" and a trailing slash both yield an empty last segment: not a route segment.
        if result.last == "" { result.removeLast() }
        return result
    }

    func match(method: String, path: String) -> Match {
        guard let segments = Self.segments(of: path) else { return .notFound }
        var allowed: [String] = []
        for route in routes {
            guard let parameters = Self.bind(route.segments, to: segments) else { continue }
            if route.method == method || (method == "HEAD" && route.method == "GET") {
                return .found(route, parameters)
            }
            if !allowed.contains(route.method) { allowed.append(route.method) }
        }
        if allowed.isEmpty { return .notFound }
        if allowed.contains("GET") && !allowed.contains("HEAD") { allowed.append("HEAD") }
        return .wrongMethod(allowed: allowed)
    }

    private static func bind(_ pattern: [Segment], to segments: [String]) -> [String: String]? {
        var parameters: [String: String] = [:]
        for (index, piece) in pattern.enumerated() {
            switch piece {
            case .rest(let name):
                guard segments.count > index else { return nil }
                parameters[name] = segments[index...].joined(separator: "/")
                return parameters
            case .literal(let literal):
                guard index < segments.count, segments[index] == literal else { return nil }
            case .parameter(let name):
                guard index < segments.count, !segments[index].isEmpty else { return nil }
                parameters[name] = segments[index]
            }
        }
        return pattern.count == segments.count ? parameters : nil
    }

    public func respond(to request: Request, context: RequestContext) throws -> Reply {
        switch match(method: request.method, path: request.path) {
        case .found(let route, let parameters):
            var context = context
            context.parameters = parameters
            // HEAD runs the GET handler; libmicrohttpd sends its headers without the body.
            return try route.handler(request, context)
        case .wrongMethod(let allowed):
            throw Problem.methodNotAllowed(allowed: allowed)
        case .notFound:
            throw Problem.notFound()
        }
    }

    public func bodyLimit(method: String, path: String) -> Int {
        if case .found(let route, _) = match(method: method, path: path) { return route.bodyLimit }
        return Self.defaultBodyLimit
    }

    /// An unknown route or method is refused before its body; then the route's own admission.
    public func admit(_ request: Request, context: inout RequestContext) throws -> Int {
        switch match(method: request.method, path: request.path) {
        case .found(let route, let parameters):
            context.parameters = parameters
            try route.admission?(request, &context)
            return route.bodyLimit
        case .wrongMethod(let allowed):
            throw Problem.methodNotAllowed(allowed: allowed)
        case .notFound:
            throw Problem.notFound()
        }
    }
}

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
    /// For a path whose first segment is a route's literal first segment: the indices of the
    /// routes that can match it, in registration order (those routes, and every route that
    /// starts with a parameter). Other paths try `openFirst`.
    private let byFirstSegment: [String: [Int]]
    /// Routes whose first segment is a parameter or the rest, or that have no segments.
    private let openFirst: [Int]

    init(routes: [Route]) {
        self.routes = routes
        var open: [Int] = []
        var literal: [String: [Int]] = [:]
        for (index, route) in routes.enumerated() {
            if case .literal(let first) = route.segments.first {
                literal[first, default: []].append(index)
            } else {
                open.append(index)
            }
        }
        openFirst = open
        byFirstSegment = literal.mapValues { ($0 + open).sorted() }
    }

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

    /// Splits the raw path on the byte `/` first and percent-decodes each segment after, so an
    /// encoded slash stays inside its segment. nil when the path is not a valid absolute path.
    /// Runs on every request (and again for metrics): slices of the path, no copies unless a
    /// segment has an escape.
    static func segments(of path: String) -> [Substring]? {
        let utf8 = path.utf8
        guard utf8.first == UInt8(ascii: "/") else { return nil }
        var result: [Substring] = []
        result.reserveCapacity(8)
        var start = utf8.index(after: utf8.startIndex)
        var index = start
        while true {
            let atEnd = index == utf8.endIndex
            if atEnd || utf8[index] == UInt8(ascii: "/") {
                let raw = Substring(utf8[start..<index])
                if raw.utf8.contains(UInt8(ascii: "%")) {
                    // A NUL or an invalid escape names no resource (and must never reach a query).
                    guard let decoded = String(raw).removingPercentEncoding, !decoded.utf8.contains(0) else { return nil }
                    result.append(Substring(decoded))
                } else {
                    result.append(raw)
                }
                if atEnd { break }
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        // "/" and a trailing slash both yield an empty last segment: not a route segment.
        if result.last?.isEmpty == true { result.removeLast() }
        return result
    }

    func match(method: String, path: String) -> Match {
        guard let segments = Self.segments(of: path) else { return .notFound }
        var allowed: [String] = []
        let candidates = segments.first.flatMap { byFirstSegment[String($0)] } ?? openFirst
        for index in candidates where Self.fits(routes[index].segments, segments) {
            let route = routes[index]
            if route.method == method || (method == "HEAD" && route.method == "GET") {
                return .found(route, Self.parameters(route.segments, segments))
            }
            if !allowed.contains(route.method) { allowed.append(route.method) }
        }
        if allowed.isEmpty { return .notFound }
        if allowed.contains("GET") && !allowed.contains("HEAD") { allowed.append("HEAD") }
        return .wrongMethod(allowed: allowed)
    }

    /// Whether the pattern matches the segments: literals byte for byte, parameters non-empty,
    /// a rest one or more segments. Allocates nothing (most routes do not match).
    private static func fits(_ pattern: [Segment], _ segments: [Substring]) -> Bool {
        // Counts first: most routes are refused here. A rest (always last) takes one or more.
        var endsInRest = false
        if case .rest = pattern.last { endsInRest = true }
        guard pattern.count == segments.count || (endsInRest && pattern.count < segments.count) else { return false }
        for (index, piece) in pattern.enumerated() {
            switch piece {
            case .rest:
                return segments.count > index
            case .literal(let literal):
                guard index < segments.count, segments[index].utf8.elementsEqual(literal.utf8) else { return false }
            case .parameter:
                guard index < segments.count, !segments[index].isEmpty else { return false }
            }
        }
        return pattern.count == segments.count
    }

    /// The parameters of a pattern that `fits` the segments.
    private static func parameters(_ pattern: [Segment], _ segments: [Substring]) -> [String: String] {
        var parameters: [String: String] = [:]
        for (index, piece) in pattern.enumerated() {
            switch piece {
            case .rest(let name):
                parameters[name] = segments[index...].joined(separator: "/")
                return parameters
            case .literal:
                continue
            case .parameter(let name):
                parameters[name] = String(segments[index])
            }
        }
        return parameters
    }

    public func respond(to request: Request, context: RequestContext) throws -> Reply {
        // A request with a body was matched in its header phase (`admit`): that route, with its
        // parameters already in the context, answers it.
        if let admitted = context.admittedRoute { return try admitted.handler(request, context) }
        switch match(method: request.method, path: request.path) {
        case .found(let route, let parameters):
            var context = context
            context.parameters = parameters
            context.routeNote?.pattern = route.pattern
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
            context.routeNote?.pattern = route.pattern
            try route.admission?(request, &context)
            context.admittedRoute = route
            return route.bodyLimit
        case .wrongMethod(let allowed):
            throw Problem.methodNotAllowed(allowed: allowed)
        case .notFound:
            throw Problem.notFound()
        }
    }
}

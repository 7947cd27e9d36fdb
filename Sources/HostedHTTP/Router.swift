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
        /// Parameters whose values identify a person: the access log shows `{name}` instead.
        let maskedInLog: Set<String>

        /// The path with the masked parameters' segments replaced by `{name}`; nil when the
        /// route masks none. Called only for a path this route matched.
        func loggedPath(of path: String) -> String? {
            guard !maskedInLog.isEmpty else { return nil }
            // Split like `Router.segments`: on every "/", the leading empty piece dropped.
            var pieces = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
            for (index, segment) in segments.enumerated() where index < pieces.count {
                if case .parameter(let name) = segment, maskedInLog.contains(name) { pieces[index] = "{\(name)}" }
            }
            return "/" + pieces.joined(separator: "/")
        }

        /// Notes what the server's metrics and access log need of a matched request.
        func note(_ path: String, in context: RequestContext) {
            context.routeNote?.pattern = pattern
            if let logged = loggedPath(of: path) { context.routeNote?.loggedPath = logged }
        }
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
        /// `maskedInLog`: parameters whose values the access log must not show (a document
        /// number in the path), logged as `{name}`.
        public mutating func add(_ method: String, _ pattern: String, bodyLimit: Int = Router.defaultBodyLimit,
                                 maskedInLog: Set<String> = [], _ handler: @escaping RouteHandler) {
            addDeferrable(method, pattern, bodyLimit: bodyLimit, maskedInLog: maskedInLog) { request, context in
                .ready(try handler(request, context))
            }
        }

        /// Adds a route whose handler may answer later (a long-poll); otherwise like `add`.
        public mutating func addDeferrable(_ method: String, _ pattern: String, bodyLimit: Int = Router.defaultBodyLimit,
                                           maskedInLog: Set<String> = [], _ handler: @escaping DeferrableRouteHandler) {
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
                                admission: admission, handler: wrapped, pattern: Router.pattern(segments),
                                maskedInLog: maskedInLog))
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
    /// For a path whose first segment is a route's literal first segment: the routes that can
    /// match it (those routes, and every route that starts with a parameter), by segment count.
    /// Other paths try `openFirst`.
    private let byFirstSegment: [String: Candidates]
    /// Routes whose first segment is a parameter or the rest, or that have no segments.
    private let openFirst: Candidates

    /// Route indices, in registration order (the order matching tries them), that can fit a path
    /// of a given number of segments: a pattern of that many, or one ending in a rest that is no
    /// longer. Most of a path's routes are told apart by the count alone, without a comparison.
    struct Candidates {
        /// `byCount[n]`: the routes that can fit n segments, for n up to the longest pattern.
        let byCount: [[Int]]
        /// Paths longer than every pattern: only the routes ending in a rest.
        let beyond: [Int]

        init(_ indices: [Int], of routes: [Route]) {
            let longest = indices.map { routes[$0].segments.count }.max() ?? 0
            byCount = (0...longest).map { count in indices.filter { Router.canFit(routes[$0].segments, count: count) } }
            beyond = indices.filter { Router.canFit(routes[$0].segments, count: .max) }
        }

        subscript(count count: Int) -> [Int] { count < byCount.count ? byCount[count] : beyond }
    }

    /// Whether a pattern can fit a path of `count` segments (`fits` then compares them).
    static func canFit(_ pattern: [Segment], count: Int) -> Bool {
        if case .rest = pattern.last { return pattern.count <= count }
        return pattern.count == count
    }

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
        openFirst = Candidates(open, of: routes)
        byFirstSegment = literal.mapValues { Candidates(($0 + open).sorted(), of: routes) }
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
        var path = path
        path.makeContiguousUTF8()
        // Slash positions found in the contiguous bytes; segments are then slices by offset
        // (O(1) on a native string), so a path is walked once, not index by index.
        var bounds: [(start: Int, end: Int, escaped: Bool)] = []
        let valid: Bool = path.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard bytes.first == UInt8(ascii: "/") else { return false }
            bounds.reserveCapacity(8)
            var start = 1, escaped = false
            for offset in 1..<bytes.count {
                switch bytes[offset] {
                case UInt8(ascii: "/"):
                    bounds.append((start, offset, escaped))
                    start = offset + 1
                    escaped = false
                case UInt8(ascii: "%"):
                    escaped = true
                default:
                    break
                }
            }
            bounds.append((start, bytes.count, escaped))
            return true
        } ?? false
        guard valid else { return nil }
        let utf8 = path.utf8
        var result: [Substring] = []
        result.reserveCapacity(bounds.count)
        for bound in bounds {
            let raw = Substring(utf8[utf8.index(utf8.startIndex, offsetBy: bound.start)..<utf8.index(utf8.startIndex, offsetBy: bound.end)])
            if bound.escaped {
                // A NUL or an invalid escape names no resource (and must never reach a query).
                guard let decoded = String(raw).removingPercentEncoding, !decoded.utf8.contains(0) else { return nil }
                result.append(Substring(decoded))
            } else {
                result.append(raw)
            }
        }
        // "/" and a trailing slash both yield an empty last segment: not a route segment.
        if result.last?.isEmpty == true { result.removeLast() }
        return result
    }

    /// Whether a segment is a literal, byte for byte (not by Unicode equivalence: "K" is not
    /// the Kelvin sign), comparing contiguous bytes where both have them.
    @inline(__always)
    static func same(_ segment: Substring, _ literal: String) -> Bool {
        guard segment.utf8.count == literal.utf8.count else { return false }
        let compared: Bool? = segment.utf8.withContiguousStorageIfAvailable { a in
            literal.utf8.withContiguousStorageIfAvailable { b in a.elementsEqual(b) }
        } ?? nil
        return compared ?? segment.utf8.elementsEqual(literal.utf8)
    }

    func match(method: String, path: String) -> Match {
        guard let segments = Self.segments(of: path) else { return .notFound }
        var allowed: [String] = []
        let candidates = (segments.first.flatMap { byFirstSegment[String($0)] } ?? openFirst)[count: segments.count]
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
                guard index < segments.count, same(segments[index], literal) else { return false }
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
            route.note(request.path, in: context)
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
            route.note(request.path, in: context)
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

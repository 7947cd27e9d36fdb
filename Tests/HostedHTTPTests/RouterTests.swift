import HostedHTTP
import Testing

@Suite struct RouterTests {
    let router: Router = {
        var builder = Router.Builder()
        builder.add("GET", "/v1/items/{id}") { _, context in
            Response(status: 200, body: Array("item \(context.parameters["id"]!)".utf8))
        }
        builder.add("DELETE", "/v1/items/{id}") { _, _ in Response(status: 204) }
        builder.add("GET", "/v1/items/{id}/parts/{part}") { _, context in
            Response(status: 200, body: Array("\(context.parameters["id"]!)/\(context.parameters["part"]!)".utf8))
        }
        builder.add("GET", "/files/{path...}") { _, context in Response(status: 200, body: Array(context.parameters["path"]!.utf8)) }
        builder.add("POST", "/upload", bodyLimit: 10) { _, _ in Response(status: 201) }
        return builder.build()
    }()

    func respond(_ method: String, _ path: String) -> Response {
        do {
            return try router.respond(to: Request(method: method, path: path), context: RequestContext(requestID: "t")).response ?? Response(status: 596)
        } catch let problem as Problem {
            return problem.response
        } catch {
            return Response(status: 599)
        }
    }

    /// Routes are tried in registration order whichever index finds them: a parameter-first
    /// route registered before a literal one wins for a path both match, and the methods of all
    /// matching routes make the 405's Allow.
    @Test func registrationOrderDecidesAcrossTheFirstSegmentIndex() throws {
        var builder = Router.Builder()
        builder.add("GET", "/{any}/x") { _, _ in Response(status: 200, body: Array("param".utf8)) }
        builder.add("GET", "/lit/x") { _, _ in Response(status: 200, body: Array("literal".utf8)) }
        builder.add("POST", "/lit/x") { _, _ in Response(status: 201) }
        builder.add("PUT", "/{any}/y") { _, _ in Response(status: 200) }
        builder.add("GET", "/") { _, _ in Response(status: 200, body: Array("root".utf8)) }
        let router = builder.build()
        func answer(_ method: String, _ path: String) -> (Int, String, String?) {
            do {
                let response = try router.respond(to: Request(method: method, path: path), context: RequestContext(requestID: "t")).response
                return (response?.status ?? 596, String(decoding: response?.body ?? [], as: UTF8.self), nil)
            } catch let problem as Problem {
                return (problem.status, "", problem.response.headers["Allow"])
            } catch {
                return (599, "", nil)
            }
        }
        #expect(answer("GET", "/lit/x").1 == "param")
        #expect(answer("POST", "/lit/x").0 == 201)
        #expect(answer("GET", "/other/x").1 == "param")
        #expect(answer("GET", "/").1 == "root")
        #expect(answer("GET", "/lit/y").0 == 405)
        #expect(answer("GET", "/lit/y").2 == "PUT")
        #expect(answer("DELETE", "/lit/x").2 == "GET, POST, HEAD")
        #expect(router.routePattern(method: "GET", path: "/lit/x") == "/{any}/x")
        #expect(router.routePattern(method: "POST", path: "/lit/x") == "/lit/x")
        #expect(answer("GET", "/lit/x/z").0 == 404)
    }

    @Test func restRoutesParametersAndRegistrationOrderAcrossPathLengths() throws {
        // Rest routes match paths longer than any pattern; a parameter first segment matches
        // every first segment; registration order decides between all of them.
        var builder = Router.Builder()
        let patterns = ["/", "/a", "/a/{x}", "/{p}/b", "/a/b", "/a/{x}/c", "/files/{path...}", "/{p}/{rest...}", "/a/b/c/d"]
        for pattern in patterns {
            builder.add("GET", pattern) { _, _ in Response(status: 200, body: Array(pattern.utf8)) }
        }
        builder.add("POST", "/a/b") { _, _ in Response(status: 201) }
        let router = builder.build()
        func answered(_ path: String) -> String? {
            router.routePattern(method: "GET", path: path)
        }
        #expect(answered("/") == "/")
        #expect(answered("/a") == "/a")
        #expect(answered("/z") == nil)
        #expect(answered("/a/b") == "/a/{x}")
        #expect(answered("/z/b") == "/{p}/b")
        #expect(answered("/z/q") == "/{p}/{rest...}")
        #expect(answered("/a/q/c") == "/a/{x}/c")
        #expect(answered("/a/b/c/d") == "/{p}/{rest...}")
        #expect(answered("/files/1") == "/files/{path...}")
        #expect(answered("/files/1/2/3/4/5/6/7/8/9/10/11") == "/files/{path...}")
        #expect(answered("/z/1/2/3/4/5/6/7/8/9/10/11") == "/{p}/{rest...}")
        #expect(router.routePattern(method: "POST", path: "/a/b") == "/a/b")
        #expect(router.routePattern(method: "POST", path: "/a/b/c") == nil)
    }

    /// The indexes (first segment, then segment count) change which routes are compared, never
    /// the answer: for every path built from the patterns' pieces, the route found is the first
    /// in registration order that a plain comparison of the whole pattern accepts.
    @Test func theIndexesAgreeWithTryingEveryRouteInOrder() {
        let patterns = ["/", "/a", "/a/{x}", "/{p}/b", "/a/b", "/a/{x}/c", "/files/{path...}", "/{p}/{rest...}",
                        "/a/b/c/d", "/a/{x}/{y...}", "/b/{x}/c/{y}", "/b/c"]
        var builder = Router.Builder()
        for pattern in patterns {
            builder.add("GET", pattern) { _, _ in Response(status: 200) }
        }
        let router = builder.build()
        func accepts(_ pattern: String, _ path: [String]) -> Bool {
            let pieces = pattern.split(separator: "/").map(String.init)
            for (index, piece) in pieces.enumerated() {
                if piece.hasSuffix("...}") { return path.count > index }
                guard index < path.count else { return false }
                if piece.hasPrefix("{") { if path[index].isEmpty { return false } } else if piece != path[index] { return false }
            }
            return pieces.count == path.count
        }
        let words = ["a", "b", "c", "d", "files", "z"]
        var paths: [[String]] = [[]]
        for _ in 0..<5 { paths += paths.filter { $0.count == paths.last!.count }.flatMap { path in words.map { path + [$0] } } }
        #expect(paths.count > 5000)
        for path in paths {
            let expected = patterns.first { accepts($0, path) }
            #expect(router.routePattern(method: "GET", path: "/" + path.joined(separator: "/")) == expected, "\(path)")
        }
    }

    @Test func aRouteAdmittedInTheHeaderPhaseAnswersWithoutASecondMatch() throws {
        var builder = Router.Builder()
        builder.add("POST", "/items/{id}") { _, context in
            Response(status: 201, body: Array((context.parameters["id"] ?? "").utf8))
        }
        builder.add("POST", "/other") { _, _ in Response(status: 202) }
        let router = builder.build()
        var context = RequestContext(requestID: "t")
        #expect(try router.admit(Request(method: "POST", path: "/items/i1"), context: &context) == Router.defaultBodyLimit)
        // The context admit left belongs to that request: its route and parameters answer.
        let response = try router.respond(to: Request(method: "POST", path: "/other"), context: context).response
        #expect(response?.status == 201)
        #expect(String(decoding: response?.body ?? [], as: UTF8.self) == "i1")
        // A context that no admit touched is matched as before.
        #expect(try router.respond(to: Request(method: "POST", path: "/other"), context: RequestContext(requestID: "t")).response?.status == 202)
    }

    @Test func bindsPathParameters() {
        let response = respond("GET", "/v1/items/ver_1/parts/selfie")
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "ver_1/selfie")
    }

    @Test func decodesParametersPerSegment() {
        // An encoded slash stays inside its segment: it is one id, not two segments.
        let response = respond("GET", "/v1/items/a%2Fb")
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "item a/b")
    }

    @Test func unknownPathIs404Problem() {
        let response = respond("GET", "/v1/nothing")
        #expect(response.status == 404)
        #expect(response.headers["Content-Type"] == "application/problem+json")
    }

    @Test func otherMethodIs405WithAllow() {
        let response = respond("PUT", "/v1/items/x")
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, DELETE, HEAD")
        #expect(response.headers["Content-Type"] == "application/problem+json")
    }

    @Test func headIsServedByGet() {
        #expect(respond("HEAD", "/v1/items/x").status == 200)
    }

    @Test func restParameterTakesRemainingSegments() {
        #expect(String(decoding: respond("GET", "/files/a/b.css").body, as: UTF8.self) == "a/b.css")
        #expect(respond("GET", "/files").status == 404)
    }

    @Test func emptySegmentsDoNotMatchParameters() {
        #expect(respond("GET", "/v1/items//parts/x").status == 404)
    }

    @Test func bodyLimitIsPerRoute() {
        #expect(router.bodyLimit(method: "POST", path: "/upload") == 10)
        #expect(router.bodyLimit(method: "GET", path: "/v1/items/x") == Router.defaultBodyLimit)
        #expect(router.bodyLimit(method: "POST", path: "/nowhere") == Router.defaultBodyLimit)
    }
}

/// Middleware runs around the handlers of its group, outermost first, and passes what it learns
/// through the context; its `admit` is the route's header-phase check.
@Suite struct MiddlewareTests {
    enum Trail: ContextKey { typealias Value = [String] }

    struct Mark: Middleware {
        let name: String
        let refuse: Bool

        func admit(_ request: Request, context: inout RequestContext) throws {
            if refuse { throw Problem.unauthorized("\(name) refuses") }
        }

        func handle(_ request: Request, context: RequestContext, next: (Request, RequestContext) throws -> Reply) throws -> Reply {
            var context = context
            try admit(request, context: &context)
            context[Trail.self] = (context[Trail.self] ?? []) + [name]
            return try next(request, context)
        }
    }

    static let router: Router = {
        var routes = Router.Builder()
        let trail: RouteHandler = { _, context in Response(status: 200, body: Array((context[Trail.self] ?? []).joined(separator: ">").utf8)) }
        routes.group(Mark(name: "outer", refuse: false)) { routes in
            routes.group(Mark(name: "inner", refuse: false)) { routes in routes.add("GET", "/both", trail) }
            routes.add("GET", "/outer", trail)
        }
        routes.group(Mark(name: "gate", refuse: true)) { routes in routes.add("POST", "/closed", trail) }
        routes.add("GET", "/none", trail)
        return routes.build()
    }()

    func text(_ path: String, _ method: String = "GET") throws -> String {
        String(decoding: try Self.router.respond(to: Request(method: method, path: path), context: RequestContext(requestID: "t")).response?.body ?? [], as: UTF8.self)
    }

    @Test func runsOutermostFirstAndOnlyForItsGroup() throws {
        #expect(try text("/both") == "outer>inner")
        #expect(try text("/outer") == "outer")
        #expect(try text("/none") == "")
    }

    @Test func refusesInTheHeaderPhaseAndBeforeTheHandler() {
        var context = RequestContext(requestID: "t")
        #expect(throws: Problem.self) { try Self.router.admit(Request(method: "POST", path: "/closed"), context: &context) }
        #expect(throws: Problem.self) { try Self.router.respond(to: Request(method: "POST", path: "/closed"), context: context) }
        #expect((try? Self.router.admit(Request(method: "GET", path: "/both"), context: &context)) == Router.defaultBodyLimit)
    }
}

/// The context's typed slots: each key holds its own value, a second store replaces the first,
/// nil empties the slot, and a key with the same value type reads nothing another key stored.
@Suite struct RequestContextTests {
    enum Name: ContextKey { typealias Value = String }
    enum Other: ContextKey { typealias Value = String }
    enum Count: ContextKey { typealias Value = Int }

    @Test func slotsAreKeptApartReplacedAndEmptied() {
        var context = RequestContext(requestID: "req_1")
        #expect(context[Name.self] == nil)
        context[Name.self] = "first"
        context[Count.self] = 3
        #expect(context[Name.self] == "first")
        #expect(context[Other.self] == nil)
        #expect(context[Count.self] == 3)
        context[Name.self] = "second"
        context[Other.self] = "other"
        #expect(context[Name.self] == "second")
        #expect(context[Other.self] == "other")
        context[Name.self] = nil
        #expect(context[Name.self] == nil)
        #expect(context[Other.self] == "other")
        #expect(context[Count.self] == 3)
        var copy = context
        copy[Count.self] = 4
        #expect(context[Count.self] == 3)
        #expect(copy[Count.self] == 4)
    }
}

import Dispatch
import Foundation
import HostedHTTP
import HostedObservability
import HostedTestSupport
import Testing

/// What a hostile client can and cannot make the real server do: requests that could be framed
/// two ways, bodies nobody asked for, more bodies than memory, more connections than its share.
@Suite struct HTTPHardeningLiveTests {
    struct Refused: Error {}

    static func makeRouter() -> Router {
        var routes = Router.Builder()
        routes.add("GET", "/hello") { _, _ in Response(status: 200, body: Array("hello".utf8)) }
        routes.add("POST", "/echo", bodyLimit: 4 << 20) { request, _ in Response(status: 200, body: Array("\(request.body.count)".utf8)) }
        routes.group(RequireRightBearer()) { routes in
            routes.add("POST", "/private", bodyLimit: 8 << 20) { request, _ in Response(status: 200, body: Array("\(request.body.count)".utf8)) }
        }
        routes.group(MarksWhereItDecided()) { routes in
            routes.add("GET", "/decided", bodyLimit: 1 << 10) { _, context in Response(status: 200, body: Array((context[DecidedIn.self] ?? "nowhere").utf8)) }
            routes.add("POST", "/decided", bodyLimit: 1 << 10) { _, context in Response(status: 200, body: Array((context[DecidedIn.self] ?? "nowhere").utf8)) }
        }
        return routes.build()
    }

    @Test func whatTheHeaderPhaseFoundReachesTheHandler() throws {
        try withServer { server in
            let connection = try RawHTTPConnection(port: server.port)
            // With a body, the header phase decides, and its context is the handler's.
            #expect(try connection.request("POST", "/decided", body: Array("hello".utf8)).text == "header phase")
            // Without one there is no header phase: the middleware decides before the handler.
            #expect(try connection.request("GET", "/decided").text == "handle")
            // Nothing carries over to the next request on the connection.
            #expect(try connection.request("GET", "/decided").text == "handle")
        }
    }

    func withServer(_ configure: (inout HTTPServer.Configuration) -> Void = { _ in },
                    _ body: (HTTPServer) throws -> Void) throws {
        try withLiveServer(Self.makeRouter(), configure, body)
    }

    /// Sends `bytes` on a fresh connection; the one response, and whether the server then closed.
    func exchange(_ server: HTTPServer, _ bytes: [UInt8]) throws -> (RawHTTPConnection.Response, closed: Bool) {
        try RawHTTPConnection.exchange(with: server, bytes)
    }

    @Test(arguments: [
        ("Content-Length with chunked", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
        ("two different Content-Length", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"),
        ("space before the colon", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length : 5\r\n\r\nhello"),
        ("HTTP/1.1 without Host", "GET /hello HTTP/1.1\r\n\r\n"),
        ("two Host headers", "GET /hello HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
        ("a NUL inside a header value", "GET /hello HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer right\0junk\r\nAccept: */*\r\n\r\n"),
        ("a NUL inside the last header", "GET /hello HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer right\0junk\r\n\r\n"),
        ("a transfer coding other than chunked", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
    ])
    func ambiguousFramingIs400AndTheConnectionCloses(_ name: String, _ head: String) throws {
        try withServer { server in
            // A second request rides behind the first: it must never be answered.
            let (response, closed) = try exchange(server, Array((head + "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n").utf8))
            #expect(response.status == 400, "\(name)")
            #expect(response.headers["content-type"] == "application/problem+json")
            #expect(response.text.contains("malformed_request"))
            #expect(closed, "\(name): the connection stays open")
        }
    }

    @Test func moreThanAHundredHeaderFieldsAreRefused() throws {
        try withServer { server in
            let many = (0..<101).map { "X-Filler-\($0): y\r\n" }.joined()
            let (response, closed) = try exchange(server, Array("GET /hello HTTP/1.1\r\nHost: x\r\n\(many)\r\n".utf8))
            #expect(response.status == 400)
            #expect(closed)
        }
    }

    @Test(arguments: ["/hello?name=%FF%FE", "/hello?name=%", "/hello?name=a%00b", "/hello?%00=1"])
    func aQueryThatDoesNotDecodeIs400(_ target: String) throws {
        try withServer { server in
            let (response, _) = try exchange(server, Array("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            #expect(response.status == 400, "\(target)")
            #expect(response.headers["content-type"] == "application/problem+json")
        }
    }

    @Test func aNULInAPathSegmentNamesNoResource() throws {
        try withServer { server in
            let connection = try RawHTTPConnection(port: server.port)
            #expect(try connection.request("GET", "/hello%00").status == 404)
        }
    }

    @Test func cleanRequestsStillKeepAlive() throws {
        try withServer { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 5\r\nX-Trailing:  spaced  \r\n\r\nhello")
            #expect(try connection.readResponse().text == "5")
            #expect(try connection.request("GET", "/hello").status == 200)
        }
    }

    @Test func aBodyForAnUnknownRouteIsRefusedBeforeItIsSent() throws {
        try withServer { server in
            let (response, closed) = try exchange(server, Array("POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 8000000\r\n\r\n".utf8))
            #expect(response.status == 404)
            #expect(closed)
        }
    }

    @Test func aBodyWithoutCredentialsIsRefusedBeforeItIsSent() throws {
        try withServer { server in
            // Only the headers go out: the answer must come without a byte of the 8 MB.
            let (response, closed) = try exchange(server, Array("POST /private HTTP/1.1\r\nHost: x\r\nContent-Length: 8000000\r\n\r\n".utf8))
            #expect(response.status == 401)
            #expect(closed)
            let chunked = try exchange(server, Array("POST /private HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8))
            #expect(chunked.0.status == 401)
            let admitted = try RawHTTPConnection(port: server.port)
            #expect(try admitted.request("POST", "/private", headers: ["Authorization": "Bearer right"], body: Array("abc".utf8)).text == "3")
        }
    }

    @Test func bodiesPastTheServersBudgetAre503AndTheBudgetComesBack() throws {
        // One client may take the whole budget here (its share is another test's).
        try withServer({ $0.maximumBufferedBytes = 3 << 20; $0.maximumBufferedBytesPerClient = 3 << 20 }) { server in
            // One 2 MiB upload holds its bytes while its body is still coming…
            let holding = try RawHTTPConnection(port: server.port)
            try holding.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(2 << 20)\r\n\r\n")
            try holding.send([UInt8](repeating: 0x41, count: 1 << 20))
            // A worker reserves the upload's bytes when it reads its headers, which a loaded
            // machine (TSan, the whole suite in parallel) may do after the next request arrives.
            eventually { server.bodyBudget.inUse >= 2 << 20 }
            #expect(server.bodyBudget.inUse == 2 << 20)
            // …so a second one does not fit.
            let (refused, _) = try exchange(server, Array("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(2 << 20)\r\n\r\n".utf8))
            #expect(refused.status == 503)
            #expect(refused.headers["retry-after"] != nil)
            #expect(refused.text.contains("server_busy"))
            try holding.send([UInt8](repeating: 0x41, count: 1 << 20))
            #expect(try holding.readResponse().text == String(2 << 20))
            // Answered: its bytes are free again, and the next upload fits.
            #expect(server.bodyBudget.inUse == 0)
            let next = try RawHTTPConnection(port: server.port)
            #expect(try next.request("POST", "/echo", body: [UInt8](repeating: 0x42, count: 2 << 20)).text == String(2 << 20))
        }
    }

    @Test func chunkedBodiesCountAgainstTheBudgetToo() throws {
        try withServer({ $0.maximumBufferedBytes = 1 << 20; $0.maximumBufferedBytesPerClient = 1 << 20 }) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = [UInt8](repeating: 0x42, count: 256 << 10)
            for _ in 0..<6 { try? connection.send(Array(String(chunk.count, radix: 16).utf8) + [13, 10] + chunk + [13, 10]) }
            try? connection.send("0\r\n\r\n")
            #expect(try connection.readResponse().status == 503)
            #expect(server.bodyBudget.inUse == 0)
        }
    }

    @Test func oneAddressGetsOnlyItsShareOfConnections() throws {
        try withServer({ $0.connectionsPerAddress = 4 }) { server in
            var held = try (0..<4).map { _ in try RawHTTPConnection(port: server.port) }
            for connection in held { #expect(try connection.request("GET", "/hello").status == 200) }
            let extra = try RawHTTPConnection(port: server.port, timeoutSeconds: 5)
            try? extra.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(throws: (any Error).self) { try extra.readResponse() }
            // A share given back is a share to use again, once a worker has seen the close (on a
            // loaded machine that can take a while; until then a new connection is turned away).
            held.removeFirst()
            var status: Int?
            try eventually(pause: 0.01) {
                status = try? RawHTTPConnection(port: server.port, timeoutSeconds: 5).request("GET", "/hello").status
                return status != nil
            }
            #expect(status == 200)
        }
    }

    @Test func aBodyThatTricklesPastTheRequestTimeoutIsCut() throws {
        try withServer({ $0.requestTimeoutSeconds = 1 }) { server in
            let connection = try RawHTTPConnection(port: server.port, timeoutSeconds: 10)
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
            let started = Date()
            var cut = false
            for _ in 0..<20 where !cut {  // one byte every 0.3 s: never idle, never done
                do { try connection.send("a") } catch { cut = true }
                usleep(300_000)
                if !cut, connection.isClosedByPeerWithoutBlocking() { cut = true }
            }
            #expect(cut)
            #expect(Date().timeIntervalSince(started) < 5)
        }
    }

    @Test func anIdleConnectionIsClosedAfterTheConnectionTimeout() throws {
        try withServer({ $0.connectionTimeoutSeconds = 1 }) { server in
            let connection = try RawHTTPConnection(port: server.port, timeoutSeconds: 10)
            try connection.send("GET /hel")  // half a request line, then nothing
            let started = Date()
            #expect(connection.isClosedByPeer())
            #expect(Date().timeIntervalSince(started) < 5)
        }
    }
}

/// Lets through only `Authorization: Bearer right`, in the header phase and before the handler.
struct RequireRightBearer: Middleware {
    func admit(_ request: Request, context: inout RequestContext) throws {
        guard request.headers["Authorization"] == "Bearer right" else { throw Problem.unauthorized("No.") }
    }

    func handle(_ request: Request, context: RequestContext, next: (Request, RequestContext) throws -> Reply) throws -> Reply {
        var context = context
        try admit(request, context: &context)
        return try next(request, context)
    }
}

/// Records in the context which phase made its decision: the header phase (a request with a
/// body) or `handle` (one without), which decides only when the header phase has not.
struct MarksWhereItDecided: Middleware {
    func admit(_ request: Request, context: inout RequestContext) throws {
        context[DecidedIn.self] = "header phase"
    }

    func handle(_ request: Request, context: RequestContext, next: (Request, RequestContext) throws -> Reply) throws -> Reply {
        var context = context
        if context[DecidedIn.self] == nil { context[DecidedIn.self] = "handle" }
        return try next(request, context)
    }
}

enum DecidedIn: ContextKey {
    typealias Value = String
}

/// A log that drops everything (these tests read responses, not logs).
struct SilentServerLog: ServerLog {
    func access(_ entry: AccessLogEntry) {}
    func error(_ message: String, requestID: String?) {}
}

import Dispatch
import Foundation
import HostedHTTP
import HostedTestSupport
import Testing

/// Uploads that hold the body budget, through the real server: many from one address or one
/// session, and bodies that barely move. None of them may leave another client's upload refused.
@Suite struct BodyShareLiveTests {
    static func makeRouter() -> Router {
        var routes = Router.Builder()
        routes.add("GET", "/hello") { _, _ in Response(status: 200, body: Array("hello".utf8)) }
        routes.add("POST", "/echo", bodyLimit: 4 << 20) { request, _ in Response(status: 200, body: Array("\(request.body.count)".utf8)) }
        routes.group(NamesItsHolder()) { routes in
            routes.add("POST", "/upload", bodyLimit: 4 << 20) { request, _ in Response(status: 200, body: Array("\(request.body.count)".utf8)) }
        }
        return routes.build()
    }

    func withServer(_ configure: (inout HTTPServer.Configuration) -> Void = { _ in },
                    _ body: (HTTPServer) throws -> Void) throws {
        try withLiveServer(Self.makeRouter(), configure, body)
    }

    /// Starts an upload of `declared` bytes and sends only its head: the declared size is held
    /// from then on (or refused at once).
    func startUpload(_ server: HTTPServer, from address: String, holder: String? = nil, declared: Int) throws -> RawHTTPConnection {
        let connection = try RawHTTPConnection(port: server.port, from: address, timeoutSeconds: 3)
        let path = holder == nil ? "/echo" : "/upload"
        let named = holder.map { "X-Holder: \($0)\r\n" } ?? ""
        try connection.send("POST \(path) HTTP/1.1\r\nHost: x\r\n\(named)Content-Length: \(declared)\r\n\r\n")
        return connection
    }

    @Test func oneAddressHoldsOnlyItsShareOfTheBodyBudget() throws {
        try withServer({ $0.maximumBufferedBytes = 4 << 20; $0.minimumBodyBytesPerSecond = 0 }) { server in
            // Eight slow uploads of 512 KiB from one address would hold the whole 4 MiB…
            let slow = try (0..<8).map { _ in try startUpload(server, from: "127.0.1.1", declared: 512 << 10) }
            eventually(within: 5) { server.bodyBudget.inUse >= 1 << 20 }
            usleep(200_000)
            // …but one address holds at most a quarter of it: another client's upload still fits.
            let other = try RawHTTPConnection(port: server.port, timeoutSeconds: 5)
            let response = try other.request("POST", "/echo", body: [UInt8](repeating: 0x42, count: 1 << 20))
            #expect(response.status == 200)
            #expect(response.text == String(1 << 20))
            // The uploads past the address's share were refused, as its own problem.
            let refused = slow.compactMap { try? $0.readResponse() }
            #expect(refused.count == 6)
            #expect(refused.allSatisfy { $0.status == 429 && $0.text.contains("too_many_uploads") && $0.headers["retry-after"] != nil })
            #expect(server.bodyBudget.inUse == 1 << 20)
        }
    }

    @Test func oneHolderHoldsOnlyItsShareFromAnyAddress() throws {
        try withServer({ $0.maximumBufferedBytes = 4 << 20; $0.minimumBodyBytesPerSecond = 0 }) { server in
            // One session uploading from eight addresses: each address is within its share, the session is not.
            let slow = try (1...8).map { try startUpload(server, from: "127.0.1.\($0)", holder: "greedy", declared: 512 << 10) }
            eventually(within: 5) { server.bodyBudget.inUse >= 1 << 20 }
            usleep(200_000)
            let other = try RawHTTPConnection(port: server.port, timeoutSeconds: 5)
            let response = try other.request("POST", "/upload", headers: ["X-Holder": "patient"], body: [UInt8](repeating: 0x42, count: 1 << 20))
            #expect(response.status == 200)
            #expect(response.text == String(1 << 20))
            let refused = slow.compactMap { try? $0.readResponse() }
            #expect(refused.count == 6)
            #expect(refused.allSatisfy { $0.status == 429 })
        }
    }

    @Test func aBodyBelowTheMinimumRateIsCutBeforeTheRequestTimeout() throws {
        try withServer({ $0.minimumBodyBytesPerSecond = 1000; $0.bodyRateGraceSeconds = 1 }) { server in
            let connection = try RawHTTPConnection(port: server.port, timeoutSeconds: 10)
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n")
            eventually(within: 5) { server.bodyBudget.inUse > 0 }
            // 50 bytes a second: never idle, far from done, and far below 1000 bytes a second.
            let cut = connection.secondsUntilCut(line: "0123456789", every: 0.2, within: 8)
            #expect(cut != nil, "a body at 50 bytes/s was still open after 8 s")
            #expect((cut ?? 0) >= 0.9)
            // Its share of the budget is given back.
            #expect(eventually(within: 5) { server.bodyBudget.inUse == 0 })
            // A body at a normal pace is untouched.
            let prompt = try RawHTTPConnection(port: server.port)
            #expect(try prompt.request("POST", "/echo", body: [UInt8](repeating: 0x43, count: 100_000)).text == "100000")
        }
    }
}

/// Names the body's holder after `X-Holder` (standing in for a session the admission checked).
struct NamesItsHolder: Middleware {
    func admit(_ request: Request, context: inout RequestContext) throws {
        guard let holder = request.headers["X-Holder"] else { throw Problem.unauthorized("No holder.") }
        context[BodyHolder.self] = holder
    }

    func handle(_ request: Request, context: RequestContext, next: (Request, RequestContext) throws -> Reply) throws -> Reply {
        try next(request, context)
    }
}

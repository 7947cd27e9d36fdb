import Dispatch
import Foundation
import HostedHTTP
import HostedTestSupport
import Testing

/// Clients that send their request heads slowly, from a few addresses, through the real server:
/// a head trickled line by line, and more connections than the limit that never finish theirs.
/// None of them may keep anyone else out.
@Suite struct SlowClientLiveTests {
    static func makeRouter() -> Router {
        var routes = Router.Builder()
        routes.add("GET", "/hello") { _, _ in Response(status: 200, body: Array("hello".utf8)) }
        return routes.build()
    }

    func withServer(_ configure: (inout HTTPServer.Configuration) -> Void = { _ in },
                    _ body: (HTTPServer) throws -> Void) throws {
        try withLiveServer(Self.makeRouter(), configure, body)
    }

    @Test func aHeadTrickledLineByLineIsCutAtTheHeaderDeadline() throws {
        // The idle timeout is far away and every line resets it: only the head's deadline can end this.
        try withServer({ $0.headerTimeoutSeconds = 2; $0.connectionTimeoutSeconds = 30 }) { server in
            let connection = try RawHTTPConnection(port: server.port, timeoutSeconds: 10)
            try connection.send("GET /hello HTTP/1.1\r\nHost: x\r\n")
            let cut = connection.secondsUntilCut(line: "X-Slow: 1\r\n", every: 0.5, within: 8)
            #expect(cut != nil, "a header line every 0.5 s kept the connection open for 8 s")
            #expect((cut ?? 0) >= 1.5)
            // A head sent at once is answered, and its connection kept alive past the deadline.
            let prompt = try RawHTTPConnection(port: server.port)
            #expect(try prompt.request("GET", "/hello").status == 200)
            usleep(2_500_000)
            #expect(try prompt.request("GET", "/hello").status == 200)
        }
    }

    @Test func slowHeadsFromSeveralAddressesDoNotKeepOthersOut() throws {
        // The deadline is far away: here only making room can let the newcomer in.
        try withServer({ $0.connectionLimit = 40; $0.headerTimeoutSeconds = 60; $0.connectionTimeoutSeconds = 60 }) { server in
            var slow: [RawHTTPConnection] = []
            for address in 1...9 {
                for _ in 0..<10 {
                    let connection = try RawHTTPConnection(port: server.port, from: "127.0.1.\(address)", timeoutSeconds: 2)
                    try? connection.send("GET /hello HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n")
                    slow.append(connection)
                }
            }
            let started = Date()
            let response = try? RawHTTPConnection(port: server.port, timeoutSeconds: 3).request("GET", "/hello")
            #expect(response?.status == 200, "90 slow heads from 9 addresses kept a new client out")
            #expect(Date().timeIntervalSince(started) < 2)
            withExtendedLifetime(slow) {}
        }
    }
}

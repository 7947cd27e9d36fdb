import Dispatch
import Foundation
import HostedHTTP
import HostedObservability
import HostedTestSupport
import Testing

/// Through the real libmicrohttpd server on an ephemeral loopback port.
@Suite struct HTTPServerLiveTests {
    /// Collects log lines so tests can read what the server wrote.
    final class MemoryLog: ServerLog, @unchecked Sendable {  // arrays touched only under `lock`
        private let lock = NSLock()
        private var accessEntries: [AccessLogEntry] = []
        private var errorLines: [String] = []
        func access(_ entry: AccessLogEntry) { lock.lock(); accessEntries.append(entry); lock.unlock() }
        func error(_ message: String, requestID: String?) { lock.lock(); errorLines.append(message); lock.unlock() }
        var entries: [AccessLogEntry] { lock.lock(); defer { lock.unlock() }; return accessEntries }
        var errors: [String] { lock.lock(); defer { lock.unlock() }; return errorLines }
    }

    struct Boom: Error, CustomStringConvertible { var description: String { "boom: internal detail 42" } }

    static func makeRouter() -> Router {
        var routes = Router.Builder()
        routes.add("GET", "/hello") { request, _ in
            Response(status: 200, headers: HTTPHeaders([("Content-Type", "text/plain")]),
                     body: Array("hello \(request.queryValue("name") ?? "")".utf8))
        }
        routes.add("POST", "/echo") { request, _ in Response(status: 200, body: request.body) }
        routes.add("GET", "/peer") { request, _ in Response(status: 200, body: Array(request.peerAddress.utf8)) }
        routes.add("GET", "/boom") { _, _ in throw Boom() }
        return routes.build()
    }

    func withServer(_ body: (HTTPServer, MemoryLog) throws -> Void) throws {
        let log = MemoryLog()
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 2, connectionTimeoutSeconds: 60,
                                                     connectionLimit: 1000, connectionsPerAddress: 0),
                                responder: Self.makeRouter(), log: log)
        try server.start()
        defer { server.shutdown(gracePeriod: 1) }
        try body(server, log)
    }

    /// Graceful shutdown quiesces libmicrohttpd while its workers are busy. With epoll worker
    /// loops, libmicrohttpd 0.9.75 could abort the whole process here (MHD_PANIC "Failed to remove
    /// listen FD from epoll set": the quiesce and a worker race to remove the listening socket);
    /// the server uses poll(2) workers, so 300 shutdowns under connection churn all return.
    @Test func shuttingDownUnderLoadNeverAbortsTheProcess() throws {
        for _ in 0..<300 {
            let log = MemoryLog()
            let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 16, connectionTimeoutSeconds: 5,
                                                         connectionLimit: 16, connectionsPerAddress: 0),
                                    responder: Self.makeRouter(), log: log)
            try server.start()
            let port = server.port
            let stop = Counter()
            let group = DispatchGroup()
            for _ in 0..<32 {
                DispatchQueue.global().async(group: group) {
                    while stop.value == 0 {
                        guard let connection = try? RawHTTPConnection(port: port, timeoutSeconds: 2) else { continue }
                        _ = try? connection.request("GET", "/hello")
                    }
                }
            }
            // Shut down only once the churn has reached the workers (an answer is logged): on a
            // loaded machine the clients may not have connected yet after any fixed pause.
            #expect(eventually { !log.entries.isEmpty }, "no request was answered before the shutdown")
            server.shutdown(gracePeriod: 0.05)
            stop.increment()
            group.wait()
        }
    }

    /// Once a server has started, writing to a socket whose peer is gone is EPIPE for the
    /// writer, not SIGPIPE for the process (which would kill `serve` with no log line).
    @Test func aWriteToAClosedPeerIsAnErrorNotASignal() throws {
        try withServer { _, _ in
            var pair: [Int32] = [0, 0]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
            close(pair[1])
            let byte: [UInt8] = [0x41]
            let written = byte.withUnsafeBytes { write(pair[0], $0.baseAddress, 1) }
            #expect(written == -1)
            #expect(errno == EPIPE)
            close(pair[0])
        }
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        try withServer { server, _ in
            let connection = try RawHTTPConnection(port: server.port)
            for name in ["a", "b", "c"] {
                let response = try connection.request("GET", "/hello?name=\(name)")
                #expect(response.status == 200)
                #expect(response.text == "hello \(name)")
                #expect(response.headers["connection"]?.lowercased() != "close")
            }
        }
    }

    @Test func decodesQueryAndReportsPeer() throws {
        try withServer { server, _ in
            let connection = try RawHTTPConnection(port: server.port)
            #expect(try connection.request("GET", "/hello?name=J%C3%BCrgen+M").text == "hello Jürgen M")
            #expect(try connection.request("GET", "/peer").text == "127.0.0.1")
        }
    }

    @Test func bodyOverTheLimitIs413AndTheServerKeepsServing() throws {
        try withServer { server, log in
            let connection = try RawHTTPConnection(port: server.port)
            let tenMegabytes = [UInt8](repeating: 0x41, count: 10 << 20)
            // The server answers as soon as it sees the declared length; it may close before
            // reading the rest, so the send can fail part-way — the answer is what matters.
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(tenMegabytes.count)\r\n\r\n")
            try? connection.send(tenMegabytes)
            let response = try connection.readResponse()
            #expect(response.status == 413)
            #expect(response.headers["content-type"] == "application/problem+json")

            let fresh = try RawHTTPConnection(port: server.port)
            #expect(try fresh.request("POST", "/echo", body: Array("ok".utf8)).text == "ok")
            #expect(log.entries.contains { $0.status == 413 })
        }
    }

    @Test func chunkedBodyOverTheLimitIs413() throws {
        try withServer { server, _ in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            let chunk = [UInt8](repeating: 0x42, count: 256 << 10)
            var answered: RawHTTPConnection.Response?
            for _ in 0..<8 {  // 2 MiB in 256 KiB chunks; the limit is 1 MiB
                do {
                    try connection.send(Array(String(chunk.count, radix: 16).utf8) + [13, 10] + chunk + [13, 10])
                } catch {
                    break
                }
            }
            try? connection.send("0\r\n\r\n")
            answered = try connection.readResponse()
            #expect(answered?.status == 413)
            #expect(try RawHTTPConnection(port: server.port).request("GET", "/hello").status == 200)
        }
    }

    @Test func threeHundredConcurrentConnections() throws {
        try withServer { server, _ in
            let connections = try (0..<300).map { _ in try RawHTTPConnection(port: server.port) }
            // Every connection is open before any is answered.
            for (index, connection) in connections.enumerated() {
                try connection.send("GET /hello?name=\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
            }
            var statuses: [Int] = []
            for (index, connection) in connections.enumerated() {
                let response = try connection.readResponse()
                statuses.append(response.status)
                #expect(response.text == "hello \(index)")
            }
            #expect(statuses.count == 300)
            #expect(statuses.allSatisfy { $0 == 200 })
        }
    }

    @Test func handlerErrorIsAGeneric500AndTheWorkerSurvives() throws {
        try withServer { server, log in
            let connection = try RawHTTPConnection(port: server.port)
            for _ in 0..<5 {  // more failures than worker threads
                let response = try connection.request("GET", "/boom")
                #expect(response.status == 500)
                #expect(response.headers["content-type"] == "application/problem+json")
                #expect(!response.text.contains("internal detail"))
            }
            #expect(try connection.request("GET", "/hello").status == 200)
            #expect(log.errors.contains { $0.contains("internal detail 42") })
        }
    }

    @Test func requestIDIsEchoedOrGeneratedAndLogged() throws {
        try withServer { server, log in
            let connection = try RawHTTPConnection(port: server.port)
            let kept = try connection.request("GET", "/hello?secret=1", headers: ["X-Request-Id": "req-abc.123"])
            #expect(kept.headers["x-request-id"] == "req-abc.123")
            let replaced = try connection.request("GET", "/hello", headers: ["X-Request-Id": "bad id <script>"])
            let generated = try #require(replaced.headers["x-request-id"])
            #expect(generated != "bad id <script>")
            #expect(generated.count >= 16)

            let entry = try #require(log.entries.first { $0.requestID == "req-abc.123" })
            #expect(entry.method == "GET")
            #expect(entry.path == "/hello")  // the query is never logged
            #expect(entry.status == 200)
            #expect(entry.bytes == "hello ".utf8.count)
            #expect(entry.durationMilliseconds >= 0)
        }
    }

    @Test func shutdownLetsInFlightRequestsFinish() throws {
        let log = MemoryLog()
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 2), responder: Self.makeRouter(), log: log)
        try server.start()
        // Three requests whose bodies are only half sent when shutdown begins.
        let connections = try (0..<3).map { _ in try RawHTTPConnection(port: server.port) }
        for connection in connections {
            try connection.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello")
        }
        eventually { server.currentInFlight >= 3 }
        try #require(server.currentInFlight == 3)
        let stopped = DispatchSemaphore(value: 0)
        let quiesced = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.shutdown(gracePeriod: 10, beforeDraining: { quiesced.signal() })
            stopped.signal()
        }
        #expect(quiesced.wait(timeout: .now() + 10) == .success)
        usleep(100_000)
        #expect(stopped.wait(timeout: .now()) == .timedOut, "shutdown must wait for requests in flight")
        do {
            let late = try RawHTTPConnection(port: server.port, timeoutSeconds: 1).request("GET", "/hello")
            Issue.record("a connection made after shutdown began was answered: \(late.status) \(late.text)")
        } catch {}
        for connection in connections {
            try connection.send("world")
            let response = try connection.readResponse()
            #expect(response.status == 200)
            #expect(response.text == "helloworld")
        }
        #expect(stopped.wait(timeout: .now() + 5) == .success)
    }

    @Test func shutdownAnswersDeferredResponsesStillWaitingAfterTheGracePeriod() throws {
        /// Keeps the completion of a deferred response that is never answered by its work.
        final class Pending: @unchecked Sendable {  // `completions` only under `lock`
            private let lock = NSLock()
            private var completions: [DeferredResponse.Completion] = []
            func add(_ completion: @escaping DeferredResponse.Completion) { lock.lock(); completions.append(completion); lock.unlock() }
            var all: [DeferredResponse.Completion] { lock.lock(); defer { lock.unlock() }; return completions }
        }
        let pending = Pending()
        var routes = Router.Builder()
        routes.addDeferrable("GET", "/slow") { _, _ in .later { pending.add($0) } }
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 2), responder: routes.build(), log: MemoryLog())
        try server.start()
        let connection = try RawHTTPConnection(port: server.port)
        try connection.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        try #require(eventually { !pending.all.isEmpty })
        server.shutdown(gracePeriod: 0.2)
        let response = try connection.readResponse()
        #expect(response.status == 503)
        #expect(response.text.contains("shutting_down"))
        // The work finishing after the server stopped must not touch the freed connection.
        for completion in pending.all { completion(Response(status: 200)) }
    }

    /// Long-polls keep arriving on open keep-alive connections while the server stops, and their
    /// work finishes a moment later. libmicrohttpd aborts the process when it is stopped with a
    /// connection still suspended, so once shutdown has answered the waiting ones, a new one is
    /// refused at once (503) instead of being suspended. Without that this aborts in the first
    /// rounds; with it every round ends, and every answer is a 200 or the 503.
    @Test func longPollsArrivingDuringShutdownNeverAbortTheProcess() throws {
        for _ in 0..<4 {
            var routes = Router.Builder()
            routes.addDeferrable("GET", "/wait") { _, _ in
                .later { complete in
                    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(30)) { complete(Response(status: 200)) }
                }
            }
            let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 4, connectionTimeoutSeconds: 5),
                                    responder: routes.build(), log: MemoryLog())
            try server.start()
            let port = server.port
            let stop = Counter()
            let answered = Counter()
            let unexpected = Counter()
            let group = DispatchGroup()
            for _ in 0..<8 {
                DispatchQueue.global().async(group: group) {
                    guard let connection = try? RawHTTPConnection(port: port, timeoutSeconds: 3) else { return }
                    while stop.value == 0 {
                        guard let response = try? connection.request("GET", "/wait") else { return }
                        answered.increment()
                        if response.status != 200 && response.status != 503 { unexpected.increment() }
                    }
                }
            }
            #expect(eventually { answered.value >= 8 }, "the long-polls were not answered before the shutdown")
            server.shutdown(gracePeriod: 0.01)
            stop.increment()
            group.wait()
            #expect(unexpected.value == 0)
        }
    }

    /// The peer's address reaches the handler as text, for IPv4 peers with one-, two- and
    /// three-digit parts and zeros (all of 127.0.0.0/8 is this machine's loopback).
    @Test(arguments: ["127.0.0.1", "127.10.200.3", "127.255.0.99", "127.1.20.255"])
    func thePeerAddressIsTheClientsAddress(_ source: String) throws {
        var routes = Router.Builder()
        routes.add("GET", "/peer") { request, _ in Response(status: 200, body: Array(request.peerAddress.utf8)) }
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 1), responder: routes.build(), log: MemoryLog())
        try server.start()
        defer { server.shutdown(gracePeriod: 0) }
        let response = try RawHTTPConnection(port: server.port, from: source).request("GET", "/peer")
        #expect(response.status == 200)
        #expect(response.text == source)
    }

    @Test func refusesAPortInUse() throws {
        try withServer { server, _ in
            let second = HTTPServer(configuration: .init(host: "127.0.0.1", port: server.port), responder: Self.makeRouter())
            #expect(throws: HTTPServer.StartError.self) { try second.start() }
        }
    }
}

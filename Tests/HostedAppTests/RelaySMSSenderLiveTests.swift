import Foundation
@testable import HostedApp
import HostedCore
import HostedCrypto
import HostedHTTP
import HostedObservability
import HostedTestSupport
import Testing

/// The production SMS sender against a relay served on loopback by our own HTTP server.
@Suite struct RelaySMSSenderLiveTests {
    /// What the fake relay received.
    final class Received: @unchecked Sendable {  // `requests` only under `lock`
        private let lock = NSLock()
        private var requests: [Request] = []
        func add(_ request: Request) { lock.lock(); requests.append(request); lock.unlock() }
        var all: [Request] { lock.lock(); defer { lock.unlock() }; return requests }
    }

    func withRelay(status: Int, _ body: (URL, Received) throws -> Void) throws {
        let received = Received()
        var routes = Router.Builder()
        routes.add("POST", "/sms") { request, _ in
            received.add(request)
            return Response(status: status)
        }
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 1), responder: routes.build(),
                                log: SilentLog())
        try server.start()
        defer { server.shutdown(gracePeriod: 1) }
        try body(URL(string: "http://127.0.0.1:\(server.port)/sms")!, received)
    }

    @Test func postsSignedJSON() throws {
        let clock = ManualClock()
        try withRelay(status: 202) { url, received in
            try RelaySMSSender(url: url, secret: "relay-secret-0123456789", clock: clock).send(to: "+919876543210", body: "123456 is your code")
            let request = try #require(received.all.first)
            #expect(request.headers["Content-Type"] == "application/json")
            let object = try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: String]
            #expect(object == ["to": "+919876543210", "body": "123456 is your code"])
            let timestamp = String(Int(clock.now().timeIntervalSince1970))
            let expected = Digest.hex(Digest.hmacSHA256(key: Array("relay-secret-0123456789".utf8),
                                                        message: Array("\(timestamp).".utf8) + request.body))
            #expect(request.headers["X-Hosted-Signature"] == "t=\(timestamp),v1=\(expected)")
        }
    }

    @Test func relayErrorsAndUnreachableRelaysThrow() throws {
        try withRelay(status: 500) { url, _ in
            #expect(throws: SMSFailure.self) {
                try RelaySMSSender(url: url, secret: "relay-secret-0123456789", clock: SystemWallClock()).send(to: "+1", body: "x")
            }
        }
        #expect(throws: SMSFailure.self) {
            try RelaySMSSender(url: URL(string: "http://127.0.0.1:1/sms")!, secret: "relay-secret-0123456789",
                               clock: SystemWallClock()).send(to: "+1", body: "x")
        }
    }
}

struct SilentLog: ServerLog {
    func access(_ entry: AccessLogEntry) {}
    func error(_ message: String, requestID: String?) {}
}

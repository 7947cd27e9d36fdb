import Foundation
import HostedCore
import HostedHTTP
import HostedObservability
import HostedOutbound
import HostedTestSupport
import Testing

/// The webhook client against a receiver on 127.0.0.1: it connects only to the address it was
/// given, never follows a redirect, keeps to its deadline and reads `Retry-After`. Every
/// request stays on loopback.
@Suite struct PinnedHTTPClientTests {
    /// Requests the receiver saw, by path.
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var paths: [String] = []
        func add(_ path: String) { lock.lock(); paths.append(path); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return paths }
    }

    func withReceiver(_ body: (Int, Seen) throws -> Void) throws {
        let seen = Seen()
        var routes = Router.Builder()
        routes.add("POST", "/ok") { request, _ in
            seen.add("/ok " + (request.headers["webhook-id"] ?? "") + " " + String(decoding: request.body, as: UTF8.self))
            return Response(status: 204)
        }
        routes.add("POST", "/moved") { _, _ in
            seen.add("/moved")
            var response = Response(status: 301)
            response.headers.add("Location", "/elsewhere")
            return response
        }
        routes.add("POST", "/elsewhere") { _, _ in seen.add("/elsewhere"); return Response(status: 200) }
        routes.add("GET", "/elsewhere") { _, _ in seen.add("/elsewhere"); return Response(status: 200) }
        routes.add("POST", "/busy") { _, _ in
            var response = Response(status: 429)
            response.headers.add("Retry-After", "7")
            return response
        }
        routes.add("POST", "/slow") { _, _ in
            Thread.sleep(forTimeInterval: 3)
            return Response(status: 200)
        }
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threads: 4), responder: routes.build(), log: Quiet())
        try server.start()
        defer { server.shutdown(gracePeriod: 1) }
        try body(Int(server.port), seen)
    }

    struct Quiet: ServerLog {
        func access(_ entry: AccessLogEntry) {}
        func error(_ message: String, requestID: String?) {}
    }

    static let loopback: [UInt8] = [127, 0, 0, 1]

    func target(_ port: Int, _ path: String, host: String = "127.0.0.1") throws -> WebhookURLPolicy.Target {
        try WebhookURLPolicy(devMode: true).validate("http://\(host):\(port)\(path)")
    }

    @Test func postsTheBodyAndHeadersToThePinnedAddress() throws {
        try withReceiver { port, seen in
            let client = PinnedHTTPClient(timeout: 5, devMode: true)
            // The name is never looked up: it is pinned to the checked address.
            let outcome = client.post(try target(port, "/ok", host: "hooks.invalid"), to: Self.loopback,
                                      headers: [("webhook-id", "evt_1")], body: Array("{\"a\":1}".utf8))
            #expect(outcome == .init(status: 204))
            #expect(seen.all == ["/ok evt_1 {\"a\":1}"])
        }
    }

    @Test func refusesToConnectAnywhereButTheCheckedAddress() throws {
        try withReceiver { port, seen in
            let client = PinnedHTTPClient(timeout: 5, devMode: true)
            // The URL names 127.0.0.1 (where the receiver is) but the check approved 127.0.0.2:
            // curl is pinned there (nothing listens), and the socket callback would refuse any
            // other address, so the receiver hears nothing.
            let outcome = client.post(try target(port, "/ok"), to: [127, 0, 0, 2], headers: [], body: [])
            #expect(outcome.status == nil)
            #expect(["address not allowed", "connection failed"].contains(outcome.error ?? ""))
            #expect(seen.all.isEmpty)
        }
    }

    @Test func aRedirectIsAnAnswerNotAnInstruction() throws {
        try withReceiver { port, seen in
            let outcome = PinnedHTTPClient(timeout: 5, devMode: true).post(try target(port, "/moved"), to: Self.loopback, headers: [], body: [])
            #expect(outcome.status == 301)
            #expect(seen.all == ["/moved"])
        }
    }

    @Test func retryAfterIsReadAndTheDeadlineKept() throws {
        try withReceiver { port, _ in
            let busy = PinnedHTTPClient(timeout: 5, devMode: true).post(try target(port, "/busy"), to: Self.loopback, headers: [], body: [])
            #expect(busy.status == 429 && busy.retryAfter == 7)
            let started = Date()
            let slow = PinnedHTTPClient(timeout: 1, devMode: true).post(try target(port, "/slow"), to: Self.loopback, headers: [], body: [])
            #expect(slow.error == "timeout" && slow.status == nil)
            #expect(Date().timeIntervalSince(started) < 2.5)
        }
    }

    @Test func plainHTTPIsRefusedOutsideDevMode() throws {
        try withReceiver { port, seen in
            let outcome = PinnedHTTPClient(timeout: 5, devMode: false).post(try target(port, "/ok"), to: Self.loopback, headers: [], body: [])
            #expect(outcome.status == nil && outcome.error != nil)
            #expect(seen.all.isEmpty)
        }
    }

    @Test func aHostsFileDecidesNamesAndEveryAddressMustPass() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hosts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try "# test names\n127.0.0.1 hooks.test  other.test\n10.0.0.7 mixed.test\n8.8.8.8 mixed.test\n::1 six.test\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let resolver = HostsFileResolver(path: file.path)
        #expect(resolver.addresses(of: "hooks.test") == [[127, 0, 0, 1]])
        #expect(resolver.addresses(of: "example.com") == nil)  // no DNS: not in the file, not resolvable
        #expect(AddressCheck.check(host: "hooks.test", resolver: resolver, devMode: true) == .allowed([127, 0, 0, 1]))
        #expect(AddressCheck.check(host: "hooks.test", resolver: resolver, devMode: false) == .refused(.loopback))
        #expect(AddressCheck.check(host: "mixed.test", resolver: resolver, devMode: false) == .refused(.private))
        #expect(AddressCheck.check(host: "169.254.169.254", resolver: resolver, devMode: true) == .refused(.metadata))
        #expect(AddressCheck.check(host: "::1", resolver: resolver, devMode: true) == .allowed([UInt8](repeating: 0, count: 15) + [1]))
        #expect(AddressCheck.check(host: "nowhere.test", resolver: resolver, devMode: true) == .unresolvable)
        // Re-read at every lookup: a name that moves is judged where it is now.
        try "10.0.0.1 hooks.test\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(AddressCheck.check(host: "hooks.test", resolver: resolver, devMode: true) == .refused(.private))
    }
}

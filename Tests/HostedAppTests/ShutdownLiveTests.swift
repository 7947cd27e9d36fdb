import Foundation
import HostedStorage
import HostedTestSupport
import Testing

/// Stopping `hosted serve` under load: readiness turns 503 first (while everything else is still
/// served), requests in flight finish, and the process exits 0.
@Suite(.serialized) struct ShutdownLiveTests {
    @Test(arguments: Store.allCases)
    func sigtermDrainsReadinessFirstThenFinishesInFlightRequests(_ store: Store) throws {
        guard store.isAvailable else { return }
        let database = try TestDatabaseURL(store)
        defer { database.remove() }
        // Metrics only to see when the long-poll is open.
        let environment = ["HOSTED_DATABASE_URL": database.environmentValue, "HOSTED_SHUTDOWN_DELAY": "2",
                           "HOSTED_METRICS_LISTEN": "127.0.0.1:0", "HOSTED_SECRET_KEY": String(repeating: "drain-key-", count: 7)]
        let server = try ServerProcess(environment: environment, logDirectory: database.directory)
        let created = try HostedBinary.run(["accounts", "create", "--name", "Drain"], environment: environment)
        let key = (try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])?["api_key"] ?? ""
        let api = try RawHTTPConnection(port: server.port)
        #expect(try api.request("POST", "/v1/workflows", headers: ["Authorization": "Bearer \(key)"],
                                body: Array(#"{"key":"kyc","name":"KYC","steps":[{"type":"selfie"}]}"#.utf8)).status == 201)
        let made = try api.request("POST", "/v1/verifications", headers: ["Authorization": "Bearer \(key)"],
                                   body: Array(#"{"user_id":"u","workflow":"kyc","mobile":"+919876543210"}"#.utf8))
        let id = (try JSONSerialization.jsonObject(with: Data(made.body)) as? [String: Any])?["id"] as? String ?? ""
        #expect(try api.request("GET", "/readyz").status == 200)

        // A long-poll in flight when the signal comes.
        let poller = try RawHTTPConnection(port: server.port)
        try poller.send("GET /v1/verifications/\(id)?wait=20 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(key)\r\n"
                        + "If-None-Match: \(made.headers["etag"] ?? "")\r\n\r\n")
        #expect(try server.scrape(until: "hosted_long_polls_open 1").text.contains("hosted_long_polls_open 1"))
        server.process.signal(SIGTERM)
        // Draining once the signal is handled: not ready (checked as soon as it says so, leaving
        // the rest of the 2 s for the checks after), but still serving on the connections and the
        // socket it has.
        var ready = 200
        try eventually(pause: 0.02) {
            ready = try api.request("GET", "/readyz").status
            return ready != 200
        }
        #expect(ready == 503)
        #expect(try api.request("GET", "/healthz").status == 200)
        #expect(try RawHTTPConnection(port: server.port).request("GET", "/v1/verifications/\(id)",
                                                                 headers: ["Authorization": "Bearer \(key)"]).status == 200)
        #expect(server.process.wait(timeout: 0) == nil)
        // Then it stops: the long-poll is answered (not cut off), and the exit status is 0.
        let answered = try poller.readResponse()
        #expect(answered.status == 304)
        #expect(server.process.wait(timeout: 15) == 0)
        #expect(server.log.contains("draining: /readyz answers 503 for 2 s"))
    }
}

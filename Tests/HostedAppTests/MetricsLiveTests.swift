import Foundation
import HostedStorage
import HostedTestSupport
import Testing

/// `GET /metrics` of a real `hosted serve` on its own address, on SQLite and PostgreSQL: what it
/// counts after real traffic, and `promtool check metrics` (Debian's prometheus) accepts it.
@Suite(.serialized) struct MetricsLiveTests {
    @Test(arguments: Store.allCases)
    func metricsCountRequestsAndPassPromtool(_ store: Store) throws {
        guard store.isAvailable else { return }
        let database = try TestDatabaseURL(store)
        defer { database.remove() }
        let environment = ["HOSTED_DATABASE_URL": database.environmentValue, "HOSTED_METRICS_LISTEN": "127.0.0.1:0",
                           "HOSTED_SECRET_KEY": String(repeating: "metrics-key-", count: 6)]
        let server = try ServerProcess(environment: environment, logDirectory: database.directory)
        defer { #expect(server.stop() == 0) }
        try #require(server.metricsPort != nil, "the serving line names no metrics address")

        let created = try HostedBinary.run(["accounts", "create", "--name", "Metrics"], environment: environment)
        let key = (try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])?["api_key"] ?? ""
        let api = try RawHTTPConnection(port: server.port)
        let auth = ["Authorization": "Bearer \(key)"]
        #expect(try api.request("POST", "/v1/workflows", headers: auth,
                                body: Array(#"{"key":"kyc","name":"KYC","steps":[{"type":"selfie"}]}"#.utf8)).status == 201)
        let verification = try api.request("POST", "/v1/verifications", headers: auth,
                                           body: Array(#"{"user_id":"u","workflow":"kyc","mobile":"+919876543210"}"#.utf8))
        let id = (try JSONSerialization.jsonObject(with: Data(verification.body)) as? [String: Any])?["id"] as? String ?? ""
        for _ in 0..<3 { #expect(try api.request("GET", "/v1/verifications/\(id)", headers: auth).status == 200) }
        #expect(try api.request("GET", "/v1/verifications/ver_aaaaaaaaaaaaaaaaaaaaaaaaaa", headers: auth).status == 404)
        #expect(try api.request("GET", "/no/such/path").status == 404)
        // A long-poll in flight shows as open (once the process has taken it in: scrape until it
        // does; its 5 s run from then, so the scrape that sees it cannot come too late).
        let poller = try RawHTTPConnection(port: server.port)
        let etag = try api.request("GET", "/v1/verifications/\(id)", headers: auth).headers["etag"] ?? ""
        try poller.send("GET /v1/verifications/\(id)?wait=5 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(key)\r\nIf-None-Match: \(etag)\r\n\r\n")

        let scrape = try server.scrape(until: "hosted_long_polls_open 1")
        #expect(scrape.status == 200)
        #expect(scrape.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let text = scrape.text
        #expect(text.contains(#"hosted_http_requests_total{route="/v1/verifications/{id}",method="GET",status="200"} "#))
        #expect(text.contains(#"hosted_http_requests_total{route="/v1/verifications/{id}",method="GET",status="404"} 1"#))
        #expect(text.contains(#"hosted_http_requests_total{route="unmatched",method="GET",status="404"} 1"#))
        #expect(text.contains(#"hosted_http_requests_total{route="/v1/verifications",method="POST",status="201"} 1"#))
        #expect(text.contains(#"hosted_http_request_duration_seconds_bucket{route="/v1/verifications/{id}",method="GET",le="+Inf"} "#))
        #expect(text.contains("hosted_long_polls_open 1"))
        #expect(text.contains(#"hosted_db_pool_connections{state="size"} "#))
        #expect(text.contains(#"hosted_background_queue_depth{queue="webhooks"} 0"#))
        #expect(text.contains(#"hosted_background_queue_oldest_due_seconds{queue="sms"} 0"#))
        // Never an id, a key or a path with one in it.
        #expect(!text.contains(id) && !text.contains(key))
        // The public address does not serve it.
        #expect(try api.request("GET", "/metrics").status == 404)

        let promtool = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let promtool else {
            if TestBackend.postgresRequired { Issue.record("promtool is missing: install Debian's prometheus (scripts/test.sh does)") }
            return
        }
        let file = database.directory.appendingPathComponent("metrics.txt")
        try text.write(to: file, atomically: true, encoding: .utf8)
        #expect(try Subprocess.shell("\(promtool) check metrics < '\(file.path)'") == 0)
        _ = try? poller.readResponse()
    }
}

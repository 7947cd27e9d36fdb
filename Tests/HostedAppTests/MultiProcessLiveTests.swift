import Dispatch
import Foundation
import HostedStorage
import HostedTestSupport
import Testing

/// Two `hosted serve` processes on one PostgreSQL: the invariants hold across processes because
/// the database enforces them.
@Suite(.serialized) struct MultiProcessLiveTests {
    /// Two servers on a fresh schema, an account, a return URL and a workflow.
    struct Pair {
        let database: TestDatabaseURL
        let servers: [ServerProcess]
        let key: String

        init() throws {
            let database = try TestDatabaseURL(.postgres)
            self.database = database
            let environment = ["HOSTED_DATABASE_URL": database.environmentValue]
            let servers = try (0..<2).map { _ in try ServerProcess(environment: environment, logDirectory: database.directory) }
            self.servers = servers
            let created = try HostedBinary.run(["accounts", "create", "--name", "Race"], environment: environment)
            let object = try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String]
            key = object?["api_key"] ?? ""
            let connection = try RawHTTPConnection(port: servers[0].port)
            let workflow = try connection.request("POST", "/v1/workflows", headers: ["Authorization": "Bearer \(key)"],
                                                  body: Array(#"{"key":"kyc","name":"KYC","steps":[{"type":"selfie"}]}"#.utf8))
            guard workflow.status == 201 else { throw RawHTTPConnection.Failure(description: "workflow: \(workflow.status)") }
        }

        var auth: [String: String] { ["Authorization": "Bearer \(key)"] }

        func stop() {
            for server in servers { #expect(server.stop() == 0) }
            database.remove()
        }
    }

    @Test func fiftyParallelIdenticalCreates_oneVerification_one201() throws {
        guard Store.postgres.isAvailable else { return }
        let pair = try Pair()
        defer { pair.stop() }
        let body = Array(#"{"user_id":"racer","workflow":"kyc","mobile":"+919876543210"}"#.utf8)
        // Connect everything first, then fire all requests at once.
        let connections = try (0..<50).map { index in try RawHTTPConnection(port: pair.servers[index % 2].port) }
        let results = Results()
        let auth = pair.auth
        DispatchQueue.concurrentPerform(iterations: 50) { index in
            do {
                let response = try connections[index].request("POST", "/v1/verifications", headers: auth, body: body)
                let id = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["id"] as? String
                results.add(status: response.status, id: id)
            } catch {
                results.add(status: -1, id: nil)
            }
        }
        #expect(results.statuses.count == 50)
        #expect(results.statuses.filter { $0 == 201 }.count == 1)
        #expect(results.statuses.filter { $0 == 200 }.count == 49)
        #expect(Set(results.ids).count == 1)
    }

    @Test func longPollOnOneProcessWakesOnCancelThroughTheOther() throws {
        guard Store.postgres.isAvailable else { return }
        let pair = try Pair()
        defer { pair.stop() }
        let first = try RawHTTPConnection(port: pair.servers[0].port)
        let created = try first.request("POST", "/v1/verifications", headers: pair.auth,
                                        body: Array(#"{"user_id":"poller","workflow":"kyc","mobile":"+919876543210"}"#.utf8))
        let id = try #require((try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["id"] as? String)
        let etag = try #require(created.headers["etag"])

        var headers = pair.auth
        headers["If-None-Match"] = etag
        try first.send("GET /v1/verifications/\(id)?wait=20 HTTP/1.1\r\nHost: x\r\n"
                       + headers.map { "\($0.key): \($0.value)\r\n" }.joined() + "\r\n")
        usleep(500_000)
        let canceledAt = Date()
        let second = try RawHTTPConnection(port: pair.servers[1].port)
        #expect(try second.request("POST", "/v1/verifications/\(id)/cancel", headers: pair.auth).status == 200)
        let woke = try first.readResponse()
        let latency = Date().timeIntervalSince(canceledAt)
        #expect(woke.status == 200)
        #expect(woke.text.contains(#""status":"canceled""#))
        #expect(latency < 1, "long-poll woke \(latency) s after the cancel")
    }

    @Test func rateLimitHoldsAcrossProcesses() throws {
        guard Store.postgres.isAvailable else { return }
        let pair = try Pair()
        defer { pair.stop() }
        let connections = try pair.servers.map { try RawHTTPConnection(port: $0.port) }
        let created = try connections[0].request("POST", "/v1/verifications", headers: pair.auth,
                                                 body: Array(#"{"user_id":"limited","workflow":"kyc","mobile":"+919876543210"}"#.utf8))
        let id = try #require((try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["id"] as? String)
        var statuses: [Int] = []
        for index in 0..<14 {
            statuses.append(try connections[index % 2].request("GET", "/v1/verifications/\(id)", headers: pair.auth).status)
        }
        // At most the burst (plus what a second of refill allows) gets through, whichever process answers.
        #expect(statuses.filter { $0 == 200 }.count <= 11)
        #expect(statuses.contains(429))
    }
}

/// Outcomes collected from many threads.
final class Results: @unchecked Sendable {  // arrays only under `lock`
    private let lock = NSLock()
    private(set) var statuses: [Int] = []
    private(set) var ids: [String] = []

    func add(status: Int, id: String?) {
        lock.lock()
        statuses.append(status)
        if let id { ids.append(id) }
        lock.unlock()
    }
}

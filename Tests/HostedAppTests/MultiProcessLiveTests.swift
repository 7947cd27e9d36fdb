import Dispatch
import Foundation
import HostedStorage
import HostedTestSupport
import Testing

/// Two `hosted serve` processes on one PostgreSQL: the invariants hold across processes because
/// the database enforces them.
@Suite(.serialized) struct MultiProcessLiveTests {
    /// Two servers on a fresh schema, an account, a return URL and a workflow; with `metrics`,
    /// each also serves `/metrics` on an address of its own.
    struct Pair {
        let database: TestDatabaseURL
        let servers: [ServerProcess]
        let key: String

        init(devMode: Bool = false, metrics: Bool = false) throws {
            let database = try TestDatabaseURL(.postgres)
            self.database = database
            // Two nodes behind one public URL (the pages' Origin), whatever ports they listen on.
            var environment = ["HOSTED_DATABASE_URL": database.environmentValue, "HOSTED_PUBLIC_URL": "http://127.0.0.1:8080",
                               "HOSTED_SECRET_KEY": String(repeating: "shared-key-", count: 6)]
            if metrics { environment["HOSTED_METRICS_LISTEN"] = "127.0.0.1:0" }
            let servers = try (0..<2).map { _ in
                try ServerProcess(environment: environment, arguments: devMode ? ["--dev"] : [], logDirectory: database.directory)
            }
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
        let responses = try burstResponses(pair, count: 50, path: "/v1/verifications",
                                           body: #"{"user_id":"racer","workflow":"kyc","mobile":"+919876543210"}"#, headers: pair.auth)
        let results = Results()
        for response in responses {
            let id = response.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.body))) as? [String: Any] }?["id"] as? String
            results.add(status: response?.status ?? -1, id: id)
        }
        #expect(results.statuses.count == 50)
        #expect(results.statuses.filter { $0 == 201 }.count == 1)
        #expect(results.statuses.filter { $0 == 200 }.count == 49)
        #expect(Set(results.ids).count == 1)
    }

    @Test func longPollOnOneProcessWakesOnCancelThroughTheOther() throws {
        guard Store.postgres.isAvailable else { return }
        let pair = try Pair(metrics: true)
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
        // Cancel only once the first process is waiting: a cancel that lands before would be seen
        // by the poll's first read, and the wake through the other process would go untested.
        #expect(try pair.servers[0].scrape(until: "hosted_long_polls_open 1").text.contains("hosted_long_polls_open 1"))
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

extension MultiProcessLiveTests {
    /// Creates a verification through the first server and returns its id.
    func verification(_ pair: Pair, user: String) throws -> String {
        let created = try RawHTTPConnection(port: pair.servers[0].port).request(
            "POST", "/v1/verifications", headers: pair.auth,
            body: Array(#"{"user_id":"\#(user)","workflow":"kyc","mobile":"+919876543210"}"#.utf8))
        return try #require((try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["id"] as? String)
    }

    /// Puts `count` identical journey POSTs in flight at once, alternating between the two
    /// servers (every request is written before any answer is read), and returns the statuses.
    func burst(_ pair: Pair, count: Int, path: String, body: String, headers: [String: String] = [:]) throws -> [Int] {
        try burstResponses(pair, count: count, path: path, body: body, headers: headers).map { $0?.status ?? -1 }
    }

    func burstResponses(_ pair: Pair, count: Int, path: String, body: String,
                        headers: [String: String] = [:]) throws -> [RawHTTPConnection.Response?] {
        let connections = try (0..<count).map { index in try RawHTTPConnection(port: pair.servers[index % 2].port) }
        let extra = headers.map { "\($0.key): \($0.value)\r\n" }.joined()
        let request = "POST \(path) HTTP/1.1\r\nHost: x\r\nOrigin: http://127.0.0.1:8080\r\n\(extra)"
            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        for connection in connections { try connection.send(request) }
        return connections.map { try? $0.readResponse() }
    }

    @Test func hundredConcurrentExchangesOfOneHandoff_exactlyOneSession() throws {
        guard Store.postgres.isAvailable else { return }
        let pair = try Pair()
        defer { pair.stop() }
        let id = try verification(pair, user: "exchange")
        let minted = try RawHTTPConnection(port: pair.servers[1].port).request(
            "POST", "/v1/verifications/\(id)/handoffs", headers: pair.auth, body: Array("{}".utf8))
        let url = try #require((try JSONSerialization.jsonObject(with: Data(minted.body)) as? [String: Any])?["url"] as? String)
        let secret = String(url.split(separator: "#")[1].dropFirst("handoff=".count))
        let statuses = try burst(pair, count: 100, path: "/j/\(id)/api/session", body: #"{"handoff":"\#(secret)"}"#)
        #expect(statuses.count == 100)
        #expect(statuses.filter { $0 == 200 }.count == 1)
        #expect(statuses.filter { $0 == 401 }.count == 99)
    }

    @Test func thirtyParallelOpensOfOneContinuationAcrossTwoProcesses_oneDeviceWins() throws {
        guard Store.postgres.isAvailable else { return }
        let pair = try Pair()
        defer { pair.stop() }
        let id = try verification(pair, user: "continuer")
        let minted = try RawHTTPConnection(port: pair.servers[1].port).request(
            "POST", "/v1/verifications/\(id)/handoffs", headers: pair.auth, body: Array("{}".utf8))
        let url = try #require((try JSONSerialization.jsonObject(with: Data(minted.body)) as? [String: Any])?["url"] as? String)
        let origin = ["Origin": "http://127.0.0.1:8080", "Content-Type": "application/json"]
        let session = try RawHTTPConnection(port: pair.servers[0].port).request(
            "POST", "/j/\(id)/api/session", headers: origin,
            body: Array(#"{"handoff":"\#(url.split(separator: "#")[1].dropFirst("handoff=".count))"}"#.utf8))
        let cookie = try #require(session.headers["set-cookie"]?.split(separator: ";").first.map(String.init))
        let created = try RawHTTPConnection(port: pair.servers[1].port).request(
            "POST", "/j/\(id)/api/continuations", headers: origin.merging(["Cookie": cookie]) { $1 })
        #expect(created.status == 201)
        let link = try #require((try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["url"] as? String)
        let secret = String(link.split(separator: "#")[1].dropFirst("continue=".count))
        let statuses = try burst(pair, count: 30, path: "/j/\(id)/api/continuations/open", body: #"{"secret":"\#(secret)"}"#)
        #expect(statuses.count == 30)
        #expect(statuses.filter { $0 == 200 }.count == 1)
        #expect(statuses.filter { $0 == 401 }.count == 29)
        // Neither process wrote the secret (or the handoff's) to its log.
        for server in pair.servers {
            #expect(!server.log.contains(secret))
            #expect(!server.log.contains(String(url.split(separator: "#")[1].dropFirst("handoff=".count))))
        }
    }

    @Test func twentyParallelWrongCodes_atMostFiveCounted_thenTheRightCodeFails() throws {
        guard Store.postgres.isAvailable else { return }
        let pair = try Pair(devMode: true)
        defer { pair.stop() }
        let id = try verification(pair, user: "guesser")
        let sent = try RawHTTPConnection(port: pair.servers[0].port).request(
            "POST", "/j/\(id)/api/otp", headers: ["Origin": "http://127.0.0.1:8080"], body: Array(#"{"mobile":"+919876543210"}"#.utf8))
        #expect(sent.status == 202)
        // Sent by a background worker right after the answer: wait for it to arrive.
        var outbox = ""
        try eventually(pause: 0.1) {
            outbox = try HostedBinary.run(["outbox", "--to", "+919876543210"], environment: ["HOSTED_DATABASE_URL": pair.database.environmentValue]).stdout
            return !outbox.isEmpty
        }
        let code = String(try #require(outbox.split(separator: "\n").first.flatMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String])?["body"]
        }).prefix(6))
        let wrong = code == "000000" ? "111111" : "000000"
        let statuses = try burst(pair, count: 20, path: "/j/\(id)/api/otp/verify", body: #"{"code":"\#(wrong)"}"#)
        #expect(statuses.allSatisfy { $0 == 401 })
        let attempts = try PostgresDatabase(url: pair.database.environmentValue, poolSize: 1)
        defer { attempts.close() }
        #expect(try attempts.query("SELECT attempts FROM otp_codes WHERE verification_id = \(id)")[0].int("attempts") == 5)
        let right = try RawHTTPConnection(port: pair.servers[1].port).request(
            "POST", "/j/\(id)/api/otp/verify", headers: ["Origin": "http://127.0.0.1:8080"], body: Array(#"{"code":"\#(code)"}"#.utf8))
        #expect(right.status == 401)
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

import Foundation
import HostedStorage
import HostedTestSupport
import Testing

/// A database failover under load (DESIGN, "Database failover"): a primary and its synchronous
/// standby on loopback (`scripts/with-standby.sh`), two `hosted serve` nodes on the multi-host URL
/// (standby listed first) while four clients create verifications. The primary dies
/// (`pg_ctl stop -m immediate`), the standby is promoted, and then, without restarting either
/// node: both answer 201 again within 5 s, nothing answered 201 is lost, no request got a 500, a
/// long-poll begun before the failover wakes on a change made through the other node after it
/// (and a new one does too, both ways: each node's LISTEN is back), and webhooks are delivered.
///
/// It stops a database, so it runs only with `HOSTED_TEST_PG_FAILOVER_ALLOWED=1` under
/// `scripts/with-standby.sh`, in its own step of `scripts/test.sh`.
@Suite(.serialized) struct PostgresFailoverLiveTests {
    static let allowed = ProcessInfo.processInfo.environment["HOSTED_TEST_PG_FAILOVER_ALLOWED"] == "1"

    /// What the load's clients saw: each answer with its node and its time.
    final class Answers: @unchecked Sendable {  // `entries` only under `lock`
        struct Entry { let node: Int; let started: Date; let at: Date; let status: Int; let id: String? }
        private let lock = NSLock()
        private var entries: [Entry] = []
        func add(_ entry: Entry) { lock.lock(); entries.append(entry); lock.unlock() }
        var all: [Entry] { lock.lock(); defer { lock.unlock() }; return entries }
    }

    @Test(.enabled(if: allowed, "stops a PostgreSQL primary: set HOSTED_TEST_PG_FAILOVER_ALLOWED=1 and run under scripts/with-standby.sh"))
    func bothNodesWriteAgainWithin5sOfAPromotionAndNothingAnswered201IsLost() throws {
        let environment = ProcessInfo.processInfo.environment
        let url = try #require(environment["HOSTED_TEST_FAILOVER_URL"], "run under scripts/with-standby.sh")
        let stopPrimary = try #require(environment["HOSTED_TEST_FAILOVER_STOP_PRIMARY"])
        let promote = try #require(environment["HOSTED_TEST_FAILOVER_PROMOTE"])
        let standbyURL = try #require(environment["HOSTED_TEST_FAILOVER_STANDBY_URL"])
        let primaryPort = try #require(environment["HOSTED_TEST_FAILOVER_PRIMARY_URL"]?.split(separator: ":").last?.split(separator: "/").first)

        // libpq follows target_session_attrs=read-write: the standby, listed first, is skipped,
        // and alone it is refused.
        try checkLibpqSkipsTheStandby(url: url, standbyURL: standbyURL, primaryPort: String(primaryPort))

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hosted-failover-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let hosts = directory.appendingPathComponent("hosts")
        try "127.0.0.1 hooks.test\n".write(to: hosts, atomically: true, encoding: .utf8)
        let serveEnvironment = ["HOSTED_DATABASE_URL": url, "HOSTED_PUBLIC_URL": "http://127.0.0.1:8080",
                                "HOSTED_SECRET_KEY": String(repeating: "failover-key-", count: 5),
                                "HOSTED_METRICS_LISTEN": "127.0.0.1:0", "HOSTED_WEBHOOK_HOSTS_FILE": hosts.path,
                                "HOSTED_WEBHOOK_RETRY_SCHEDULE": "1,1,1,1,1,1,1,1,1,1"]
        // --dev: the webhook receiver is on loopback, reached through the hosts file.
        let servers = try (0..<2).map { _ in try ServerProcess(environment: serveEnvironment, arguments: ["--dev"], logDirectory: directory) }
        defer { for server in servers { #expect(server.stop() == 0) } }
        let created = try HostedBinary.run(["accounts", "create", "--name", "Failover"], environment: serveEnvironment)
        let key = try #require((try? JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])?["api_key"],
                               "accounts create: \(created.stderr)")
        let auth = ["Authorization": "Bearer \(key)"]
        let nodes = try servers.map { try RawHTTPConnection(port: $0.port) }
        #expect(try nodes[0].request("POST", "/v1/workflows", headers: auth,
                                     body: Array(#"{"key":"kyc","name":"KYC","steps":[{"type":"selfie"}]}"#.utf8)).status == 201)
        let receiver = try WebhookAPITests.Receiver()
        defer { receiver.stop() }
        #expect(try nodes[0].request("POST", "/v1/webhook_endpoints", headers: auth,
                                     body: Array(#"{"url":"\#(receiver.url)","events":["verification.canceled"]}"#.utf8)).status == 201)

        // Before: a webhook is delivered, and a long-poll waits on node 0.
        let delivered = try verification(nodes[0], auth, user: "webhook-before")
        #expect(try nodes[1].request("POST", "/v1/verifications/\(delivered)/cancel", headers: auth).status == 200)
        #expect(eventually(within: 10, pause: 0.05) { receiver.received.contains { String(decoding: $0.body, as: UTF8.self).contains(delivered) } },
                "the webhook before the failover was not delivered")
        let (polled, poller) = try longPoll(servers[0], auth)

        // The load: four clients, two per node, creating until told to stop (bounded in time).
        let answers = Answers()
        let stop = Flag()
        let load = DispatchGroup()
        for client in 0..<4 {
            let node = client % 2, port = servers[node].port
            DispatchQueue.global().async(group: load) {
                var connection: RawHTTPConnection?
                var count = 0
                while !stop.isSet, count < 5_000 {
                    count += 1
                    let body = Array(#"{"user_id":"load-\#(client)-\#(count)","workflow":"kyc","mobile":"+919876543210"}"#.utf8)
                    let started = Date()
                    do {
                        let open = try connection ?? RawHTTPConnection(port: port)
                        connection = open
                        let response = try open.request("POST", "/v1/verifications", headers: auth, body: body)
                        let id = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["id"] as? String
                        answers.add(.init(node: node, started: started, at: Date(), status: response.status, id: id))
                    } catch {
                        // The node closed the connection (or it timed out): a new one next time.
                        answers.add(.init(node: node, started: started, at: Date(), status: -1, id: nil))
                        connection = nil
                        usleep(10_000)
                    }
                }
            }
        }
        Thread.sleep(forTimeInterval: 3)

        // The failover: the primary dies, a second passes, the standby is promoted.
        let stoppedAt = Date()
        #expect(try Subprocess.shell(stopPrimary + " >/dev/null 2>&1") == 0)
        Thread.sleep(forTimeInterval: 1)
        #expect(try Subprocess.shell(promote + " >/dev/null 2>&1") == 0)
        let promotedAt = Date()
        // Both nodes, not restarted, answer 201 again within 5 s.
        for (index, node) in nodes.enumerated() {
            let back = try eventually(within: 5, pause: 0.02) {
                try node.request("POST", "/v1/verifications", headers: auth,
                                 body: Array(#"{"user_id":"probe-\#(index)","workflow":"kyc","mobile":"+919876543210"}"#.utf8)).status == 201
            }
            #expect(back, "node \(index) did not answer 201 within 5 s of the promotion")
        }
        Thread.sleep(forTimeInterval: 4)
        stop.set()
        #expect(load.wait(timeout: .now() + 30) == .success, "the load did not stop")

        let all = answers.all
        let firstBack = (0..<2).map { node in
            all.first { $0.node == node && $0.status == 201 && $0.at > promotedAt }.map { $0.at.timeIntervalSince(promotedAt) }
        }
        let downFor = all.filter { $0.status != 201 }.map(\.at).max().map { $0.timeIntervalSince(stoppedAt) }
        print("failover: \(all.count) creates, \(all.filter { $0.status == 201 }.count) answered 201, "
              + "statuses \(Dictionary(grouping: all, by: \.status).mapValues(\.count)); first 201 after the promotion: "
              + firstBack.map { $0.map { String(format: "%.0f ms", $0 * 1000) } ?? "none" }.joined(separator: ", ")
              + "; last non-201 \(downFor.map { String(format: "%.2f s", $0) } ?? "-") after the primary stopped")
        // After each node's first 201 since the promotion, that node answers nothing but 201.
        let afterBack = (0..<2).map { node in
            all.filter { $0.node == node && $0.status != 201 && $0.started > promotedAt.addingTimeInterval(firstBack[node] ?? 0) }.count
        }
        print("failover: answers other than 201 after each node's first 201 since the promotion: \(afterBack)")
        #expect(afterBack == [0, 0])
        for (node, seconds) in firstBack.enumerated() {
            #expect(seconds.map { $0 < 5 } == true, "node \(node): no 201 from the load within 5 s of the promotion")
        }
        #expect(all.filter { $0.at < stoppedAt && $0.status == 201 }.count > 20, "too little load before the failover")
        // Refused while no primary was reachable: 503 (database_unavailable), never a 500. A 503
        // answered before the request's body was read (the API key's lookup failed) closes the
        // connection, so the client's next request on it fails (-1) and it opens another.
        #expect(all.allSatisfy { [201, 503, -1].contains($0.status) }, "a create answered neither 201 nor 503")
        #expect(!all.contains { $0.status != 201 && $0.at > promotedAt.addingTimeInterval(5) }, "refusals more than 5 s after the promotion")

        // Every verification answered 201 is there, read through the API on the new primary.
        let answered = Set(all.filter { $0.status == 201 }.compactMap(\.id))
        #expect(answered.count == all.filter { $0.status == 201 }.count)
        let listed = try listAll(nodes[1], auth)
        let missing = answered.subtracting(listed)
        #expect(missing.isEmpty, "\(missing.count) verifications answered 201 are gone, e.g. \(missing.prefix(3))")

        // The long-poll begun before the failover wakes on a cancel through the other node.
        let canceledAt = Date()
        #expect(try nodes[1].request("POST", "/v1/verifications/\(polled)/cancel", headers: auth).status == 200)
        let woke = try poller.readResponse()
        #expect(woke.status == 200 && woke.text.contains(#""status":"canceled""#), "\(woke.status) \(woke.text)")
        #expect(Date().timeIntervalSince(canceledAt) < 2, "the long-poll woke \(Date().timeIntervalSince(canceledAt)) s after the cancel")
        // New long-polls, each woken through the other node: both LISTENs are back.
        for (waiting, other) in [(0, 1), (1, 0)] {
            let (id, connection) = try longPoll(servers[waiting], auth)
            let at = Date()
            #expect(try nodes[other].request("POST", "/v1/verifications/\(id)/cancel", headers: auth).status == 200)
            let answer = try connection.readResponse()
            #expect(answer.status == 200 && Date().timeIntervalSince(at) < 2, "node \(waiting)'s long-poll: \(answer.status)")
        }
        // Webhooks go on: the cancels after the failover are delivered.
        #expect(eventually(within: 15, pause: 0.05) { receiver.received.contains { String(decoding: $0.body, as: UTF8.self).contains(polled) } },
                "no webhook for a change after the failover")
    }
}

extension PostgresFailoverLiveTests {
    final class Flag: @unchecked Sendable {  // `value` only under `lock`
        private let lock = NSLock()
        private var value = false
        func set() { lock.lock(); value = true; lock.unlock() }
        var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    }

    func checkLibpqSkipsTheStandby(url: String, standbyURL: String, primaryPort: String) throws {
        let database = try PostgresDatabase(url: url, poolSize: 1)
        defer { database.close() }
        let row = try database.query("SELECT pg_is_in_recovery() AS standby, inet_server_port() AS port")[0]
        #expect(try row.int("standby") == 0)
        #expect(try String(row.int("port")) == primaryPort)
        #expect {
            _ = try PostgresDatabase(url: standbyURL + "?target_session_attrs=read-write", poolSize: 1)
        } throws: { error in
            if case DatabaseError.cannotConnect = error { return true }
            return false
        }
    }

    func verification(_ node: RawHTTPConnection, _ auth: [String: String], user: String) throws -> String {
        let created = try node.request("POST", "/v1/verifications", headers: auth,
                                       body: Array(#"{"user_id":"\#(user)","workflow":"kyc","mobile":"+919876543210"}"#.utf8))
        try #require(created.status == 201, "\(created.status) \(created.text)")
        return try #require((try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["id"] as? String)
    }

    /// Creates a verification and starts a 30 s long-poll on it through `server`; returns once
    /// the server says the poll is waiting.
    func longPoll(_ server: ServerProcess, _ auth: [String: String]) throws -> (String, RawHTTPConnection) {
        let connection = try RawHTTPConnection(port: server.port, timeoutSeconds: 40)
        let created = try connection.request("POST", "/v1/verifications", headers: auth,
                                             body: Array(#"{"user_id":"poller","workflow":"kyc","mobile":"+919876543210"}"#.utf8))
        let id = try #require((try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["id"] as? String)
        let etag = try #require(created.headers["etag"])
        try connection.send("GET /v1/verifications/\(id)?wait=30 HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(etag)\r\n"
                            + auth.map { "\($0.key): \($0.value)\r\n" }.joined() + "\r\n")
        #expect(try server.scrape(until: "hosted_long_polls_open 1").text.contains("hosted_long_polls_open 1"))
        return (id, connection)
    }

    /// Every verification id of the account, through the list's pages.
    func listAll(_ node: RawHTTPConnection, _ auth: [String: String]) throws -> Set<String> {
        var ids = Set<String>()
        var after: String?
        for _ in 0..<1_000 {
            let page = try node.request("GET", "/v1/verifications?limit=100" + (after.map { "&starting_after=\($0)" } ?? ""), headers: auth)
            try #require(page.status == 200, "list: \(page.status) \(page.text)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(page.body)) as? [String: Any])
            let data = try #require(object["data"] as? [[String: Any]])
            ids.formUnion(data.compactMap { $0["id"] as? String })
            after = data.last?["id"] as? String
            guard object["has_more"] as? Bool == true, after != nil else { break }
        }
        return ids
    }
}

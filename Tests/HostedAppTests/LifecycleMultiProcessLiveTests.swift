import Dispatch
import Foundation
import HostedStorage
import HostedTestSupport
import Testing

/// The lifecycle across `hosted serve` processes on one PostgreSQL: event sequences without gaps
/// when two processes change one verification, expiry swept once by three, a retention sweep
/// killed with SIGKILL finished by the next process, and `hosted audit verify` on the result.
@Suite(.serialized) struct LifecycleMultiProcessLiveTests {
    /// Servers (dev mode, so expiry and retention may be seconds) on a fresh schema, an account.
    final class Cluster: @unchecked Sendable {  // `servers` changes only on the test's own thread
        let database: TestDatabaseURL
        let environment: [String: String]
        var servers: [ServerProcess] = []
        var key = ""

        init(servers count: Int, sweepInterval: Int) throws {
            database = try TestDatabaseURL(.postgres)
            environment = ["HOSTED_DATABASE_URL": database.environmentValue,
                           "HOSTED_SECRET_KEY": String(repeating: "shared-key-", count: 6)]
            for _ in 0..<count { try start(sweepInterval: sweepInterval) }
            let created = try HostedBinary.run(["accounts", "create", "--name", "Lifecycle"], environment: environment)
            let object = try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String]
            key = object?["api_key"] ?? ""
        }

        @discardableResult
        func start(sweepInterval: Int) throws -> ServerProcess {
            let server = try ServerProcess(environment: environment.merging(["HOSTED_SWEEP_INTERVAL": String(sweepInterval)]) { $1 },
                                           arguments: ["--dev"], logDirectory: database.directory)
            servers.append(server)
            return server
        }

        func request(_ server: Int, _ method: String, _ path: String, _ body: String = "") throws -> (status: Int, json: [String: Any]) {
            let response = try RawHTTPConnection(port: servers[server].port).request(
                method, path, headers: ["Authorization": "Bearer \(key)"], body: Array(body.utf8))
            return (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:])
        }

        /// Every event of the feed with this filter, following the cursor.
        func feed(_ server: Int, _ query: String) throws -> [[String: Any]] {
            var all: [[String: Any]] = []
            var cursor = ""
            while true {
                let page = try request(server, "GET", "/v1/events?limit=100&\(query)\(cursor)")
                let data = page.json["data"] as? [[String: Any]] ?? []
                all += data
                guard page.json["has_more"] as? Bool == true, let last = data.last?["id"] as? String else { return all }
                cursor = "&starting_after=\(last)"
            }
        }

        func stop() {
            for server in servers { #expect(server.stop() == 0) }
            database.remove()
        }
    }

    @Test func twoProcessesChangingOneVerificationLeaveAGapFreeChainThatTheAuditVerifies() throws {
        guard Store.postgres.isAvailable else { return }
        let cluster = try Cluster(servers: 2, sweepInterval: 3600)
        defer { cluster.stop() }
        #expect(try cluster.request(0, "POST", "/v1/workflows", #"{"key":"kyc","name":"KYC","steps":[{"type":"selfie"}]}"#).status == 201)
        let id = try #require(try cluster.request(0, "POST", "/v1/verifications",
                                                  #"{"user_id":"racer","workflow":"kyc","mobile":"+919876543210"}"#).json["id"] as? String)
        let statuses = Collected<Int>()
        DispatchQueue.concurrentPerform(iterations: 20) { index in
            statuses.append((try? cluster.request(index % 2, "PATCH", "/v1/verifications/\(id)", #"{"metadata":{"n":"\#(index)"}}"#).status) ?? -1)
        }
        #expect(statuses.all.filter { $0 == 200 }.count == 20)
        let events = try cluster.feed(1, "verification_id=\(id)")
        #expect(events.map { $0["sequence"] as? Int } == Array(1...21))
        let audit = try HostedBinary.run(["audit", "verify"], environment: cluster.environment)
        #expect(audit.status == 0, "\(audit.stdout) \(audit.stderr)")
        #expect(audit.stdout.contains(#""events":21"#))
        // A tampered row: the audit names it and exits 1.
        let db = try cluster.database.open(poolSize: 1)
        try db.query("UPDATE events SET actor_type = 'system' WHERE verification_id = \(id) AND sequence = 7")
        db.close()
        let tampered = try HostedBinary.run(["audit", "verify"], environment: cluster.environment)
        #expect(tampered.status == 1)
        let eventID = try #require(events[6]["id"] as? String)
        #expect(tampered.stdout.contains(eventID) && tampered.stdout.contains(#""sequence":7"#), "\(tampered.stdout)")
    }

    @Test func thirtyVerificationsExpiringAtOnceOnThreeProcessesGetOneExpiryEach() throws {
        guard Store.postgres.isAvailable else { return }
        let cluster = try Cluster(servers: 3, sweepInterval: 1)
        defer { cluster.stop() }
        #expect(try cluster.request(0, "POST", "/v1/workflows",
                                    #"{"key":"brief","name":"Brief","steps":[{"type":"selfie"}],"expires_after_seconds":2}"#).status == 201)
        var ids: [String] = []
        for index in 0..<30 {
            let created = try cluster.request(index % 3, "POST", "/v1/verifications",
                                              #"{"user_id":"u\#(index)","workflow":"brief","mobile":"+919876543210"}"#)
            ids.append(try #require(created.json["id"] as? String))
        }
        // Nobody reads them: only the sweepers can expire them.
        let deadline = Date().addingTimeInterval(20)
        var expired: [[String: Any]] = []
        repeat {
            Thread.sleep(forTimeInterval: 0.5)
            expired = try cluster.feed(0, "type=verification.expired")
        } while expired.count < 30 && Date() < deadline
        Thread.sleep(forTimeInterval: 2)  // a few more sweeps on every process: still one each
        expired = try cluster.feed(0, "type=verification.expired")
        #expect(expired.count == 30)
        #expect(Set(expired.compactMap { $0["verification_id"] as? String }) == Set(ids))
        #expect(expired.allSatisfy { ($0["actor"] as? [String: Any])?["type"] as? String == "system" })
    }

    @Test func aRetentionSweepKilledMidwayLosesNothingAndRepeatsNothing() throws {
        guard Store.postgres.isAvailable else { return }
        // One process that never sweeps after its first (empty) pass creates the work.
        let cluster = try Cluster(servers: 1, sweepInterval: 3600)
        defer { cluster.stop() }
        #expect(try cluster.request(0, "POST", "/v1/workflows",
                                    #"{"key":"brief","name":"Brief","steps":[{"type":"selfie"}],"retention":{"redact_after_seconds":1}}"#).status == 201)
        let count = 300
        var ids: [String] = []
        for index in 0..<count {
            let created = try cluster.request(0, "POST", "/v1/verifications",
                                              #"{"user_id":"u\#(index)","workflow":"brief","mobile":"+919876543210"}"#)
            let id = try #require(created.json["id"] as? String)
            #expect(try cluster.request(0, "POST", "/v1/verifications/\(id)/cancel").status == 200)
            ids.append(id)
        }
        Thread.sleep(forTimeInterval: 1.2)
        // A sweeping process, killed with SIGKILL as soon as its sweep has begun.
        let sweeper = try cluster.start(sweepInterval: 1)
        var done: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(20)
        while done.isEmpty && Date() < deadline {
            done = try cluster.feed(0, "type=verification.redacted")
        }
        sweeper.process.signal(SIGKILL)
        #expect(sweeper.process.wait(timeout: 10) == 137)
        cluster.servers.removeLast()  // gone: nothing to stop
        let atKill = try cluster.feed(0, "type=verification.redacted").count
        // The next process finishes the rest.
        try cluster.start(sweepInterval: 1)
        var redacted: [[String: Any]] = []
        let finish = Date().addingTimeInterval(30)
        repeat {
            Thread.sleep(forTimeInterval: 0.5)
            redacted = try cluster.feed(0, "type=verification.redacted")
        } while redacted.count < count && Date() < finish
        #expect(atKill >= 1)
        #expect(redacted.count == count, "redacted \(redacted.count) of \(count) (\(atKill) when the first sweeper was killed)")
        #expect(Set(redacted.compactMap { $0["verification_id"] as? String }) == Set(ids))
        let audit = try HostedBinary.run(["audit", "verify"], environment: cluster.environment)
        #expect(audit.status == 0, "\(audit.stdout)")
        print("retention sweep: \(atKill) of \(count) redacted when the sweeper was killed; the next process did the rest")
    }
}

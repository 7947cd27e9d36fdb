import Foundation
import HostedApp
import HostedCore
import HostedHTTP
import HostedStorage
import HostedTestSupport
import Testing

/// The two stores app-level tests run on (shared with the storage tests; see `TestBackend` in
/// HostedTestSupport, which also makes the empty databases: `TestDatabaseURL`).
typealias Store = TestBackend

extension TestBackend {
    /// True when this store can run here; PostgreSQL cases are skipped without
    /// `HOSTED_TEST_POSTGRES_URL`, and recorded as an issue when `HOSTED_REQUIRE_POSTGRES=1`.
    var isAvailable: Bool {
        availability { Issue.record(Comment(rawValue: $0)) }
    }
}

/// An application on a fresh database, answering requests in memory through the same responder
/// the server uses. The journey, console and reading helpers are in `TestApplication+Requests`.
struct TestApplication {
    let application: Application
    let database: TestDatabaseURL

    init(store: Store = .sqlite, migrate: Bool = true, clock: any WallClock = SystemWallClock(),
         configure: (inout Configuration) -> Void = { _ in }) throws {
        database = try TestDatabaseURL(store)
        var configuration = Configuration()
        configuration.database = database.url
        configuration.publicURL = URL(string: "https://verify.example.com")!
        configuration.databasePoolSize = 4
        // PostgreSQL outside dev mode needs a provisioned key (SQLite makes one beside its file).
        if store == .postgres { configuration.secretKey = String(repeating: "test-key-", count: 8) }
        configure(&configuration)
        application = try buildApplication(configuration: configuration, migrate: migrate, clock: clock)
    }

    /// The response to a request answered at once; a deferred one (a long-poll) shows as 596 —
    /// use `reply` for those.
    func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: String = "") -> Response {
        switch reply(method, path, headers: headers, body: body) {
        case .ready(let response): return response
        case .deferred: return Response(status: 596, body: Array("answered later".utf8))
        }
    }

    /// A request target split as the server splits it: the path, and the query's decoded pairs.
    static func target(_ path: String) -> (path: String, query: [(name: String, value: String)]) {
        let pathOnly = String(path.split(separator: "?", maxSplits: 1)[0])
        let query: [(name: String, value: String)] = path.contains("?")
            ? path.split(separator: "?", maxSplits: 1)[1].split(separator: "&").map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1).map { Request.formDecode(String($0)) ?? "" }
                return (name: parts[0], value: parts.count > 1 ? parts[1] : "")
            }
            : []
        return (pathOnly, query)
    }

    func reply(_ method: String, _ path: String, headers: [(String, String)] = [], body: String = "") -> Reply {
        let (pathOnly, query) = Self.target(path)
        let request = Request(method: method, path: pathOnly, query: query, headers: HTTPHeaders(headers), body: Array(body.utf8))
        do {
            let reply = try application.responder.respond(to: request, context: RequestContext(requestID: "test"))
            // On PostgreSQL a poll's read and a create's repeat check go through the database
            // pipeline and are answered from its thread (a create then goes on on a worker), so
            // even a request answered at once comes back deferred: one that is answered within
            // half a second is shown as ready (a long-poll waits a second at least, and stays
            // deferred).
            let pipelined = (method == "GET" && pathOnly.hasPrefix("/v1/verifications/"))
                || (method == "POST" && pathOnly == "/v1/verifications")
            guard pipelined, let deferred = reply.deferred else { return reply }
            return Self.settled(deferred, within: 0.5)
        } catch {
            // The error boundary must turn every error into a response.
            return .ready(Response(status: 599, body: Array("\(error)".utf8)))
        }
    }

    /// The reply's response, waiting up to `seconds` for one answered later (an upload is decoded
    /// on the decode queue); 596 when none came by then.
    static func response(of reply: Reply, within seconds: Double = 10) -> Response {
        guard let deferred = reply.deferred else { return reply.response ?? Response(status: 596) }
        let arrived = Arrival<Response>()
        deferred.start { arrived.set($0) }
        return arrived.wait(seconds: seconds) ?? Response(status: 596, body: Array("answered later".utf8))
    }

    /// `deferred` as ready if its response comes within `seconds`, else still deferred: its
    /// response is kept for whoever starts it.
    private static func settled(_ deferred: DeferredResponse, within seconds: Double) -> Reply {
        let arrived = Arrival<Response>()
        let reply = Reply.eventually { settle in
            deferred.start { response in
                settle(.ready(response))
                arrived.set(response)
            }
        }
        if let response = arrived.wait(seconds: seconds) { return .ready(response) }
        return reply
    }

    /// The header phase of a request that announces a body: the refusal's status, or nil when
    /// the server would go on to read the body.
    func admit(_ method: String, _ path: String, headers: [(String, String)] = []) -> Int? {
        let request = Request(method: method, path: path, headers: HTTPHeaders(headers + [("Content-Length", "8000000")]))
        do {
            var context = RequestContext(requestID: "test")
            _ = try application.responder.admit(request, context: &context)
            return nil
        } catch let problem as Problem {
            return problem.status
        } catch {
            return 599
        }
    }

    /// Everything the store holds, for scans that prove a value is nowhere: the SQLite files
    /// (database, WAL, shared memory) byte for byte, or every row of every PostgreSQL table as
    /// text and then every `bytea` value as its own bytes (a row's text shows those as hex, where
    /// a scan for a value in clear would never find it).
    func storedBytes() throws -> [UInt8] {
        switch database.url {
        case .sqlite(let path):
            return ["", "-wal", "-shm"].flatMap { Array(FileManager.default.contents(atPath: path + $0) ?? Data()) }
        case .postgres:
            let db = application.database
            let tables = try db.query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
            var bytes: [UInt8] = []
            for table in tables {
                let name = try table.string("tablename")
                for row in try db.query("SELECT t::text AS row FROM \(unsafeSQL: name) t") { bytes += Array((try row.string("row") + "\n").utf8) }
            }
            let binary = try db.query("""
                SELECT table_name, column_name FROM information_schema.columns
                WHERE table_schema = current_schema() AND data_type = 'bytea'
                """)
            for column in binary {
                let (table, name) = (try column.string("table_name"), try column.string("column_name"))
                for row in try db.query("SELECT \(unsafeSQL: name) AS value FROM \(unsafeSQL: table) WHERE \(unsafeSQL: name) IS NOT NULL") {
                    bytes += try row.blob("value") + [10]
                }
            }
            return bytes
        }
    }

    func close() {
        application.close()
        database.remove()
    }
}


import CLibPQ
import Foundation

/// Change notifications across processes through PostgreSQL `LISTEN/NOTIFY`. Publishing is a
/// `pg_notify` on the pool; listening holds one dedicated connection (it cannot be shared, and
/// does not work through PgBouncer in transaction mode) on a thread of its own, reconnecting
/// after a failure and then telling subscribers that anything may have changed.
///
/// `@unchecked Sendable`: `stopped` is guarded by `lock`; the connection is touched only by
/// the listener thread.
public final class PostgresChangeFeed: ChangeFeed, @unchecked Sendable {
    public static let channel = "hosted_changes"
    private let url: String
    private let database: any Database
    private let local = LocalChangeFeed()
    private let lock = NSLock()
    private var stopped = false
    private let ready = DispatchSemaphore(value: 0)

    public init(url: String, database: any Database) {
        self.url = url
        self.database = database
        let thread = Thread { [weak self] in self?.run() }
        thread.name = "hosted-listen"
        thread.start()
        // Wait (briefly) for LISTEN to be in place, so a change right after start is not missed.
        _ = ready.wait(timeout: .now() + 5)
    }

    public func publish(_ key: String) {
        // A lost notification only delays a long-poll until its timeout; never fail the change.
        _ = try? database.query("SELECT pg_notify(\(Self.channel), \(key))")
    }

    public func subscribe(_ handler: @escaping @Sendable (String?) -> Void) {
        local.subscribe(handler)
    }

    /// The listener thread notices within half a second and closes its connection.
    public func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    private func run() {
        var signalledReady = false
        while !isStopped {
            // libpq allocates a connection object even when connecting fails: it is freed on
            // every path (a failed attempt every half second would otherwise leak ~12 KB each).
            let attempt = PQconnectdb(url)
            defer { if let attempt { PQfinish(attempt) } }
            if let connection = attempt, PQstatus(connection) == CONNECTION_OK {
                let result = PQexec(connection, "LISTEN \(Self.channel)")
                let listening = PQresultStatus(result) == PGRES_COMMAND_OK
                PQclear(result)
                if listening {
                    if !signalledReady { ready.signal(); signalledReady = true }
                    local.deliver(nil)  // anything may have changed while we were not listening
                    listen(on: connection)
                }
            } else {
                if !signalledReady { ready.signal(); signalledReady = true }
            }
            if !isStopped { usleep(500_000) }
        }
    }

    /// Delivers notifications until the connection fails or the feed stops.
    private func listen(on connection: OpaquePointer) {
        let socket = PQsocket(connection)
        while !isStopped {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 500)
            if ready < 0 && errno != EINTR { return }
            guard PQconsumeInput(connection) == 1 else { return }
            while let notification = PQnotifies(connection) {
                let payload = String(cString: notification.pointee.extra)
                PQfreemem(notification)
                local.deliver(payload)
            }
            if PQstatus(connection) != CONNECTION_OK { return }
        }
    }
}

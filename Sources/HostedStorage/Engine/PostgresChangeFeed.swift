import CLibPQ
import Foundation

/// Change notifications across processes through PostgreSQL `LISTEN/NOTIFY`. Publishing is a
/// `pg_notify` on the pool; listening holds one dedicated connection (it cannot be shared, and
/// does not work through PgBouncer in transaction mode) on a thread of its own, reconnecting
/// after a failure and then telling subscribers that anything may have changed.
///
/// `stop()` wakes the listener and returns once its thread has closed the connection, so no
/// subscriber is called after it (a process that exits with the listener still running can
/// have it call into what is being torn down).
///
/// `@unchecked Sendable`: `stopped` is guarded by `lock`; the connection is
/// touched only by the listener thread; the wake pipe's ends are fixed at init.
public final class PostgresChangeFeed: ChangeFeed, @unchecked Sendable {
    public static let channel = "hosted_changes"
    private let url: String
    private let database: any Database
    private let local = LocalChangeFeed()
    private let lock = NSLock()
    private var stopped = false
    private let ready = DispatchSemaphore(value: 0)
    /// Signalled when the listener thread is done.
    private let finished = DispatchSemaphore(value: 0)
    /// Written once by `stop()`; the listener polls the read end beside its connection. Both
    /// are -1 if no pipe could be made: poll(2) ignores a negative descriptor, so the listener
    /// then notices `stop()` at its next half-second timeout instead.
    private let wake: (read: Int32, write: Int32)

    public init(url: String, database: any Database) {
        self.url = url
        self.database = database
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            wake = (ends[0], ends[1])
        } else {
            wake = (-1, -1)
        }
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

    /// Wakes the listener thread and waits (up to 5 s) until it has closed its connection.
    public func stop() {
        lock.lock()
        let first = !stopped
        stopped = true
        lock.unlock()
        guard first else { return }
        if wake.write >= 0 {
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
        }
        _ = finished.wait(timeout: .now() + 5)
    }

    deinit {
        if wake.read >= 0 { close(wake.read) }
        if wake.write >= 0 { close(wake.write) }
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopped
    }

    private func run() {
        defer { finished.signal() }
        var signalledReady = false
        while !isStopped {
            // libpq allocates a connection object even when connecting fails: it is freed on
            // every path (a failed attempt every half second would otherwise leak ~12 KB each).
            let attempt = PQconnectdb(PostgresConnection.target(url))
            defer { if let attempt { PQfinish(attempt) } }
            if let connection = attempt, PQstatus(connection) == CONNECTION_OK {
                // The server's goodbye ("terminating connection due to immediate shutdown") is
                // not ours to print on the log's standard error.
                PQsetNoticeProcessor(connection, { _, _ in }, nil)
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
            if !isStopped { pause(milliseconds: 500) }
        }
    }

    /// Delivers notifications until the connection fails or the feed stops.
    private func listen(on connection: OpaquePointer) {
        let socket = PQsocket(connection)
        while !isStopped {
            var descriptors = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, 2, 500)
            if ready < 0 && errno != EINTR { return }
            if isStopped { return }
            guard PQconsumeInput(connection) == 1 else { return }
            while let notification = PQnotifies(connection) {
                let payload = String(cString: notification.pointee.extra)
                PQfreemem(notification)
                local.deliver(payload)
            }
            if PQstatus(connection) != CONNECTION_OK { return }
        }
    }

    /// Sleeps up to `milliseconds`, ending early when `stop()` wakes the thread.
    private func pause(milliseconds: Int32) {
        var descriptor = pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, milliseconds)
    }
}

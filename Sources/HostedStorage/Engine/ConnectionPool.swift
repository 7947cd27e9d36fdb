import Dispatch
import Foundation

/// A fixed-size pool of connections shared by both stores. At most `size` connections exist;
/// a caller waits (up to `acquireTimeout`) for a free one. A connection that reports it was lost
/// is dropped and replaced, so the pool heals after the database server restarts.
///
/// A thread gets back the idle connection it used last when there is one, else the most
/// recently checked-in one: with one connection per worker (the default) each worker keeps its
/// own database session, as `bench/min-poll.c` does. Measured on the poll (docs/performance.md):
/// voluntary context switches per poll fell from 0.63–0.76 to 0.51–0.59.
///
/// `@unchecked Sendable`: the mutable `idle` list and `created` count are touched only while
/// holding `lock`, and each connection is handed to one caller at a time.
final class ConnectionPool<Connection: DatabaseConnection>: @unchecked Sendable {
    private let size: Int
    private let open: () throws(DatabaseError) -> Connection
    private let slots: DispatchSemaphore
    private let lock = NSLock()
    /// Idle connections, each with the thread that last checked it in.
    private var idle: [(connection: Connection, thread: pthread_t)] = []
    private let acquireTimeout: DispatchTimeInterval
    private var inUse = 0
    private var waiting = 0

    init(size: Int, acquireTimeout: DispatchTimeInterval = .seconds(10),
         open: @escaping () throws(DatabaseError) -> Connection) {
        self.size = max(1, size)
        self.open = open
        self.slots = DispatchSemaphore(value: self.size)
        self.acquireTimeout = acquireTimeout
    }

    /// Runs `body` with a connection. Pooled connections the server has closed are dropped before
    /// use. A connection lost *while* `body` runs is not retried here: a statement that was sent
    /// may have been applied (only `transaction` knows when a loss proves nothing committed).
    func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        count(waiting: 1)
        guard slots.wait(timeout: .now() + acquireTimeout) == .success else {
            count(waiting: -1)
            throw DatabaseError.busy
        }
        count(waiting: -1, inUse: 1)
        defer {
            count(inUse: -1)
            slots.signal()
        }
        let connection = try checkOut()
        do {
            let result = try body(connection)
            checkIn(connection)
            return result
        } catch DatabaseError.connectionLost(let message) {
            // Dropped, not checked in: deinit closes it and the next caller opens a new one.
            // The idle ones go too: a loss while in use means the server restarted, failed over
            // or turned read-only, and they were opened to the same server (the peek before use
            // cannot see that a server is now a standby).
            closeAll()
            throw DatabaseError.connectionLost(message: message)
        } catch {
            checkIn(connection)
            throw error
        }
    }

    /// (size, connections in use, callers waiting for one), for metrics.
    var statistics: PoolStatistics {
        lock.lock()
        defer { lock.unlock() }
        return PoolStatistics(size: size, inUse: inUse, waiting: waiting)
    }

    private func count(waiting waitingChange: Int = 0, inUse inUseChange: Int = 0) {
        lock.lock()
        waiting += waitingChange
        inUse += inUseChange
        lock.unlock()
    }

    private func checkOut() throws(DatabaseError) -> Connection {
        let me = pthread_self()
        while true {
            lock.lock()
            let pooled: Connection?
            if let mine = idle.lastIndex(where: { pthread_equal($0.thread, me) != 0 }) {
                pooled = idle.remove(at: mine).connection
            } else {
                pooled = idle.popLast()?.connection
            }
            lock.unlock()
            guard let pooled else { return try open() }
            if pooled.isUsable { return pooled }
            // Closed by the server while idle: dropped (deinit closes it), the next one is tried.
        }
    }

    private func checkIn(_ connection: Connection) {
        let me = pthread_self()
        lock.lock()
        idle.append((connection, me))
        lock.unlock()
    }

    func closeAll() {
        lock.lock()
        idle.removeAll()
        lock.unlock()
    }
}

extension ConnectionPool {
    /// Runs `body` between `begin` and COMMIT, rolling back when it throws. A connection lost
    /// before COMMIT was sent proves the server rolled the work back, so it runs once more on a
    /// fresh connection; one lost during COMMIT leaves the outcome unknown, so it is never re-run
    /// (a re-run would duplicate what may have committed) and the caller gets `connectionLost`.
    func transaction<T>(begin: String, _ body: (Connection) throws -> T) throws -> T {
        var commitSent = false
        do {
            return try attempt(begin: begin, commitSent: &commitSent, body)
        } catch DatabaseError.connectionLost where !commitSent {
            return try attempt(begin: begin, commitSent: &commitSent, body)
        }
    }

    private func attempt<T>(begin: String, commitSent: inout Bool, _ body: (Connection) throws -> T) throws -> T {
        try withConnection { connection in
            let result: T
            do {
                try connection.executeScript(begin)
                result = try body(connection)
            } catch {
                // A failed rollback on a lost connection is expected; the original error matters.
                try? connection.executeScript("ROLLBACK")
                throw error
            }
            commitSent = true
            do {
                try connection.executeScript("COMMIT")
            } catch DatabaseError.connectionLost(let message) {
                throw DatabaseError.connectionLost(message: "during COMMIT, outcome unknown: " + message)
            } catch {
                try? connection.executeScript("ROLLBACK")
                throw error
            }
            return result
        }
    }
}

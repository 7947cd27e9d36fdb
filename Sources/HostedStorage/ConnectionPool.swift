import Dispatch
import Foundation

/// A fixed-size pool of connections shared by both stores. At most `size` connections exist;
/// a caller waits (up to `acquireTimeout`) for a free one. A connection that reports it was lost
/// is dropped and replaced, so the pool heals after the database server restarts.
///
/// `@unchecked Sendable`: the mutable `idle` list and `created` count are touched only while
/// holding `lock`, and each connection is handed to one caller at a time.
final class ConnectionPool<Connection: DatabaseConnection>: @unchecked Sendable {
    private let size: Int
    private let open: () throws(DatabaseError) -> Connection
    private let slots: DispatchSemaphore
    private let lock = NSLock()
    private var idle: [Connection] = []
    private let acquireTimeout: DispatchTimeInterval

    init(size: Int, acquireTimeout: DispatchTimeInterval = .seconds(10),
         open: @escaping () throws(DatabaseError) -> Connection) {
        self.size = max(1, size)
        self.open = open
        self.slots = DispatchSemaphore(value: self.size)
        self.acquireTimeout = acquireTimeout
    }

    /// Runs `body` with a connection. If the connection turns out to be lost (server restart), it
    /// is discarded and `body` runs once more on a fresh connection: a lost connection means the
    /// statement or transaction never committed from our side.
    func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        do {
            return try withOneConnection(body)
        } catch DatabaseError.connectionLost {
            return try withOneConnection(body)
        }
    }

    private func withOneConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        guard slots.wait(timeout: .now() + acquireTimeout) == .success else {
            throw DatabaseError.busy
        }
        defer { slots.signal() }
        let connection = try checkOut()
        do {
            let result = try body(connection)
            checkIn(connection)
            return result
        } catch DatabaseError.connectionLost(let message) {
            // Dropped, not checked in: deinit closes it and the next caller opens a new one.
            throw DatabaseError.connectionLost(message: message)
        } catch {
            checkIn(connection)
            throw error
        }
    }

    private func checkOut() throws(DatabaseError) -> Connection {
        lock.lock()
        let pooled = idle.popLast()
        lock.unlock()
        if let pooled { return pooled }
        return try open()
    }

    private func checkIn(_ connection: Connection) {
        lock.lock()
        idle.append(connection)
        lock.unlock()
    }

    func closeAll() {
        lock.lock()
        idle.removeAll()
        lock.unlock()
    }
}

extension ConnectionPool {
    /// Runs `body` between `begin` and COMMIT, rolling back when it throws.
    func transaction<T>(begin: String, _ body: (Connection) throws -> T) throws -> T {
        try withConnection { connection in
            try connection.executeScript(begin)
            do {
                let result = try body(connection)
                try connection.executeScript("COMMIT")
                return result
            } catch {
                // A failed rollback on a lost connection is expected; the original error matters.
                try? connection.executeScript("ROLLBACK")
                throw error
            }
        }
    }
}

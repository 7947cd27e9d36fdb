import Foundation
import HostedStorage
import HostedTestSupport
import Testing

/// The listener of `LISTEN/NOTIFY` across processes, on a real PostgreSQL server.
@Suite struct PostgresChangeFeedTests {
    /// `serve` stops the feed just before the process exits: once `stop()` returns, the listener
    /// thread must be done, so that no notification reaches a subscriber of an application being
    /// torn down. A listener still polling would deliver a change published after `stop()` at
    /// once (its poll wakes on the notification).
    @Test func stopReturnsOnlyOnceTheListenerHasLetGo() throws {
        guard Backend.postgres.isAvailable, let base = Backend.postgresURL else { return }
        let tag = UUID().uuidString.lowercased()
        let name = "feed-test-" + tag.prefix(8)
        let database = try PostgresDatabase(url: base, poolSize: 1)
        defer { database.close() }
        let feed = PostgresChangeFeed(url: base + (base.contains("?") ? "&" : "?") + "application_name=\(name)",
                                      database: database)
        let heard = Heard()
        feed.subscribe { heard.add($0) }

        feed.publish("before-" + tag)
        #expect(eventually(within: 5) { heard.contains("before-" + tag) }, "the listener never heard a change")

        feed.stop()
        feed.publish("after-" + tag)
        // Absence can only be shown by waiting: longer than the listener's 500 ms poll.
        usleep(800_000)
        #expect(!heard.contains("after-" + tag), "a change reached a subscriber after stop() returned")
        let gone = try eventually(within: 5, pause: 0.02) {
            try database.query("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = \(String(name))")[0].int("n") == 0
        }
        #expect(gone, "the listener's connection is still open")
        feed.stop()  // a second stop returns at once
    }
}

/// What a subscriber was told, from the listener's thread.
private final class Heard: @unchecked Sendable {
    private let lock = NSLock()
    private var keys: [String?] = []

    func add(_ key: String?) {
        lock.lock()
        keys.append(key)
        lock.unlock()
    }

    func contains(_ key: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return keys.contains(key)
    }
}

import Dispatch
import Foundation
import HostedStorage
import Testing

/// A worker thread gets back the connection it used last when that one is idle, as a loop with
/// one connection per thread would: the same database session answers the same worker (on
/// PostgreSQL, the same server process), instead of whichever connection was checked in last.
@Suite struct PoolAffinityTests {
    /// What the two threads saw, each slot written by one thread and read after both are done.
    final class Seen: @unchecked Sendable {
        var worker: ObjectIdentifier?, helper: ObjectIdentifier?, workerAgain: ObjectIdentifier?
        /// A wait that timed out, per thread: the worker, the helper, the test.
        var timedOut = [false, false, false]
    }

    @Test(arguments: Backend.allCases)
    func aThreadGetsBackItsOwnConnectionNotTheLastCheckedIn(_ backend: Backend) throws {
        try TestDatabase.with(backend, poolSize: 2) { (db: any Database) throws in
            let seen = Seen()
            let workerHolds = DispatchSemaphore(value: 0), helperHolds = DispatchSemaphore(value: 0)
            let workerReturned = DispatchSemaphore(value: 0), helperReturned = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            @Sendable func wait(_ semaphore: DispatchSemaphore, _ thread: Int) {
                if semaphore.wait(timeout: .now() + 30) == .timedOut { seen.timedOut[thread] = true }
            }
            // Both threads hold a connection at once. The worker checks its one in first, the
            // helper its one after, so the helper's is the most recent idle connection; then the
            // worker asks again.
            Thread.detachNewThread {
                _ = try? db.withConnection { connection in
                    seen.worker = ObjectIdentifier(connection as AnyObject)
                    workerHolds.signal()
                    wait(helperHolds, 0)
                }
                workerReturned.signal()
                wait(helperReturned, 0)
                _ = try? db.withConnection { connection in seen.workerAgain = ObjectIdentifier(connection as AnyObject) }
                finished.signal()
            }
            Thread.detachNewThread {
                _ = try? db.withConnection { connection in
                    seen.helper = ObjectIdentifier(connection as AnyObject)
                    helperHolds.signal()
                    wait(workerHolds, 1)
                    wait(workerReturned, 1)
                }
                helperReturned.signal()
                finished.signal()
            }
            wait(finished, 2)
            wait(finished, 2)
            #expect(seen.timedOut == [false, false, false])
            let worker = try #require(seen.worker), helper = try #require(seen.helper)
            #expect(worker != helper)
            #expect(seen.workerAgain == worker)
        }
    }
}

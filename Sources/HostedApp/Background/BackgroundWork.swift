import Dispatch
import Foundation
import HostedCore
import HostedObservability
import HostedStorage

/// The work every `serve` process does besides answering requests: sending queued SMS, and
/// every `sweepInterval` the lifecycle sweeps (expiry, retention) and pruning of internal tables.
/// Safe with any number of processes: the SMS queue is claimed row by row (`FOR UPDATE SKIP
/// LOCKED` and a lease), each expiry or redaction is one transaction on a row lock that other
/// processes skip, and pruning deletes only what no process needs. One thread, woken at once
/// when this process queues a message, else every second.
///
/// `@unchecked Sendable`: `lastSweep` is only touched while holding `lock`; the thread is the
/// only caller of `runOnce` while it runs.
final class BackgroundWork: @unchecked Sendable {
    let sms: SMSDelivery
    let verifications: VerificationStore
    let pruning: PruningStore
    let clock: any WallClock
    let log: any ServerLog
    let sweepInterval: TimeInterval
    /// The object store's orphans and queued deletions (nil with the database artifact store).
    let artifactSweep: (@Sendable (Date) throws -> Void)?

    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let thread = ServiceThread(name: "hosted.background")
    private let lock = NSLock()
    private var lastSweep: Date?

    init(sms: SMSDelivery, verifications: VerificationStore, pruning: PruningStore, clock: any WallClock, log: any ServerLog,
         sweepInterval: TimeInterval, artifactSweep: (@Sendable (Date) throws -> Void)? = nil) {
        self.sms = sms
        self.verifications = verifications
        self.pruning = pruning
        self.clock = clock
        self.log = log
        self.sweepInterval = sweepInterval
        self.artifactSweep = artifactSweep
    }

    /// Starts the thread (once).
    func start() {
        thread.start { [self] in loop() }
    }

    /// Stops the thread after the pass in progress.
    func stop() {
        guard thread.stop() else { return }
        wake.signal()
        _ = finished.wait(timeout: .now() + 10)
    }

    /// Something was queued here: send it now rather than at the next tick.
    func nudge() { wake.signal() }

    /// One pass: what is due is sent, and pruning runs if its interval has passed. Tests call
    /// this directly instead of starting the thread.
    func runOnce() {
        while sms.deliverDue() > 0 {}
        let now = clock.now()
        lock.lock()
        let due = lastSweep.map { now.timeIntervalSince($0) >= sweepInterval } ?? true
        if due { lastSweep = now }
        lock.unlock()
        if due { sweep(now) }
    }

    /// Expires and redacts what is due and deletes test data past its seven days (in batches,
    /// until none is left), then deletes what no process needs any more. A failure is logged and
    /// the next sweep tries again.
    func sweep(_ now: Date) {
        do {
            while try verifications.expireDue(at: now, limit: Self.batch, pace: Self.pace) == Self.batch {}
            while try verifications.redactDue(at: now, limit: Self.batch, pace: Self.pace,
                                              { try $0.apply(.redacted, at: now, by: .system) }) == Self.batch {}
            // Test data lives seven days (docs/test-mode.md).
            while try verifications.deleteTestData(at: now, limit: Self.batch) == Self.batch {}
            _ = try pruning.prune(at: now)
        } catch {
            log.error("sweep: \(String(reflecting: error))", requestID: nil)
        }
        // Apart: an object store that is down must not hold up expiry, redaction or pruning.
        do {
            try artifactSweep?(now)
        } catch {
            log.error("sweep: artifact objects: \(String(reflecting: error))", requestID: nil)
        }
    }

    static let batch = 100

    /// After each verification the sweep expires or redacts, a pause four times as long as it
    /// took (at most 20 ms): a backlog (10,000 falling due at once) takes at most about a fifth of
    /// a core, and the requests served meanwhile keep their latency (twice as long a pause, a
    /// third of a core, still tripled the poll's p99 at a million: docs/performance.md); the
    /// pass takes five times as long, about a minute for 10,000. Reads never show an open
    /// verification past its time whatever the sweep's pace (they expire it first), so only the
    /// webhook of an expiry comes later.
    static func pace(_ elapsed: TimeInterval) {
        let pause = min(max(elapsed, 0) * 4, 0.02)
        if pause > 0 { usleep(UInt32(pause * 1_000_000)) }
    }

    private func loop() {
        while thread.isRunning {
            runOnce()
            _ = wake.wait(timeout: .now() + 1)
        }
        finished.signal()
    }
}

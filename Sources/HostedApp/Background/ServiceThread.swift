import Foundation

/// A named thread for a loop that runs until it is stopped: the start-once and stop-once
/// bookkeeping that the background work and the webhook dispatcher share. The loop asks
/// `isRunning` between passes; whoever calls `stop()` then wakes the loop and waits for it in
/// its own way.
///
/// `@unchecked Sendable`: `running` and `started` are only touched while holding `lock`.
final class ServiceThread: @unchecked Sendable {
    private let name: String
    private let lock = NSLock()
    private var running = false
    private var started = false

    init(name: String) {
        self.name = name
    }

    /// Runs `loop` on a new thread, the first time only.
    func start(_ loop: @escaping @Sendable () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        guard !started else { return }
        started = true
        running = true
        let thread = Thread(block: loop)
        thread.name = name
        thread.start()
    }

    /// False once `stop()` has been called.
    var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    /// Asks the loop to end after its pass; true when it was running (so the caller should wake
    /// it and wait), false when it never started or was already stopped.
    func stop() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let wasRunning = running
        running = false
        return wasRunning
    }
}

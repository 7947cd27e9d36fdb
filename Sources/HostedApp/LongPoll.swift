import Dispatch
import Foundation
import HostedHTTP
import HostedStorage

/// Long-polls waiting for objects to change. A waiter is re-checked whenever the change feed
/// names its key (or says "anything may have changed"), and answered when its check returns a
/// response or when its time is up. Checks run on a private concurrent queue, never on an HTTP
/// worker or Swift's cooperative pool.
///
/// `@unchecked Sendable`: `waiters` and `closed` are only touched while holding `lock`.
final class LongPoll: @unchecked Sendable {
    /// One waiting request.
    final class Waiter: @unchecked Sendable {  // `done` is only touched under the registry's lock
        let key: String
        /// Returns a response if the object changed, nil to keep waiting.
        let check: @Sendable () -> Response?
        /// The answer when time is up.
        let timeout: @Sendable () -> Response
        let complete: @Sendable (Response) -> Void
        var done = false

        init(key: String, check: @escaping @Sendable () -> Response?, timeout: @escaping @Sendable () -> Response,
             complete: @escaping @Sendable (Response) -> Void) {
            self.key = key
            self.check = check
            self.timeout = timeout
            self.complete = complete
        }
    }

    private let lock = NSLock()
    private var waiters: [String: [Waiter]] = [:]
    private var closed = false
    private let queue = DispatchQueue(label: "hosted.long-poll", attributes: .concurrent)

    init(feed: any ChangeFeed) {
        feed.subscribe { [weak self] key in self?.changed(key) }
    }

    /// Registers a waiter; `check` runs once right away (closing the gap between the caller's
    /// read and the registration).
    func wait(key: String, seconds: Int, check: @escaping @Sendable () -> Response?,
              timeout: @escaping @Sendable () -> Response, complete: @escaping @Sendable (Response) -> Void) {
        let waiter = Waiter(key: key, check: check, timeout: timeout, complete: complete)
        lock.lock()
        let isClosed = closed
        if !isClosed { waiters[key, default: []].append(waiter) }
        lock.unlock()
        if isClosed {
            complete(timeout())
            return
        }
        queue.async { self.recheck(waiter) }
        queue.asyncAfter(deadline: .now() + .seconds(seconds)) { self.finish(waiter, with: waiter.timeout) }
    }

    /// Answers every waiter now with its timeout answer (server shutdown), and refuses new ones.
    func closeAll() {
        lock.lock()
        closed = true
        let all = waiters.values.flatMap { $0 }
        lock.unlock()
        for waiter in all { finish(waiter, with: waiter.timeout) }
    }

    private func changed(_ key: String?) {
        lock.lock()
        let affected = key.map { waiters[$0] ?? [] } ?? waiters.values.flatMap { $0 }
        lock.unlock()
        for waiter in affected { queue.async { self.recheck(waiter) } }
    }

    private func recheck(_ waiter: Waiter) {
        guard isPending(waiter), let response = waiter.check() else { return }
        finish(waiter) { response }
    }

    private func isPending(_ waiter: Waiter) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return !waiter.done
    }

    private func finish(_ waiter: Waiter, with response: () -> Response) {
        lock.lock()
        guard !waiter.done else {
            lock.unlock()
            return
        }
        waiter.done = true
        waiters[waiter.key]?.removeAll { $0 === waiter }
        if waiters[waiter.key]?.isEmpty == true { waiters[waiter.key] = nil }
        lock.unlock()
        waiter.complete(response())
    }
}

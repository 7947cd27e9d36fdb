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
        /// Who holds the slot (an account, a client address): each may hold `limit` at once.
        let owners: [String]
        var done = false

        init(key: String, owners: [String], check: @escaping @Sendable () -> Response?, timeout: @escaping @Sendable () -> Response,
             complete: @escaping @Sendable (Response) -> Void) {
            self.key = key
            self.owners = owners
            self.check = check
            self.timeout = timeout
            self.complete = complete
        }
    }

    private let lock = NSLock()
    private var waiters: [String: [Waiter]] = [:]
    /// Slots held per owner. A suspended connection cannot tell that its client went away, so
    /// a slot is held until its answer or its timeout; this bound is what keeps one account or
    /// one address from holding them all.
    private var held: [String: Int] = [:]
    private var closed = false
    private let queue = DispatchQueue(label: "hosted.long-poll", attributes: .concurrent)
    /// Most waiters one owner may hold at once.
    let limitPerOwner: Int

    init(feed: any ChangeFeed, limitPerOwner: Int = 64) {
        self.limitPerOwner = limitPerOwner
        feed.subscribe { [weak self] key in self?.changed(key) }
    }

    /// Takes a slot for each owner, or none and false when one of them holds its limit already.
    func reserve(owners: [String]) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard owners.allSatisfy({ held[$0, default: 0] < limitPerOwner }) else { return false }
        for owner in owners { held[owner, default: 0] += 1 }
        return true
    }

    private func releaseSlots(_ owners: [String]) {  // under `lock`
        for owner in owners {
            let left = held[owner, default: 1] - 1
            held[owner] = left > 0 ? left : nil
        }
    }

    /// Registers a waiter whose slots `reserve(owners:)` took; `check` runs once right away
    /// (closing the gap between the caller's read and the registration).
    func wait(key: String, owners: [String], seconds: Int, check: @escaping @Sendable () -> Response?,
              timeout: @escaping @Sendable () -> Response, complete: @escaping @Sendable (Response) -> Void) {
        let waiter = Waiter(key: key, owners: owners, check: check, timeout: timeout, complete: complete)
        lock.lock()
        let isClosed = closed
        if isClosed { releaseSlots(owners) } else { waiters[key, default: []].append(waiter) }
        lock.unlock()
        if isClosed {
            complete(timeout())
            return
        }
        queue.async { self.recheck(waiter) }
        queue.asyncAfter(deadline: .now() + .seconds(seconds)) { self.finish(waiter, with: waiter.timeout) }
    }

    /// Long-polls waiting now.
    var waiting: Int {
        lock.lock()
        defer { lock.unlock() }
        return waiters.values.reduce(0) { $0 + $1.count }
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
        releaseSlots(waiter.owners)
        waiters[waiter.key]?.removeAll { $0 === waiter }
        if waiters[waiter.key]?.isEmpty == true { waiters[waiter.key] = nil }
        lock.unlock()
        waiter.complete(response())
    }
}

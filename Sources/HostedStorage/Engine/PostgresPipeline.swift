import Foundation

/// Single statements from many requests, sent on one connection without waiting for each
/// answer (libpq's pipeline mode). A request hands its statement over and its worker thread
/// moves on; one thread sends whatever has been handed over since its last look as one batch,
/// reads the answers as they come and calls each statement's completion, on that thread.
///
/// Why: a worker that waits for its own answer makes PostgreSQL wake up, answer and sleep once
/// per statement, and makes the worker sleep and wake once too; on two cores those wake-ups
/// cost as much as the statement (docs/performance.md, "One connection, many statements in
/// flight"). A batch of 20 polls costs one wake-up on each side.
///
/// What a batch means for transactions:
/// - Reads share one sync point (one implicit transaction, each statement with its own snapshot
///   as always in READ COMMITTED); they take no locks, so sharing costs nothing.
/// - A statement that writes gets a sync point of its own right after it, so its locks are
///   held for no longer than alone, and it commits on its own.
/// - A statement that fails aborts those after it up to the next sync point; they were not
///   run, so they are sent again in the next batch (up to `maximumAttempts` times).
/// - A write the server refuses as read-only (SQLSTATE 25006: it is no longer the primary after a
///   failover) was not applied: it is sent again on a new connection, which libpq's
///   `target_session_attrs=read-write` opens on the new primary.
/// - A lost connection fails every statement in flight with `connectionLost` (a write may or
///   may not have been applied, as for a statement on a pooled connection) and the next batch
///   opens a new connection. One the server ended while nothing was in flight is noticed before
///   the next batch is sent (`PostgresConnection.isUsable`) and replaced: nothing fails.
///
/// `@unchecked Sendable`: `queued`, `sleeping`, `stopped`, the thread's existence and the
/// counts are guarded by `lock`; the connection and `inFlight` are touched only by the
/// pipeline's thread; the wake pipe's ends are fixed at init.
final class PostgresPipeline: @unchecked Sendable {
    typealias Completion = @Sendable (Result<[Row], DatabaseError>) -> Void

    /// A statement handed over, with its completion.
    struct Job {
        let text: String
        let bindings: [SQLValue]
        let writes: Bool
        let completion: Completion
        var attempts = 0
    }

    /// What the next results in the connection belong to, in the order they were sent.
    private enum Awaited {
        case statement(Job, name: String)
        case prepare(text: String, name: String)
        case sync
    }

    /// How often a statement aborted by another one's failure is sent again.
    static let maximumAttempts = 3

    /// Statements and batches sent so far (for tests and the docs' measurements).
    struct Counts: Equatable, Sendable {
        var statements = 0
        var batches = 0
        /// Statements sent again because another one's failure aborted them.
        var retried = 0
    }

    private let open: () throws(DatabaseError) -> PostgresConnection
    private let lock = NSLock()
    private var queued: [Job] = []
    /// True while the thread waits with nothing in flight: a new job must wake it.
    private var sleeping = false
    private var stopped = false
    private var started = false
    private var counts = Counts()
    private let finished = DispatchSemaphore(value: 0)
    private let wake: (read: Int32, write: Int32)

    // The pipeline thread's own.
    private var connection: PostgresConnection?
    private var inFlight: [Awaited] = []
    private var nextAwaited = 0
    /// The current statement's result, read before the end of its results.
    private var pendingResult: PostgresConnection.PipelineResult?
    /// Why the prepare just before the current statement failed (the statement is then aborted).
    private var failedPrepare: DatabaseError?
    private var unflushed = false

    init(open: @escaping () throws(DatabaseError) -> PostgresConnection) {
        self.open = open
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
            wake = (ends[0], ends[1])
        } else {
            wake = (-1, -1)
        }
    }

    deinit {
        if wake.read >= 0 { close(wake.read) }
        if wake.write >= 0 { close(wake.write) }
    }

    /// Hands `text` over; `completion` is called once, on the pipeline's thread (or at once with
    /// an error if the pipeline has stopped).
    func submit(_ text: String, bindings: [SQLValue], writes: Bool, completion: @escaping Completion) {
        let job = Job(text: text, bindings: bindings, writes: writes, completion: completion)
        lock.lock()
        guard !stopped else {
            lock.unlock()
            completion(.failure(.connectionLost(message: "the database pipeline has stopped")))
            return
        }
        queued.append(job)
        let wakeUp = sleeping
        sleeping = false
        let start = !started
        started = true
        lock.unlock()
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "hosted-pipeline"
            thread.start()
        } else if wakeUp {
            signal()
        }
    }

    /// Stops the thread (waiting up to 5 s for it); statements handed over and not answered
    /// fail with `connectionLost`.
    func stop() {
        lock.lock()
        let wasRunning = started && !stopped
        stopped = true
        lock.unlock()
        guard wasRunning else { return }
        signal()
        _ = finished.wait(timeout: .now() + 5)
    }

    var statistics: Counts {
        lock.lock()
        defer { lock.unlock() }
        return counts
    }

    private func signal() {
        guard wake.write >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    // MARK: - The pipeline's thread

    private func run() {
        defer { finished.signal() }
        var batch: [Job] = []
        while true {
            lock.lock()
            if stopped {
                let left = queued
                queued = []
                lock.unlock()
                fail(left, with: .connectionLost(message: "the database pipeline has stopped"))
                dropConnection(.connectionLost(message: "the database pipeline has stopped"))
                return
            }
            swap(&batch, &queued)
            sleeping = batch.isEmpty && nextAwaited == inFlight.count
            if !batch.isEmpty { counts.batches += 1; counts.statements += batch.count }
            lock.unlock()
            if !batch.isEmpty {
                send(batch)
                batch.removeAll(keepingCapacity: true)
                // Nothing went out (no connection could be opened): look again at once, since
                // nobody wakes a thread that did not say it sleeps.
                if nextAwaited == inFlight.count { continue }
            }
            waitForWork()
        }
    }

    /// Sends `batch`: a sync point after each write and at the end.
    private func send(_ batch: [Job]) {
        // An idle connection the server has ended (a restart, a failover) is replaced before
        // anything is sent on it: nothing was in flight, so nothing need fail. With statements in
        // flight the peek would see their answers; a loss then fails those, as it must.
        if let current = self.connection, nextAwaited == inFlight.count, !current.isUsable {
            dropConnection(.connectionLost(message: "closed by the server while idle"))
        }
        // A server that refused a write as read-only is sent nothing more: the batch waits until
        // what is in flight on it is answered, then goes on a new connection.
        if let current = self.connection, current.refusedWrite, nextAwaited < inFlight.count {
            lock.lock()
            queued.insert(contentsOf: batch, at: 0)
            lock.unlock()
            return
        }
        let connection: PostgresConnection
        if let current = self.connection {
            connection = current
        } else {
            do {
                connection = try open()
                try connection.enterPipelineMode()
                self.connection = connection
            } catch {
                fail(batch, with: error)
                return
            }
        }
        /// The first job of the batch that is neither in flight nor answered.
        var unsent = 0
        do throws(DatabaseError) {
            for job in batch {
                let name: String, preparing: Bool
                do throws(DatabaseError) {
                    (name, preparing) = try connection.send(job.text, bindings: job.bindings)
                } catch {
                    // A value the store cannot take (a NUL in text) is refused before anything
                    // is sent: that statement fails alone.
                    guard case .invalidValue = error else { throw error }
                    unsent += 1
                    job.completion(.failure(error))
                    continue
                }
                if preparing { inFlight.append(.prepare(text: job.text, name: name)) }
                inFlight.append(.statement(job, name: name))
                unsent += 1
                if job.writes {
                    try connection.sync()
                    inFlight.append(.sync)
                }
            }
            if case .sync? = inFlight.last {} else {
                try connection.sync()
                inFlight.append(.sync)
            }
            unflushed = !(try connection.flush())
        } catch {
            // Nothing more will come on this connection: every statement in flight on it fails,
            // and so do those of this batch not sent yet.
            dropConnection(error)
            fail(Array(batch[unsent...]), with: error)
        }
    }

    /// Waits until results arrive (when some are awaited) or a job is handed over, then reads
    /// what arrived.
    private func waitForWork() {
        let awaiting = nextAwaited < inFlight.count
        var descriptors = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        if awaiting, let socket = connection?.socket {
            descriptors.append(pollfd(fd: socket, events: Int16(POLLIN) | (unflushed ? Int16(POLLOUT) : 0), revents: 0))
        }
        // With nothing awaited the thread sleeps until a job wakes it (`sleeping`); a pipe that
        // could not be made is looked at every 10 ms instead.
        let ready = poll(&descriptors, nfds_t(descriptors.count), wake.read >= 0 ? -1 : 10)
        if ready < 0 { return }
        if descriptors[0].revents != 0 {
            var bytes = [UInt8](repeating: 0, count: 64)
            while read(wake.read, &bytes, bytes.count) > 0 {}
        }
        if descriptors.count > 1, descriptors[1].revents != 0 { receive() }
    }

    /// Reads the results that have arrived and completes their statements.
    private func receive() {
        guard let connection else { return }
        do {
            if unflushed { unflushed = !(try connection.flush()) }
            try connection.consumeInput()
        } catch {
            dropConnection(error)
            return
        }
        var retry: [Job] = []
        while nextAwaited < inFlight.count, !connection.isBusy {
            switch inFlight[nextAwaited] {
            case .sync:
                // Whatever it is (a sync, or an end after a failure), the point is passed.
                _ = connection.nextResult(of: "")
                nextAwaited += 1
            case .prepare(let text, let name):
                let result = connection.nextResult(of: name)
                guard case .end = result else {
                    switch result {
                    case .rows: break
                    case .failed(let error): failedPrepare = error; connection.forgetPrepared(text)
                    default: connection.forgetPrepared(text)
                    }
                    continue
                }
                nextAwaited += 1
            case .statement(var job, let name):
                let result = connection.nextResult(of: name)
                guard case .end = result else {
                    pendingResult = result
                    continue
                }
                nextAwaited += 1
                switch pendingResult {
                case .rows(let rows): job.completion(.success(rows))
                case .failed where connection.refusedWrite && job.attempts + 1 < Self.maximumAttempts:
                    // A write refused by a server that is no longer the primary was not applied:
                    // it goes again in the next batch, which replaces this connection first.
                    job.attempts += 1
                    retry.append(job)
                case .failed(let error): job.completion(.failure(error))
                case .aborted where failedPrepare != nil: job.completion(.failure(failedPrepare!))
                case .aborted where job.attempts + 1 < Self.maximumAttempts:
                    job.attempts += 1
                    retry.append(job)
                case .aborted, .synced, .end, nil: job.completion(.failure(.serializationFailure))
                }
                pendingResult = nil
                failedPrepare = nil
            }
        }
        if nextAwaited == inFlight.count {
            inFlight.removeAll(keepingCapacity: true)
            nextAwaited = 0
        }
        if !retry.isEmpty {
            lock.lock()
            counts.retried += retry.count
            queued.insert(contentsOf: retry, at: 0)
            lock.unlock()
        }
    }

    /// Fails every statement in flight and closes the connection; the next batch opens another.
    private func dropConnection(_ error: DatabaseError) {
        for case .statement(let job, _) in inFlight.dropFirst(nextAwaited) {
            job.completion(.failure(error))
        }
        inFlight.removeAll()
        nextAwaited = 0
        pendingResult = nil
        failedPrepare = nil
        unflushed = false
        connection = nil
    }

    private func fail(_ jobs: [Job], with error: DatabaseError) {
        for job in jobs { job.completion(.failure(error)) }
    }
}

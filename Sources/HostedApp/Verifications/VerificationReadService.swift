import Foundation
import HostedCore
import HostedHTTP
import HostedObservability
import HostedStorage

/// Reading verifications through the customer API: a poll (`ETag`, `If-None-Match`, long-poll,
/// the per-verification rate limit with this process's leases), a list, and the answer to a
/// repeated create, with the memos that keep them cheap (`ReadMemo`, `RepeatedCreates`).
struct VerificationReadService: Sendable {
    let service: VerificationService
    let store: VerificationStore
    let longPoll: LongPoll
    let verificationJSON: APIObjects.VerificationJSON
    let clock: any WallClock
    /// Polling one verification: `pollRate` requests/s sustained, bursts of `pollBurst`.
    let pollRate: Double
    let pollBurst: Int
    /// Polls this process has taken from the shared buckets and not yet answered.
    let pollLeases: PollLeases
    /// What recent answers sent for a verification (see `ReadMemo`): a verification polled again
    /// unchanged gets the same bytes without writing its JSON again.
    let rendered: ReadMemo<Rendered>
    /// The answers to repeated creates by account and exact body (SQLite only).
    let repeats: RepeatedCreates

    struct Rendered: Sendable {
        let verification: Verification
        let body: [UInt8]
        let etag: String
    }

    /// A ticket for an answer about to be read (see `ReadMemo.ticket(for:)`).
    func ticket() -> ReadMemo<Rendered>.Ticket { rendered.ticket(for: nil) }

    /// `POST /v1/verifications` without an `Idempotency-Key`. A repeat (the customer's retry)
    /// is answered by one read through `Database.submit`, so on PostgreSQL no worker waits for it;
    /// anything else — a new verification, one past its time — is created on a worker thread, as
    /// a keyed create is.
    func createWithoutKey(_ request: Request, context: RequestContext) throws -> Reply {
        let tenancy = try context.tenancy()
        if let now = store.localRead(), let known = repeats.answer(tenancy: tenancy, body: request.body, now: now) {
            return .ready(response(known, status: 200))
        }
        let input = try VerificationRoutes.createInput(request)
        let actor = try context.apiActor()
        let ticket = rendered.ticket(for: nil)
        let log = context.log
        let createNew: @Sendable (_ repeatChecked: Bool) -> Reply = { [self] repeatChecked in
            do {
                let (verification, created) = try service.create(tenancy: tenancy, input, by: actor, repeatChecked: repeatChecked)
                return .ready(respond(verification, status: created ? 201 : 200, ticket: ticket))
            } catch {
                return Self.failed(error, log: log)
            }
        }
        guard let (userID, key) = VerificationService.repeatable(input) else { return createNew(false) }
        let body = request.body
        let repeatTicket = repeats.ticket(tenancy: tenancy, body: body)
        return Reply.eventually { settle in
            service.openForRepeat(tenancy: tenancy, userID: userID, workflowKey: key) { found in
                switch found {
                case .success(let open?):
                    let answer = rendering(open.verification, ticket: ticket)
                    repeats.remember(answer, tenancy: tenancy, body: body, asOf: open.asOf, ticket: repeatTicket)
                    settle(.ready(response(answer, status: 200)))
                case .success(nil): settle(.onWorker { createNew(true) })
                case .failure(let error): settle(Self.failed(error, log: log))
                }
            }
        }
    }

    /// The problem an error of work finished after the handler returned maps to.
    static func failed(_ error: any Error, log: RequestLog) -> Reply {
        .ready(ErrorBoundary.problem(for: error, log: log).response)
    }

    /// The verification as JSON, with its ETag. With a `ticket` (taken before the verification
    /// was read), what is written is kept for the next answer about the same verification.
    func respond(_ verification: Verification, status: Int = 200, ticket: ReadMemo<Rendered>.Ticket? = nil) -> Response {
        response(rendering(verification, ticket: ticket), status: status)
    }

    /// `verification` as JSON with its ETag: what a recent answer wrote, or written now (and kept
    /// when there is a `ticket`).
    private func rendering(_ verification: Verification, ticket: ReadMemo<Rendered>.Ticket?) -> Rendered {
        let id = verification.id.rawValue
        if let known = rendered.value(for: id, where: { $0.verification == verification }) { return known }
        let answer = Rendered(verification: verification, body: verificationJSON.bytes(verification), etag: verification.etag)
        if let ticket { rendered.remember(answer, for: id, ticket: ticket) }
        return answer
    }

    private func response(_ answer: Rendered, status: Int) -> Response {
        var response = Response.json(bytes: answer.body, status: status)
        response.headers.add("ETag", answer.etag)
        response.headers.add("Cache-Control", "no-store")
        return response
    }

    private func notModified(_ verification: Verification) -> Response {
        Response(status: 304, headers: HTTPHeaders([("ETag", verification.etag), ("Cache-Control", "no-store")]))
    }

    /// One poll of a verification against its bucket, and the verification: from this process's
    /// lease with a plain read, or in one statement that also takes the next lease (see
    /// `PollLeases`); when a whole lease no longer fits the bucket, what is left of the current
    /// one is used, then one poll is asked for. Each statement goes through `Database.submit`, so
    /// on PostgreSQL no worker thread waits for it: `completion` runs once, later, on the
    /// pipeline's thread (on SQLite before this returns).
    private func poll(tenancy: Tenancy, id: ObjectID,
                      completion: @escaping @Sendable (Result<(RateLimitStore.Decision, Verification?), any Error>) -> Void) {
        let bucket = "poll:\(tenancy.accountID.rawValue):\(id.rawValue)"
        let now = clock.now()
        let size = pollLeases.size
        let take = pollLeases.take(bucket, at: now)
        let read: @Sendable () -> Void = { [store] in
            store.verification(tenancy: tenancy, id: id) { completion($0.map { (.allowed, $0) }) }
        }
        if take == .leased { return read() }
        store.polled(tenancy: tenancy, id: id, bucket: bucket, at: now, interval: 1 / pollRate,
                     burst: pollBurst, cost: size) { [self] result in
            guard case .success(let leased) = result, !leased.0.allowed else {
                if case .success = result { pollLeases.grant(bucket, count: size - 1, at: now) }
                return completion(result)
            }
            if take == .renew, pollLeases.renewalRefused(bucket, at: now) { return read() }
            guard size > 1 else { return completion(result) }
            store.polled(tenancy: tenancy, id: id, bucket: bucket, at: now, interval: 1 / pollRate,
                         burst: pollBurst, completion: completion)
        }
    }

    /// `GET /v1/verifications/{id}[?wait=N]` with `If-None-Match`: `wait` seconds (already
    /// checked) of long-poll when the ETag still matches.
    func read(_ request: Request, id: ObjectID, wait: Int, _ tenancy: Tenancy, context: RequestContext) throws -> Reply {
        // Per account and verification, so one account cannot exhaust another's budget. A
        // long-poll counts once, however long it waits.
        let ticket = rendered.ticket(for: id.rawValue)
        let presented = request.headers["If-None-Match"]
        let peerAddress = request.peerAddress
        let log = context.log
        let seconds = wait
        return Reply.eventually { settle in
            poll(tenancy: tenancy, id: id) { polled in
                do {
                    settle(try answer(polled.get(), tenancy: tenancy, id: id, ticket: ticket, presented: presented,
                                      wait: seconds, peerAddress: peerAddress))
                } catch {
                    settle(Self.failed(error, log: log))
                }
            }
        }
    }

    /// What a poll answers, once the verification is read: 429, 404, the verification, 304, or a
    /// long-poll until it changes.
    private func answer(_ polled: (RateLimitStore.Decision, Verification?), tenancy: Tenancy, id: ObjectID,
                        ticket: ReadMemo<Rendered>.Ticket, presented: String?, wait: Int, peerAddress: String) throws -> Reply {
        let (decision, found) = polled
        guard decision.allowed else {
            throw DomainError.rateLimited(
                detail: "Poll one verification at most \(pollRate) time(s) per second (bursts of \(pollBurst)); use ?wait= to long-poll.",
                retryAfterSeconds: decision.retryAfterSeconds)
        }
        guard let current = found else {
            throw DomainError.notFound(what: "verification")
        }
        guard let presented, Self.matches(presented, current.etag) else { return .ready(respond(current, ticket: ticket)) }
        guard wait > 0 else { return .ready(notModified(current)) }

        let store = self.store
        let check: @Sendable () -> Response? = {
            // A failed re-read answers with the problem rather than leaving the poll hanging.
            do {
                guard let now = try store.verification(tenancy: tenancy, id: id) else {
                    return DomainError.notFound(what: "verification").response
                }
                return Self.matches(presented, now.etag) ? nil : respond(now)
            } catch {
                return Problem.internalError.response
            }
        }
        let timeout: @Sendable () -> Response = { check() ?? notModified(current) }
        let seconds = wait
        let owners = ["account:\(tenancy.accountID.rawValue)", "address:\(peerAddress)"]
        guard longPoll.reserve(owners: owners) else {
            throw DomainError.rateLimited(
                detail: "Too many long-polls are waiting for this API key or address (\(longPoll.limitPerOwner)); wait for one to finish.",
                retryAfterSeconds: 1)
        }
        return .later { complete in
            longPoll.wait(key: id.rawValue, owners: owners, seconds: seconds, check: check, timeout: timeout, complete: complete)
        }
    }

    static func matches(_ ifNoneMatch: String, _ etag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || trimmed == etag || trimmed == "W/" + etag
        }
    }

    /// One page of the account's verifications in the caller's mode, as the list's JSON.
    func list(_ tenancy: Tenancy, filter: VerificationStore.Filter, parameters: ListParameters) throws -> Response {
        let page: [Verification]
        let hasMore: Bool
        do {
            (page, hasMore) = try store.list(tenancy: tenancy, filter: filter, limit: parameters.limit,
                                           startingAfter: parameters.startingAfter)
        } catch is VerificationStore.UnknownCursor {
            throw DomainError.invalidRequest(detail: "starting_after is not a verification of this account.",
                                             errors: [FieldError(field: "starting_after", message: "no such verification")])
        }
        // The one fast writer of verification objects, in a list (keys sorted, as everywhere).
        var list = JSONText.Object()
        list.objects("data", page) { object, verification in verificationJSON.write(verification, to: &object) }
        list.raw("has_more", hasMore ? "true" : "false")
        list.string("object", "list")
        list.string("url", "/v1/verifications")
        return .json(bytes: list.finish())
    }
}

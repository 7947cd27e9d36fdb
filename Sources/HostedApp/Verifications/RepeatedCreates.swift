import Foundation
import HostedCore
import HostedStorage

/// What the last answers to repeated creates sent, by account and exact request body: on
/// SQLite, a create whose body is byte for byte one answered as a repeat under a second ago,
/// with nothing committed by this process since, gets the same answer without its body being
/// parsed and checked again or the open verification looked up again.
///
/// Exact bytes make it a memo of a pure step: the same body always parses to the same user and
/// workflow, and `LocalRead.isRecent` is the condition the store itself puts on taking its last
/// read of the open verification (`VerificationStore.openVerification`), measured from the
/// older of the reads behind the answer; the time of expiry is checked as on the long way.
/// Nothing is kept on PostgreSQL (no `LocalRead` there), nor for a body over `largestBody`.
/// Every entry goes when any verification changes (`forgetAll`, wired to the change feed), so a
/// body (a user's id and mobile) is not held past a change; otherwise a newer body replaces it.
struct RepeatedCreates: Sendable {
    struct Entry: Sendable {
        let tenancy: Tenancy
        let body: [UInt8]
        let answer: VerificationReadService.Rendered
        let asOf: LocalRead
    }

    /// The largest body kept: a repeat's body is some 70 bytes; a bound keeps the memo's memory
    /// at 1,024 such bodies at most.
    static let largestBody = 1024

    private let memo: ReadMemo<Entry>

    /// `capacity` answers at most (0 keeps none: PostgreSQL).
    init(capacity: Int = 1024) {
        memo = ReadMemo(capacity: capacity)
    }

    /// The answer kept for this account, mode and body, if it may still be given at `now`.
    func answer(tenancy: Tenancy, body: [UInt8], now: LocalRead) -> VerificationReadService.Rendered? {
        guard body.count <= Self.largestBody else { return nil }
        return memo.value(for: Self.key(tenancy, body)) { entry in
            entry.asOf.isRecent(now) && entry.tenancy == tenancy && entry.body == body
                && !entry.answer.verification.isDueToExpire(at: now.time)
        }?.answer
    }

    /// Taken before the repeat's read: an answer is kept only if no verification changed since.
    func ticket(tenancy: Tenancy, body: [UInt8]) -> ReadMemo<Entry>.Ticket? {
        body.count <= Self.largestBody ? memo.ticket(for: Self.key(tenancy, body)) : nil
    }

    /// Keeps `answer`, given to a repeat of `body` from a read as of `asOf` (nil: PostgreSQL,
    /// nothing is kept).
    func remember(_ answer: VerificationReadService.Rendered, tenancy: Tenancy, body: [UInt8], asOf: LocalRead?,
                  ticket: ReadMemo<Entry>.Ticket?) {
        guard let asOf, let ticket else { return }
        memo.remember(Entry(tenancy: tenancy, body: body, answer: answer, asOf: asOf),
                      for: Self.key(tenancy, body), ticket: ticket)
    }

    /// A verification changed: no body or answer is kept past it.
    func forgetAll() {
        memo.forget(nil)
    }

    /// How many answers are kept (for tests).
    var count: Int { memo.count }

    /// Where an account's body lives in the memo; two keys may meet (invalid UTF-8 decodes to
    /// U+FFFD), which is why `answer` compares the account, mode and the bytes themselves.
    private static func key(_ tenancy: Tenancy, _ body: [UInt8]) -> String {
        tenancy.accountID.rawValue + (tenancy.livemode ? "\u{0}" : "\u{1}") + String(decoding: body, as: UTF8.self)
    }
}

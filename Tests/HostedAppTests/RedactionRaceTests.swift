import Dispatch
import Foundation
import HostedHTTP
import HostedTestSupport
import Testing

/// Idempotent creates racing a redaction, through the application on both stores (issue 37,
/// defect 8): a reply read before the redaction is never replayed after it.
@Suite struct RedactionRaceTests {
    /// Each round: a user's verification; then, at once, 24 creates for that user (each with its
    /// own `Idempotency-Key`) and its cancel and redaction. Afterwards no key replays the
    /// redacted verification (a reply stored before the redaction was erased by it; one completed
    /// after it was never stored): a retry runs afresh instead. The window is narrow in process:
    /// without the fix this caught it in about one round in 40 (PostgreSQL), so it is a net; the
    /// proof is the storage tests (`anAnswerClaimedBeforeARedaction…`, `anAnswerCompletedDuring…`).
    @Test(arguments: Store.allCases)
    func parallelKeyedCreatesDuringARedaction_noReplayShowsTheRedactedVerification(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try CustomerAPITests.Fixture(store)
        defer { f.close() }
        for round in 0..<20 {
            let body = #"{"user_id":"racer-\#(round)-7c1e","workflow":"kyc_basic","mobile":"+919876543210","metadata":{"ref":"meta-\#(round)-e41b"}}"#
            let id = try #require(f.json(f.post("/v1/verifications", body))["id"] as? String)
            let failures = Collected<String>()
            DispatchQueue.concurrentPerform(iterations: 25) { index in
                if index == 0 {
                    for step in ["cancel", "redact"] {
                        let answer = f.post("/v1/verifications/\(id)/\(step)", "")
                        if answer.status != 200 { failures.append("\(step): \(answer.status)") }
                    }
                } else {
                    let created = f.post("/v1/verifications", body, headers: [("Idempotency-Key", "race-\(round)-\(index)")])
                    if created.status >= 500 { failures.append("create: \(created.status)") }
                }
            }
            #expect(failures.all.isEmpty, "\(failures.all)")
            for index in 1...24 {
                let replay = f.post("/v1/verifications", body, headers: [("Idempotency-Key", "race-\(round)-\(index)")])
                let shown = f.json(replay)["id"] as? String
                #expect(!(replay.headers["Idempotent-Replayed"] == "true" && shown == id),
                        "round \(round): key \(index) replays the redacted verification: \(String(decoding: replay.body, as: UTF8.self))")
            }
        }
    }
}

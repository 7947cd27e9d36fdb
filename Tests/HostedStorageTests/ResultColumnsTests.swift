@testable import HostedStorage
import Testing

/// A result's column index finds each name where a linear search for its first occurrence does,
/// and finds nothing for a name the result does not have, whatever the names and their count.
@Suite struct ResultColumnsTests {
    static func firstPosition(of name: String, in names: [String]) -> Int? {
        names.firstIndex(of: name)
    }

    @Test func theVerificationsColumnsAndNamesItDoesNotHave() {
        let names = ["id", "account_id", "user_id", "workflow_key", "workflow_version", "status", "mobile",
                     "return_url", "metadata", "steps", "created_at", "updated_at", "submitted_at", "decided_at",
                     "decision_reason", "revision", "expires_at", "expired_reason", "last_step", "redacted_at",
                     "redact_after_seconds", "redact_at", "approvals_required", "approvals", "granted"]
        let columns = ResultColumns(names)
        for (position, name) in names.enumerated() { #expect(columns.position(of: name) == position) }
        for absent in ["", "ID", "id ", "account", "redact_after_second", "approvals_required_", "é"] {
            #expect(columns.position(of: absent) == nil)
        }
    }

    @Test func aRepeatedNameIsFoundAtItsFirstPosition() {
        let columns = ResultColumns(["id", "status", "id", "status", "x"])
        #expect(columns.position(of: "id") == 0)
        #expect(columns.position(of: "status") == 1)
        #expect(columns.position(of: "x") == 4)
        #expect(ResultColumns([]).position(of: "id") == nil)
    }

    @Test func randomNamesAgreeWithALinearSearch() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ab_é1")
        for _ in 0..<300 {
            let names = (0..<Int.random(in: 0...70, using: &generator)).map { _ in
                String((0..<Int.random(in: 0...4, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            }
            let columns = ResultColumns(names)
            for _ in 0..<40 {
                let probe = String((0..<Int.random(in: 0...4, using: &generator)).map { _ in
                    alphabet.randomElement(using: &generator)!
                })
                #expect(columns.position(of: probe) == Self.firstPosition(of: probe, in: names), "\(names) \(probe)")
            }
        }
    }
}

import Foundation
import HostedCore
import Testing

/// `Verification.apply(_:at:by:simulated:)`: the events a simulated change appends carry
/// `data.simulated: true` (and only those), a refused one appends nothing, a live verification
/// cannot be simulated on.
@Suite struct SimulatedEventsTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let key = EventActor.apiKey(ObjectID(.apiKey, parsing: "key_aaaaaaaaaaaaaaaaaaaaaaaaaa")!)

    static func verification(livemode: Bool = false) -> Verification {
        Verification(id: ObjectID(.verification, parsing: "ver_aaaaaaaaaaaaaaaaaaaaaaaaaa")!,
                     accountID: ObjectID(.account, parsing: "acct_aaaaaaaaaaaaaaaaaaaaaaaaaa")!,
                     userID: "u", workflowKey: "kyc", workflowVersion: 1, status: .created, mobile: "+919876543210", returnURL: nil,
                     metadata: [:], steps: [StepState(id: "selfie", type: .selfie)], createdAt: now, updatedAt: now, livemode: livemode)
    }

    @Test func marksOnlyTheEventsItAppended() throws {
        var v = Self.verification()
        try v.apply(.handoffCreated, at: Self.now, by: Self.key)
        try v.apply(.signedIn(method: .handoff), at: Self.now, by: Self.key, simulated: true)
        try v.apply(.stepCompleted(stepID: "selfie"), at: Self.now, by: Self.key, simulated: true)
        try v.apply(.submitted, at: Self.now, by: Self.key, simulated: false)
        #expect(v.unwrittenEvents.map(\.type) == [.handoffCreated, .signedIn, .stepCompleted, .submitted])
        #expect(v.unwrittenEvents.map { $0.data["simulated"] } == [nil, .bool(true), .bool(true), nil])
        #expect(v.unwrittenEvents[1].data["method"] == .string("handoff"))
        #expect(v.unwrittenEvents[1].actor == Self.key)
        #expect(v.status == .submitted)
        // The canonical JSON the chain hashes says true, not "true".
        #expect(Event.canonicalData(v.unwrittenEvents[2].data) == #"{"simulated":true,"step":"selfie"}"#)
    }

    @Test func aRefusedChangeAppendsNothing() {
        var v = Self.verification()
        #expect(throws: DomainError.self) { try v.apply(.decided(approved: true, reason: nil), at: Self.now, by: Self.key, simulated: true) }
        #expect(v.unwrittenEvents.isEmpty && v.status == .created)
        // A repeat the machine treats as a no-op records nothing, simulated or not.
        var expired = Self.verification()
        try? expired.apply(.expired, at: Self.now, by: Self.key, simulated: true)
        _ = expired.takeUnwrittenEvents()
        try? expired.apply(.expired, at: Self.now, by: Self.key, simulated: true)
        #expect(expired.unwrittenEvents.isEmpty)
    }

    @Test func aLiveVerificationIsRefused() {
        var live = Self.verification(livemode: true)
        do {
            try live.apply(.signedIn(method: .handoff), at: Self.now, by: Self.key, simulated: true)
            Issue.record("a live verification was simulated on")
        } catch DomainError.forbidden(_, let code) {
            #expect(code == .testModeOnly)
        } catch {
            Issue.record("\(error)")
        }
        #expect(live.unwrittenEvents.isEmpty && live.status == .created)
        // Not simulated, the same change is the person's as ever.
        #expect(throws: Never.self) { try live.apply(.signedIn(method: .handoff), at: Self.now, by: .journey, simulated: false) }
    }
}

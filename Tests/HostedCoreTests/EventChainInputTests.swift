import Foundation
import Testing
@testable import HostedCore

/// The bytes an event's hash covers: `chainInput`, written in one buffer, is byte for byte the
/// rule as DESIGN.md states it (the previous hash, a newline, the canonical JSON), for the
/// first event of a chain and later ones, test mode, an actor without id, escapes and non-ASCII text.
@Suite struct EventChainInputTests {
    static func event(previousHash: String?, actorID: String?, data: String, livemode: Bool, millisecond: Double) -> Event {
        Event(id: ObjectID(.event, parsing: "evt_aaaaaaaaaaaaaaaaaaaaaaaaaa")!, accountID: ObjectID(.account, parsing: "acct_aaaaaaaaaaaaaaaaaaaaaaaaaa")!,
              verificationID: ObjectID(.verification, parsing: "ver_bbbbbbbbbbbbbbbbbbbbbbbbbb")!, sequence: 7,
              type: "verification.step_completed", actorKind: "user", actorID: actorID, data: data,
              createdAt: Date(timeIntervalSince1970: 1_796_000_000 + millisecond / 1000), previousHash: previousHash,
              hash: String(repeating: "f", count: 64), livemode: livemode)
    }

    static let cases: [Event] = [
        event(previousHash: nil, actorID: "ses_x", data: "{}", livemode: true, millisecond: 0),
        event(previousHash: String(repeating: "a", count: 64), actorID: nil, data: #"{"step":"selfie"}"#, livemode: true, millisecond: 999),
        event(previousHash: String(repeating: "0", count: 64), actorID: "op \"quoted\" \\ नमस्ते\n", data: #"{"reason":"ü"}"#,
              livemode: false, millisecond: 123),
    ]

    @Test(arguments: cases)
    func theOneBufferInputIsTheRulesBytes(_ event: Event) {
        let rule = Event.chainInput(previousHash: event.previousHash, canonicalJSON: event.canonicalJSON)
        #expect(event.chainInput == rule)
        #expect(rule.first == (event.previousHash == nil ? UInt8(ascii: "\n") : event.previousHash?.utf8.first))
    }

    /// The canonical JSON itself is unchanged by the rewrite: a known event's text.
    @Test func theCanonicalJSONOfAKnownEvent() {
        let event = Self.cases[0]
        #expect(event.canonicalJSON == #"{"actor":{"id":"ses_x","type":"user"},"created_at":"2026-11-30T00:53:20.000Z","data":{},"id":"evt_aaaaaaaaaaaaaaaaaaaaaaaaaa","object":"event","sequence":7,"type":"verification.step_completed","verification_id":"ver_bbbbbbbbbbbbbbbbbbbbbbbbbb"}"#)
    }
}

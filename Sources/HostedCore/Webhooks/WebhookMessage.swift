import Foundation

/// The thin body every webhook carries: what happened, to which verification, and its
/// sequence; the receiver reads the verification itself for the rest. The text is fixed when
/// the message is queued (in the event's transaction), so every attempt sends the same bytes.
public enum WebhookMessage {
    public static let testType = "webhook.test"

    /// `{"type","timestamp","data":{"object":"event","id","verification_id","sequence","status","livemode"}}`
    /// for `event`, with the verification's status right after it.
    public static func body(for event: Event, status: VerificationStatus) -> String {
        body(type: event.type, eventID: event.id.rawValue, at: event.createdAt,
             verificationID: event.verificationID.rawValue, sequence: event.sequence, status: status.rawValue,
             livemode: event.livemode)
    }

    /// The body of a `webhook.test` message (no verification), in the endpoint's mode.
    public static func testBody(eventID: ObjectID, at time: Date, livemode: Bool = true) -> String {
        body(type: testType, eventID: eventID.rawValue, at: time, verificationID: nil, sequence: nil, status: nil,
             livemode: livemode)
    }

    static func body(type: String, eventID: String, at time: Date, verificationID: String?, sequence: Int64?,
                     status: String?, livemode: Bool) -> String {
        var data = JSONText.Object()
        data.string("object", "event")
        data.string("id", eventID)
        data.string("verification_id", verificationID)
        if let sequence { data.int("sequence", Int(sequence)) } else { data.raw("sequence", "null") }
        data.string("status", status)
        data.bool("livemode", livemode)
        var object = JSONText.Object()
        object.string("type", type)
        object.string("timestamp", RFC3339.format(time, milliseconds: true))
        object.raw("data", data.json)
        return object.json
    }
}

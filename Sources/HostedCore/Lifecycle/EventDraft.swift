/// An event the status machine produced and the store has not yet written.
public struct EventDraft: Equatable, Sendable {
    public let type: EventType
    public let actor: EventActor
    public let data: [String: EventValue]

    public init(_ type: EventType, actor: EventActor, data: [String: EventValue] = [:]) {
        self.type = type
        self.actor = actor
        self.data = data
    }
}

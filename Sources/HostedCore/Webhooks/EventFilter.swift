/// The event types an endpoint receives: `*` (all), `verification.*`, or named types.
public struct EventFilter: Equatable, Sendable {
    /// The entries as given, deduplicated, in order.
    public let entries: [String]

    public static let all = EventFilter(checked: ["*"])
    /// What an entry may be besides a known event type.
    static let wildcards: Set<String> = ["*", "verification.*"]

    init(checked entries: [String]) { self.entries = entries }

    /// Checks every entry: 1 to 32 distinct entries, each `*`, `verification.*` or a known event type.
    public static func parse(_ entries: [String]) throws(DomainError) -> EventFilter {
        func fail(_ field: String, _ message: String) -> DomainError {
            .invalidRequest(detail: "The events list is not valid: \(field) \(message).",
                            errors: [FieldError(field: field, message: message)], code: .invalidRequest)
        }
        guard !entries.isEmpty, entries.count <= 32 else { throw fail("events", "must list 1 to 32 event types") }
        var seen: Set<String> = []
        var kept: [String] = []
        for (index, entry) in entries.enumerated() {
            guard wildcards.contains(entry) || EventType(rawValue: entry) != nil else {
                throw fail("events[\(index)]", "must be \"*\", \"verification.*\" or an event type such as verification.approved")
            }
            guard seen.insert(entry).inserted else { throw fail("events[\(index)]", "repeats an earlier entry") }
            kept.append(entry)
        }
        return EventFilter(checked: kept)
    }

    /// Rebuilds a filter the store kept (its entries were checked when it was written).
    public init(stored entries: [String]) { self.entries = entries }

    public func matches(_ type: String) -> Bool {
        entries.contains { $0 == "*" || $0 == type || ($0 == "verification.*" && type.hasPrefix("verification.")) }
    }
}

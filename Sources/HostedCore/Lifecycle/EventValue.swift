/// A value in an event's `data`. Events carry no personal data: step ids, statuses, reason
/// codes, methods — never a name, number, user id or metadata.
public enum EventValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case null

    var json: String {
        switch self {
        case .string(let text):
            var out = ""
            JSONText.appendString(text, to: &out)
            return out
        case .integer(let number): return String(number)
        case .null: return "null"
        }
    }
}

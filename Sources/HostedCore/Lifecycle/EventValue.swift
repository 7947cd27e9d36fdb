/// A value in an event's `data`. Events carry no personal data: step ids, statuses, reason
/// codes, methods — never a name, number, user id or metadata.
public enum EventValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case null
    case strings([String])
    /// Only `data.simulated` (`Verification.apply(_:at:by:simulated:)`).
    case bool(Bool)

    var json: String {
        switch self {
        case .string(let text):
            var out = ""
            JSONText.appendString(text, to: &out)
            return out
        case .integer(let number): return String(number)
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .strings(let list):
            return "[" + list.map { text in
                var out = ""
                JSONText.appendString(text, to: &out)
                return out
            }.joined(separator: ",") + "]"
        }
    }
}

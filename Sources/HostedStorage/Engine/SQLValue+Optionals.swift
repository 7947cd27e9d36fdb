import Foundation
import HostedCore

// Bind values for optional fields: nil becomes NULL. Dates as both stores keep them, in
// milliseconds since the Unix epoch.
extension SQLValue {
    static func date(_ date: Date?) -> SQLValue { date.map { .integer($0.unixMilliseconds) } ?? .null }
    static func optionalText(_ text: String?) -> SQLValue { text.map { .text($0) } ?? .null }
}

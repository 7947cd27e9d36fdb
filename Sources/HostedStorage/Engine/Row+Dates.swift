import Foundation
import HostedCore

// Dates as both stores keep them: milliseconds since the Unix epoch, in an integer column.
extension Row {
    func date(_ column: String) throws -> Date { Date(unixMilliseconds: try int(column)) }
    func optionalDate(_ column: String) throws -> Date? { try optionalInt(column).map(Date.init(unixMilliseconds:)) }
}

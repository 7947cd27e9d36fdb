import Foundation
import HostedCore

/// The newest event of a verification's chain, kept on the verification's row
/// (`event_sequence`, `event_hash`) and written in the statement that changes the row.
struct ChainHead: Equatable, Sendable {
    var sequence: Int64
    var hash: String

    init(sequence: Int64, hash: String) {
        self.sequence = sequence
        self.hash = hash
    }

    /// The head a verifications row records; nil while its chain is empty.
    init?(_ row: Row) throws {
        guard let hash = try row.optionalString("event_hash") else { return nil }
        self.init(sequence: try row.int("event_sequence"), hash: hash)
    }

    /// The head once `sealed` follows `previous`.
    init?(after sealed: [Event], or previous: ChainHead?) {
        if let newest = sealed.last {
            self.init(sequence: newest.sequence, hash: newest.hash)
        } else if let previous {
            self = previous
        } else {
            return nil
        }
    }
}

import Foundation
import HostedCore

/// Reads of a verification that is polled over and over decode its row once per change: the
/// decoded value is kept with the cells it came from (`ReadMemo`), and a read whose cells are
/// the same, value for value, takes it as it is.
///
/// `@unchecked Sendable`: `layouts` is only touched while holding `lock`.
final class VerificationDecoding: @unchecked Sendable {
    struct Decoded: Sendable {
        let cells: [SQLValue]
        let verification: Verification
    }

    let memo: ReadMemo<Decoded>
    private let lock = NSLock()
    /// Result layouts seen, and where `VerificationStore.columns` start in each (nil: they are not
    /// there in that order). Held strongly, so an identity is never that of a freed layout.
    private var layouts: [(layout: ResultColumns, start: Int?)] = []

    init() {
        memo = ReadMemo()
    }

    /// Where the verification's columns start in `layout`, checked once per layout by name.
    func start(of layout: ResultColumns) -> Int? {
        lock.lock()
        if let known = layouts.first(where: { $0.layout === layout }) {
            lock.unlock()
            return known.start
        }
        lock.unlock()
        let names = VerificationStore.columnNames
        var start = layout.position(of: "id")
        if let first = start, !layout.names.dropFirst(first).starts(with: names) { start = nil }
        lock.lock()
        // A layout lives as long as its connection: a few per connection, replaced when one is.
        if layouts.count >= 256 { layouts.removeAll() }
        layouts.append((layout, start))
        lock.unlock()
        return start
    }
}

extension VerificationStore {
    /// The names in `columns`, in order.
    static let columnNames: [String] = columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }

    /// Before a read of verification `id` (nil: found by something else), for `decoded`.
    func readTicket(for id: ObjectID?) -> ReadMemo<VerificationDecoding.Decoded>.Ticket {
        decoding.memo.ticket(for: id?.rawValue)
    }

    /// `row`'s verification: the one decoded before from the same cells, else decoded now (and
    /// kept, unless the verification changed since `ticket`).
    func decoded(_ row: Row, ticket: ReadMemo<VerificationDecoding.Decoded>.Ticket) throws -> Verification {
        let count = Self.columnNames.count
        guard let start = decoding.start(of: row.layout), row.values.count >= start + count,
              case .text(let id) = row.values[start]
        else { return try Self.verification(from: row) }
        let cells = row.values[start..<start + count]
        if let known = decoding.memo.value(for: id, where: { $0.cells.elementsEqual(cells) }) {
            return known.verification
        }
        let verification = try Self.verification(from: row)
        decoding.memo.remember(VerificationDecoding.Decoded(cells: Array(cells), verification: verification), for: id, ticket: ticket)
        return verification
    }
}

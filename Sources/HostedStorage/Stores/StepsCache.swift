import Foundation
import HostedCore

/// Decoded workflow steps by their stored JSON text. A workflow version never changes, and the
/// key is the text itself, so an entry is right for every process and every account; creating
/// a verification then costs no JSON decoding of its workflow. Bounded: emptied when full.
///
/// `@unchecked Sendable`: `entries` is only touched while holding `lock`.
final class StepsCache: @unchecked Sendable {
    static let shared = StepsCache()
    static let capacity = 512

    private let lock = NSLock()
    private var entries: [String: [WorkflowStep]] = [:]

    func steps(_ json: String) throws -> [WorkflowStep] {
        lock.lock()
        let cached = entries[json]
        lock.unlock()
        if let cached { return cached }
        let decoded = try JSONColumn.decode([WorkflowStep].self, from: json, column: "steps")
        lock.lock()
        if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
        entries[json] = decoded
        lock.unlock()
        return decoded
    }
}

import Foundation
import HostedCore

/// Decoded workflow steps by their stored JSON text. A workflow version never changes, and the
/// key is the text itself, so an entry is right for every process and every account; creating
/// a verification then costs no JSON decoding of its workflow. Bounded: emptied when full; a
/// capacity of 0 keeps nothing.
final class StepsCache: Sendable {
    static let shared = StepsCache(capacity: 512)

    let capacity: Int
    /// `Guarded`, not `Mutex`: the storage and live tests run this under ThreadSanitizer.
    private let entries = Guarded<[String: [WorkflowStep]]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    func steps(_ json: String) throws -> [WorkflowStep] {
        if capacity > 0, let cached = entries.withLock({ $0[json] }) { return cached }
        let decoded = try JSONColumn.decode([WorkflowStep].self, from: json, column: "steps")
        guard capacity > 0 else { return decoded }
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[json] = decoded
        }
        return decoded
    }
}

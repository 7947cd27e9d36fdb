import Foundation

/// What recent reads of an object made from it (its decoded value, its rendered JSON), kept by
/// the object's id so the next read of the same object can skip that work.
///
/// A value is only ever used when the caller's check says it still matches what was just read
/// (the row's cells, the verification), so the memo can be stale without ever being wrong.
/// It is also dropped when the object changes (`forget`, wired to the change feed, which every
/// process hears): what the object held before a change (a redaction) does not stay in memory.
/// A read that started before such a change may finish after it was heard; its `Ticket`,
/// taken before the read, tells, and what it made is not kept.
///
/// Direct-mapped: `capacity` slots, an id hashed to one of them, a newer entry replacing an older.
///
/// `@unchecked Sendable`: `slots`, `generations` and `forgets` are only touched holding `lock`.
public final class ReadMemo<Value: Sendable>: @unchecked Sendable {
    /// Taken before a read: where its id's entry lives and how many changes that slot (or, for
    /// an id not known before the read, the whole memo) had heard.
    public struct Ticket: Sendable {
        fileprivate let slot: Int?
        fileprivate let generation: UInt64
    }

    private struct Entry {
        let id: String
        let value: Value
    }

    private let lock = NSLock()
    /// `slots.count`, readable without the lock.
    private let slotCount: Int
    private var slots: [Entry?]
    private var generations: [UInt64]
    private var forgets: UInt64 = 0

    /// A memo of 1,024 slots, as the service's are: at most that many verifications are kept,
    /// each in the slot its id hashes to.
    public convenience init() {
        self.init(capacity: 1024)
    }

    /// `capacity` is rounded up to a power of two; 0 keeps nothing.
    public init(capacity: Int) {
        var count = capacity > 0 ? 1 : 0
        while count < capacity { count *= 2 }
        slotCount = count
        slots = Array(repeating: nil, count: count)
        generations = Array(repeating: 0, count: count)
    }

    /// Before reading `id` (nil when the read finds its object by something else).
    public func ticket(for id: String?) -> Ticket {
        let slot = id.flatMap(slot(of:))
        lock.lock()
        defer { lock.unlock() }
        return Ticket(slot: slot, generation: slot.map { generations[$0] } ?? forgets)
    }

    /// The value kept for `id`, if `matches` accepts it.
    public func value(for id: String, where matches: (Value) -> Bool) -> Value? {
        guard let slot = slot(of: id) else { return nil }
        lock.lock()
        let entry = slots[slot]
        lock.unlock()
        guard let entry, entry.id == id, matches(entry.value) else { return nil }
        return entry.value
    }

    /// Keeps `value` for `id`, unless `id` changed since `ticket` was taken.
    public func remember(_ value: Value, for id: String, ticket: Ticket) {
        guard let slot = slot(of: id) else { return }
        lock.lock()
        defer { lock.unlock() }
        let unchanged = ticket.slot.map { $0 == slot && generations[slot] == ticket.generation } ?? (forgets == ticket.generation)
        if unchanged { slots[slot] = Entry(id: id, value: value) }
    }

    /// `id` changed (nil: anything may have changed): its entry goes.
    public func forget(_ id: String?) {
        guard slotCount > 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        forgets &+= 1
        guard let id, let slot = slot(of: id) else {
            for index in slots.indices { slots[index] = nil; generations[index] &+= 1 }
            return
        }
        generations[slot] &+= 1
        if slots[slot]?.id == id { slots[slot] = nil }
    }

    /// How many entries are kept (for tests).
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return slots.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
    }

    private func slot(of id: String) -> Int? {
        slotCount == 0 ? nil : fnv1aSlot(id, count: slotCount)
    }
}

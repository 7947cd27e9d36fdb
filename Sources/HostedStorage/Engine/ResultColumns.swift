/// A result's column names and where each is, built once per statement and shared by its rows.
///
/// Positions are found through a small open-addressing table hashed by FNV-1a over the name's
/// bytes: a verification's decoding looks up 25 names per row, and `Dictionary<String, Int>`
/// (SipHash, then a generic probe) cost about five times as much per lookup.
public final class ResultColumns: Sendable {
    public let names: [String]
    /// Slots of positions in `names`, -1 where empty; its count is a power of two.
    private let slots: [Int32]

    public init(_ names: [String]) {
        self.names = names
        var count = 8
        while count < names.count * 2 { count *= 2 }
        var slots = [Int32](repeating: -1, count: count)
        for (position, name) in names.enumerated() {
            var slot = Self.slot(of: name, in: count)
            // Each name's first position wins (a join may repeat a name, as in SQL).
            while slots[slot] >= 0, names[Int(slots[slot])] != name { slot = (slot + 1) & (count - 1) }
            if slots[slot] < 0 { slots[slot] = Int32(position) }
        }
        self.slots = slots
    }

    func position(of name: String) -> Int? {
        var slot = Self.slot(of: name, in: slots.count)
        while true {
            let position = Int(slots[slot])
            if position < 0 { return nil }
            if names[position] == name { return position }
            slot = (slot + 1) & (slots.count - 1)
        }
    }

    private static func slot(of name: String, in count: Int) -> Int {
        fnv1aSlot(name, count: count)
    }
}

/// `text`'s slot among `count` (a power of two): FNV-1a over its UTF-8 bytes, folded to 32 bits.
/// Cheap for the short names and ids it hashes, and the same in every process.
func fnv1aSlot(_ text: String, count: Int) -> Int {
    var text = text
    let hash = text.withUTF8 { bytes in
        bytes.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
    return Int(truncatingIfNeeded: hash ^ (hash >> 32)) & (count - 1)
}

/// An ordered list of header fields with case-insensitive lookup.
public struct HTTPHeaders: Sendable, Sequence {
    public private(set) var fields: [(name: String, value: String)] = []

    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// Takes the fields as they are (no copy into a new array).
    public init(named fields: [(name: String, value: String)]) {
        self.fields = fields
    }

    /// The first value of the named header, or nil.
    public subscript(_ name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value of the named header, in order (`Set-Cookie` may repeat).
    public func all(_ name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    public mutating func add(_ name: String, _ value: String) {
        // A response has a handful of headers: one buffer for them, not four regrowths.
        if fields.capacity == 0 { fields.reserveCapacity(8) }
        fields.append((name: name, value: value))
    }

    /// Replaces every value of `name` with one.
    public mutating func set(_ name: String, _ value: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
        fields.append((name: name, value: value))
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }
}

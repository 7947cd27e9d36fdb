import Foundation

/// JSON text built by hand for the few shapes written on every request (access-log lines,
/// verification objects), where a general-purpose encoder costs more than the rest of the work.
/// Keys are written in the order given; callers pass them sorted to match `JSONCoding.encoder`.
public enum JSONText {
    /// Appends `value` as a JSON string literal.
    public static func appendString(_ value: String, to line: inout String) {
        line += "\""
        if !value.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) {
            line += value
            line += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                line += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }

    /// Whether a UTF-8 byte must be escaped inside a JSON string (as `appendString` writes them).
    @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F }

    /// Appends `value` as a JSON string literal, as UTF-8 bytes (same escapes as above).
    public static func appendString(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        appendContents(value, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends `value` escaped, without the quotes around it (so that several values can make
    /// one string literal).
    static func appendContents(_ value: String, to bytes: inout [UInt8]) {
        // Almost every value needs no escape: one scan, then one copy.
        let copied: Bool? = value.utf8.withContiguousStorageIfAvailable { buffer in
            guard !buffer.contains(where: needsEscape) else { return false }
            bytes.append(contentsOf: buffer)
            return true
        }
        if copied == true { return }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(byte)
            case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case 0..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default:
                bytes.append(byte)
            }
        }
    }

    /// Appends the decimal digits of `value` (a small string: no allocation). Writing the digits
    /// one by one was measured: twice the instructions.
    public static func appendInt(_ value: Int, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// A JSON object written member by member, as UTF-8 bytes.
    ///
    /// Member names given as literals (`StaticString`) are copied as they are: they are ours, and
    /// `key(_:)` checks in debug builds that none needs an escape. Names known only at
    /// run time go through `member(_:_:)`, which escapes them.
    public struct Object {
        private var bytes: [UInt8]
        private var first = true

        /// One buffer from the start (a literal `[UInt8(ascii: "{")]` would be a second).
        public init() {
            bytes = []
            bytes.reserveCapacity(256)
            bytes.append(UInt8(ascii: "{"))
        }

        /// An object written after `prefix`, in the same buffer (`finish()` returns both):
        /// bytes that frame a JSON text, such as an event's chain input, without a second copy.
        public init(after prefix: [UInt8]) {
            bytes = prefix
            bytes.reserveCapacity(prefix.count + 256)
            bytes.append(UInt8(ascii: "{"))
        }

        private mutating func separate() {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
        }

        private mutating func key(_ name: StaticString) {
            separate()
            bytes.append(UInt8(ascii: "\""))
            name.withUTF8Buffer { name in
                assert(!name.contains(where: JSONText.needsEscape), "a literal member name needs an escape")
                bytes.append(contentsOf: name)
            }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(UInt8(ascii: ":"))
        }

        private mutating func appendOptional(_ value: String?) {
            if let value { JSONText.appendString(value, to: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
        }

        public mutating func string(_ name: StaticString, _ value: String?) {
            key(name)
            appendOptional(value)
        }

        /// A string member whose name is known only at run time (escaped like any value).
        public mutating func member(_ name: String, _ value: String?) {
            separate()
            JSONText.appendString(name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            appendOptional(value)
        }

        /// A string member made of two values written one after the other (a URL prefix and an
        /// id), without building the joined string first.
        public mutating func joined(_ name: StaticString, _ head: String, _ tail: String) {
            key(name)
            bytes.append(UInt8(ascii: "\""))
            JSONText.appendContents(head, to: &bytes)
            JSONText.appendContents(tail, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }

        /// An RFC 3339 timestamp to the second, or to the millisecond (`RFC3339.format`), or
        /// null, written straight into the buffer.
        public mutating func timestamp(_ name: StaticString, _ date: Date?, milliseconds: Bool = false) {
            key(name)
            guard let date else { bytes.append(contentsOf: "null".utf8); return }
            bytes.append(UInt8(ascii: "\""))
            RFC3339.append(date, milliseconds: milliseconds, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }

        /// An array of strings.
        public mutating func strings(_ name: StaticString, _ values: [String]) {
            key(name)
            bytes.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONText.appendString(value, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }

        /// An object of string values, its keys sorted.
        public mutating func stringMap(_ name: StaticString, _ map: [String: String]) {
            key(name)
            if map.isEmpty { bytes.append(contentsOf: "{}".utf8); return }
            var inner = Object(continuing: &bytes)
            for key in map.keys.sorted() { inner.member(key, map[key]) }
            bytes = inner.finish()
        }

        /// A nested object, written by `write` into this object's buffer.
        public mutating func object(_ name: StaticString, _ write: (inout Object) -> Void) {
            key(name)
            var inner = Object(continuing: &bytes)
            write(&inner)
            bytes = inner.finish()
        }

        /// An array of objects, each written by `write` into this object's buffer.
        public mutating func objects<S: Sequence>(_ name: StaticString, _ items: S,
                                                  _ write: (inout Object, S.Element) -> Void) {
            key(name)
            bytes.append(UInt8(ascii: "["))
            var first = true
            for item in items {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                var inner = Object(continuing: &bytes)
                write(&inner, item)
                bytes = inner.finish()
            }
            bytes.append(UInt8(ascii: "]"))
        }

        /// A nested object that takes over `buffer` (left empty until the nested object's
        /// `finish()` hands it back), so nesting copies nothing.
        private init(continuing buffer: inout [UInt8]) {
            bytes = []
            swap(&bytes, &buffer)
            bytes.append(UInt8(ascii: "{"))
        }

        public mutating func int(_ name: StaticString, _ value: Int) {
            key(name)
            JSONText.appendInt(value, to: &bytes)
        }

        /// A number rounded to `decimals` (at most 6; `null` if it is not finite: JSON has no NaN).
        /// Four suit scores; a coordinate needs six (four would be 11 m off).
        public mutating func number(_ name: StaticString, _ value: Double, decimals: Int = 4) {
            key(name)
            guard value.isFinite else { return bytes.append(contentsOf: "null".utf8) }
            let scale = [1.0, 10, 100, 1_000, 10_000, 100_000, 1_000_000][min(max(decimals, 0), 6)]
            let rounded = (value * scale).rounded() / scale
            bytes.append(contentsOf: (rounded == rounded.rounded() && abs(rounded) < 1e15
                                      ? String(Int64(rounded)) : String(rounded)).utf8)
        }

        public mutating func bool(_ name: StaticString, _ value: Bool) {
            key(name)
            bytes.append(contentsOf: (value ? "true" : "false").utf8)
        }

        /// A member whose value is already JSON text.
        public mutating func raw(_ name: StaticString, _ json: String) {
            key(name)
            bytes.append(contentsOf: json.utf8)
        }

        /// A member whose value is already JSON, as bytes.
        public mutating func raw(_ name: StaticString, bytes json: [UInt8]) {
            key(name)
            bytes.append(contentsOf: json)
        }

        /// The finished object's bytes. Consuming: the object's buffer becomes the result
        /// without a copy.
        public consuming func finish() -> [UInt8] {
            bytes.append(UInt8(ascii: "}"))
            return bytes
        }

        /// The finished object as text (the object itself stays open).
        public var json: String {
            let copy = self
            return String(decoding: copy.finish(), as: UTF8.self)
        }
    }

    /// A JSON array of already-encoded elements.
    /// `value` as a JSON string literal.
    public static func quoted(_ value: String) -> String {
        var text = ""
        appendString(value, to: &text)
        return text
    }

    public static func array(_ elements: [String]) -> String { "[" + elements.joined(separator: ",") + "]" }
}

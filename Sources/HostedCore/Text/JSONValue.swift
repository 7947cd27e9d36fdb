/// A JSON value as RFC 8259 defines it, read strictly from UTF-8 text: the reader of request
/// bodies. Numbers keep the text they were written with; a field that wants an integer decides
/// what that text means (`integer`).
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// What a body held: the value, and the first name an object repeated, in document order
    /// (`nil` when none did). The value keeps a repeated name's first member.
    public struct Document: Sendable {
        public let value: JSONValue
        public let firstRepeatedName: String?
    }

    /// Arrays and objects nest at most this deep, as in Foundation's `JSONSerialization`.
    public static let maximumDepth = 512

    /// Parses one JSON text, or nil when it is not one: not UTF-8, a grammar error, a lone
    /// surrogate escape, nesting deeper than `maximumDepth`, or anything after the value.
    public static func parse(_ bytes: [UInt8]) -> Document? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(bytes: buffer)
            guard let value = reader.document() else { return nil }
            return Document(value: value, firstRepeatedName: reader.firstRepeatedName)
        }
    }

    /// The number as an integer, when its text names a whole number an `Int` holds exactly
    /// (`1e3` and `1.0` do); as `JSONSerialization` and `NSNumber.doubleValue` read it.
    public var integer: Int? {
        guard case .number(let text) = self, let value = Double(text) else { return nil }
        return Int(exactly: value)
    }

    /// The value written back as compact JSON text: object members in sorted order, and a whole
    /// number an `Int` holds as its digits (`1e3` as `1000`), as `JSONSerialization` writes it.
    public var text: String {
        var bytes: [UInt8] = []
        write(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private func write(to bytes: inout [UInt8]) {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let text):
            if let whole = integer { JSONText.appendInt(whole, to: &bytes) } else { bytes.append(contentsOf: text.utf8) }
        case .string(let text): JSONText.appendString(text, to: &bytes)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                element.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, name) in members.keys.sorted().enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONText.appendString(name, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                members[name]!.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }
}

/// A recursive-descent reader over the body's bytes. Every index it reads is checked against
/// the end; depth is bounded, so a hostile body cannot exhaust the stack.
private struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var firstRepeatedName: String?
    /// Decoded bytes of a string with escapes, reused from string to string.
    var scratch: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func document() -> JSONValue? {
        skipWhitespace()
        guard let value = value(depth: 0) else { return nil }
        skipWhitespace()
        return index == bytes.count ? value : nil
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func value(depth: Int) -> JSONValue? {
        guard let byte = current else { return nil }
        switch byte {
        case UInt8(ascii: "{"): return object(depth: depth + 1)
        case UInt8(ascii: "["): return array(depth: depth + 1)
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return literal("null") ? .null : nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return nil
        }
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }

    private mutating func object(depth: Int) -> JSONValue? {
        var members: [String: JSONValue] = [:]
        let read = items(depth: depth, closing: UInt8(ascii: "}")) { reader in
            guard reader.current == UInt8(ascii: "\""), let name = reader.string() else { return false }
            reader.skipWhitespace()
            guard reader.current == UInt8(ascii: ":") else { return false }
            reader.index += 1
            reader.skipWhitespace()
            // A repeat counts where its name is read, before its value (which may repeat others).
            let repeated = members[name] != nil
            if repeated, reader.firstRepeatedName == nil { reader.firstRepeatedName = name }
            guard let member = reader.value(depth: depth) else { return false }
            if !repeated { members[name] = member }
            return true
        }
        return read ? .object(members) : nil
    }

    private mutating func array(depth: Int) -> JSONValue? {
        var elements: [JSONValue] = []
        let read = items(depth: depth, closing: UInt8(ascii: "]")) { reader in
            guard let element = reader.value(depth: depth) else { return false }
            elements.append(element)
            return true
        }
        return read ? .array(elements) : nil
    }

    /// An array's elements or an object's members, from the opening bracket to `closing`, each
    /// read by `item` and separated by commas; false on a grammar error or nesting too deep.
    private mutating func items(depth: Int, closing: UInt8, _ item: (inout JSONReader) -> Bool) -> Bool {
        guard depth <= JSONValue.maximumDepth else { return false }
        index += 1
        skipWhitespace()
        if current == closing {
            index += 1
            return true
        }
        while true {
            skipWhitespace()
            guard item(&self) else { return false }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case closing: index += 1; return true
            default: return false
            }
        }
    }

    /// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, kept as its text.
    private mutating func number() -> JSONValue? {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() else { return nil }
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits() else { return nil }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() else { return nil }
        }
        return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
    }

    /// One or more decimal digits.
    private mutating func digits() -> Bool {
        let start = index
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        return index > start
    }

    /// A string literal starting at its opening quote: valid UTF-8, no raw control character,
    /// escapes as RFC 8259 lists them, surrogate escapes only in pairs.
    private mutating func string() -> String? {
        index += 1
        let start = index
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 { index += 1 }
        guard let stop = current else { return nil }
        if stop == UInt8(ascii: "\"") {
            index += 1
            return String(validating: UnsafeBufferPointer(rebasing: bytes[start..<index - 1]), as: UTF8.self)
        }
        guard stop == UInt8(ascii: "\\") else { return nil }   // a raw control character
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(validating: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard escape() else { return nil }
            case 0..<0x20:
                return nil
            default:
                scratch.append(byte)
                index += 1
            }
        }
        return nil
    }

    /// The escape after a backslash, appended to `scratch` as UTF-8.
    private mutating func escape() -> Bool {
        guard let byte = current else { return false }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            guard let unit = hexUnit() else { return false }
            var scalarValue = UInt32(unit)
            if (0xD800...0xDBFF).contains(unit) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else { return false }
                index += 2
                guard let low = hexUnit(), (0xDC00...0xDFFF).contains(low) else { return false }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(unit) {
                return false
            }
            guard let scalar = Unicode.Scalar(scalarValue) else { return false }
            scratch.append(contentsOf: UTF8.encode(scalar)!)
        default:
            return false
        }
        return true
    }

    /// Four hexadecimal digits.
    private mutating func hexUnit() -> UInt16? {
        guard bytes.count - index >= 4 else { return nil }
        var unit: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
            index += 1
        }
        return unit
    }
}

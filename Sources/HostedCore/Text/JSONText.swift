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

    /// A JSON object written member by member.
    public struct Object {
        private var text = "{"
        private var first = true

        public init() {}

        private mutating func key(_ name: String) {
            if !first { text += "," }
            first = false
            JSONText.appendString(name, to: &text)
            text += ":"
        }

        public mutating func string(_ name: String, _ value: String?) {
            key(name)
            if let value { JSONText.appendString(value, to: &text) } else { text += "null" }
        }

        public mutating func int(_ name: String, _ value: Int) {
            key(name)
            text += String(value)
        }

        /// A member whose value is already JSON text.
        public mutating func raw(_ name: String, _ json: String) {
            key(name)
            text += json
        }

        public var json: String { text + "}" }
    }

    /// A JSON object of string values with sorted keys.
    public static func stringMap(_ map: [String: String]) -> String {
        var object = Object()
        for key in map.keys.sorted() { object.string(key, map[key]) }
        return object.json
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

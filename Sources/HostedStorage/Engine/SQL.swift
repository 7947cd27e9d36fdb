import Foundation

/// A statement that is safe by construction: every value interpolated into it becomes a bind
/// parameter (`\(value)` → `$n`), in both dialects, so no value is ever spliced into SQL text.
/// A constant fragment (a column list, a dialect's `FOR UPDATE SKIP LOCKED`, a DDL name) goes in
/// only through the explicitly named `\(unsafeSQL: …)`, as postgres-nio and GRDB do.
///
/// ```swift
/// try database.query("SELECT id FROM verifications WHERE account_id = \(accountID.rawValue) AND created_at < \(time)")
/// ```
public struct SQL: Sendable, ExpressibleByStringInterpolation {
    /// The text with `$1`, `$2`, … placeholders.
    public let text: String
    /// The values, in placeholder order.
    public let bindings: [SQLValue]

    public init(stringLiteral value: String) {
        text = value
        bindings = []
    }

    /// Raw SQL, with no values: for text that is known to be constant.
    public init(unsafeSQL text: String) {
        self.text = text
        bindings = []
    }

    public init(stringInterpolation: StringInterpolation) {
        text = stringInterpolation.text
        bindings = stringInterpolation.bindings
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""
        var bindings: [SQLValue] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + 3 * interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            text += literal
        }

        /// A bind parameter.
        public mutating func appendInterpolation(_ value: SQLValue) {
            bindings.append(value)
            text += "$\(bindings.count)"
        }

        public mutating func appendInterpolation(_ value: String) { appendInterpolation(SQLValue.text(value)) }
        public mutating func appendInterpolation(_ value: String?) { appendInterpolation(SQLValue.optionalText(value)) }
        public mutating func appendInterpolation(_ value: Int64) { appendInterpolation(SQLValue.integer(value)) }
        public mutating func appendInterpolation(_ value: Int) { appendInterpolation(SQLValue.integer(Int64(value))) }
        public mutating func appendInterpolation(_ value: Int64?) { appendInterpolation(value.map(SQLValue.integer) ?? .null) }
        public mutating func appendInterpolation(_ value: [UInt8]) { appendInterpolation(SQLValue.blob(value)) }
        /// A time, as Unix milliseconds (how both stores keep times).
        public mutating func appendInterpolation(_ value: Date?) { appendInterpolation(SQLValue.date(value)) }

        /// A comma-separated list of bind parameters, e.g. for `VALUES (\(values: row))`.
        public mutating func appendInterpolation(values: [SQLValue]) {
            for (index, value) in values.enumerated() {
                if index > 0 { text += ", " }
                appendInterpolation(value)
            }
        }

        /// Another statement's text and values, its placeholders renumbered to follow these.
        public mutating func appendInterpolation(_ fragment: SQL) {
            let offset = bindings.count
            var scalars = Array(fragment.text.unicodeScalars)[...]
            while let dollar = scalars.firstIndex(of: "$") {
                text.unicodeScalars.append(contentsOf: scalars[..<dollar])
                let digits = scalars[(dollar + 1)...].prefix { ("0"..."9").contains($0) }
                if let number = Int(String(String.UnicodeScalarView(digits))) {
                    text += "$\(number + offset)"
                } else {
                    text += "$"
                }
                scalars = scalars[(dollar + 1 + digits.count)...]
            }
            text.unicodeScalars.append(contentsOf: scalars)
            bindings += fragment.bindings
        }

        /// Constant SQL text, spliced in as it is: never a value that came from outside.
        public mutating func appendInterpolation(unsafeSQL fragment: String) {
            text += fragment
        }
    }
}

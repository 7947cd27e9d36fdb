import Foundation

/// A statement that is safe by construction: every value interpolated into it becomes a bind
/// parameter (`\(value)` → `$n`), in both dialects, so no value is ever spliced into SQL text.
/// A constant fragment (a column list, a dialect's `FOR UPDATE SKIP LOCKED`, a DDL name) goes in
/// only through the explicitly named `\(unsafeSQL: …)`, as postgres-nio and GRDB do. A statement
/// whose text is built once and run often is a `SQL.Template`, with named slots for its values.
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

    /// A template's text with its values for one call (`Template.bind`): the only way in for
    /// text that has placeholders of its own, so none is ever numbered by hand.
    fileprivate init(template text: String, bindings: [SQLValue]) {
        self.text = text
        self.bindings = bindings
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
            bindings += fragment.bindings
            guard offset > 0 else {
                text += fragment.text
                return
            }
            // Byte by byte: a placeholder is ASCII, and UTF-8 never has an ASCII byte inside
            // another character, so every other byte is copied as it is.
            var out: [UInt8] = []
            out.reserveCapacity(fragment.text.utf8.count + 2 * fragment.bindings.count)
            var placeholder: Int?  // the digits read since a `$`, while reading them
            var digits = 0
            func endPlaceholder() {
                if let number = placeholder, digits > 0 { out += Array(String(number + offset).utf8) }
                placeholder = nil
                digits = 0
            }
            for byte in fragment.text.utf8 {
                // Statement text is the program's own, and its numbers are binding counts; the
                // bound on digits keeps even a malformed one from overflowing.
                if let number = placeholder, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < 9 {
                    placeholder = number * 10 + Int(byte - UInt8(ascii: "0"))
                    digits += 1
                    continue
                }
                endPlaceholder()
                out.append(byte)
                if byte == UInt8(ascii: "$") { placeholder = 0 }
            }
            endPlaceholder()
            text += String(decoding: out, as: UTF8.self)
        }

        /// Constant SQL text, spliced in as it is: never a value that came from outside.
        public mutating func appendInterpolation(unsafeSQL fragment: String) {
            text += fragment
        }
    }
}

extension SQL {
    /// A statement whose text is built once and run often, with a value per call: its values are
    /// named slots (`\(parameter: .accountID)`, a case of the statement's own `Parameter` type)
    /// that the template numbers `$1`, `$2`, … in order of first use — a slot used twice is the
    /// same placeholder both times — and `bind` gives every slot its value for one call.
    ///
    /// The text never changes, so it stays one statement in PostgreSQL's prepared-statement
    /// cache and costs no building per call; no value can reach it, and no placeholder is
    /// numbered by hand.
    ///
    /// ```swift
    /// enum Slot { case id, accountID }
    /// static let read: SQL.Template<Slot> = "SELECT name FROM t WHERE id = \(parameter: .id) AND account_id = \(parameter: .accountID)"
    /// let sql = read.bind { slot in
    ///     switch slot {
    ///     case .id: .text(id)
    ///     case .accountID: .text(accountID)
    ///     }
    /// }
    /// ```
    public struct Template<Parameter: Hashable & Sendable>: Sendable, ExpressibleByStringInterpolation {
        /// The text with `$1`, `$2`, … placeholders.
        public let text: String
        /// The slot each placeholder stands for: `$n` is `parameters[n - 1]`.
        public let parameters: [Parameter]
        /// The statement as written: constant text and slots, kept so a template can go inside
        /// another (`\(template, parameters:)`) without reading placeholders back out of text.
        private let parts: [Part<Parameter>]

        public init(stringLiteral value: String) {
            self.init(parts: [.text(value)])
        }

        public init(stringInterpolation: StringInterpolation) {
            self.init(parts: stringInterpolation.parts)
        }

        private init(parts: [Part<Parameter>]) {
            var text = ""
            var parameters: [Parameter] = []
            var numbers: [Parameter: Int] = [:]
            for part in parts {
                switch part {
                case .text(let fragment):
                    text += fragment
                case .slot(let parameter):
                    if let number = numbers[parameter] {
                        text += "$\(number)"
                    } else {
                        parameters.append(parameter)
                        numbers[parameter] = parameters.count
                        text += "$\(parameters.count)"
                    }
                }
            }
            self.text = text
            self.parameters = parameters
            self.parts = parts
        }

        /// The statement for one call: `value` gives each slot its value (a `switch` over
        /// `Parameter` makes the compiler check that none is left out). The text is this
        /// template's, unchanged.
        public func bind(_ value: (Parameter) throws -> SQLValue) rethrows -> SQL {
            SQL(template: text, bindings: try parameters.map(value))
        }

        public struct StringInterpolation: StringInterpolationProtocol {
            fileprivate var parts: [Part<Parameter>] = []

            public init(literalCapacity: Int, interpolationCount: Int) {
                parts.reserveCapacity(2 * interpolationCount + 1)
            }

            public mutating func appendLiteral(_ literal: String) {
                if !literal.isEmpty { parts.append(.text(literal)) }
            }

            /// A bind parameter: the slot's placeholder, the same one wherever the slot appears.
            public mutating func appendInterpolation(parameter: Parameter) {
                parts.append(.slot(parameter))
            }

            /// Another template over the same slots (a repeated sub-expression).
            public mutating func appendInterpolation(_ template: Template<Parameter>) {
                parts += template.parts
            }

            /// Another template, each of its slots standing for one of this statement's
            /// (`parameters`), e.g. a rate limit's upsert inside the poll's statement.
            public mutating func appendInterpolation<Inner>(_ template: Template<Inner>, parameters: (Inner) -> Parameter) {
                for part in template.parts {
                    switch part {
                    case .text(let fragment): parts.append(.text(fragment))
                    case .slot(let inner): parts.append(.slot(parameters(inner)))
                    }
                }
            }

            /// Constant SQL text, spliced in as it is: never a value that came from outside.
            public mutating func appendInterpolation(unsafeSQL fragment: String) {
                parts.append(.text(fragment))
            }
        }
    }

    /// A piece of a template: text as written, or a slot.
    fileprivate enum Part<Parameter: Hashable & Sendable>: Sendable {
        case text(String)
        case slot(Parameter)
    }
}

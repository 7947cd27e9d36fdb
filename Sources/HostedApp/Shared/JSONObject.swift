import Foundation
import HostedCore
import HostedHTTP

/// A request's JSON object body, read field by field. Unknown fields, wrong types and NUL
/// characters are collected as field errors; `finish()` throws them all at once (422), so
/// nothing is stored from a bad request.
public struct JSONObject {
    private let values: [String: JSONValue]
    private var errors: [FieldError] = []
    /// The names the handler asked for: a handful, so a list (a set hashed each name twice).
    private var known: [String] = []

    /// Parses `body`; an empty body is an empty object. Malformed JSON is a 400 problem, and so
    /// is an object that names a member twice (parsers disagree on which one counts, so a proxy,
    /// a log pipeline and we could each read a different request; RFC 8259 §4).
    public init(body: [UInt8]) throws {
        guard !body.isEmpty else {
            values = [:]
            return
        }
        guard let document = JSONValue.parse(body), case .object(let object) = document.value else {
            throw DomainError.malformed(detail: "The request body must be a JSON object.")
        }
        if let repeated = document.firstRepeatedName {
            throw DomainError.malformed(detail: "The request body names \"\(repeated.prefix(64))\" more than once.",
                                        errors: [FieldError(field: String(repeated.prefix(64)), message: "appears more than once")])
        }
        values = object
    }

    /// The member, or nil when it is absent or null.
    private func present(_ key: String) -> JSONValue? {
        guard let value = values[key], value != .null else { return nil }
        return value
    }

    public mutating func string(_ key: String, required: Bool = false) -> String? {
        known.append(key)
        guard let raw = present(key) else {
            if required { errors.append(FieldError(field: key, message: "is required", code: .required)) }
            return nil
        }
        guard case .string(let text) = raw else {
            errors.append(FieldError(field: key, message: "must be a string", code: .wrongType))
            return nil
        }
        guard !Self.hasNUL(text) else {
            errors.append(FieldError(field: key, message: "must not contain NUL characters", code: .invalid))
            return nil
        }
        return text
    }

    public mutating func bool(_ key: String) -> Bool? {
        known.append(key)
        guard let raw = present(key) else { return nil }
        guard case .bool(let value) = raw else {
            errors.append(FieldError(field: key, message: "must be true or false", code: .wrongType))
            return nil
        }
        return value
    }

    public mutating func int(_ key: String) -> Int? {
        known.append(key)
        guard let raw = present(key) else { return nil }
        return integer(raw, field: key)
    }

    /// `raw` as a whole number that fits an Int, else a field error and nil.
    private mutating func integer(_ raw: JSONValue, field: String) -> Int? {
        guard let value = raw.integer else {
            errors.append(FieldError(field: field, message: "must be an integer", code: .wrongType))
            return nil
        }
        return value
    }

    /// An object `{member: integer}` with no other members (e.g. `retention.redact_after_seconds`).
    public mutating func int(_ key: String, member: String) -> Int? {
        ints(key, members: [member])?[member]
    }

    /// An object of integer members, each optional, with no other members (e.g. `review`); the
    /// members present, nil when the object is absent.
    public mutating func ints(_ key: String, members: [String]) -> [String: Int]? {
        known.append(key)
        guard let raw = present(key) else { return nil }
        guard case .object(let object) = raw else {
            errors.append(FieldError(field: key, message: "must be an object", code: .wrongType))
            return nil
        }
        for name in object.keys.sorted() where !members.contains(name) {
            errors.append(FieldError(field: "\(key).\(name)", message: "is not a known field", code: .unknownField))
        }
        var values: [String: Int] = [:]
        for member in members {
            guard let value = object[member], value != .null else { continue }
            if let number = integer(value, field: "\(key).\(member)") { values[member] = number }
        }
        return values
    }

    /// An array whose elements are all strings.
    public mutating func stringArray(_ key: String) -> [String]? {
        known.append(key)
        guard let raw = present(key) else { return nil }
        guard case .array(let array) = raw else {
            errors.append(FieldError(field: key, message: "must be an array of strings", code: .wrongType))
            return nil
        }
        var result: [String] = []
        for (index, element) in array.enumerated() {
            guard case .string(let text) = element, !Self.hasNUL(text) else {
                errors.append(FieldError(field: "\(key)[\(index)]", message: "must be a string", code: .wrongType))
                continue
            }
            result.append(text)
        }
        return result
    }

    /// A time given as an RFC 3339 string or as whole Unix seconds.
    public mutating func time(_ key: String, required: Bool = false) -> Date? {
        known.append(key)
        guard let raw = present(key) else {
            if required { errors.append(FieldError(field: key, message: "is required", code: .required)) }
            return nil
        }
        if case .string(let text) = raw {
            guard let date = RFC3339.parse(text) else {
                errors.append(FieldError(field: key, message: "must be an RFC 3339 time or Unix seconds", code: .wrongType))
                return nil
            }
            return date
        }
        // Unix seconds within 1970…9999, so the milliseconds stay far from overflow.
        guard let seconds = integer(raw, field: key) else { return nil }
        guard (0...253_402_300_799).contains(seconds) else {
            errors.append(FieldError(field: key, message: "must be Unix seconds between 1970 and 9999"))
            return nil
        }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// An object whose values are all strings.
    public mutating func stringMap(_ key: String) -> [String: String]? {
        known.append(key)
        guard let raw = present(key) else { return nil }
        guard case .object(let object) = raw else {
            errors.append(FieldError(field: key, message: "must be an object of strings", code: .wrongType))
            return nil
        }
        var result: [String: String] = [:]
        for (name, value) in object {
            guard case .string(let text) = value else {
                errors.append(FieldError(field: "\(key).\(name)", message: "must be a string", code: .wrongType))
                continue
            }
            // Said as for a plain string field: the value is a string, but not one we keep.
            guard !Self.hasNUL(text) else {
                errors.append(FieldError(field: "\(key).\(name)", message: "must not contain NUL characters", code: .invalid))
                continue
            }
            result[name] = text
        }
        return result
    }

    /// An array of objects with only the `fields` named, each decoded as `T` from its JSON.
    public mutating func objects<T: Decodable>(_ key: String, as type: T.Type, fields: Set<String>) -> [T]? {
        known.append(key)
        guard let raw = present(key) else { return nil }
        guard case .array(let array) = raw else {
            errors.append(FieldError(field: key, message: "must be an array", code: .wrongType))
            return nil
        }
        var result: [T] = []
        for (index, element) in array.enumerated() {
            if case .object(let object) = element {
                for name in object.keys.sorted() where !fields.contains(name) {
                    errors.append(FieldError(field: "\(key)[\(index)].\(name)", message: "is not a known field", code: .unknownField))
                }
            }
            guard case .object = element, let decoded = try? JSONDecoder().decode(T.self, from: Data(element.text.utf8)) else {
                errors.append(FieldError(field: "\(key)[\(index)]", message: "is not a valid object", code: .wrongType))
                continue
            }
            result.append(decoded)
        }
        return result
    }

    private static func hasNUL(_ text: String) -> Bool { text.utf8.contains(0) }

    mutating func addError(_ field: String, _ message: String) {
        errors.append(FieldError(field: field, message: message))
    }

    /// Throws every collected error, plus one per unknown field.
    public func finish(detail: String = "The request has invalid fields.") throws {
        let unknown = values.keys.filter { !known.contains($0) }.sorted().map { FieldError(field: $0, message: "is not a known field", code: .unknownField) }
        let all = errors + unknown
        guard all.isEmpty else { throw DomainError.invalidRequest(detail: detail, errors: all) }
    }
}

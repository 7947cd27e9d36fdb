import Foundation

/// Finds an object with the same key twice in an already validated JSON text. Parsers disagree
/// on such documents (first wins, last wins, error), so a proxy, a log pipeline and we could each
/// read a different request; Hosted refuses them instead (RFC 8259 §4: names SHOULD be unique).
public enum JSONDuplicateKeys {
    /// The first repeated key, or nil. `bytes` must be valid JSON (checked by the caller's parser);
    /// nesting is tracked with an explicit stack, so depth costs memory, not the call stack.
    public static func first(in bytes: [UInt8]) -> String? {
        enum Container { case object(Set<[UInt8]>, expectingKey: Bool), array }
        var stack: [Container] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "{"):
                stack.append(.object([], expectingKey: true))
            case UInt8(ascii: "["):
                stack.append(.array)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !stack.isEmpty { stack.removeLast() }
            case UInt8(ascii: ","):
                if case .object(let keys, _)? = stack.last { stack[stack.count - 1] = .object(keys, expectingKey: true) }
            case UInt8(ascii: "\""):
                let start = index
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard index < bytes.count else { return nil }
                if case .object(var keys, true)? = stack.last {
                    let key = canonical(Array(bytes[start...index]))
                    guard keys.insert(key).inserted else { return String(decoding: key, as: UTF8.self) }
                    stack[stack.count - 1] = .object(keys, expectingKey: false)
                }
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The key's characters: `"a"` and `"\u0061"` are the same name.
    private static func canonical(_ quoted: [UInt8]) -> [UInt8] {
        guard quoted.contains(UInt8(ascii: "\\")),
              let text = try? JSONSerialization.jsonObject(with: Data(quoted), options: [.fragmentsAllowed]) as? String
        else { return Array(quoted.dropFirst().dropLast()) }
        return Array(text.utf8)
    }
}

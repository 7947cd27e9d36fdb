import Foundation

/// Finds an object with the same key twice in an already validated JSON text. Parsers disagree
/// on such documents (first wins, last wins, error), so a proxy, a log pipeline and we could each
/// read a different request; Hosted refuses them instead (RFC 8259 §4: names SHOULD be unique).
public enum JSONDuplicateKeys {
    /// The first repeated key, or nil. `bytes` must be valid JSON (checked by the caller's parser);
    /// nesting is tracked with explicit stacks, so depth costs memory, not the call stack.
    ///
    /// Linear in the body: each open object's keys live in `objects` and are inserted in place. (They
    /// were once copied out of an enum and written back at every key, a copy of the whole set each
    /// time: 25,000 keys in one 240 KB object took 3.7 s, and a 1 MiB body about a minute.)
    public static func first(in bytes: [UInt8]) -> String? {
        var isObject: [Bool] = []   // one per open container, innermost last
        var objects: [(keys: Set<[UInt8]>, expectingKey: Bool)] = []   // one per open object
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"):
                isObject.append(true)
                objects.append(([], true))
            case UInt8(ascii: "["):
                isObject.append(false)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if isObject.popLast() == true { objects.removeLast() }
            case UInt8(ascii: ","):
                if isObject.last == true { objects[objects.count - 1].expectingKey = true }
            case UInt8(ascii: "\""):
                let start = index
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard index < bytes.count else { return nil }
                if isObject.last == true, objects[objects.count - 1].expectingKey {
                    let key = canonical(bytes[start...index])
                    guard objects[objects.count - 1].keys.insert(key).inserted else { return String(decoding: key, as: UTF8.self) }
                    objects[objects.count - 1].expectingKey = false
                }
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The key's characters: `"a"` and `"\u0061"` are the same name. `quoted` includes the quotes.
    private static func canonical(_ quoted: ArraySlice<UInt8>) -> [UInt8] {
        let inner = quoted.dropFirst().dropLast()
        guard inner.contains(UInt8(ascii: "\\")),
              let text = try? JSONSerialization.jsonObject(with: Data(quoted), options: [.fragmentsAllowed]) as? String
        else { return Array(inner) }
        return Array(text.utf8)
    }
}

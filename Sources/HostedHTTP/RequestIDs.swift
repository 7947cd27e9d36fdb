import Foundation

/// Request ids: a well-formed incoming id is kept (so a proxy's id ties the logs together);
/// anything else is replaced by this process's random prefix and a sequence number — unique
/// across processes without a syscall per request.
///
/// `@unchecked Sendable`: `sequence` is only touched while holding `lock`.
final class RequestIDs: @unchecked Sendable {
    private let lock = NSLock()
    private var sequence: UInt64 = 0

    /// 64 random bits per server instance, so ids from several processes never collide.
    private let prefix: String = {
        var generator = SystemRandomNumberGenerator()
        let prefix = String(generator.next() as UInt64, radix: 16)
        return String(repeating: "0", count: 16 - prefix.count) + prefix + "-"
    }()

    func next(incoming: String?) -> String {
        if let incoming, (1...128).contains(incoming.utf8.count), incoming.utf8.allSatisfy(Self.isIDCharacter) {
            return incoming
        }
        lock.lock()
        sequence &+= 1
        let number = sequence
        lock.unlock()
        return prefix + String(number, radix: 16)
    }

    private static func isIDCharacter(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
            || c == 0x2D || c == 0x2E || c == 0x5F || c == 0x3A
    }
}

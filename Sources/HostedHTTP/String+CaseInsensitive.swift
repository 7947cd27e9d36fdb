/// Whether two bytes are the same ASCII character, letters in either case.
private func sameIgnoringCase(_ a: UInt8, _ b: UInt8) -> Bool {
    a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7A)
}

extension String {
    /// Whether the string starts with `prefix`, ASCII letters in either case (`Content-Type`
    /// values such as `Text/HTML; charset=utf-8`), read in place.
    public func hasCaseInsensitivePrefix(_ prefix: String) -> Bool {
        var bytes = utf8.makeIterator()
        for expected in prefix.utf8 {
            guard let byte = bytes.next(), sameIgnoringCase(byte, expected) else { return false }
        }
        return true
    }

    /// ASCII case-insensitive comparison (header names are ASCII), without allocating.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        // Over the bytes in place when both are contiguous (native strings are): this runs for
        // every header of every request.
        let fast: Bool?? = utf8.withContiguousStorageIfAvailable { mine in
            other.utf8.withContiguousStorageIfAvailable { theirs in
                for index in 0..<mine.count where !sameIgnoringCase(mine[index], theirs[index]) { return false }
                return true
            }
        }
        if let fast, let fast { return fast }
        return zip(utf8, other.utf8).allSatisfy { sameIgnoringCase($0, $1) }
    }
}

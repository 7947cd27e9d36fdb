extension String {
    /// Without leading and trailing spaces and tabs (HTTP's optional white space), on bytes:
    /// it runs on header values of every request.
    public var trimmedASCIIWhitespace: String {
        let utf8 = self.utf8
        func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }
        guard let first = utf8.first, let last = utf8.last else { return self }
        if !isBlank(first) && !isBlank(last) { return self }
        guard let start = utf8.firstIndex(where: { !isBlank($0) }),
              let end = utf8.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return String(decoding: utf8[start...end], as: UTF8.self)
    }
}

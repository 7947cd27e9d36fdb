import CQREncode

/// QR codes from libqrencode, drawn as SVG: one path of dark modules on white, with the four
/// modules of quiet zone the standard asks for. Error correction M (15 %), byte mode.
public enum QRCodeImage {
    /// Longest text encoded (a URL with a 43-character secret is far below it).
    public static let maximumLength = 1024

    /// The code's modules, row by row (true = dark), or nil when the text is empty or too long.
    public static func modules(for text: String) -> [[Bool]]? {
        guard !text.isEmpty, text.utf8.count <= maximumLength,
              let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1)
        else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        guard width > 0, let data = code.pointee.data else { return nil }
        return (0..<width).map { row in (0..<width).map { column in data[row * width + column] & 1 == 1 } }
    }

    /// An SVG document of the code, scaled by the viewer (`viewBox` in modules).
    public static func svg(for text: String) -> String? {
        guard let modules = modules(for: text) else { return nil }
        let quiet = 4
        let size = modules.count + 2 * quiet
        var path = ""
        for (row, line) in modules.enumerated() {
            var column = 0
            while column < line.count {
                guard line[column] else { column += 1; continue }
                let start = column
                while column < line.count && line[column] { column += 1 }
                path += "M\(start + quiet) \(row + quiet)h\(column - start)v1h-\(column - start)z"
            }
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(size) \(size)" shape-rendering="crispEdges">\
            <rect width="\(size)" height="\(size)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>
            """
    }
}

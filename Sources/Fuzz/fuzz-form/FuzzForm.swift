import Foundation
import FuzzSupport
import HostedHTTP

// The form and header readers: FormURLEncoded.decode (form bodies and query strings),
// Request.formDecode, Request.cookie(_:), HTTPHeaders lookups and RequestFraming.violation.
//
// Input: the whole input is a form body; it is also read as header lines (`name: value`, one a
// line) whose Cookie headers are searched for the names the journey uses and for each pair's name.

func fuzzForm(_ bytes: [UInt8]) {
    // Form body / query string. What decode returns must survive encode → decode unchanged.
    if let pairs = FormURLEncoded.decode(bytes) {
        let encoded = FormURLEncoded.encode(pairs.map { ($0.name, $0.value) })
        let again = FormURLEncoded.decode(Array(encoded.utf8))
        fuzzCheck(again.map { $0.map { [$0.name, $0.value] } } == pairs.map { [$0.name, $0.value] },
                  "encode/decode round trip changed \(pairs) into \(String(describing: again))")
    }
    let text = FuzzInput.text(bytes)
    _ = Request.formDecode(text)

    // Header lines, also checked by the framing rules (the first line doubles as the version).
    // As libmicrohttpd hands them over: a value ends at its first NUL, and `hidesBytes` says
    // that something came after it.
    var headers = HTTPHeaders()
    var fields: [(name: String, value: String)] = []
    var hidesBytes = false
    let lines = FuzzInput(bytes).pieces()
    for line in lines {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
        var valueBytes = line[(colon + 1)...].drop(while: { $0 == 0x20 })
        if let nul = valueBytes.firstIndex(of: 0) {
            hidesBytes = hidesBytes || nul + 1 < valueBytes.endIndex
            valueBytes = valueBytes[..<nul]
        }
        let name = FuzzInput.text(Array(line[..<colon]))
        let value = FuzzInput.text(Array(valueBytes))
        headers.add(name, value)
        fields.append((name, value))
    }
    for version in ["HTTP/1.1", "HTTP/1.0", FuzzInput.text(lines[0])] {
        guard RequestFraming.violation(version: version, fields: fields, hidesBytes: hidesBytes) == nil else { continue }
        fuzzCheck(version == "HTTP/1.0" || version == "HTTP/1.1", "version \(version) accepted")
        fuzzCheck(!hidesBytes && fields.count <= RequestFraming.maximumFields, "hidden bytes or too many fields accepted")
        fuzzCheck(!fields.contains { $0.value.utf8.contains(0x0D) }, "CR in a header value accepted")
        if version == "HTTP/1.1" {
            fuzzCheck(fields.filter { $0.name.lowercased() == "host" }.count == 1, "HTTP/1.1 accepted without exactly one Host")
        }
        let lengths = Set(fields.filter { $0.name.lowercased() == "content-length" }.map { $0.value.trimmingCharacters(in: .whitespaces) })
        fuzzCheck(lengths.count <= 1, "several Content-Length values accepted: \(lengths)")
    }
    var request = Request(method: "POST", path: "/", headers: headers, body: bytes)
    let names = ["hosted_journey", "hosted_session", "", "=", ";", " "] + headers.map(\.name).prefix(4)
        + (FormURLEncoded.decode(bytes) ?? []).prefix(4).map(\.name)
    for name in names {
        // A cookie value never holds the byte ";" (`\u{600};` once joined two cookies).
        if let value = request.cookie(name) {
            fuzzCheck(!value.utf8.contains(UInt8(ascii: ";")), "cookie value with ';': \(value)")
        }
        _ = request.headers[name]
        _ = request.headers.all(name)
    }
    if let first = headers.fields.first {
        request.headers.set(first.name, "x")
        fuzzCheck(request.headers.all(first.name) == ["x"], "set did not replace \(first.name)")
        fuzzCheck(request.headers.contains(first.name.uppercased()) || first.name.uppercased().utf8.count != first.name.utf8.count
                  || !first.name.utf8.allSatisfy({ $0 < 0x80 }), "lookup is not case-insensitive for \(first.name)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzForm(fuzzBytes(data, size))
    return 0
}

#if !FUZZING
@main enum Replay {
    static func main() { FuzzReplay.main("fuzz-form", fuzzForm) }
}
#endif

import CXML2

/// The attributes of the first element of each name in an XML document, read with libxml2's
/// streaming reader: all Hosted needs of DigiLocker's documents (`Poi@name`, `UidData@uid`, …).
///
/// What reaches libxml2 is narrowed first (`parsable`), and libxml2 is asked for strict XML:
/// no recovery from errors, no network, no DTD loaded, no entity substituted, the encoding
/// UTF-8 whatever the document says. Its errors are never printed. FoundationXML did this before
/// (docs/decisions.md, "DigiLocker's XML through libxml2"): it trapped or crashed on some
/// malformed documents and kept about 750 bytes of every malformed one it was given.
public enum XMLAttributeReader {
    /// `[element's local name: [attribute's name: value]]` for the first element of each name,
    /// or nil when the document is not well-formed or is refused by `parsable`.
    public static func firstAttributes(_ bytes: [UInt8]) -> [String: [String: String]]? {
        guard let body = parsable(bytes), !body.isEmpty, body.count <= Int(Int32.max) else { return nil }
        _ = initialized
        let options = [XML_PARSE_NONET, XML_PARSE_NOERROR, XML_PARSE_NOWARNING, XML_PARSE_IGNORE_ENC]
            .reduce(Int32(0)) { $0 | Int32(bitPattern: $1.rawValue) }
        return body.withUnsafeBufferPointer { buffer -> [String: [String: String]]? in
            guard let base = buffer.baseAddress,
                  let reader = xmlReaderForMemory(UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(buffer.count),
                                                  nil, "UTF-8", options) else { return nil }
            defer { xmlFreeTextReader(reader) }
            xmlTextReaderSetStructuredErrorHandler(reader, hosted_xml_ignore_error, nil)
            return read(reader)
        }
    }

    private static func read(_ reader: xmlTextReaderPtr) -> [String: [String: String]]? {
        var elements: [String: [String: String]] = [:]
        while true {
            switch xmlTextReaderRead(reader) {
            case 1: break
            case 0: return elements
            default: return nil
            }
            guard xmlTextReaderNodeType(reader) == Int32(XML_READER_TYPE_ELEMENT.rawValue),
                  let name = text(xmlTextReaderConstName(reader)) else { continue }
            // The local name, whether or not its prefix is bound to a namespace.
            let local = name.split(separator: ":").last.map(String.init) ?? name
            guard elements[local] == nil else { continue }
            var attributes: [String: String] = [:]
            while xmlTextReaderMoveToNextAttribute(reader) == 1 {
                guard xmlTextReaderIsNamespaceDecl(reader) != 1, let key = text(xmlTextReaderConstName(reader)) else { continue }
                attributes[key] = text(xmlTextReaderConstValue(reader)) ?? ""
            }
            _ = xmlTextReaderMoveToElement(reader)
            elements[local] = attributes
        }
    }

    private static func text(_ characters: UnsafePointer<xmlChar>?) -> String? {
        characters.map { String(cString: $0) }
    }

    /// libxml2 asks to be initialised once before threads use it.
    private static let initialized: Void = xmlInitParser()

    /// What may be handed to libxml2, or nil: UTF-8 without NUL; the XML declaration dropped
    /// (the document is read as UTF-8, whatever encoding it names); and no other `<?`
    /// (processing instruction) or `<!DOCTYPE`, so no entity can be declared (no external entity,
    /// no "billion laughs"). DigiLocker's documents have neither.
    static func parsable(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        guard !bytes.contains(0), String(validating: bytes, as: UTF8.self) != nil else { return nil }
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        if body.starts(with: Array("<?xml".utf8)), body.count > 5, [0x20, 0x09, 0x0D, 0x0A].contains(body[body.startIndex + 5]) {
            guard let end = firstIndex(of: Array("?>".utf8), in: body) else { return nil }
            body = body[(end + 2)...]
        }
        guard firstIndex(of: Array("<?".utf8), in: body) == nil, firstIndex(of: Array("<!DOCTYPE".utf8), in: body) == nil
        else { return nil }
        return body
    }

    private static func firstIndex(of needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (haystack.startIndex...(haystack.endIndex - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}

import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A document fetched from DigiLocker, reduced to the fields Hosted keeps. The document's number
/// is masked here, before anything is stored: the full Aadhaar number never leaves this type.
public struct DigiLockerDocument: Codable, Equatable, Sendable {
    /// `aadhaar`, `pan` or `driving_license` (the workflow's names).
    public let document: String
    public let name: String
    /// `YYYY-MM-DD`, or nil when the document gives none or an unreadable one.
    public let dateOfBirth: String?
    public let gender: String?
    /// All but the last four characters replaced by `X` (Aadhaar grouped: `XXXX XXXX 1234`).
    public let numberMasked: String?
    public let issuer: String
    public let source = "digilocker"

    enum CodingKeys: String, CodingKey {
        case document, name, dateOfBirth = "date_of_birth", gender, numberMasked = "number_masked", issuer, source
    }

    public init(document: String, name: String, dateOfBirth: String?, gender: String?, numberMasked: String?, issuer: String) {
        self.document = document
        self.name = name
        self.dateOfBirth = dateOfBirth
        self.gender = gender
        self.numberMasked = numberMasked
        self.issuer = issuer
    }

    /// The largest document accepted from the provider (an e-Aadhaar with its photo is ~100 KB).
    public static let maximumBytes = 2 * 1024 * 1024

    /// Reads DigiLocker's XML: the e-Aadhaar (`KycRes/UidData@uid`, `Poi@name,dob,gender`) or an
    /// issued certificate (`Certificate@number`, `IssuedTo/Person@name,dob,gender`). nil when the
    /// XML is malformed, too large or has no name.
    public static func parse(xml: [UInt8], as document: String) -> DigiLockerDocument? {
        guard xml.count <= maximumBytes, let elements = XMLAttributes.read(xml) else { return nil }
        let number: String?
        let person: [String: String]?
        if document == "aadhaar" {
            number = elements["UidData"]?["uid"]
            person = elements["Poi"]
        } else {
            number = elements["Certificate"]?["number"]
            person = elements["Person"]
        }
        guard let name = person?["name"]?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty else { return nil }
        let issuer = elements["Organization"]?["name"] ?? defaultIssuers[document] ?? "DigiLocker"
        return DigiLockerDocument(document: document, name: name, dateOfBirth: person?["dob"].flatMap(isoDate),
                                  gender: person?["gender"].flatMap(gender), numberMasked: number.flatMap { mask($0, document: document) },
                                  issuer: issuer)
    }

    static let defaultIssuers = ["aadhaar": "UIDAI", "pan": "Income Tax Department", "driving_license": "Transport Department"]

    /// Keeps the last four letters or digits; an Aadhaar number is shown in groups of four.
    public static func mask(_ number: String, document: String) -> String? {
        let characters = number.uppercased().filter { $0.isLetter || $0.isNumber }
        guard characters.count >= 4 else { return nil }
        let masked = String(repeating: "X", count: characters.count - 4) + characters.suffix(4)
        guard document == "aadhaar" else { return masked }
        var grouped = ""
        for (index, character) in masked.enumerated() {
            if index > 0 && index % 4 == 0 { grouped.append(" ") }
            grouped.append(character)
        }
        return grouped
    }

    /// `YYYY-MM-DD`, `DD-MM-YYYY` or `DD/MM/YYYY` → `YYYY-MM-DD`.
    static func isoDate(_ text: String) -> String? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(whereSeparator: { $0 == "-" || $0 == "/" }).map(String.init)
        // ASCII digits only: `Character.isNumber` also takes `١٩٩٠` and `½`.
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }) else { return nil }
        let (year, month, day) = parts[0].count == 4 ? (parts[0], parts[1], parts[2]) : (parts[2], parts[1], parts[0])
        guard year.count == 4, let m = Int(month), let d = Int(day), (1...12).contains(m), (1...31).contains(d) else { return nil }
        return String(format: "%@-%02d-%02d", year, m, d)
    }

    static func gender(_ text: String) -> String? {
        switch text.uppercased() {
        case "M", "MALE": "M"
        case "F", "FEMALE": "F"
        case "T", "TRANSGENDER": "T"
        default: nil
        }
    }
}

/// The attributes of the first element of each name in an XML document. External entities are
/// never resolved (XXE); libxml2 caps entity expansion.
private final class XMLAttributes: NSObject, XMLParserDelegate {
    private var elements: [String: [String: String]] = [:]

    static func read(_ bytes: [UInt8]) -> [String: [String: String]]? {
        guard let body = parsable(bytes) else { return nil }
        let parser = XMLParser(data: Data(body))
        parser.shouldResolveExternalEntities = false
        let reader = XMLAttributes()
        parser.delegate = reader
        guard parser.parse() else { return nil }
        return reader.elements
    }

    /// What may be handed to FoundationXML without bringing the process down, or nil. Found by
    /// fuzzing (fuzz-xml; Tests/HostedCoreTests/FuzzRegressionTests.swift): libxml2, in the recover
    /// mode XMLParser uses, passes invalid UTF-8 in element, attribute, comment and processing-
    /// instruction names through and FoundationXML force-unwraps them as UTF-8 (`<a b\u{FF}="1"/>`
    /// traps), and it reads a processing instruction's data without a NULL check (`<?pi?>` is a
    /// SIGSEGV). So the document must be UTF-8 without NUL; the XML declaration is dropped (libxml2
    /// then reads UTF-8, whatever encoding it named: no UTF-7 or UTF-16 markup slips past these
    /// checks); and no other `<?` (processing instruction) or `<!DOCTYPE` (whose entities could
    /// expand to one) may remain. DigiLocker's documents have neither.
    static func parsable(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        guard !bytes.contains(0), String(bytes: bytes, encoding: .utf8) != nil else { return nil }
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

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        let local = elementName.split(separator: ":").last.map(String.init) ?? elementName
        if elements[local] == nil { elements[local] = attributes }
    }
}

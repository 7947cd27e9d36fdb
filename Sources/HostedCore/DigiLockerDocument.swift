import Foundation

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

    /// Reads DigiLocker's document from its elements' attributes (HostedXML's reader gives them,
    /// as `DigiLockerDocument.parse(xml:as:)`): the e-Aadhaar (`KycRes/UidData@uid`,
    /// `Poi@name,dob,gender`) or an issued certificate (`Certificate@number`,
    /// `IssuedTo/Person@name,dob,gender`). nil when it has no name.
    public static func read(_ elements: [String: [String: String]], as document: String) -> DigiLockerDocument? {
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

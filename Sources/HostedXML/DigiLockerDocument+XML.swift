import HostedCore

extension DigiLockerDocument {
    /// Reads DigiLocker's XML (see `read(_:as:)` for what is taken from it). nil when the XML is
    /// malformed, too large, refused by `XMLAttributeReader`, or has no name.
    public static func parse(xml: [UInt8], as document: String) -> DigiLockerDocument? {
        guard xml.count <= maximumBytes, let elements = XMLAttributeReader.firstAttributes(xml) else { return nil }
        return read(elements, as: document)
    }
}

/// Rules for the fields a customer sends about a verification.
public enum VerificationRules {
    public static let maximumMetadataKeys = 20
    public static let maximumMetadataKeyLength = 40
    public static let maximumMetadataValueLength = 500

    public static let maximumUserIDLength = 255

    /// The customer's own id for the user, kept verbatim: 1–255 Unicode characters (code points,
    /// as JSON Schema's `maxLength` counts them), none of them a control character — so
    /// `auth0|5f7c…`, `google-oauth2|1234`, `a+b@x.in` and `ग्राहक-42` are all ids.
    public static func isValidUserID(_ text: String) -> Bool {
        let scalars = text.unicodeScalars
        var count = 0
        for scalar in scalars {
            count += 1
            if count > maximumUserIDLength || scalar.properties.generalCategory == .control { return false }
        }
        return count > 0
    }

    /// E.164: `+`, a non-zero digit, then 7 to 14 more digits.
    public static func isValidMobile(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 9, bytes.count <= 16, bytes[0] == 0x2B, bytes[1] >= 0x31, bytes[1] <= 0x39 else { return false }
        return bytes.dropFirst().allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// Field errors for metadata, or none.
    public static func metadataErrors(_ metadata: [String: String], field: String = "metadata") -> [FieldError] {
        var errors: [FieldError] = []
        if metadata.count > maximumMetadataKeys {
            errors.append(FieldError(field: field, message: "must have at most \(maximumMetadataKeys) keys"))
        }
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            if key.isEmpty || key.count > maximumMetadataKeyLength || key.unicodeScalars.contains(where: { $0.value < 0x20 }) {
                errors.append(FieldError(field: "\(field).\(key)", message: "keys must be 1 to \(maximumMetadataKeyLength) printable characters"))
            }
            if value.count > maximumMetadataValueLength || value.unicodeScalars.contains(where: { $0.value == 0 }) {
                errors.append(FieldError(field: "\(field).\(key)", message: "values must be at most \(maximumMetadataValueLength) characters"))
            }
        }
        return errors
    }
}

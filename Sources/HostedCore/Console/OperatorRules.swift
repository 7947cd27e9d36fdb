import Foundation

/// The rules of the console's sign-in (DESIGN.md, "Operator console").
public enum OperatorRules {
    /// Failed sign-ins in a row that lock an operator.
    public static let maximumFailedSignIns = 5
    /// How long a lock lasts.
    public static let lockoutSeconds: TimeInterval = 15 * 60
    /// How long a setup link works.
    public static let setupLinkSeconds: TimeInterval = 24 * 3600
    /// A console session ends after this long without a request…
    public static let idleTimeoutSeconds: TimeInterval = 30 * 60
    /// …and this long after sign-in, whatever happens.
    public static let absoluteTimeoutSeconds: TimeInterval = 12 * 3600

    /// An email address as operators are found by: trimmed, lower-cased; nil unless it has the
    /// shape `local@domain` with no space or control character and at most 254 bytes.
    public static func normalizedEmail(_ text: String) -> String? {
        let email = text.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard (3...254).contains(email.utf8.count), parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
              !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
              !email.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F })
        else { return nil }
        return email
    }
}

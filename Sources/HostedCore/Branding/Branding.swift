import Foundation

/// How an account presents itself to its users on the journey, the console and in SMS texts:
/// a display name, an accent colour, a support URL and a logo (stored by its SHA-256). Every
/// field is optional; without any, the pages look as they always did.
public struct Branding: Equatable, Sendable {
    public var displayName: String?
    public var accentColor: AccentColor?
    public var supportURL: String?
    /// Lower-case hex SHA-256 of the stored logo PNG, nil without a logo.
    public var logoSHA256: String?

    public init(displayName: String? = nil, accentColor: AccentColor? = nil, supportURL: String? = nil, logoSHA256: String? = nil) {
        self.displayName = displayName
        self.accentColor = accentColor
        self.supportURL = supportURL
        self.logoSHA256 = logoSHA256
    }

    /// A change to the text fields: for each, nil keeps it, `.some(nil)` clears it, `.some(value)` sets it.
    public struct Change: Equatable, Sendable {
        public var displayName: String??
        public var accentColor: AccentColor??
        public var supportURL: String??

        public init(displayName: String?? = nil, accentColor: AccentColor?? = nil, supportURL: String?? = nil) {
            self.displayName = displayName
            self.accentColor = accentColor
            self.supportURL = supportURL
        }
    }

    /// Longest display name, in characters (what fits a phone's header and an SMS's start).
    public static let maximumDisplayNameLength = 60
    /// Longest support URL, in bytes.
    public static let maximumSupportURLLength = 2048

    /// A display name: 1 to 60 characters after trimming, none of them a control or format character
    /// (no line breaks in an SMS, no bidirectional overrides that would make it read as another name).
    public static func validDisplayName(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= maximumDisplayNameLength,
              !trimmed.unicodeScalars.contains(where: { [.control, .format, .lineSeparator, .paragraphSeparator]
                  .contains($0.properties.generalCategory) })
        else { return nil }
        return trimmed
    }

    /// A support URL: absolute `https` with a host, no user-info, at most 2048 bytes, no whitespace.
    public static func validSupportURL(_ text: String) -> String? {
        guard text.utf8.count <= maximumSupportURLLength, !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 }),
              let components = URLComponents(string: text), components.scheme?.lowercased() == "https",
              let host = components.host, !host.isEmpty, components.user == nil, components.password == nil
        else { return nil }
        return text
    }

    /// This branding with `change` applied.
    public func applying(_ change: Change) -> Branding {
        var copy = self
        if let name = change.displayName { copy.displayName = name }
        if let color = change.accentColor { copy.accentColor = color }
        if let url = change.supportURL { copy.supportURL = url }
        return copy
    }
}

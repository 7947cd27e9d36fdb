/// Internal notes: free text for the review team, never shown to the user or the API.
public enum ReviewNoteRules {
    public static let maximumLength = 2000

    /// The note trimmed, or nil when it is empty, too long or holds a control character other
    /// than a line break or tab.
    public static func validated(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= maximumLength,
              !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t" && $0 != "\r" })
        else { return nil }
        return trimmed
    }
}

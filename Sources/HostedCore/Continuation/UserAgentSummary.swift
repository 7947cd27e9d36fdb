/// Where a continuation was asked for, as the phone shows it ("Chrome on Windows"): the
/// browser's and the operating system's family from a User-Agent, coarse on purpose (no version,
/// no device model), by the small table below, first match wins. Nothing else of the header is
/// kept. The table follows the tokens browsers put in their User-Agent today; an agent it does
/// not know is `nil` and the phone says only when.
public struct UserAgentSummary: Equatable, Sendable {
    public let browser: String?
    public let os: String?

    /// Browser families, most specific token first (Edge and Opera also say "Chrome"; Chrome also
    /// says "Safari"; Chrome on iOS says "CriOS", Firefox on iOS "FxiOS").
    static let browsers: [(token: String, name: String)] = [
        ("Edg/", "Edge"), ("EdgA/", "Edge"), ("EdgiOS/", "Edge"), ("OPR/", "Opera"), ("SamsungBrowser/", "Samsung Internet"),
        ("Firefox/", "Firefox"), ("FxiOS/", "Firefox"), ("CriOS/", "Chrome"), ("Chromium/", "Chromium"), ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
    ]

    /// Operating systems, most specific first (Android says "Linux"; iPadOS may say "Macintosh").
    static let systems: [(token: String, name: String)] = [
        ("Windows NT", "Windows"), ("Android", "Android"), ("iPhone", "iOS"), ("iPad", "iPadOS"), ("CrOS", "ChromeOS"),
        ("Mac OS X", "macOS"), ("Macintosh", "macOS"), ("Linux", "Linux"),
    ]

    /// At most this much of a header is read: a real one is a few hundred bytes.
    static let maximumLength = 512

    public init(userAgent: String?) {
        let text = String((userAgent ?? "").prefix(Self.maximumLength))
        browser = Self.browsers.first { text.contains($0.token) }?.name
        os = Self.systems.first { text.contains($0.token) }?.name
    }

    public init(browser: String?, os: String?) {
        self.browser = browser
        self.os = os
    }
}

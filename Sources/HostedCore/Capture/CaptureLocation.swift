/// Where a premises photo was taken, as the browser's Geolocation API told the page at capture
/// (only when the step asks, `"location": "ask"`, and the user agreed in the browser's own
/// prompt). Kept with the capture for the reviewer; erased with the verification's redaction.
public struct CaptureLocation: Sendable, Equatable, Codable {
    public let latitude: Double
    public let longitude: Double
    /// The browser's accuracy radius, in metres.
    public let accuracyM: Double

    /// Largest accuracy radius taken (a country-sized guess says nothing about premises).
    public static let maximumAccuracyMetres = 100_000.0

    /// A location from untrusted numbers: nil unless each is finite and within its range.
    public init?(latitude: Double, longitude: Double, accuracyM: Double) {
        guard latitude.isFinite, longitude.isFinite, accuracyM.isFinite,
              (-90...90).contains(latitude), (-180...180).contains(longitude),
              (0...Self.maximumAccuracyMetres).contains(accuracyM) else { return nil }
        // Six decimals (about 0.1 m) is all a browser's fix can mean.
        self.latitude = (latitude * 1_000_000).rounded() / 1_000_000
        self.longitude = (longitude * 1_000_000).rounded() / 1_000_000
        self.accuracyM = accuracyM.rounded()
    }
}

/// Whether a photo step asks the browser for the user's location at capture (the step option
/// `location`; premises photos only).
public enum CaptureLocationMode: String, Sendable, Equatable, Codable, CaseIterable {
    /// The page asks through the browser's own permission prompt; refusing never blocks.
    case ask
}

import Foundation
import HostedCore
import HostedCrypto
import HostedStorage

/// The front door of an account's branding (issue 44): the rules for each field, the logo
/// through the image adapter (decoded and re-encoded as a PNG; nothing stored on a refusal),
/// the logo served by its content hash, and what a journey, the console and an SMS show.
public struct BrandingService: Sendable {
    let store: BrandingStore
    let normalizer: any ImageNormalizer
    let publicURL: URL
    let clock: any WallClock

    /// The journey's backgrounds, as journey.css has them: the light scheme's page (white, also
    /// the text on its buttons) and the dark scheme's button text (the darker of its two darks'
    /// neighbour: a colour that contrasts with it contrasts more with the page, #121212).
    static let lightBackground = AccentColor.white
    static let darkButtonText = AccentColor(red: 0x0b, green: 0x1d, blue: 0x3a)

    public init(database: any Database, normalizer: any ImageNormalizer, publicURL: URL, clock: any WallClock = SystemWallClock()) {
        store = BrandingStore(database: database)
        self.normalizer = normalizer
        self.publicURL = publicURL
        self.clock = clock
    }

    /// The account's branding; `notFound` for an unknown account.
    public func branding(accountID: ObjectID) throws -> Branding {
        guard let branding = try store.branding(accountID: accountID) else { throw DomainError.notFound(what: "account") }
        return branding
    }

    /// Applies a change whose fields were already checked (`BrandingPatch`, or the command line's).
    public func update(accountID: ObjectID, _ change: Branding.Change) throws -> Branding {
        guard let branding = try store.update(accountID: accountID, change) else { throw DomainError.notFound(what: "account") }
        return branding
    }

    /// Checks the three text fields as the API takes them (nil keeps a field, "" clears it on the command line).
    public static func change(displayName: String??, accentColor: String??, supportURL: String??) throws -> Branding.Change {
        var errors: [FieldError] = []
        var change = Branding.Change()
        if let name = displayName {
            if let name {
                if let valid = Branding.validDisplayName(name) { change.displayName = .some(valid) } else {
                    errors.append(FieldError(field: "branding.display_name",
                                             message: "must be 1 to \(Branding.maximumDisplayNameLength) printable characters"))
                }
            } else { change.displayName = .some(nil) }
        }
        if let color = accentColor {
            if let color {
                if let valid = AccentColor(hex: color) { change.accentColor = .some(valid) } else {
                    errors.append(FieldError(field: "branding.accent_color", message: "must be a colour written #rrggbb"))
                }
            } else { change.accentColor = .some(nil) }
        }
        if let url = supportURL {
            if let url {
                if let valid = Branding.validSupportURL(url) { change.supportURL = .some(valid) } else {
                    errors.append(FieldError(field: "branding.support_url", message: "must be an absolute https URL"))
                }
            } else { change.supportURL = .some(nil) }
        }
        guard errors.isEmpty else { throw DomainError.invalidRequest(detail: "The branding has invalid fields.", errors: errors) }
        return change
    }

    /// Replaces the account's logo with `bytes` re-encoded, here and now (the command line; the
    /// API decodes on the decode queue: `checkLogo`, then `storeLogo`).
    public func setLogo(accountID: ObjectID, bytes: [UInt8]) throws -> Branding {
        try checkLogo(accountID: accountID, bytes: bytes)
        return try storeLogo(accountID: accountID, Result { () throws(ImageRejected) in try normalizer.normalize(bytes) })
    }

    /// What is refused before decoding: an unknown account, more than `BrandLogo.maximumBytes`,
    /// 415 for anything that is not a PNG or JPEG by its bytes (SVG, GIF, HTML…).
    public func checkLogo(accountID: ObjectID, bytes: [UInt8]) throws {
        guard try store.branding(accountID: accountID) != nil else { throw DomainError.notFound(what: "account") }
        guard bytes.count <= BrandLogo.maximumBytes else {
            throw DomainError.invalidRequest(detail: "The logo must be at most \(BrandLogo.maximumBytes) bytes.",
                                             errors: [FieldError(field: "logo", message: "must be at most \(BrandLogo.maximumBytes) bytes")])
        }
        guard BrandLogo.isPNGOrJPEG(bytes) else {
            throw DomainError.unsupportedMediaType(detail: "The logo must be a PNG or JPEG image.")
        }
    }

    /// Stores a decoded logo: 422 when it did not decode; nothing is stored then.
    public func storeLogo(accountID: ObjectID, _ decoded: Result<NormalizedImage, ImageRejected>) throws -> Branding {
        guard case .success(let image) = decoded else {
            throw DomainError.invalidRequest(detail: "The logo could not be read as an image.",
                                             errors: [FieldError(field: "logo", message: "is not a usable PNG or JPEG")], code: .imageInvalid)
        }
        try store.setLogo(accountID: accountID, png: image.bytes, sha256: Digest.hex(Digest.sha256(image.bytes)),
                          width: image.width, height: image.height, at: clock.now())
        return try branding(accountID: accountID)
    }

    public func deleteLogo(accountID: ObjectID) throws -> Branding {
        _ = try store.deleteLogo(accountID: accountID)
        return try branding(accountID: accountID)
    }

    /// The logo PNG at `/brand/{account}/{file}`: only under the name its current content hashes
    /// to; any other name, account or no logo is `notFound`.
    public func logo(account: String, file: String) throws -> [UInt8] {
        guard let accountID = ObjectID(.account, parsing: account), let logo = try store.logo(accountID: accountID),
              file == BrandLogo.fileName(sha256: logo.sha256)
        else { throw DomainError.notFound(what: "logo") }
        return logo.png
    }

    /// The logo's absolute URL on the journey's origin, nil without a logo.
    func logoURL(accountID: ObjectID, _ branding: Branding) -> String? {
        branding.logoSHA256.map { publicURL.appendingPathComponent("brand/\(accountID.rawValue)/\(BrandLogo.fileName(sha256: $0))").absoluteString }
    }

    /// What a page shows of the account that owns the verification (nothing about the
    /// verification itself); `notFound` for an unknown verification.
    public func journeyBrand(verificationID: ObjectID) throws -> PageBrand {
        guard let (accountID, branding, livemode) = try store.branding(verificationID: verificationID) else {
            throw DomainError.notFound(what: "verification")
        }
        // A test verification's page says so (docs/test-mode.md): its code is 000000, nothing is real.
        return pageBrand(accountID: accountID, branding, test: !livemode)
    }

    /// What the console's header shows of the operator's account.
    public func consoleBrand(accountID: ObjectID) throws -> PageBrand {
        pageBrand(accountID: accountID, try branding(accountID: accountID))
    }

    private func pageBrand(accountID: ObjectID, _ branding: Branding, test: Bool = false) -> PageBrand {
        PageBrand(display_name: branding.displayName,
                  accent_color: branding.accentColor.map { AccentColor.accessible($0, against: Self.lightBackground).hex },
                  accent_color_dark: branding.accentColor.map { AccentColor.accessible($0, against: Self.darkButtonText).hex },
                  support_url: branding.supportURL, logo_url: logoURL(accountID: accountID, branding), test: test)
    }

    /// A page's view of a brand: the accent colours already made accessible for the light and dark schemes.
    public struct PageBrand: Encodable, Equatable, Sendable {
        let object = "brand"
        let display_name: String?
        let accent_color: String?
        let accent_color_dark: String?
        let support_url: String?
        let logo_url: String?
        /// A test verification's journey: encoded (`livemode: false`) only then.
        var test = false

        private enum CodingKeys: String, CodingKey { case object, display_name, accent_color, accent_color_dark, support_url, logo_url, livemode }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(object, forKey: .object)
            // Every member is present, null when unset, so a page need not tell "absent" from "none".
            try container.encode(display_name, forKey: .display_name)
            try container.encode(accent_color, forKey: .accent_color)
            try container.encode(accent_color_dark, forKey: .accent_color_dark)
            try container.encode(support_url, forKey: .support_url)
            try container.encode(logo_url, forKey: .logo_url)
            if test { try container.encode(false, forKey: .livemode) }
        }
    }

    /// The account's branding as `GET /v1/account` shows it.
    public func apiBody(accountID: ObjectID, _ branding: Branding) -> BrandingBody {
        BrandingBody(display_name: branding.displayName, accent_color: branding.accentColor?.hex, support_url: branding.supportURL,
                     logo_url: logoURL(accountID: accountID, branding))
    }

    /// `branding` in the account's JSON: what was set (the colour as given), every member present.
    public struct BrandingBody: Encodable, Sendable {
        let display_name: String?
        let accent_color: String?
        let support_url: String?
        let logo_url: String?

        private enum CodingKeys: String, CodingKey { case display_name, accent_color, support_url, logo_url }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(display_name, forKey: .display_name)
            try container.encode(accent_color, forKey: .accent_color)
            try container.encode(support_url, forKey: .support_url)
            try container.encode(logo_url, forKey: .logo_url)
        }
    }

    /// The name every SMS text of a verification begins with ("Acme Bank: 123456 is your code…"):
    /// its account's display name, looked up when the text is sent; nil (today's text) without one
    /// or when the lookup fails (a text is worth more than its prefix).
    public static func senderNames(database: any Database) -> @Sendable (String) -> String? {
        let store = BrandingStore(database: database)
        return { verification in
            guard let id = ObjectID(.verification, parsing: verification) else { return nil }
            return (try? store.branding(verificationID: id))?.branding.displayName
        }
    }
}

import Foundation
import HostedCore
import HostedHTTP
import HostedImaging

/// `hosted accounts update`: the account's branding with the API's rules (one `BrandingService`)
/// and the API's account JSON on stdout.
extension AccountAdministration {
    /// For each text field nil keeps it and "" clears it; `logo` nil keeps the logo, an empty
    /// array deletes it. Every text field is checked before anything is stored, and a refused logo
    /// stores nothing.
    public func updateBranding(account text: String, displayName: String?, accentColor: String?, supportURL: String?,
                               logo: [UInt8]?, publicURL: URL) throws -> [UInt8] {
        let id = try account(text)
        let branding = BrandingService(database: database, normalizer: try VipsLogoNormalizer(), publicURL: publicURL)
        func field(_ value: String?) -> String?? {
            guard let value else { return nil }
            return value.isEmpty ? .some(nil) : .some(value)
        }
        let change = try BrandingService.change(displayName: field(displayName), accentColor: field(accentColor),
                                                supportURL: field(supportURL))
        if let logo {
            _ = logo.isEmpty ? try branding.deleteLogo(accountID: id) : try branding.setLogo(accountID: id, bytes: logo)
        }
        _ = try branding.update(accountID: id, change)
        guard let found = try accounts.account(id) else { throw DomainError.notFound(what: "account") }
        return Array(try AccountRoutes.body(found, branding: branding).body)
    }
}

import HostedCore

/// Reads `PATCH /v1/account`'s body, `{"branding": {"display_name", "accent_color", "support_url"}}`,
/// where a member left out keeps its field and `null` clears it (JSON merge-patch style, which
/// `JSONObject` does not tell apart), into a checked `Branding.Change`.
enum BrandingPatch {
    static let fields = ["display_name", "accent_color", "support_url"]

    static func change(body: [UInt8]) throws -> Branding.Change {
        guard let document = JSONValue.parse(body), case .object(let top) = document.value else {
            throw DomainError.malformed(detail: "The request body must be a JSON object.")
        }
        if let repeated = document.firstRepeatedName {
            throw DomainError.malformed(detail: "The request body names \"\(repeated.prefix(64))\" more than once.",
                                        errors: [FieldError(field: String(repeated.prefix(64)), message: "appears more than once")])
        }
        var errors = top.keys.filter { $0 != "branding" }.sorted()
            .map { FieldError(field: String($0.prefix(64)), message: "is not a known field", code: .unknownField) }
        guard case .object(let branding)? = top["branding"] else {
            errors.append(FieldError(field: "branding", message: "must be an object", code: top["branding"] == nil ? .required : .wrongType))
            throw DomainError.invalidRequest(detail: "The request has invalid fields.", errors: errors)
        }
        errors += branding.keys.filter { !fields.contains($0) }.sorted()
            .map { FieldError(field: "branding." + String($0.prefix(64)), message: "is not a known field", code: .unknownField) }
        /// nil: absent (keep); .some(nil): null (clear); .some(text): set.
        func text(_ name: String) -> String?? {
            switch branding[name] {
            case nil: return nil
            case .null?: return .some(nil)
            case .string(let value)?: return .some(value)
            default:
                errors.append(FieldError(field: "branding." + name, message: "must be a string or null", code: .wrongType))
                return nil
            }
        }
        let (name, color, url) = (text("display_name"), text("accent_color"), text("support_url"))
        do {
            let change = try BrandingService.change(displayName: name, accentColor: color, supportURL: url)
            guard errors.isEmpty else { throw DomainError.invalidRequest(detail: "The request has invalid fields.", errors: errors) }
            return change
        } catch DomainError.invalidRequest(_, let more, _) {
            throw DomainError.invalidRequest(detail: "The request has invalid fields.", errors: errors + more)
        }
    }
}

/// Every reason a field of a request can be refused for (the `code` of an entry of a problem's
/// `errors`), in one place, so a page can translate each.
public enum FieldErrorCode: String, Sendable, CaseIterable {
    /// Nothing more precise applies; the message says what is wrong.
    case invalid
    case required
    case wrongType = "wrong_type"
    case unknownField = "unknown_field"
    case mobileInvalid = "mobile_invalid"
    case nameInvalid = "name_invalid"
    case dateInvalid = "date_invalid"
    case dateInFuture = "date_in_future"
    case dateTooOld = "date_too_old"
}

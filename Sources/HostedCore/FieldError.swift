/// One field's problem in a rejected request.
public struct FieldError: Equatable, Sendable {
    public let field: String
    /// English, for developers reading the response.
    public let message: String
    /// A stable reason a page can translate (`required`, `wrong_type`, `date_in_future`, …).
    public let code: FieldErrorCode

    public init(field: String, message: String, code: FieldErrorCode = .invalid) {
        self.field = field
        self.message = message
        self.code = code
    }
}

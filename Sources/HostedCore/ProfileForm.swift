import Foundation

/// The profile step's form: full name and date of birth, checked the same way the page does.
public struct ProfileForm: Equatable, Sendable, Codable {
    public let fullName: String
    public let dateOfBirth: String

    public init(fullName: String, dateOfBirth: String) {
        self.fullName = fullName
        self.dateOfBirth = dateOfBirth
    }

    enum CodingKeys: String, CodingKey {
        case fullName = "full_name"
        case dateOfBirth = "date_of_birth"
    }

    /// Validates against `today` (an ISO date, `YYYY-MM-DD`): a name of 1–200 printable
    /// characters, a real date of birth not in the future and at most 130 years ago.
    public static func validate(fullName: String?, dateOfBirth: String?, today: String) throws(DomainError) -> ProfileForm {
        var errors: [FieldError] = []
        let name = fullName?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if name.isEmpty || name.count > 200 || name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            errors.append(FieldError(field: "full_name", message: "must be 1 to 200 printable characters", code: .nameInvalid))
        }
        let date = dateOfBirth ?? ""
        if !isRealDate(date) {
            errors.append(FieldError(field: "date_of_birth", message: "must be a real date written YYYY-MM-DD", code: .dateInvalid))
        } else if date > today {
            errors.append(FieldError(field: "date_of_birth", message: "must not be in the future", code: .dateInFuture))
        } else if date < earliest(today) {
            errors.append(FieldError(field: "date_of_birth", message: "must be within the last 130 years", code: .dateTooOld))
        }
        guard errors.isEmpty else { throw .invalidRequest(detail: "Please check your details.", errors: errors) }
        return ProfileForm(fullName: name, dateOfBirth: date)
    }

    static func isRealDate(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]), (1...12).contains(month)
        else { return false }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        return (1...days).contains(day)
    }

    static func earliest(_ today: String) -> String {
        guard let year = Int(today.prefix(4)) else { return today }
        return String(year - 130) + today.dropFirst(4)
    }
}

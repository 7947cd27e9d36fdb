import HostedCore
import HostedHTTP

/// The paging parameters every list takes: `limit` (1 to 100, default 10) and `starting_after`
/// (an id of the listed kind). A parameter the list does not know is refused; the errors are
/// collected with the list's own, so one 422 names them all.
struct ListParameters: Sendable {
    var limit = 10
    var startingAfter: ObjectID?

    /// `noun` names the cursor's kind in its error ("a verification id").
    /// A nil `kind` leaves `starting_after` to the caller (a list whose ids are not ObjectIDs).
    init(_ request: Request, known: Set<String>, cursor kind: ObjectID.Kind?, noun: String, errors: inout [FieldError]) {
        for parameter in request.query where !known.contains(parameter.name) {
            errors.append(FieldError(field: parameter.name, message: "is not a known parameter"))
        }
        if let raw = request.queryValue("limit") {
            if let value = Int(raw), (1...100).contains(value) { limit = value }
            else { errors.append(FieldError(field: "limit", message: "must be 1 to 100")) }
        }
        if let kind, let raw = request.queryValue("starting_after") {
            startingAfter = ObjectID(kind, parsing: raw)
            if startingAfter == nil { errors.append(FieldError(field: "starting_after", message: "must be \(noun)")) }
        }
    }

    /// Throws the collected errors of a list's parameters as one 422.
    static func refuse(_ errors: [FieldError]) throws {
        guard errors.isEmpty else { throw DomainError.invalidRequest(detail: "The list parameters are not valid.", errors: errors) }
    }
}

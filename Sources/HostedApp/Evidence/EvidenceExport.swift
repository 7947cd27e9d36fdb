import HostedCore

/// `hosted evidence export`: the same bundle as the API's, for the operator of the machine
/// (any account's verification; the export is recorded with the actor `system`). Built from the
/// configuration in `Application/Foundations+Evidence.swift`.
public struct EvidenceExport: Sendable {
    let service: EvidenceService

    /// The bundle's bytes and their SHA-256 (hex); `not_found` for an id that names no verification.
    public func export(verificationID text: String) throws -> (bytes: [UInt8], sha256: String) {
        guard let id = ObjectID(.verification, parsing: text) else { throw DomainError.notFound(what: "verification") }
        let bundle = try service.export(verificationID: id, by: .system)
        return (bundle.bytes, bundle.sha256)
    }
}

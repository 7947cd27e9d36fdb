import Foundation
import HostedArchive
import HostedCore
import HostedCrypto
import HostedStorage

/// The evidence bundle of one verification (DESIGN.md, "Evidence bundle"; docs/evidence.md): a
/// ZIP made by libzip of `manifest.json`, each artifact still stored as `artifacts/{id}.{ext}`,
/// and `manifest.json.jws`, a detached JWS over the manifest's bytes signed with the result keys.
/// One front door for the API, the console and the command line.
///
/// Every export records `verification.evidence_exported` (its actor, the manifest's SHA-256)
/// after the bundle is built and before a byte of it is served: a bundle that was handed out is
/// always in the chain; a bundle that could not be built records nothing.
struct EvidenceService: Sendable {
    /// Signs the manifest: the detached compact JWS (`header..signature`) over its bytes.
    typealias Signer = @Sendable (_ payload: [UInt8]) throws -> String

    let verifications: VerificationStore
    let events: EventStore
    let artifacts: ArtifactStore
    let verificationJSON: APIObjects.VerificationJSON
    /// Nil until signing keys exist: the bundle then has no `manifest.json.jws`.
    let signer: Signer?
    let clock: any WallClock
    var limits = ZipArchive.Limits()

    struct Bundle: Sendable {
        let verificationID: ObjectID
        let bytes: [UInt8]
        /// SHA-256 (hex) of the ZIP as served.
        let sha256: String
        let manifestSHA256: String

        var filename: String { "evidence-\(verificationID.rawValue).zip" }
    }

    /// The bundle of one of the tenancy's verifications; `not_found` for another account's or mode's.
    func export(tenancy: Tenancy, verificationID: ObjectID, by actor: EventActor) throws -> Bundle {
        guard let verification = try verifications.verification(tenancy: tenancy, id: verificationID) else {
            throw DomainError.notFound(what: "verification")
        }
        return try export(verification, by: actor)
    }

    /// The command line's: any account's verification (the operator of the machine asks).
    func export(verificationID: ObjectID, by actor: EventActor) throws -> Bundle {
        guard let verification = try verifications.verification(id: verificationID) else { throw DomainError.notFound(what: "verification") }
        return try export(verification, by: actor)
    }

    private func export(_ first: Verification, by actor: EventActor) throws -> Bundle {
        let now = clock.now()
        let (verification, chain, listed) = try snapshot(first)
        var entries: [ZipArchive.Entry] = []
        var described: [EvidenceManifest.Artifact] = []
        // Oldest first; photos of one moment in their upload order (a step's captures are).
        let uploadOrder = Dictionary(verification.steps.flatMap(\.captures).enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        let ordered = listed.sorted { a, b in
            (a.createdAt, uploadOrder[a.id] ?? Int.max, a.id) < (b.createdAt, uploadOrder[b.id] ?? Int.max, b.id)
        }
        for summary in ordered {
            var content: [UInt8]?
            if !summary.redacted {
                content = try artifacts.content(id: try Self.artifactID(summary.id), verificationID: verification.id)?.content
            }
            let capture = verification.steps.lazy.flatMap(\.captures).first { $0.id == summary.id }
            let listedInStep = verification.steps.contains { $0.id == summary.stepID && $0.artifacts.contains(summary.id) }
            let path = content.map { _ in EvidenceManifest.path(of: summary.id, contentType: summary.contentType) }
            described.append(EvidenceManifest.Artifact(
                id: summary.id, step: summary.stepID, contentType: summary.contentType,
                sha256: content.map { Digest.hex(Digest.sha256($0)) } ?? summary.contentSHA256, bytes: content?.count ?? summary.contentBytes,
                capturedAt: capture?.capturedAt ?? summary.createdAt, capture: capture,
                superseded: capture?.superseded ?? !listedInStep, path: path))
            if let content, let path {
                entries.append(ZipArchive.Entry(name: path, bytes: content, compression: summary.contentType == "application/json" ? .deflate : .store))
            }
        }
        let manifest = EvidenceManifest(verificationJSON: verificationJSON.bytes(verification), events: chain, artifacts: described,
                                        generatedAt: now).bytes()
        entries.insert(ZipArchive.Entry(name: "manifest.json", bytes: manifest, compression: .deflate), at: 0)
        if let signer {
            entries.insert(ZipArchive.Entry(name: "manifest.json.jws", bytes: Array(try signer(manifest).utf8), compression: .store), at: 1)
        }
        let zip: [UInt8]
        do {
            zip = try ZipArchive.build(entries, modified: now, limits: limits)
        } catch {
            switch error {
            case .tooManyEntries, .entryTooLarge, .tooLarge:
                throw DomainError.conflict(detail: "This verification's evidence is larger than a bundle may be; fetch its artifacts one by one.",
                                           code: .evidenceTooLarge)
            default: throw error
            }
        }
        let manifestSHA256 = Digest.hex(Digest.sha256(manifest))
        // Recorded once the bundle exists and before it is served (the caller serves it only
        // when this returns): an export that was handed out is never missing from the chain.
        _ = try verifications.update(tenancy: verification.tenancy, id: verification.id, at: clock.now()) { current in
            try current.apply(.evidenceExported(manifestSHA256: manifestSHA256), at: clock.now(), by: actor)
        }
        return Bundle(verificationID: verification.id, bytes: zip, sha256: Digest.hex(Digest.sha256(zip)), manifestSHA256: manifestSHA256)
    }

    /// The verification, its chain and its artifacts as of one moment: read again while a change
    /// (a new event, a new revision) landed between the reads, a few times at most.
    private func snapshot(_ first: Verification) throws -> (Verification, [Event], [ArtifactStore.Summary]) {
        var verification = first
        for attempt in 1...3 {
            let chain = try events.chain(verificationID: verification.id)
            let listed = try artifacts.list(verificationID: verification.id)
            guard let again = try verifications.verification(tenancy: verification.tenancy, id: verification.id) else {
                throw DomainError.notFound(what: "verification")
            }
            let head = try events.chain(verificationID: verification.id).last?.hash
            if (again.revision == verification.revision && head == chain.last?.hash) || attempt == 3 { return (again, chain, listed) }
            verification = again
        }
        throw DomainError.notFound(what: "verification")
    }

    private static func artifactID(_ text: String) throws -> ObjectID {
        guard let id = ObjectID(.artifact, parsing: text) else { throw DomainError.notFound(what: "artifact") }
        return id
    }
}

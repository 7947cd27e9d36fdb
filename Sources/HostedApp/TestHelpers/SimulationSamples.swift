import Foundation
import HostedCore
import HostedHTTP
import HostedXML

/// What `complete_steps` fills a test verification's steps with: the simulator's test person
/// (`DigiLockerSample`), and photos shipped in `public/samples/` that pass every capture check
/// (`make-samples.py` there says where each comes from). Read once when the server starts.
struct SimulationSamples: Sendable {
    /// The profile form: the DigiLocker simulator's person, so every step tells of one person.
    static let fullName = DigiLockerSample.name
    static let dateOfBirth = "1990-08-15"

    /// scikit-image's public-domain astronaut, one frontal face (Tests/HostedImagingTests/Fixtures/portrait.jpg).
    let selfie: [UInt8]?
    /// Drawn shop and house fronts, each far from the others and from the selfie (no near copies).
    let premises: [[UInt8]]
    /// A drawn identity card marked SPECIMEN.
    let document: [UInt8]?

    static let premisesFiles = ["premises-1.jpg", "premises-2.jpg", "premises-3.jpg", "premises-4.jpg"]

    /// The samples in `publicDirectory/samples/`. A missing file is a broken installation, not a
    /// caller's mistake: `complete_steps` then fails (500, logged) for the steps that need it, and
    /// changes nothing.
    static func load(from publicDirectory: URL) -> SimulationSamples {
        let folder = publicDirectory.appendingPathComponent("samples", isDirectory: true)
        func read(_ name: String) -> [UInt8]? {
            (try? Data(contentsOf: folder.appendingPathComponent(name))).map { Array($0) }
        }
        return SimulationSamples(selfie: read("selfie.jpg"), premises: premisesFiles.compactMap(read), document: read("document.jpg"))
    }

    /// `count` photos for a step of `type`; premises photos start at `offset` in the list (the
    /// verification's premises photos that still count), so they do not repeat one another
    /// until the list runs out.
    func photos(for type: StepType, count: Int, offset: Int) throws -> [[UInt8]] {
        guard count > 0 else { return [] }
        let found: [[UInt8]] = switch type {
        case .selfie: selfie.map { [$0] } ?? []
        case .document: document.map { Array(repeating: $0, count: count) } ?? []
        case .premisesPhotos: premises.isEmpty ? [] : (0..<count).map { premises[(offset + $0) % premises.count] }
        case .profile, .digilocker: []
        }
        guard found.count >= count else {
            throw Missing(name: type.rawValue)
        }
        return Array(found.prefix(count))
    }

    /// The installation lacks a sample photo.
    struct Missing: Error, CustomStringConvertible {
        let name: String
        var description: String { "the \(name) sample photo is missing from public/samples/" }
    }

    /// The simulator's documents a DigiLocker step asks for, read (and masked) as a real round
    /// trip's are, as the JSON artifacts the step keeps.
    static func digiLockerDocuments(_ requested: [String]) throws -> [[UInt8]] {
        try requested.map { name in
            let xml: String? = switch name {
            case "aadhaar": DigiLockerSample.eAadhaar
            case "pan": DigiLockerSample.certificates["in.gov.pan-PANCR-\(DigiLockerSample.panNumber)"]
            case "driving_license": DigiLockerSample.certificates["in.gov.transport-DRVLC-\(DigiLockerSample.drivingLicenceNumber)"]
            default: nil
            }
            guard let xml, let document = DigiLockerDocument.parse(xml: Array(xml.utf8), as: name) else {
                throw DomainError.notFound(what: "sample document \(name)")
            }
            return Array(try JSONCoding.encoder.encode(document))
        }
    }
}

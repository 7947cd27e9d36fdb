import Foundation
import HostedCore
import HostedImaging
#if canImport(Glibc)
import Glibc
#endif

// What the capture checks add to an upload (issue 39; bench/upload-checks.sh runs it, the figures
// are in docs/performance.md). Each photo goes through the upload's own path, `DecodeQueue` with
// one thread and the service's normalizer and measurer, three ways, in one process: (a) the
// re-encode alone (`submit`), (b) re-encode + measures without faces (`submitMeasured`, a premises
// photo), (c) re-encode + measures with faces (a selfie). The arms alternate within every round
// (a b c, then c b a), so a machine that slows down mid-run slows all three alike. The cost is the
// process's CPU time (every thread's, `CLOCK_PROCESS_CPUTIME_ID`); libvips runs single-threaded
// here as in the service (`vips_concurrency_set(1)` in the shim), so it is the upload's CPU.

let usage = """
    usage: bench-imaging [--rounds N] PHOTO...
    Times the upload path on each JPEG or PNG PHOTO: the re-encode alone, with the capture checks'
    measures (no faces: a premises photo) and with faces too (a selfie), alternating, N rounds
    (default 5) after one warm-up round. Prints JSON on stdout: per photo the median CPU ms of
    each arm, every round's values, and what the checks add, (b - a) / a and (c - a) / a.

    """

/// One way of running an upload.
enum Arm: String, CaseIterable {
    case normalize, premises, selfie
}

/// The figures of one photo.
struct PhotoReport: Encodable {
    let file: String
    let bytes: Int
    let width: Int
    let height: Int
    let storedWidth: Int
    let storedHeight: Int
    let storedBytes: Int
    let faces: Int
    let cpuMilliseconds: [String: Double]
    let wallMilliseconds: [String: Double]
    let rounds: [String: [Double]]
    let checksAddPremises: Double
    let checksAddSelfie: Double

    enum CodingKeys: String, CodingKey {
        case file, bytes, width, height, faces, rounds
        case storedWidth = "stored_width", storedHeight = "stored_height", storedBytes = "stored_bytes"
        case cpuMilliseconds = "cpu_ms_median", wallMilliseconds = "wall_ms_median"
        case checksAddPremises = "checks_add_premises", checksAddSelfie = "checks_add_selfie"
    }
}

/// What the whole run prints.
struct RunReport: Encodable {
    let rounds: Int
    let photos: [PhotoReport]
    let worstChecksAdd: Double

    enum CodingKeys: String, CodingKey {
        case rounds, photos
        case worstChecksAdd = "worst_checks_add"
    }
}

func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("bench-imaging: \(message)\n".utf8))
    exit(status)
}

func processCPUSeconds() -> Double {
    var time = timespec()
    guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { fail("clock_gettime: errno \(errno)") }
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func wallSeconds() -> Double {
    var time = timespec()
    guard clock_gettime(CLOCK_MONOTONIC, &time) == 0 else { fail("clock_gettime: errno \(errno)") }
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func rounded(_ value: Double, _ places: Double = 1) -> Double {
    let scale = pow(10, places)
    return (value * scale).rounded() / scale
}

/// What one upload gave, for the report.
struct Outcome: Sendable {
    let image: NormalizedImage
    let faces: Int?
}

/// Runs one upload of `bytes` through `queue` the way `arm` says and waits for it.
func upload(_ bytes: [UInt8], _ arm: Arm, on queue: DecodeQueue) -> Outcome {
    let done = DispatchSemaphore(value: 0)
    let result = Collected()
    let accepted: Bool
    switch arm {
    case .normalize:
        accepted = queue.submit(bytes) { outcome in
            result.set(outcome.map { Outcome(image: $0, faces: nil) })
            done.signal()
        }
    case .premises, .selfie:
        accepted = queue.submitMeasured(bytes, detectingFaces: arm == .selfie) { outcome in
            result.set(outcome.map { Outcome(image: $0.0, faces: $0.1?.faces.count) })
            done.signal()
        }
    }
    guard accepted else { fail("the decode queue refused an upload") }
    done.wait()
    switch result.get() {
    case .success(let outcome): return outcome
    case .failure(let error): fail("an upload was refused: \(error)")
    case nil: fail("no result")
    }
}

/// The completion's result, handed from the decode thread to the waiting one.
/// `@unchecked Sendable`: `value` is only touched while holding `lock`.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Result<Outcome, ImageRejected>?
    func set(_ new: Result<Outcome, ImageRejected>) { lock.withLock { value = new } }
    func get() -> Result<Outcome, ImageRejected>? { lock.withLock { value } }
}

// --- arguments ---------------------------------------------------------------------------------
var rounds = 5
var files: [String] = []
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "-h", "--help":
        FileHandle.standardError.write(Data(usage.utf8))
        exit(0)
    case "--rounds":
        guard let text = arguments.first, let value = Int(text), value > 0 else { fail("--rounds takes a positive count\n\(usage)", status: 64) }
        arguments.removeFirst()
        rounds = value
    default:
        if argument.hasPrefix("-") { fail("unknown option \(argument)\n\(usage)", status: 64) }
        files.append(argument)
    }
}
guard !files.isEmpty else { fail("no photo given\n\(usage)", status: 64) }

let photos: [[UInt8]] = files.map { path in
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    return Array(data)
}
let queue: DecodeQueue
do {
    // As the service builds it (Foundations+Features), with one decode thread.
    queue = DecodeQueue(normalizer: try VipsImageNormalizer(), measurer: try VipsPhotoMeasurer(), threads: 1)
} catch {
    fail("libvips could not start: \(error)")
}

// --- the run -----------------------------------------------------------------------------------
// Warm-up: libvips' loaders, and dlib's detector (built once per thread, about 0.35 s).
var firstOutcome: [Outcome] = []
for bytes in photos {
    for arm in Arm.allCases { _ = upload(bytes, arm, on: queue) }
    firstOutcome.append(upload(bytes, .selfie, on: queue))
}

var cpu = Array(repeating: [Arm: [Double]](), count: photos.count)
var wall = cpu
for round in 0..<rounds {
    let order = round % 2 == 0 ? Arm.allCases : Arm.allCases.reversed()
    for (index, bytes) in photos.enumerated() {
        for arm in order {
            let cpuStart = processCPUSeconds(), wallStart = wallSeconds()
            _ = upload(bytes, arm, on: queue)
            cpu[index][arm, default: []].append((processCPUSeconds() - cpuStart) * 1000)
            wall[index][arm, default: []].append((wallSeconds() - wallStart) * 1000)
        }
    }
}
queue.stop()

var reports: [PhotoReport] = []
for (index, path) in files.enumerated() {
    let declared = ImageInspector.inspect(photos[index])
    let medians = Dictionary(uniqueKeysWithValues: Arm.allCases.map { ($0, median(cpu[index][$0] ?? [])) })
    let base = medians[.normalize] ?? .nan
    let outcome = firstOutcome[index]
    reports.append(PhotoReport(
        file: (path as NSString).lastPathComponent, bytes: photos[index].count,
        width: declared?.width ?? 0, height: declared?.height ?? 0,
        storedWidth: outcome.image.width, storedHeight: outcome.image.height, storedBytes: outcome.image.bytes.count,
        faces: outcome.faces ?? 0,
        cpuMilliseconds: Dictionary(uniqueKeysWithValues: medians.map { ($0.key.rawValue, rounded($0.value)) }),
        wallMilliseconds: Dictionary(uniqueKeysWithValues: Arm.allCases.map { ($0.rawValue, rounded(median(wall[index][$0] ?? []))) }),
        rounds: Dictionary(uniqueKeysWithValues: Arm.allCases.map { ($0.rawValue, (cpu[index][$0] ?? []).map { rounded($0) }) }),
        checksAddPremises: rounded(((medians[.premises] ?? .nan) - base) / base, 3),
        checksAddSelfie: rounded(((medians[.selfie] ?? .nan) - base) / base, 3)))
}
let report = RunReport(rounds: rounds, photos: reports,
                       worstChecksAdd: reports.map { max($0.checksAddPremises, $0.checksAddSelfie) }.max() ?? .nan)
let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
do {
    FileHandle.standardOutput.write(try encoder.encode(report))
    FileHandle.standardOutput.write(Data("\n".utf8))
} catch {
    fail("could not encode the report: \(error)")
}

import Foundation
import HostedTestSupport

/// A ZIP read back by a reader that is not libzip: Python's `zipfile` (in a subprocess), which
/// also checks every entry's CRC (`testzip`). What the tests compare the bundle's bytes with.
struct UnzippedArchive {
    struct Entry {
        let name: String
        let bytes: [UInt8]
        /// 0 stored, 8 deflated.
        let compressType: Int
        /// The DOS date and time the entry shows: (year, month, day, hour, minute, second).
        let dateTime: [Int]
    }

    let entries: [Entry]

    var names: [String] { entries.map(\.name) }

    subscript(name: String) -> Entry? { entries.first { $0.name == name } }

    static let script = """
        import base64, json, sys, zipfile
        with zipfile.ZipFile(sys.argv[1]) as archive:
            bad = archive.testzip()
            out = {"bad": bad, "entries": [{"name": i.filename, "compress_type": i.compress_type, "date_time": list(i.date_time),
                    "data": base64.b64encode(archive.read(i.filename)).decode()} for i in archive.infolist()]}
        with open(sys.argv[2], "w") as f:
            json.dump(out, f)
        """

    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    init(_ zip: [UInt8]) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("unzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let archive = directory.appendingPathComponent("bundle.zip")
        let output = directory.appendingPathComponent("out.json")
        let errors = directory.appendingPathComponent("err.txt")
        try Data(zip).write(to: archive)
        let status = try Subprocess("/usr/bin/python3", ["-c", Self.script, archive.path, output.path], stderr: errors.path).wait()
        guard status == 0, let data = FileManager.default.contents(atPath: output.path),
              let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw Unreadable(description: (try? String(contentsOf: errors, encoding: .utf8)) ?? "python3 failed") }
        guard object["bad"] is NSNull else { throw Unreadable(description: "CRC mismatch in \(object["bad"] ?? "")") }
        entries = (object["entries"] as? [[String: Any]] ?? []).map { entry in
            Entry(name: entry["name"] as? String ?? "", bytes: Array(Data(base64Encoded: entry["data"] as? String ?? "") ?? Data()),
                  compressType: entry["compress_type"] as? Int ?? -1, dateTime: entry["date_time"] as? [Int] ?? [])
        }
    }
}

import Foundation

/// `gzip -dc` over `bytes`: tests decompress with another implementation than the one that
/// compressed. Throws when gzip is missing or refuses the bytes.
public func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
    struct NotGzip: Error {}
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("gunzip-\(UUID().uuidString).gz")
    try Data(bytes).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/gzip")
    process.arguments = ["-dc", file.path]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw NotGzip() }
    return Array(data)
}

import Foundation

/// A `hosted serve` process on an ephemeral loopback port, for live tests.
public final class ServerProcess {
    public let process: Subprocess
    public let port: UInt16
    public let logPath: String

    /// Starts `hosted serve --listen 127.0.0.1:0 EXTRA…` with `environment` and waits for its port.
    public init(environment: [String: String], arguments: [String] = [], logDirectory: URL) throws {
        try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
        logPath = logDirectory.appendingPathComponent("serve-\(UUID().uuidString).log").path
        process = try Subprocess(HostedBinary.path, ["serve", "--listen", "127.0.0.1:0"] + arguments,
                                 environment: environment, stderr: logPath)
        port = try Self.waitForPort(in: logPath, process: process)
    }

    /// Reads the port from the "serving on http://127.0.0.1:PORT" line.
    static func waitForPort(in log: String, process: Subprocess) throws -> UInt16 {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let text = try? String(contentsOfFile: log, encoding: .utf8),
               let range = text.range(of: #"serving on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression),
               let port = text[range].split(separator: ":").last.flatMap({ UInt16($0) }) {
                return port
            }
            if process.wait(timeout: 0) != nil { break }
            usleep(50_000)
        }
        throw RawHTTPConnection.Failure(description: "hosted serve did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// SIGTERM, then the exit status. A process that did not exit 0 has the end of its log
    /// written to the test's standard error, because its log directory is usually removed next
    /// and a crash on shutdown (exit 134) would otherwise leave nothing to read.
    @discardableResult
    public func stop() -> Int32? {
        process.signal(SIGTERM)
        let status = process.wait(timeout: 20)
        if status != 0 {
            let tail = log.split(separator: "\n", omittingEmptySubsequences: false).suffix(40).joined(separator: "\n")
            FileHandle.standardError.write(Data("hosted serve on port \(port) exited \(status.map(String.init) ?? "(still running)"); its log ends:\n\(tail)\n".utf8))
        }
        return status
    }
}

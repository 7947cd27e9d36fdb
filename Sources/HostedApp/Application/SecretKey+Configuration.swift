import Foundation
import HostedCore

/// Where the secret key comes from: `HOSTED_SECRET_KEY`, or a key file created on first start
/// (see `SecretKey`).
extension SecretKey {
    /// Reads or creates the key as the configuration says; `Configuration.Invalid` (exit 78)
    /// when PostgreSQL outside dev mode has neither a key nor a key file, or the file is unusable.
    static func load(_ configuration: Configuration, random: any RandomSource) throws(Configuration.Invalid) -> SecretKey {
        if let configured = configuration.secretKey { return SecretKey(material: Array(configured.utf8)) }
        guard let path = configuration.resolvedSecretKeyFile else {
            throw Configuration.Invalid(description: "with PostgreSQL, set HOSTED_SECRET_KEY (the same on every node) or "
                                        + "HOSTED_SECRET_KEY_FILE naming an existing key file; see docs/security.md")
        }
        if let existing = try read(path) { return SecretKey(material: existing) }
        let mayCreate: Bool = switch configuration.database {
        case .sqlite: true
        case .postgres: configuration.devMode
        }
        guard mayCreate else {
            throw Configuration.Invalid(description: "HOSTED_SECRET_KEY_FILE \(path) does not exist; with PostgreSQL outside dev mode "
                                        + "the key must be provisioned (the same on every node), not generated")
        }
        try create(path, contents: Base64URL.encode(random.bytes(32)))
        // Another process starting at the same moment may have won the race: its key is the key.
        guard let created = try read(path) else { throw Configuration.Invalid(description: "cannot read \(path)") }
        return SecretKey(material: created)
    }

    /// The key in `path`, nil when there is no such file. A file others may read is refused.
    static func read(_ path: String) throws(Configuration.Invalid) -> [UInt8]? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw Configuration.Invalid(description: "cannot read HOSTED_SECRET_KEY_FILE \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw Configuration.Invalid(description: "HOSTED_SECRET_KEY_FILE \(path) may be read by others; chmod 600 it")
        }
        guard let data = FileManager.default.contents(atPath: path),
              let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
              text.utf8.count >= 32
        else { throw Configuration.Invalid(description: "HOSTED_SECRET_KEY_FILE \(path) must hold at least 32 characters") }
        return Array(text.utf8)
    }

    /// Writes a new key file atomically and without replacing one that appeared meanwhile: the
    /// key goes to a private temporary file, which is then hard-linked to `path` (fails if taken).
    static func create(_ path: String, contents: String) throws(Configuration.Invalid) {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
        }
        let temporary = path + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw Configuration.Invalid(description: "cannot create \(temporary): \(String(cString: strerror(errno)))")
        }
        let bytes = Array((contents + "\n").utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        defer { unlink(temporary) }
        guard written == bytes.count, synced else { throw Configuration.Invalid(description: "cannot write \(temporary)") }
        if link(temporary, path) != 0 && errno != EEXIST {
            throw Configuration.Invalid(description: "cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }
}

import CZip
import Foundation

/// A ZIP archive built in memory by libzip (`zip_source_buffer_create` + `zip_open_from_source`,
/// one `zip_file_add` per entry, `zip_close`, the bytes read back from the source). Nothing here
/// writes ZIP structures itself. Every entry has the same modification time (`modified`, shown in
/// UTC), so the same entries and time give the same bytes, whatever the server's time zone.
public enum ZipArchive {
    /// How an entry is kept: JPEG photos are already compressed and are stored as they are.
    public enum Compression: Sendable {
        case store, deflate
    }

    public struct Entry: Sendable {
        public let name: String
        public let bytes: [UInt8]
        public let compression: Compression

        public init(name: String, bytes: [UInt8], compression: Compression) {
            self.name = name
            self.bytes = bytes
            self.compression = compression
        }
    }

    /// What one archive may hold: refused before libzip sees anything.
    public struct Limits: Sendable {
        public var maximumEntries: Int
        public var maximumEntryBytes: Int
        public var maximumTotalBytes: Int

        public init(maximumEntries: Int = 512, maximumEntryBytes: Int = 32 << 20, maximumTotalBytes: Int = 256 << 20) {
            self.maximumEntries = maximumEntries
            self.maximumEntryBytes = maximumEntryBytes
            self.maximumTotalBytes = maximumTotalBytes
        }
    }

    public enum Failure: Error, Equatable {
        case empty
        case invalidName(String)
        case duplicateName(String)
        case tooManyEntries(Int)
        case entryTooLarge(String)
        case tooLarge(Int)
        /// libzip refused; its message.
        case library(String)
    }

    /// The archive's bytes.
    public static func build(_ entries: [Entry], modified: Date, limits: Limits = Limits()) throws(Failure) -> [UInt8] {
        try check(entries, limits: limits)
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let source = zip_source_buffer_create(nil, 0, 0, &error) else { throw .library(String(cString: zip_error_strerror(&error))) }
        guard let archive = zip_open_from_source(source, ZIP_TRUNCATE, &error) else {
            zip_source_free(source)
            throw .library(String(cString: zip_error_strerror(&error)))
        }
        // The archive frees the source it was opened on when it closes: one more reference keeps
        // the written bytes readable after that.
        zip_source_keep(source)
        defer { zip_source_free(source) }
        let mtime = hosted_zip_dos_time_showing_utc(time_t(modified.timeIntervalSince1970.rounded(.down)))
        for entry in entries {
            let index = entry.bytes.withUnsafeBytes { bytes in
                hosted_zip_add(archive, entry.name, bytes.baseAddress, bytes.count, entry.compression == .deflate ? 1 : 0, mtime)
            }
            if index < 0 {
                let message = String(cString: zip_strerror(archive))
                zip_discard(archive)
                throw .library(message)
            }
        }
        guard zip_close(archive) == 0 else {
            let message = String(cString: zip_strerror(archive))
            zip_discard(archive)
            throw .library(message)
        }
        return try contents(of: source)
    }

    /// Whether `name` may name an entry: 1 to 200 bytes of segments of `A-Z a-z 0-9 . _ -`
    /// joined by `/`, none empty, `.` or `..` (no absolute path, no way out of the folder it is
    /// unpacked into, nothing a file system could read differently).
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...200).contains(bytes.count) else { return false }
        let allowed = { (byte: UInt8) in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        return bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).allSatisfy { segment in
            !segment.isEmpty && segment.allSatisfy(allowed) && !segment.allSatisfy { $0 == UInt8(ascii: ".") }
        }
    }

    private static func check(_ entries: [Entry], limits: Limits) throws(Failure) {
        guard !entries.isEmpty else { throw .empty }
        guard entries.count <= limits.maximumEntries else { throw .tooManyEntries(entries.count) }
        var names = Set<String>()
        var total = 0
        for entry in entries {
            guard isValidName(entry.name) else { throw .invalidName(entry.name) }
            guard names.insert(entry.name).inserted else { throw .duplicateName(entry.name) }
            guard entry.bytes.count <= limits.maximumEntryBytes else { throw .entryTooLarge(entry.name) }
            total += entry.bytes.count
            guard total <= limits.maximumTotalBytes else { throw .tooLarge(total) }
        }
    }

    /// What the closed archive wrote into its in-memory source.
    private static func contents(of source: OpaquePointer) throws(Failure) -> [UInt8] {
        guard zip_source_open(source) == 0 else { throw .library("the written archive could not be opened") }
        defer { _ = zip_source_close(source) }
        let size = hosted_zip_source_size(source)
        guard size > 0, size <= Int64(Int32.max) else { throw .library("the written archive has no size") }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        let read = bytes.withUnsafeMutableBytes { buffer in zip_source_read(source, buffer.baseAddress!, zip_uint64_t(size)) }
        guard read == size else { throw .library("the written archive could not be read back") }
        return bytes
    }
}

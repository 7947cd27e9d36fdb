import Foundation

extension Array where Element == UInt8 {
    /// Whether `needle`'s UTF-8 bytes stand anywhere in these bytes: for scans that prove a
    /// secret or a piece of metadata is nowhere in a file, a table dump or an image.
    public func contains(text needle: String) -> Bool {
        !needle.isEmpty && Data(self).range(of: Data(needle.utf8)) != nil
    }
}

import Foundation

// Shared by the fuzz targets in Sources/Fuzz (see docs/fuzzing.md). Every target is one file that
// defines `LLVMFuzzerTestOneInput` (libFuzzer's entry point, used when scripts/fuzz.sh builds it
// with `--sanitize=fuzzer -Xswiftc -DFUZZING`) and, in an ordinary build, a `main` that replays
// files through the same function with `FuzzReplay.main`.

/// Copies libFuzzer's buffer into an array.
public func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// A failed property check: prints what was expected and traps, so libFuzzer saves the input.
public func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                      file: StaticString = #fileID, line: UInt = #line) {
    if !condition() {
        FileHandle.standardError.write(Data("fuzz check failed at \(file):\(line): \(message())\n".utf8))
        fatalError("fuzz check failed: \(message())", file: file, line: line)
    }
}

/// Splits an input into the pieces a target needs. Pieces are separated by a NUL byte or a
/// newline (`separator`), so a corpus file stays readable as text and libFuzzer's mutations
/// still reach every piece.
public struct FuzzInput {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// At most `maxPieces` pieces (the last takes the rest, separators included).
    public func pieces(separator: UInt8 = 0x0A, maxPieces: Int = .max) -> [[UInt8]] {
        bytes.split(separator: separator, maxSplits: max(0, maxPieces - 1), omittingEmptySubsequences: false).map(Array.init)
    }

    /// The input as text the way the HTTP layer gets it: invalid UTF-8 repaired with U+FFFD.
    public static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}

/// The ordinary-build `main` of a fuzz target: runs `body` on every file named on the command line
/// (directories are walked, one level, sorted), so a corpus or a crash file can be replayed under
/// the debugger without libFuzzer. Exits 2 when no input is given.
public enum FuzzReplay {
    public static func main(_ name: String, _ body: ([UInt8]) -> Void) {
        let arguments = CommandLine.arguments.dropFirst().filter { !$0.hasPrefix("-") }
        guard !arguments.isEmpty else {
            FileHandle.standardError.write(Data("""
                usage: \(name) FILE_OR_DIRECTORY...
                Replays inputs through the fuzz target's function (no libFuzzer in this build;
                scripts/fuzz.sh builds the fuzzing binary).

                """.utf8))
            exit(2)
        }
        var count = 0
        for argument in arguments {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else {
                FileHandle.standardError.write(Data("\(name): no such file: \(argument)\n".utf8))
                exit(1)
            }
            let files: [String]
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
                files = names.sorted().map { argument + "/" + $0 }.filter {
                    var dir: ObjCBool = false
                    return FileManager.default.fileExists(atPath: $0, isDirectory: &dir) && !dir.boolValue
                }
            } else {
                files = [argument]
            }
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("\(name): cannot read \(file)\n".utf8))
                    exit(1)
                }
                body([UInt8](data))
                count += 1
            }
        }
        print("\(name): replayed \(count) input(s), no failure")
    }
}

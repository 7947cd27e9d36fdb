// swift-tools-version:6.0
// Layers (a lower layer never imports a higher one):
//   C* shims → HostedCore (domain, no C, no I/O) → HostedObservability (logs, metrics)
//   → adapters (HostedCrypto, HostedStorage, HostedHTTP, HostedImaging, HostedOutbound)
//   → HostedApp (routes, wiring) → hosted (executable: configuration, commands).
import PackageDescription

let package = Package(
    name: "Hosted",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "hosted", targets: ["hosted"]),
    ],
    dependencies: [],
    targets: [
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CSQLite3", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CVips", pkgConfig: "vips",
                       providers: [.apt(["libvips-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2",
                       providers: [.apt(["libargon2-dev"])]),
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode",
                       providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CZip", pkgConfig: "libzip",
                       providers: [.apt(["libzip-dev"])]),
        .systemLibrary(name: "CXML2", pkgConfig: "libxml-2.0",
                       providers: [.apt(["libxml2-dev"])]),

        // dlib's HOG face detector (Debian libdlib-dev; its headers call BLAS and LAPACK, so
        // libblas-dev and liblapack-dev too), a C++ target with a C interface.
        // Optimised in debug builds too: dlib's detector is templates compiled here, and at -O0 it
        // takes seconds per photo instead of tens of milliseconds.
        .target(name: "CFaceDetection", cxxSettings: [.unsafeFlags(["-O2"])],
                linkerSettings: [.linkedLibrary("dlib"), .linkedLibrary("lapack"), .linkedLibrary("blas")]),

        .target(name: "HostedCore"),
        // Logs and metrics: for the HTTP server, and for services that serve no HTTP (SMS, webhooks, sweeps).
        .target(name: "HostedObservability", dependencies: ["HostedCore"]),
        .target(name: "HostedCrypto", dependencies: ["HostedCore", "CCrypto", "CArgon2"]),
        .target(name: "HostedStorage", dependencies: ["HostedCore", "HostedCrypto", "CSQLite3", "CLibPQ"],
                resources: [.copy("migrations")]),
        .target(name: "HostedHTTP", dependencies: ["HostedCore", "HostedObservability", "CMicroHTTPD", "CZlib"]),
        .target(name: "HostedImaging", dependencies: ["HostedCore", "CVips", "CQREncode", "CFaceDetection"]),
        .target(name: "HostedOutbound", dependencies: ["HostedCore", "HostedCrypto", "CCurl"]),
        // ZIP archives (the evidence bundle) through libzip.
        .target(name: "HostedArchive", dependencies: ["CZip"]),
        // XML taken in (DigiLocker's documents) through libxml2's reader.
        .target(name: "HostedXML", dependencies: ["HostedCore", "CXML2"]),
        .target(name: "HostedApp", dependencies: ["HostedCore", "HostedCrypto", "HostedStorage", "HostedObservability", "HostedHTTP",
                                                  "HostedImaging", "HostedOutbound", "HostedArchive", "HostedXML"]),
        .executableTarget(name: "hosted", dependencies: ["HostedApp"]),
        // Test-only helpers (subprocesses, counters, the test stores); never linked into the service.
        .target(name: "HostedTestSupport", dependencies: ["HostedCore", "HostedCrypto", "HostedStorage"]),

        .testTarget(name: "HostedCoreTests", dependencies: ["HostedCore", "HostedTestSupport"]),
        .testTarget(name: "HostedXMLTests", dependencies: ["HostedXML", "HostedCore", "HostedTestSupport"]),
        .testTarget(name: "HostedCryptoTests", dependencies: ["HostedCrypto", "HostedTestSupport"]),
        .testTarget(name: "HostedStorageTests", dependencies: ["HostedStorage", "HostedCrypto", "HostedTestSupport"]),
        .testTarget(name: "HostedObservabilityTests", dependencies: ["HostedObservability"]),
        .testTarget(name: "HostedHTTPTests", dependencies: ["HostedHTTP", "HostedObservability", "HostedTestSupport"]),
        .testTarget(name: "HostedAppTests", dependencies: ["HostedApp", "HostedStorage", "HostedCrypto", "HostedImaging", "HostedObservability",
                                                          "hosted", "HostedTestSupport", "HostedArchive"]),
        // Fixtures/ is read by path (#filePath), not bundled.
        .testTarget(name: "HostedImagingTests", dependencies: ["HostedImaging", "HostedTestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "HostedOutboundTests", dependencies: ["HostedOutbound", "HostedCore", "HostedHTTP", "HostedObservability",
                                                              "HostedTestSupport"]),

        // --- Fuzz targets (libFuzzer): one executable per parser of outside bytes ------------
        // See docs/fuzzing.md. scripts/fuzz.sh builds them with `--sanitize=fuzzer
        // -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING` in .build/fuzz; in an ordinary
        // build each is a small program that replays the files it is given (no libFuzzer).
        .target(name: "FuzzSupport", path: "Sources/Fuzz/FuzzSupport"),
        .executableTarget(name: "fuzz-image", dependencies: ["HostedCore", "FuzzSupport"], path: "Sources/Fuzz/fuzz-image"),
        .executableTarget(name: "fuzz-imaging", dependencies: ["HostedImaging", "HostedCore", "FuzzSupport"],
                          path: "Sources/Fuzz/fuzz-imaging"),
        .executableTarget(name: "fuzz-json", dependencies: ["HostedApp", "HostedCore", "HostedHTTP", "FuzzSupport"],
                          path: "Sources/Fuzz/fuzz-json"),
        .executableTarget(name: "fuzz-form", dependencies: ["HostedHTTP", "FuzzSupport"], path: "Sources/Fuzz/fuzz-form"),
        .executableTarget(name: "fuzz-return-url", dependencies: ["HostedCore", "FuzzSupport"], path: "Sources/Fuzz/fuzz-return-url"),
        .executableTarget(name: "fuzz-xml", dependencies: ["HostedXML", "HostedCore", "FuzzSupport"], path: "Sources/Fuzz/fuzz-xml"),
        .executableTarget(name: "fuzz-router", dependencies: ["HostedHTTP", "FuzzSupport"], path: "Sources/Fuzz/fuzz-router"),
        .executableTarget(name: "fuzz-identifiers", dependencies: ["HostedCore", "FuzzSupport"], path: "Sources/Fuzz/fuzz-identifiers"),
        // --- end of fuzz targets ----------------------------------------------------------
        // What the capture checks add to an upload's CPU (issue 39): bench/upload-checks.sh.
        .executableTarget(name: "bench-imaging", dependencies: ["HostedImaging", "HostedCore"], path: "Sources/Bench/bench-imaging"),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)

/// A cache or memo that `HOSTED_DISABLE_MEMOS` can build off, to measure what it buys on its
/// bench row (docs/performance.md, "Caches and memos"). Off, each is built empty (capacity 0)
/// or as a pass-through: answers stay the same, only the work saved is done again.
public enum Memo: String, CaseIterable, Sendable {
    /// `CallerCache`: API keys that authenticated in the last second.
    case callers
    /// `SealedObjectCache`: 64 MiB of sealed objects read from or written to the artifact
    /// store (off: every download of an object-store artifact is a GET to the store).
    case objects
    /// `StepsCache`: a workflow's decoded steps, by their JSON text.
    case steps
    /// The decoded-row memo: a verification read again with the same cells is not decoded again.
    case rows
    /// SQLite only: a poll (and a repeated create's read) answered from the last read while this
    /// process committed nothing (`LocalRead`); off, every read asks SQLite, as on PostgreSQL.
    /// Off also turns off `open` and `repeats`, which are built on it.
    case localReads = "local-reads"
    /// SQLite only: which verification a repeated create's read found open.
    case open
    /// The rendered JSON and ETag of a verification polled again unchanged.
    case rendered
    /// SQLite only: `RepeatedCreates`, the answer to a repeated create by its exact body.
    case repeats
    /// `PollLeases`: polls taken from the shared bucket ahead (off: one statement per poll).
    case leases
    /// `GzipCache`: each static text file's gzip copy (off: compressed on every request).
    case gzip
    /// `ResultSigning`'s serialised JWKS (off: read and built on every request).
    case jwks
    /// `ResultSigning`'s signer: the key's signing contexts kept for the next signature, and a
    /// result's header kept in base64url with the key (off: both made for every signature).
    case signing
}

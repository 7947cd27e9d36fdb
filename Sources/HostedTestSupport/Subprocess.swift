import Foundation

/// A child process started with `posix_spawn` and reaped with `waitpid`: used by tests instead
/// of Foundation's `Process`, whose `waitUntilExit` was seen to hang on Linux when the calling
/// thread belongs to Swift's cooperative pool.
public final class Subprocess: @unchecked Sendable {  // `pid` is immutable; `status` is set once under `lock`
    public let pid: pid_t
    private let lock = NSLock()
    private var status: Int32?

    /// Starts `executable` with `arguments` and extra `environment`; stdout and stderr go to the
    /// given files (or are discarded).
    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                stdout: String? = nil, stderr: String? = nil) throws {
        var fileActions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&fileActions)
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        posix_spawn_file_actions_addopen(&fileActions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&fileActions, 1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&fileActions, 2, stderr ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &fileActions, nil, argv, envp)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EINVAL) }
        pid = child
    }

    /// Runs a shell command to completion and returns its exit status.
    public static func shell(_ command: String, environment: [String: String] = [:]) throws -> Int32 {
        try Subprocess("/bin/sh", ["-c", command], environment: environment).wait()
    }

    public func signal(_ number: Int32) { kill(pid, number) }

    /// Waits for the child to exit; returns its exit status (128 + signal when killed).
    @discardableResult
    public func wait() -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if let status { return status }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        let exited = raw & 0x7F == 0
        let result = exited ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
        status = result
        return result
    }

    /// Waits up to `timeout` seconds; nil if the child is still running.
    public func wait(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            lock.lock()
            var raw: Int32 = 0
            let reaped = status == nil ? waitpid(pid, &raw, WNOHANG) : 0
            if reaped == pid {
                status = raw & 0x7F == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
            }
            let done = status
            lock.unlock()
            if let done { return done }
            usleep(10_000)
        }
        return nil
    }

    deinit {
        if wait(timeout: 0) == nil {
            kill(pid, SIGKILL)
            wait()
        }
    }
}

import Foundation

/// Checks `condition` until it holds or `seconds` pass, pausing `pause` seconds between checks;
/// whether it held. For tests that wait on what a server or a process is observably doing, never
/// on a fixed sleep: the caller then asserts the result (or the state the condition left).
@discardableResult
public func eventually(within seconds: TimeInterval = 10, pause: TimeInterval = 0.001,
                       _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        usleep(useconds_t(pause * 1_000_000))
    }
}

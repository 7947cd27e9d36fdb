import Foundation

// Files and directories this process creates are its own: the SQLite database and its -wal and
// -shm hold mobile numbers, photos and documents, so before any command can create one, nothing
// created is readable by other local users (files 0600, directories 0700; DESIGN, "Never").
umask(0o077)

exit(Commands.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))

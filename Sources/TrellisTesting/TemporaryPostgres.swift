#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization

/// A throwaway PostgreSQL cluster for tests: `initdb` in a temporary directory, `pg_ctl` to run it
/// on 127.0.0.1 at a free port (its Unix sockets in the directory too), trust authentication for
/// the user `trellis`. Starting one takes a second or two: a suite shares one, and each test makes
/// its own database (``makeDatabase()``).
///
/// initdb refuses to run as root, which this machine and CI are: then the directory is handed to
/// the `postgres` user (Debian's package creates it) and the server programs run as that user
/// through `runuser`.
public final class TemporaryPostgres: Sendable {
    /// The directory holding the cluster (`data`), its log and its sockets.
    public let directory: URL
    public let port: Int
    /// The server programs' directory (initdb, pg_ctl, psql, createdb).
    public let binaries: URL
    /// Numbers the databases ``makeDatabase()`` creates; `shutdown` marks the cluster gone.
    private let state = Mutex<(databases: Int, isShutdown: Bool)>((0, false))

    public static let user = "trellis"

    /// Why a cluster could not be made or driven; the message says what to do.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) { self.description = description }
    }

    /// Creates the cluster and starts it.
    public init() throws {
        binaries = try Self.findBinaries()
        Self.removeAbandonedClusters(binaries: binaries)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(Self.directoryPrefix)\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            try Data(String(getpid()).utf8).write(to: directory.appendingPathComponent(Self.ownerFile))
            if geteuid() == 0 { try Self.handOver(directory) }
            try Self.run(
                binaries.appendingPathComponent("initdb"),
                ["-D", directory.appendingPathComponent("data").path, "-A", "trust", "-U", Self.user, "-E", "UTF8", "--locale=C",
                 "--no-sync", "--no-instructions"],
                asServerUser: true)
            // Only TCP on 127.0.0.1 and sockets in the directory: nothing else on the machine is touched.
            try Self.appendSettings(
                "listen_addresses = '127.0.0.1'\nunix_socket_directories = '\(directory.path)'\nmax_connections = 200", to: directory)
            // A free port can be taken by someone else before the server binds it: then another one.
            var attempts = 0
            while true {
                let candidate = try Self.freePort()
                try Self.appendSettings("port = \(candidate)", to: directory)  // the last one counts
                do {
                    try Self.pgCtl(["start", "-w", "-t", "60", "-l", directory.appendingPathComponent("server.log").path], in: directory, binaries: binaries)
                    port = candidate
                    break
                } catch where attempts < 2 {
                    attempts += 1
                }
            }
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    deinit { shutdown() }

    /// One cluster for the whole test process, made on first use and shut down when the process
    /// exits (`atexit`): for suites in several files that share one, where no test's scope ends
    /// after the last of them. Held in a `static let`, which is never deinitialized, a cluster
    /// outlived every test run — a server left running until the next run removed it
    /// (``removeAbandonedClusters(binaries:)``).
    public static let processWide: Result<TemporaryPostgres, any Error> = {
        let made = Result { try TemporaryPostgres() }
        if case .success = made { atexit { (try? TemporaryPostgres.processWide.get())?.shutdown() } }
        return made
    }()

    /// `postgres://trellis@127.0.0.1:PORT/postgres`: the cluster's default database.
    public var url: String { url(database: "postgres") }

    public func url(database: String) -> String { "postgres://\(Self.user)@127.0.0.1:\(port)/\(database)" }

    /// Creates a new, empty database and returns its URL: one per test keeps tests apart.
    public func makeDatabase() throws -> String {
        let number = state.withLock { state in
            state.databases += 1
            return state.databases
        }
        let name = "trellis_test_\(number)"
        try Self.run(binaries.appendingPathComponent("createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", Self.user, name])
        return url(database: name)
    }

    /// Starts the server (again, after ``stop()``), on the same directory and port; returns when it
    /// accepts connections.
    public func start() throws {
        try pgCtl(["start", "-w", "-t", "60", "-l", directory.appendingPathComponent("server.log").path])
    }

    private static func appendSettings(_ settings: String, to directory: URL) throws {
        let configuration = try FileHandle(forWritingTo: directory.appendingPathComponent("data/postgresql.conf"))
        try configuration.seekToEnd()
        try configuration.write(contentsOf: Data("\n\(settings)\n".utf8))
        try configuration.close()
    }

    /// Stops the server (fast shutdown: sessions are ended, what was committed stays).
    public func stop() throws {
        try pgCtl(["stop", "-w", "-m", "fast"])
    }

    /// Ends every session whose `application_name` is `applicationName`, as a server restart or an
    /// operator would. Returns how many it ended.
    @discardableResult
    public func terminateBackends(applicationName: String) throws -> Int {
        let quoted = applicationName.replacingOccurrences(of: "'", with: "''")
        let ended = try query(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '\(quoted)' AND pid <> pg_backend_pid()")
        return Int(ended) ?? 0
    }

    /// Runs `sql` with psql on the database at `url` (the default database if nil) and returns what
    /// it printed, unaligned and without headers.
    @discardableResult
    public func query(_ sql: String, url: String? = nil) throws -> String {
        try Self.run(
            binaries.appendingPathComponent("psql"),
            [url ?? self.url, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Stops the server at once (`-m immediate`) and removes the directory. Also done on deinit.
    public func shutdown() {
        let wasShutDown = state.withLock { state in
            defer { state.isShutdown = true }
            return state.isShutdown
        }
        guard !wasShutDown else { return }
        _ = try? pgCtl(["stop", "-w", "-m", "immediate"])
        try? FileManager.default.removeItem(at: directory)
    }

    private func pgCtl(_ arguments: [String]) throws {
        try Self.pgCtl(arguments, in: directory, binaries: binaries)
    }

    private static func pgCtl(_ arguments: [String], in directory: URL, binaries: URL) throws {
        do {
            try run(
                binaries.appendingPathComponent("pg_ctl"), ["-D", directory.appendingPathComponent("data").path] + arguments,
                asServerUser: true)
        } catch {
            let log = (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
            throw Failure(description: "\(error)\nserver log:\n\(log.split(separator: "\n").suffix(20).joined(separator: "\n"))")
        }
    }

    static let directoryPrefix = "trellis-postgres-"
    /// The file in the directory naming the process that made the cluster.
    static let ownerFile = "owner.pid"

    /// Stops and removes the clusters of test processes that ended without shutting theirs down
    /// (killed, or crashed): the server outlives them, since `pg_ctl` detaches it.
    static func removeAbandonedClusters(binaries: URL) {
        let temporary = FileManager.default.temporaryDirectory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names where name.hasPrefix(directoryPrefix) {
            let directory = temporary.appendingPathComponent(name)
            guard let text = try? String(contentsOf: directory.appendingPathComponent(ownerFile), encoding: .utf8),
                let owner = pid_t(text), owner != getpid(), kill(owner, 0) != 0, errno == ESRCH
            else { continue }
            _ = try? run(
                binaries.appendingPathComponent("pg_ctl"), ["-D", directory.appendingPathComponent("data").path, "stop", "-w", "-m", "immediate"],
                asServerUser: true)
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// The directory of initdb and pg_ctl: `pg_config --bindir`, then /usr/lib/postgresql/*/bin
    /// (newest first), then the PATH.
    static func findBinaries() throws -> URL {
        var candidates: [URL] = []
        if let bindir = try? run(URL(fileURLWithPath: "/usr/bin/env"), ["pg_config", "--bindir"]) {
            candidates.append(URL(fileURLWithPath: bindir.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            candidates.append(URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin"))
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            candidates.append(URL(fileURLWithPath: String(directory)))
        }
        let programs = ["initdb", "pg_ctl", "psql", "createdb"]
        if let found = candidates.first(where: { directory in
            programs.allSatisfy { FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent($0).path) }
        }) {
            return found
        }
        throw Failure(
            description: """
                PostgreSQL's server programs (\(programs.joined(separator: ", "))) were not found (looked in pg_config --bindir, \
                /usr/lib/postgresql/*/bin and the PATH): install the Debian package `postgresql` \
                (apt-get install postgresql libpq-dev; scripts/test and .ci/run install it)
                """)
    }

    /// Gives `directory` to the `postgres` user, for a server that cannot run as root.
    private static func handOver(_ directory: URL) throws {
        guard let user = getpwnam("postgres") else {
            throw Failure(
                description: "running as root, and there is no `postgres` user to run PostgreSQL as: install the Debian package `postgresql`")
        }
        guard chown(directory.path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
            throw Failure(description: "cannot give \(directory.path) to postgres: \(String(cString: strerror(errno)))")
        }
    }

    /// A port that was free a moment ago: bound to 127.0.0.1:0, read, released.
    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddr in
                bind(fd, sockaddr, length) == 0 && getsockname(fd, sockaddr, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "cannot find a free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs `program` and returns its standard output; throws with everything it printed when it fails.
    /// - Parameter asServerUser: as the `postgres` user when this process is root.
    ///
    /// Through `posix_spawn` and `waitpid`, not Foundation's `Process`: on Linux, `Process` learns
    /// that a child ended when a socket it gave the child closes, and the server `pg_ctl start`
    /// leaves running inherits that socket — `waitUntilExit()` would wait for the server to stop
    /// (swift-corelibs-foundation issue 4795). Output goes to files, and the child gets no other
    /// descriptor of this process.
    @discardableResult
    static func run(_ program: URL, _ arguments: [String], asServerUser: Bool = false) throws -> String {
        let command =
            asServerUser && geteuid() == 0
            ? ["/usr/sbin/runuser", "-u", "postgres", "--", program.path] + arguments : [program.path] + arguments
        // The caller's PG* variables must not change what the programs do.
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }.map { "\($0.key)=\($0.value)" }
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-pg-output-\(UUID().uuidString)")
        let errorFile = outputFile.appendingPathExtension("err")
        defer {
            try? FileManager.default.removeItem(at: outputFile)
            try? FileManager.default.removeItem(at: errorFile)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // From "/", which the server user can enter whatever the caller's directory is.
        _ = GNUSpawnActions.changeDirectory?(&actions, "/")
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Nothing else of this process: not a socket another thread's `Process` is handing its child.
        _ = GNUSpawnActions.closeFrom?(&actions, 3)
        var pid: pid_t = 0
        let spawned = withCStrings(command) { argv in
            withCStrings(environment) { envp in posix_spawn(&pid, argv[0]!, &actions, nil, argv, envp) }
        }
        guard spawned == 0 else { throw Failure(description: "cannot run \(command[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure(description: "waitpid: \(String(cString: strerror(errno)))") }
        }
        let printed = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        let complaints = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        // WIFEXITED and WEXITSTATUS, which Swift does not import.
        let exitCode = status & 0x7f == 0 ? (status >> 8) & 0xff : -1
        guard exitCode == 0 else {
            throw Failure(description: "\(command.joined(separator: " ")) failed (status \(status)):\n\(printed)\(complaints)")
        }
        return printed
    }

    /// `strings` as a NULL-terminated array of C strings, valid during `body`.
    private static func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
        let copies = strings.map { strdup($0) } + [nil]
        defer { for copy in copies { free(copy) } }
        return body(copies)
    }
}

/// glibc's `posix_spawn_file_actions_addchdir_np` (2.29) and `…_addclosefrom_np` (2.34), which
/// Swift's Glibc module does not declare: looked up by name, nil on an older C library.
private enum GNUSpawnActions {
    typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    static let changeDirectory = function("posix_spawn_file_actions_addchdir_np", as: ChangeDirectory.self)
    static let closeFrom = function("posix_spawn_file_actions_addclosefrom_np", as: CloseFrom.self)

    private static func function<F>(_ name: String, as type: F.Type) -> F? {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), name) else { return nil }
        return unsafeBitCast(symbol, to: type)
    }
}

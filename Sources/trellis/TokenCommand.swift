import ArgumentParser
import TrellisCrypto
import TrellisRuntime
import TrellisServer

/// `trellis token`: admin API tokens.
struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Make admin API tokens.",
        subcommands: [New.self])

    /// `trellis token new [--name N] [--role read|write]`
    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a fresh admin token and the entry for server.json's admin.tokens.",
            discussion: """
                The token (trl_ and 32 random bytes in base64url) is printed once, on the first line: give \
                it to whoever calls the admin API, as "Authorization: Bearer <token>". The second line goes \
                into admin.tokens in server.json; it holds only the token's SHA-256, so the file grants nothing \
                to whoever reads it.
                """)

        @Option(help: ArgumentHelp("Who uses the token, as the audit log shows it.", valueName: "name"))
        var name = "admin"

        @Option(help: ArgumentHelp(
            "read (look), write (look and change), approve (also approve change requests) or admin (also manage tokens and webhooks).",
            valueName: "role"))
        var role = AdminRole.write.rawValue

        func validate() throws {
            guard ServerConfiguration.isValidName(name) else {
                throw ValidationError("--name \"\(name)\": \(ServerConfiguration.nameRule)")
            }
            guard AdminRole(rawValue: role) != nil else {
                throw ValidationError("--role \"\(role)\": expected one of: \(AdminRole.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }

        func run() throws {
            let token: String
            do { token = try AdminTokenFormat.newToken() } catch { throw CommandFailure("no token: \(error)") }
            let entry = ServerConfiguration.AdminToken(name: name, token: token, role: AdminRole(rawValue: role)!)
            print(token)
            print(entry.configurationJSON)
        }
    }
}

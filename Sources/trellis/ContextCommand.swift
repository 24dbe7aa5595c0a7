import ArgumentParser
import Foundation
import TrellisCrypto
import TrellisRuntime
import TrellisServer
import TrellisTargeting

/// `trellis context`: signed user contexts, as a gateway sends them in `X-Trellis-Context`.
struct ContextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "context",
        abstract: "Sign user contexts for X-Trellis-Context, and make signing keys.",
        subcommands: [Sign.self, Key.self])

    /// `trellis context sign --key-id k1 (--secret S | --secret-env VAR) [--user u1] [--country DE] [--attr k=v]... [--ttl 3600]`
    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print an X-Trellis-Context header value signed with one of context.signingKeys.",
            discussion: """
                For trying a server whose context.signingKeys are set, and for tests: \
                curl -H "X-Trellis-Context: $(trellis context sign --key-id k1 --secret-env TRELLIS_CONTEXT_KEY_K1 --user u1)" … \
                Prefer --secret-env: a --secret on the command line is visible to other users in the process list.
                """)

        @Option(name: .customLong("key-id"), help: ArgumentHelp("The key's id, written as kid.", valueName: "id"))
        var keyID: String

        @Option(help: ArgumentHelp("The key's secret in base64url.", valueName: "base64url"))
        var secret: String?

        @Option(name: .customLong("secret-env"), help: ArgumentHelp("An environment variable holding the secret.", valueName: "VAR"))
        var secretEnv: String?

        @Option(help: "The user id.")
        var user: String?

        @Option(help: "The country, ISO 3166-1 alpha-2 (DE).")
        var country: String?

        @Option(name: .customLong("attr"), help: ArgumentHelp("An attribute; repeat for more.", valueName: "name=value"))
        var attributes: [String] = []

        @Option(help: ArgumentHelp("Seconds until the context expires.", valueName: "seconds"))
        var ttl = 3600

        func validate() throws {
            guard ServerConfiguration.isValidName(keyID) else { throw ValidationError("--key-id \"\(keyID)\": \(ServerConfiguration.nameRule)") }
            guard (secret == nil) != (secretEnv == nil) else { throw ValidationError("give either --secret or --secret-env") }
            guard (1...31_536_000).contains(ttl) else { throw ValidationError("--ttl: expected seconds from 1 to 31536000") }
            _ = try parsedAttributes()
        }

        func run() throws {
            let key = ServerConfiguration.SigningKey(id: keyID, secret: try secretBytes())
            let context = SignedContext(
                expires: (ServerState.wallClock()).rounded(.down) + Double(ttl), user: user, country: country,
                attributes: try parsedAttributes())
            try check(context)
            print(context.sign(with: key))
        }

        private func secretBytes() throws -> [UInt8] {
            var text = secret ?? ""
            var origin = "--secret"
            if let secretEnv {
                guard let value = ProcessInfo.processInfo.environment[secretEnv] else {
                    throw CommandFailure("--secret-env: environment variable \(secretEnv) is not set")
                }
                text = value
                origin = "environment variable \(secretEnv)"
            }
            do { return try ServerConfiguration.SigningKey.secret(fromBase64URL: text) } catch {
                throw CommandFailure("\(origin): \(error)")
            }
        }

        private func parsedAttributes() throws -> [String: String] {
            var attributes: [String: String] = [:]
            for pair in self.attributes {
                guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
                    throw ValidationError("--attr takes name=value, not \"\(pair)\"")
                }
                let name = String(pair[..<eq])
                guard attributes.updateValue(String(pair[pair.index(after: eq)...]), forKey: name) == nil else {
                    throw ValidationError("--attr \(name) is given more than once")
                }
            }
            return attributes
        }

        /// Refuses what the server would refuse after verifying, so a signed header always works.
        private func check(_ context: SignedContext) throws {
            var parameters: [(name: String, value: String)] = []
            if let user = context.user { parameters.append(("user", user)) }
            if let country = context.country { parameters.append(("country", country)) }
            parameters += context.attributes.sorted { $0.key < $1.key }.map { ("attr." + $0.key, $0.value) }
            do { _ = try UserContext.parse(parameters) } catch { throw CommandFailure("not a valid context: \(error)") }
        }
    }

    /// `trellis context key [--id k1]`
    struct Key: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a fresh signing secret (32 random bytes, base64url) and the entry for context.signingKeys.",
            discussion: """
                The first line is the secret: give it to the gateway and put it in the server's environment. \
                The second line goes into context.signingKeys in server.json and names the environment variable \
                (TRELLIS_CONTEXT_KEY_<ID>), so the secret stays out of the file.
                """)

        @Option(help: ArgumentHelp("The key's id.", valueName: "id"))
        var id = "k1"

        func validate() throws {
            guard ServerConfiguration.isValidName(id) else { throw ValidationError("--id \"\(id)\": \(ServerConfiguration.nameRule)") }
        }

        func run() throws {
            let secret: [UInt8]
            do { secret = try SecureRandom.bytes(count: ServerConfiguration.SigningKey.minimumSecretBytes) } catch {
                throw CommandFailure("no secret: \(error)")
            }
            let variable = "TRELLIS_CONTEXT_KEY_" + String(id.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
            print(Base64URL.encode(secret))
            print(#"{"id":"\#(id)","secretEnv":"\#(variable)"}"#)
        }
    }
}

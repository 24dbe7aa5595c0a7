import Foundation
import TrellisAnswers
import TrellisHTTP
import TrellisRuntime

/// The ops console's files (`console/` beside the configuration: HTML, CSS, ES modules), read
/// once at start and served from memory by exact name, so no request path reaches the file
/// system. The console is a client of the admin API alone, so it is served where that API is.
public struct ConsoleAssets: Sendable {
    /// Each file by name, with its content type.
    let files: [String: (contentType: String, body: EncodedBody)]
    /// Where the files were looked for, for the 404 that says so.
    let directory: String

    /// Every plain file of `directory` with a known type (``contentType(of:)``); none when it is
    /// missing. Names are flat: the console has no subfolders.
    public init(directory: URL) {
        self.directory = directory.path
        var files: [String: (contentType: String, body: EncodedBody)] = [:]
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        for name in names where !name.hasPrefix(".") {
            guard let type = Self.contentType(of: name),
                let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path)
            else { continue }
            files[name] = (type, EncodedBody(bytes: [UInt8](data)))
        }
        self.files = files
    }

    static func contentType(of name: String) -> String? {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        default: nil
        }
    }

    /// The headers of every console answer, 304s and problems included: nothing inline, nothing
    /// from elsewhere, never framed, no referrer, no type sniffing.
    static let securityHeaders: [(String, String)] = [
        (
            "Content-Security-Policy",
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        ),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Content-Type-Options", "nosniff"),
    ]
}

extension Endpoints {
    /// `GET /console` (the page) and `GET /console/{file}` (its styles and modules).
    static func registerConsole(_ console: ConsoleAssets, in router: inout EndpointRouter) {
        router.add(.get, "/console") { request, _, context throws(Problem) in
            consoleFile(console, "index.html", request, context)
        }
        router.add(.get, "/console/{file}") { request, parameters, context throws(Problem) in
            consoleFile(console, parameters["file"] ?? "", request, context)
        }
    }

    /// A console file, revalidated on every use (its URL does not change with its bytes).
    static func consoleFile(_ console: ConsoleAssets, _ name: String, _ request: HTTPRequest, _ context: HTTPRequestContext) -> HTTPResponse {
        var response: HTTPResponse
        if let file = console.files[name] {
            response = cached(file.body, request, cacheControl: "no-cache", contentType: file.contentType)
        } else {
            let detail = console.files.isEmpty
                ? "this server has no console: \(console.directory) is missing or empty (it ships as Config/console/)"
                : "no console file \"\(name)\""
            response = Problem(.notFound, detail).response(instance: request.path, requestID: context.requestID, route: nil)
        }
        for (name, value) in ConsoleAssets.securityHeaders { response.headers.add(name: name, value: value) }
        return response
    }
}

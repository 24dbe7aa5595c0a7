import Foundation
import TrellisAnswers
import TrellisHTTP
import TrellisRuntime

/// The ops console's files (HTML, CSS, ES modules and its icon, from `Sources/TrellisServer/Console/`),
/// compiled into the binary and served from memory by exact name, so the console always matches
/// the admin API it calls and no request path reaches the file system. The console is a client
/// of the admin API alone, so it is served where that API is.
public struct ConsoleAssets: Sendable {
    /// Each file by name, with its content type.
    let files: [String: (contentType: String, body: EncodedBody)]

    /// `files` by name; a name without a known type (``contentType(of:)``) is left out.
    init(files: [(name: String, bytes: [UInt8])]) {
        var served: [String: (contentType: String, body: EncodedBody)] = [:]
        for file in files {
            guard let type = Self.contentType(of: file.name) else { continue }
            served[file.name] = (type, EncodedBody(bytes: file.bytes))
        }
        self.files = served
    }

    /// The console this binary was built with. SwiftPM embeds each file of `Console/` as a byte
    /// array named after it (`.embedInCode` in Package.swift) but offers no list of them, hence
    /// this one; ConsoleEndpointTests checks it names every file of the folder, byte for byte.
    public static func bundled() -> ConsoleAssets {
        ConsoleAssets(files: bundledFiles)
    }

    static let bundledFiles: [(name: String, bytes: [UInt8])] = [
        ("index.html", PackageResources.index_html),
        ("console.css", PackageResources.console_css),
        ("favicon.svg", PackageResources.favicon_svg),
        ("app.js", PackageResources.app_js),
        ("api.js", PackageResources.api_js),
        ("dom.js", PackageResources.dom_js),
        ("diff.js", PackageResources.diff_js),
        ("preview.js", PackageResources.preview_js),
        ("editor.js", PackageResources.editor_js),
        ("guards.js", PackageResources.guards_js),
        ("revisions.js", PackageResources.revisions_js),
        ("rollouts.js", PackageResources.rollouts_js),
        ("screens.js", PackageResources.screens_js),
        ("experiments.js", PackageResources.experiments_js),
        ("rules.js", PackageResources.rules_js),
        ("targeting.js", PackageResources.targeting_js),
        ("routes.js", PackageResources.routes_js),
        ("strings.js", PackageResources.strings_js),
        ("changes.js", PackageResources.changes_js),
        ("explain.js", PackageResources.explain_js),
        ("audit.js", PackageResources.audit_js),
        ("tokens.js", PackageResources.tokens_js),
        ("webhooks.js", PackageResources.webhooks_js),
    ]

    /// The icon browsers ask for at `/favicon.ico` on their own (the page names it too).
    static let iconName = "favicon.svg"

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
    /// `GET /console` (the page), `GET /console/{file}` (its styles, modules and icon) and
    /// `GET /favicon.ico` (the console's icon, which browsers ask for whatever the page says).
    static func registerConsole(_ console: ConsoleAssets, in router: inout EndpointRouter) {
        router.add(.get, "/console") { request, _, context throws(Problem) in
            consoleFile(console, "index.html", request, context)
        }
        router.add(.get, "/console/{file}") { request, parameters, context throws(Problem) in
            consoleFile(console, parameters["file"] ?? "", request, context)
        }
        router.add(.get, "/favicon.ico") { request, _, context throws(Problem) in
            consoleFile(console, ConsoleAssets.iconName, request, context)
        }
    }

    /// A console file, revalidated on every use (its URL does not change with its bytes).
    static func consoleFile(_ console: ConsoleAssets, _ name: String, _ request: HTTPRequest, _ context: HTTPRequestContext) -> HTTPResponse {
        var response: HTTPResponse
        if let file = console.files[name] {
            response = cached(file.body, request, cacheControl: "no-cache", contentType: file.contentType)
        } else {
            response = Problem(.notFound, "no console file \"\(name)\"").response(instance: request.path, requestID: context.requestID, route: nil)
        }
        for (name, value) in ConsoleAssets.securityHeaders { response.headers.add(name: name, value: value) }
        return response
    }
}

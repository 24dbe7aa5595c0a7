import Foundation
import Logging
import Prometheus
import Testing
import TrellisHTTP
import TrellisJSON
import TrellisRuntime
import TrellisTesting
import TrellisText
@testable import TrellisRendering
@testable import TrellisServer

/// The font files behind the metrics packs, served over a real socket for previews: exact names
/// only, fingerprinted URLs cached for good, precise 404s, and a file that is not the one its
/// pack was built from refused at load.
@Suite struct WebFontsTests {
    static func serve(_ directory: URL = RepositoryConfig.url, _ body: (Application) throws -> Void) throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("trellis-data-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        var logger = Logger(label: "web-fonts-test")
        logger.logLevel = .error
        let app = try Application(
            configDirectory: directory, configuration: ServerConfiguration.live(dataDirectory: data), logger: logger,
            metrics: PrometheusCollectorRegistry())
        try app.start()
        defer {
            app.shutdown()
            app.waitUntilStopped()
        }
        try body(app)
    }

    static func get(_ app: Application, _ target: String, _ headers: [String] = []) throws -> WireResponse {
        let client = try TestClient(port: app.port)
        client.send("GET \(target) HTTP/1.1\r\nHost: t\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n")
        return try #require(client.readResponse())
    }

    @Test func servesEachShippedFontFileByItsFingerprintedURL() throws {
        try Self.serve { app in
            let fonts = app.state.published.snapshot.fontFiles.webFonts
            #expect(fonts.files.keys.sorted() == [
                "Inter-Bold.otf", "Inter-Medium.otf", "Inter-Regular.otf", "Inter-SemiBold.otf",
                "Roboto-Bold.ttf", "Roboto-Medium.ttf", "Roboto-Regular.ttf",
            ])
            for file in fonts.files.values {
                let bytes = [UInt8](try Data(contentsOf: RepositoryConfig.url.appendingPathComponent("fonts/\(file.name)")))
                let response = try Self.get(app, file.url)
                #expect(response.status == 200, "\(file.url)")
                #expect(response.header("Content-Type") == (file.name.hasSuffix(".otf") ? "font/otf" : "font/ttf"))
                #expect(response.header("Cache-Control") == "public, max-age=31536000, immutable")
                #expect(response.header("ETag") == "\"\(file.fingerprint)\"")
                #expect(response.body == bytes, "\(file.name) is served as it is in Config/fonts")
            }
            let roboto = try #require(fonts.files["Roboto-Regular.ttf"])
            #expect(roboto.url == "/fonts/Roboto-Regular.ttf?v=\(roboto.fingerprint)")
            // Without the fingerprint: served, but to be revalidated; the ETag answers 304.
            let plain = try Self.get(app, "/fonts/Roboto-Regular.ttf")
            #expect(plain.status == 200 && plain.header("Cache-Control") == "no-cache")
            #expect(try Self.get(app, "/fonts/Roboto-Regular.ttf", ["If-None-Match: \"\(roboto.fingerprint)\""]).status == 304)
            // Compressed for clients that take gzip.
            let gzip = try Self.get(app, roboto.url, ["Accept-Encoding: gzip"])
            #expect(gzip.header("Content-Encoding") == "gzip" && gzip.body.count < 305_608)
        }
    }

    @Test func anythingElseIsAPreciseNotFoundAndNoPathReachesTheDisk() throws {
        try Self.serve { app in
            for (target, status, detail) in [
                ("/fonts/Roboto-Thin.ttf", 404, "no font file \"Roboto-Thin.ttf\": this server serves Inter-Bold.otf, Inter-Medium.otf"),
                ("/fonts/Roboto-Regular.trfm", 404, "no font file \"Roboto-Regular.trfm\""),  // on disk, not a web font
                ("/fonts/LICENSES.md", 404, "no font file \"LICENSES.md\""),
                ("/fonts/..", 404, "no font file \"..\""),
                // The path is decoded before routing: more segments, no route.
                ("/fonts/..%2Fserver.json", 404, "nothing at /fonts/../server.json"),
                ("/fonts/%2E%2E%2Fscreens%2Fhome.json", 404, "nothing at /fonts/../screens/home.json"),
                ("/fonts/Roboto-Regular.ttf?v=0123456789abcdef", 404, "is version"),
                ("/fonts/Roboto-Regular.ttf?x=1", 400, "\"x\""),
            ] {
                let response = try Self.get(app, target)
                #expect(response.status == status, "\(target)")
                #expect(response.header("Content-Type") == "application/problem+json", "\(target)")
                let problem = try JSONParser.parse(response.body)
                #expect(problem["detail"]?.stringValue?.contains(detail) == true, "\(target): \(response.text)")
            }
            // A path with more segments matches no route at all.
            let deeper = try Self.get(app, "/fonts/../screens/home.json")
            #expect(deeper.status == 404 && !deeper.text.contains("\"root\""))
        }
    }

    /// A preview may load the served files (its policy's font-src) and names them by their
    /// fingerprinted URLs. (Which faces a preview declares: TrellisRenderingTests' WebFontFacesTests.)
    @Test func previewsDeclareTheFacesTheyDrawAndMayLoadThem() throws {
        try Self.serve { app in
            let fonts = app.state.published.snapshot.fontFiles.webFonts
            let html = try Self.get(app, "/preview/home?user=u1&platform=android&width=412&height=915")
            #expect(html.status == 200)
            #expect(html.header("Content-Security-Policy")?.contains("font-src 'self'") == true)
            let regular = try #require(fonts.files["Roboto-Regular.ttf"])
            #expect(html.text.contains("src:url('\(regular.url)')"))
            let svg = try Self.get(app, "/preview/home/preview.svg?user=u1&platform=ios&width=390&height=844")
            #expect(svg.status == 200)
            let inter = try #require(fonts.files["Inter-Regular.otf"])
            #expect(svg.text.contains("src:url('\(inter.url)')"))
        }
    }

    @Test func aFontFileThatIsNotThePacksSourceIsRefusedAtLoad() throws {
        let config = try TemporaryConfig()
        try config.copyFonts()
        let fonts = config.url.appendingPathComponent("fonts")
        // Roboto Regular's pack with Roboto Bold's file under its name.
        try FileManager.default.copyItem(
            at: RepositoryConfig.url.appendingPathComponent("fonts/Roboto-Bold.ttf"), to: fonts.appendingPathComponent("Roboto-Regular.ttf"))
        let error = try #require(ConfigLoader(directory: config.url).load(previous: nil).failure)
        #expect(error.errors.map(\.source) == ["fonts/Roboto-Regular.ttf"])
        #expect(error.description.contains("CRC-32 is 0x420e534a, but the Roboto 400 pack was built from a file with CRC-32 0xf49fbea6"))
        // Without the file the pack still loads: no web font, the browser's own font in previews.
        try FileManager.default.removeItem(at: fonts.appendingPathComponent("Roboto-Regular.ttf"))
        let snapshot = try loadSnapshot(config)
        #expect(snapshot.fontFiles.webFonts.files.isEmpty)
        #expect(snapshot.fonts.face(family: "Roboto")?.sourceFile == "Roboto-Regular.ttf")
    }

    @Test func aPackOfFormatOneStillLoadsWithoutAWebFont() throws {
        let config = try TemporaryConfig()
        let fonts = config.url.appendingPathComponent("fonts")
        try FileManager.default.createDirectory(at: fonts, withIntermediateDirectories: true)
        let bytes = [UInt8](try Data(contentsOf: RepositoryConfig.url.appendingPathComponent("fonts/Roboto-Regular.ttf")))
        let face = FontFace(font: try OpenTypeFont(bytes: bytes), sourceChecksum: crc32(bytes))  // no file name: format 1
        let pack = MetricsPack.encode(face)
        #expect(pack[4] == 1)
        try Data(pack).write(to: fonts.appendingPathComponent("Roboto-Regular.trfm"))
        try Data(bytes).write(to: fonts.appendingPathComponent("Roboto-Regular.ttf"))
        try config.write(screen: "one", TemporaryConfig.screen(id: "one", text: "Hi"))
        try Self.serve(config.url) { app in
            #expect(app.state.published.snapshot.fontFiles.webFonts.files.isEmpty)
            let layout = try Self.get(app, "/v1/screens/one/layout?platform=android&width=390&height=844")
            #expect(layout.status == 200)
            let html = try Self.get(app, "/preview/one?platform=android&width=390&height=844")
            #expect(html.status == 200 && !html.text.contains("@font-face"))
            #expect(try Self.get(app, "/fonts/Roboto-Regular.ttf").status == 404)
        }
    }
}

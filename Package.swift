// swift-tools-version:6.1
import PackageDescription

// Every Trellis target is built with the same strictness (see ../shared/STYLE.md §6).
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// Linux only: the HTTP server is built on epoll and eventfd (CTrellisLinux), so no other
// platform is declared.
let package = Package(
    name: "trellis",
    products: [
        .executable(name: "trellis", targets: ["trellis"]),
        // The shared layout core: pure Swift, no Foundation, embeddable by clients.
        .library(name: "TrellisLayout", targets: ["TrellisLayout", "TrellisText"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.3.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        // TreeDictionary: snapshots that share every screen a change did not touch.
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
    ],
    targets: [
        // C libraries enter through system-library targets.
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(
            name: "CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        // libssl: TLS on the HTTP server's own sockets (TrellisHTTP).
        .systemLibrary(
            name: "CSSL", pkgConfig: "libssl",
            providers: [.apt(["libssl-dev"])]),
        // libpq: PostgreSQL's client library, for the shared runtime store (TrellisStore).
        .systemLibrary(
            name: "CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),
        // epoll, eventfd and malloc_trim, which Swift's Glibc module does not export.
        .systemLibrary(name: "CTrellisLinux"),
        .systemLibrary(name: "CPrefetch"),

        // Leaves: each imports nothing from Trellis.
        .target(name: "TrellisLayout", swiftSettings: strict),
        .target(name: "TrellisText", swiftSettings: strict),
        // Layout trees and styles read from JSON (fixtures, `trellis layout`, a component's `style`).
        .target(name: "TrellisLayoutJSON", dependencies: ["TrellisLayout", "TrellisJSON"], swiftSettings: strict),
        .target(name: "TrellisJSON", swiftSettings: strict, linkerSettings: [.linkedLibrary("m")]),
        // SHA-256, HMAC, random bytes, constant-time comparison, base64url: libcrypto, kept small.
        .target(name: "TrellisCrypto", dependencies: ["CCrypto"], swiftSettings: strict),
        // The runtime state ops write (rollouts, experiments, screen revisions, audit), behind one
        // protocol; the embedded implementation is SQLite through GRDB, the shared one PostgreSQL through
        // libpq. Knows nothing of HTTP or screens. zlib deflates the documents it keeps in memory.
        .target(
            name: "TrellisStore",
            dependencies: [
                "CLibPQ", "CZlib", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            swiftSettings: strict),
        .target(
            name: "TrellisHTTP",
            dependencies: [
                "CZlib", "CTrellisLinux", "CSSL",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strict),

        // Screen-side modules: know nothing of HTTP.
        .target(name: "TrellisTargeting", dependencies: ["TrellisJSON"], swiftSettings: strict),
        .target(
            name: "TrellisScreens",
            dependencies: ["TrellisJSON", "TrellisTargeting", "TrellisLayout", "TrellisLayoutJSON", "TrellisStrings"],
            swiftSettings: strict),
        // The in-app route table (Config/routes.json): URL patterns, matching, redirects and guards.
        .target(name: "TrellisRoutes", dependencies: ["TrellisJSON", "TrellisTargeting"], swiftSettings: strict),
        // A resolved screen made into what clients and people see: layout frames (through the
        // layout core), HTML and SVG previews, and the DrivenUI and Matrioska bodies.
        .target(
            name: "TrellisRendering",
            dependencies: ["TrellisScreens", "TrellisRoutes", "TrellisLayout", "TrellisLayoutJSON", "TrellisText", "TrellisJSON"],
            swiftSettings: strict),

        // A screen checked the way users meet it, from its layout: text cut, small tap targets, low
        // contrast, unnamed images and buttons, content off the screen (docs/lint.md).
        .target(
            name: "TrellisLint",
            dependencies: ["TrellisRendering", "TrellisScreens", "TrellisLayout", "TrellisText", "TrellisJSON"],
            swiftSettings: strict),

        // The answer path's performance machinery: the answer cache, its budget, the encoded body it
        // keeps, and the screens' encoding plans beside the reference encoder they must equal
        // (docs/answer-path.md). The only importer of CPrefetch; knows nothing of HTTP. Compiled
        // for cross-module optimization, so that the server specializes the generic cache for its
        // values as when it was its own: run unspecialized, the cache looks its types' metadata up
        // in the runtime's tables on every request, an atomic write every thread shares.
        .target(
            name: "TrellisAnswers",
            dependencies: [
                "TrellisScreens", "TrellisRendering", "TrellisTargeting", "TrellisJSON", "CPrefetch",
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            swiftSettings: strict + [.unsafeFlags(["-cross-module-optimization"])]),

        // The runtime: every change to the runtime state, as typed commands (the admin API's, the
        // scheduler's, approvals'), snapshot building and publishing, replication, webhook
        // delivery, change requests. Knows nothing of HTTP.
        .target(
            name: "TrellisRuntime",
            dependencies: [
                "TrellisAnswers", "TrellisScreens", "TrellisRendering", "TrellisRoutes", "TrellisTargeting", "TrellisJSON", "CTrellisLinux",
                "TrellisLayout", "TrellisLayoutJSON", "TrellisText", "TrellisCrypto", "TrellisStore", "TrellisStats", "TrellisStrings",
                "TrellisStringsJSON", "TrellisLint",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "HashTreeCollections", package: "swift-collections"),
            ],
            swiftSettings: strict),

        // The HTTP face of everything: endpoints, the admin API over the runtime's commands, auth,
        // the console, OFREP.
        .target(
            name: "TrellisServer",
            dependencies: [
                "TrellisHTTP", "TrellisRuntime", "TrellisAnswers", "TrellisScreens", "TrellisRendering", "TrellisRoutes", "TrellisTargeting", "TrellisJSON", "CTrellisLinux",
                "TrellisLayout", "TrellisLayoutJSON", "TrellisText", "TrellisCrypto", "TrellisStore", "TrellisStats", "TrellisStrings", "TrellisLint",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Atomics", package: "swift-atomics"),
                .product(name: "HashTreeCollections", package: "swift-collections"),
            ],
            // The ops console's files, compiled into the binary (PackageResources): no bundle to ship beside it.
            resources: [.embedInCode("Console")],
            swiftSettings: strict),
        .executableTarget(
            name: "trellis",
            dependencies: [
                "TrellisServer", "TrellisRuntime", "TrellisAnswers", "TrellisRendering", "TrellisJSON", "TrellisLayout", "TrellisLayoutJSON", "TrellisText", "TrellisCrypto",
                "TrellisTargeting", "TrellisStore", "TrellisRoutes", "TrellisScreens", "TrellisStats", "TrellisStrings", "TrellisLint",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strict),

        // GrowthBook's statistics engine (gbstats 0.8.0) in Swift: per-variant sufficient statistics
        // in, frequentist, sequential and Bayesian results out, checked against gbstats itself
        // (scripts/stats-oracle, docs/statistics.md). Imports no Trellis module; libm only.
        .target(name: "TrellisStats", swiftSettings: strict),
        // String tables: CLDR's plural rules, ICU messages, locale fallback — imports nothing.
        .target(name: "TrellisStrings", swiftSettings: strict),
        // String tables read from JSON (Config/strings/, the admin API), their mistakes with paths and lines.
        .target(name: "TrellisStringsJSON", dependencies: ["TrellisStrings", "TrellisJSON"], swiftSettings: strict),

        // Helpers for tests that talk to a real socket.
        .target(name: "TrellisTesting", swiftSettings: strict),

        // Layout benchmark (scripts/bench-layout): the engine and its JSON tree reader, built in release.
        .executableTarget(
            name: "trellis-layout-bench", dependencies: ["TrellisLayout", "TrellisLayoutJSON", "TrellisJSON"],
            swiftSettings: strict),
        // Guarded rollouts simulated (scripts/guard-simulation): false halts and power of TrellisStats'
        // GuardrailTest, built in release.
        .executableTarget(name: "trellis-guard-simulation", dependencies: ["TrellisStats"], swiftSettings: strict),

        .testTarget(name: "TrellisJSONTests", dependencies: ["TrellisJSON"], swiftSettings: strict),
        .testTarget(name: "TrellisCryptoTests", dependencies: ["TrellisCrypto"], swiftSettings: strict),
        .testTarget(name: "TrellisStatsTests", dependencies: ["TrellisStats"], swiftSettings: strict),
        .testTarget(name: "TrellisStringsTests", dependencies: ["TrellisStrings", "TrellisStringsJSON", "TrellisJSON"], swiftSettings: strict),
        .testTarget(name: "TrellisStoreTests", dependencies: ["TrellisStore", "TrellisJSON", "TrellisTesting", .product(name: "GRDB", package: "GRDB.swift")], swiftSettings: strict),
        .testTarget(
            name: "TrellisHTTPTests",
            dependencies: [
                "TrellisHTTP", "TrellisTesting", "CZlib", "CSSL", .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "TrellisLayoutTests", dependencies: ["TrellisLayout", "TrellisLayoutJSON", "TrellisJSON", "TrellisTesting"],
            swiftSettings: strict),
        .testTarget(name: "TrellisTextTests", dependencies: ["TrellisText", "TrellisTesting"], swiftSettings: strict),
        .testTarget(
            name: "TrellisScreensTests", dependencies: ["TrellisScreens", "TrellisJSON", "TrellisTargeting", "TrellisTesting", "TrellisStrings"],
            swiftSettings: strict),
        .testTarget(
            name: "TrellisAnswersTests", dependencies: ["TrellisAnswers", "TrellisScreens", "TrellisJSON", "TrellisTargeting", "TrellisTesting", "TrellisStrings", "TrellisStringsJSON"],
            swiftSettings: strict),
        .testTarget(
            name: "TrellisTargetingTests", dependencies: ["TrellisTargeting", "TrellisJSON", "TrellisTesting"],
            swiftSettings: strict),
        .testTarget(
            name: "TrellisRoutesTests", dependencies: ["TrellisRoutes", "TrellisJSON", "TrellisTargeting"],
            swiftSettings: strict),
        .testTarget(
            name: "TrellisRenderingTests",
            dependencies: ["TrellisRendering", "TrellisScreens", "TrellisJSON", "TrellisTargeting", "TrellisText", "TrellisLayout", "TrellisStrings", "TrellisStringsJSON"],
            swiftSettings: strict),
        .testTarget(
            name: "TrellisLintTests",
            dependencies: [
                "TrellisLint", "TrellisRendering", "TrellisScreens", "TrellisJSON", "TrellisTargeting", "TrellisText", "TrellisLayout", "TrellisStrings",
                "TrellisStringsJSON", "TrellisRuntime",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "TrellisRuntimeTests",
            dependencies: [
                "TrellisRuntime", "TrellisStore", "TrellisJSON", "TrellisTargeting",
                .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "TrellisServerTests",
            dependencies: [
                "TrellisServer", "TrellisRuntime", "TrellisAnswers", "TrellisRendering", "TrellisHTTP", "TrellisJSON", "TrellisTargeting", "TrellisText", "TrellisScreens",
                "TrellisTesting", "TrellisCrypto", "TrellisStore", "TrellisRoutes", "TrellisStats", "TrellisStrings",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strict),
    ]
)

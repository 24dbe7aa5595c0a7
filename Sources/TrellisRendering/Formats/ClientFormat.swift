/// The wire formats one authored screen is served in: Trellis's envelope, and the bodies two
/// third-party clients decode unmodified (docs/clients.md). Chosen per request by `?format=` or,
/// without it, by `Accept`.
public enum ClientFormat: String, CaseIterable, Sendable, Hashable {
    case trellis, drivenui, matrioska

    /// The media type a client names in `Accept`.
    public var mediaType: String { "application/vnd.\(rawValue)+json" }
    /// The answer's `Content-Type`. Trellis's own answer keeps `application/json`, which every
    /// client so far has been sent.
    public var contentType: String { self == .trellis ? "application/json" : mediaType }

    /// The highest schema version the format's clients render: DrivenUI 0.1.1 knows version 1's
    /// vocabulary only; Matrioska builds whatever type the app registered.
    public var schemaVersionLimit: Int? { self == .drivenui ? 1 : nil }
}

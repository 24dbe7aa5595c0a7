/// What one HTTP/2 connection allows its client, and the bounds against the attacks HTTP/2 made
/// possible, each with the attack it stops. The defaults are HTTP/1.1's where the two share a
/// meaning (431, 413); the concurrency and window sizes are to be set from
/// `HTTPServer.Configuration` once connections speak HTTP/2, the rest stay fixed here.
struct HTTP2Limits: Sendable, Equatable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS: a stream past it is refused (REFUSED_STREAM).
    var maxConcurrentStreams = 100
    /// SETTINGS_INITIAL_WINDOW_SIZE: request body octets a stream may send ahead (≥ 65535).
    var streamWindow = HTTP2Bounds.defaultWindowSize
    /// The connection's receive window: request body octets buffered and not yet handed to the
    /// responder, over all streams — what request bodies cost one connection in memory at most.
    var connectionWindow = 1 << 20
    /// SETTINGS_MAX_FRAME_SIZE we accept.
    var maxFrameSize = HTTP2Bounds.minMaxFrameSize
    /// SETTINGS_HEADER_TABLE_SIZE: the HPACK table we keep for the client's fields.
    var headerTableSize = 4096
    /// The HPACK table we keep for our responses' fields, whatever the client allows.
    var responseHeaderTableSize = 4096
    /// SETTINGS_MAX_HEADER_LIST_SIZE: decoded fields plus 32 octets each → 431 beyond.
    var maxHeaderListSize = 32768 + 3200
    /// Fields in one request → 431 beyond (as HTTP/1.1's `maxHeaderCount`).
    var maxHeaderCount = 100
    /// A request body → 413 beyond.
    var maxBodyBytes = 1 << 20
    /// CONTINUATION flood (CVE-2024-27316): frames one field block may take. A block still open
    /// past it ends the connection (ENHANCE_YOUR_CALM); its octets are bounded by `maxHeaderListSize`.
    var maxContinuationFrames = 32
    /// Rapid reset (CVE-2023-44487): streams the client may reset before their answer is written,
    /// net of answers completed. Past it the connection ends (ENHANCE_YOUR_CALM). A stream reset
    /// while its reply is worked on elsewhere still counts against `maxConcurrentStreams` until
    /// that work returns, so resets cannot start unbounded work either.
    var maxNetResets = 200
    /// SETTINGS and PING floods: acknowledgements owed and not yet written to the socket. The
    /// client must read what it asks for; past it the connection ends (ENHANCE_YOUR_CALM).
    var maxUnsentAcknowledgements = 1000
    /// Frames that carry nothing the server acts on (empty DATA, PRIORITY, unknown types, empty
    /// CONTINUATION, WINDOW_UPDATE on a stream we are not sending on) in a row, with no request between.
    var maxIdleFrames = 10_000
}

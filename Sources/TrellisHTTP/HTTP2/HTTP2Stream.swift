/// One stream of an HTTP/2 connection from the server's side (RFC 9113 §5.1): a request arriving,
/// then its response leaving, each half ending with END_STREAM. Idle and reserved streams are
/// never stored; a closed one is removed (see `HTTP2Connection.recentlyReset`).
struct HTTP2Stream: Sendable {
    /// The request head, once its field block is decoded; nil while a HEADERS frame's
    /// CONTINUATIONs are still coming.
    var head: HTTP2RequestHead?
    var body: [UInt8] = []
    /// The client sent END_STREAM ("half-closed (remote)" once it has).
    var requestComplete = false
    /// The request was handed on (an event `.request` or `.refused`): what follows is answered.
    var dispatched = false
    /// Request body octets the client may still send on this stream.
    var receiveWindow: Int
    /// Response octets the server may still send on this stream; negative after the client
    /// lowered SETTINGS_INITIAL_WINDOW_SIZE (§6.9.2).
    var sendWindow: Int
    /// The response's HEADERS went out.
    var responseStarted = false
    /// Response body waiting for flow-control window, in order.
    var pending: [HTTPResponse.Content] = []
    /// How much of `pending.first` has been sent.
    var pendingOffset = 0
    var pendingBytes = 0
    /// END_STREAM goes out once `pending` is sent.
    var endAfterPending = false
    /// The client reset the stream while its answer was worked on: it stays counted against the
    /// concurrency limit until the answer arrives, then is dropped.
    var resetByPeer = false

    init(receiveWindow: Int, sendWindow: Int) {
        self.receiveWindow = receiveWindow
        self.sendWindow = sendWindow
    }
}

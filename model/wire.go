package model

// KindWire is a recording's copy of what passed a tap as it was sent: one
// HTTP exchange (request and response, SSE events with their times), or
// one stdio line. It is written to --record files only (not shown, not
// kept by the store), so a session can be served again (mock) or exported
// (export --har).
const KindWire Kind = "wire"

// Transports of a Wire record.
const (
	TransportHTTP  = "http"
	TransportStdio = "stdio"
)

// Wire is the `wire` field of a wire event. The event's time is when the
// request reached the tap (HTTP) or the line passed it (stdio); offsets
// are milliseconds from the event's time.
type Wire struct {
	Transport string `json:"transport"`
	// HTTP
	Request  *WireRequest  `json:"request,omitempty"`
	Response *WireResponse `json:"response,omitempty"`
	// stdio: which side sent the line ("client" or "server"), and the line
	// without its end.
	From    string    `json:"from,omitempty"`
	Message *WireBody `json:"message,omitempty"`
}

// WireRequest is an HTTP request as the client sent it to the tap.
type WireRequest struct {
	Method      string      `json:"method"`
	Host        string      `json:"host"`         // as the client sent it (Go keeps it out of the headers)
	URL         string      `json:"url"`          // path and query, as received
	HTTPVersion string      `json:"http_version"` // "HTTP/1.1"
	Headers     [][2]string `json:"headers"`      // name and value, in the order received, redacted
	Body        *WireBody   `json:"body,omitempty"`
}

// WireResponse is the answer as the tap passed it to the client. A JSON
// (or other) body is Body; an event stream is Events, each with its time.
type WireResponse struct {
	Status      int         `json:"status"`
	HTTPVersion string      `json:"http_version"`
	Headers     [][2]string `json:"headers"`
	HeadMS      float64     `json:"head_ms"` // when the head arrived, from the request
	EndMS       float64     `json:"end_ms"`  // when the body ended
	Body        *WireBody   `json:"body,omitempty"`
	Events      []WireEvent `json:"events,omitempty"`
	// EventsCut counts events left out past --record-body-limit (their
	// bytes added up in EventsCutBytes): the recording says what it lacks.
	EventsCut      int   `json:"events_cut,omitempty"`
	EventsCutBytes int64 `json:"events_cut_bytes,omitempty"`
	// Error says how the exchange ended when not with a whole answer: the
	// upstream unreachable (the tap's own 502), the client gone, a cut stream.
	Error string `json:"error,omitempty"`
}

// WireEvent is one SSE event of a response stream.
type WireEvent struct {
	AtMS  float64 `json:"at_ms"`
	ID    string  `json:"id,omitempty"`
	Event string  `json:"event,omitempty"`
	Data  string  `json:"data"`
}

// WireBody is a body (or a stdio line) as text, at most the record body
// limit: Size is the whole body's length; Cut says Text is only its start
// (or, with Text empty, that it was not kept at all: over the parse limit,
// compressed, or the side parser fell behind).
type WireBody struct {
	Text string `json:"text"`
	Size int64  `json:"size"`
	Cut  bool   `json:"cut,omitempty"`
	// Why says why a cut body was cut when the limit is not the reason.
	Why string `json:"why,omitempty"`
}

// NewWireBody keeps b, at most limit bytes of it (cut at a character
// boundary).
func NewWireBody(b []byte, limit int64) *WireBody {
	w := &WireBody{Size: int64(len(b))}
	if int64(len(b)) > limit {
		cut := int(limit)
		for cut > 0 && cut < len(b) && b[cut]&0xC0 == 0x80 {
			cut--
		}
		b, w.Cut = b[:cut], true
	}
	w.Text = string(b)
	return w
}

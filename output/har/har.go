// Package har writes a recording's HTTP exchanges (its wire events) as an
// HTTP Archive, HAR 1.2: one entry per exchange, with its headers
// (redacted, as the recording holds them), bodies and timings, loadable in
// a browser's developer tools. Entries are written as they come: a
// recording of any size is exported in bounded memory.
package har

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"toolscope/model"
)

// Writer writes one HAR document.
type Writer struct {
	w       *bufio.Writer
	entries int
	err     error
}

// NewWriter starts the document: the log's header, naming toolscope and
// its version as the creator.
func NewWriter(w io.Writer, version string) *Writer {
	hw := &Writer{w: bufio.NewWriter(w)}
	creator, _ := json.Marshal(map[string]string{"name": "toolscope", "version": version})
	hw.write(`{"log":{"version":"1.2","creator":` + string(creator) + `,"pages":[],"entries":[`)
	return hw
}

func (hw *Writer) write(s string) {
	if hw.err == nil {
		_, hw.err = hw.w.WriteString(s)
	}
}

// Add writes the entry of one wire event; it says false (and writes
// nothing) for what is not an HTTP exchange (a stdio line).
func (hw *Writer) Add(e model.Event) bool {
	if e.Kind != model.KindWire || e.Wire == nil || e.Wire.Transport != model.TransportHTTP || e.Wire.Request == nil {
		return false
	}
	b, err := json.Marshal(entryOf(e))
	if err != nil {
		hw.err = err
		return false
	}
	if hw.entries > 0 {
		hw.write(",")
	}
	hw.write("\n" + string(b))
	hw.entries++
	return true
}

// Entries is how many entries were written.
func (hw *Writer) Entries() int { return hw.entries }

// Close ends the document and returns the first write error.
func (hw *Writer) Close() error {
	hw.write("\n]}}\n")
	if hw.err == nil {
		hw.err = hw.w.Flush()
	}
	return hw.err
}

type nameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type entry struct {
	StartedDateTime string   `json:"startedDateTime"`
	Time            float64  `json:"time"`
	Request         request  `json:"request"`
	Response        response `json:"response"`
	Cache           struct{} `json:"cache"`
	Timings         timings  `json:"timings"`
	Comment         string   `json:"comment,omitempty"`
	// Custom fields start with an underscore (HAR 1.2).
	Exchange   string `json:"_exchange,omitempty"`
	SourceName string `json:"_sourceName,omitempty"`
}

type request struct {
	Method      string      `json:"method"`
	URL         string      `json:"url"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []struct{}  `json:"cookies"`
	Headers     []nameValue `json:"headers"`
	QueryString []nameValue `json:"queryString"`
	PostData    *postData   `json:"postData,omitempty"`
	HeadersSize int         `json:"headersSize"`
	BodySize    int64       `json:"bodySize"`
	Comment     string      `json:"comment,omitempty"`
}

type postData struct {
	MimeType string      `json:"mimeType"`
	Params   []nameValue `json:"params"`
	Text     string      `json:"text"`
}

type response struct {
	Status      int         `json:"status"`
	StatusText  string      `json:"statusText"`
	HTTPVersion string      `json:"httpVersion"`
	Cookies     []struct{}  `json:"cookies"`
	Headers     []nameValue `json:"headers"`
	Content     content     `json:"content"`
	RedirectURL string      `json:"redirectURL"`
	HeadersSize int         `json:"headersSize"`
	BodySize    int64       `json:"bodySize"`
	Comment     string      `json:"comment,omitempty"`
}

type content struct {
	Size     int64  `json:"size"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
	Comment  string `json:"comment,omitempty"`
}

type timings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	SSL     float64 `json:"ssl"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
}

func entryOf(e model.Event) entry {
	w := e.Wire
	req, resp := w.Request, w.Response
	if resp == nil {
		resp = &model.WireResponse{}
	}
	en := entry{
		StartedDateTime: e.Time.UTC().Format(time.RFC3339Nano),
		Time:            max(resp.EndMS, 0),
		Exchange:        e.Exchange,
		SourceName:      e.SourceName,
		// What the tap did not see is unknown (-1); the request was sent
		// when it reached the tap, the head came after wait, the body after.
		Timings: timings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1, Send: 0,
			Wait: max(resp.HeadMS, 0), Receive: roundMS(max(resp.EndMS-resp.HeadMS, 0))},
	}
	en.Request = request{Method: req.Method, URL: absoluteURL(req), HTTPVersion: orHTTP11(req.HTTPVersion),
		Cookies: []struct{}{}, Headers: pairs(req.Headers), QueryString: query(req.URL), HeadersSize: -1}
	if b := req.Body; b != nil {
		en.Request.BodySize = b.Size
		en.Request.PostData = &postData{MimeType: header(req.Headers, "Content-Type"), Params: []nameValue{}, Text: b.Text}
		en.Request.Comment = cutNote(b)
	}
	en.Response = response{Status: resp.Status, StatusText: http.StatusText(resp.Status), HTTPVersion: orHTTP11(resp.HTTPVersion),
		Cookies: []struct{}{}, Headers: pairs(resp.Headers), RedirectURL: header(resp.Headers, "Location"), HeadersSize: -1, BodySize: -1}
	en.Response.Content = contentOf(resp)
	en.Response.BodySize = en.Response.Content.Size
	if resp.Error != "" {
		en.Comment = resp.Error
	}
	return en
}

// contentOf is the response body: a JSON (or other) body as it came, an
// event stream as its events written out as SSE frames.
func contentOf(resp *model.WireResponse) content {
	c := content{MimeType: header(resp.Headers, "Content-Type")}
	switch {
	case resp.Body != nil:
		c.Size, c.Text, c.Comment = resp.Body.Size, resp.Body.Text, cutNote(resp.Body)
	case len(resp.Events) > 0 || resp.EventsCut > 0:
		var b strings.Builder
		for _, ev := range resp.Events {
			if ev.Event != "" {
				b.WriteString("event: " + ev.Event + "\n")
			}
			if ev.ID != "" {
				b.WriteString("id: " + ev.ID + "\n")
			}
			for _, line := range strings.Split(ev.Data, "\n") {
				b.WriteString("data: " + line + "\n")
			}
			b.WriteString("\n")
		}
		c.Text, c.Size = b.String(), int64(b.Len())+resp.EventsCutBytes
		if resp.EventsCut > 0 {
			c.Comment = strconv.Itoa(resp.EventsCut) + " events over the recording's body limit left out"
		}
	}
	return c
}

func cutNote(b *model.WireBody) string {
	switch {
	case !b.Cut:
		return ""
	case b.Why != "":
		return "cut: " + b.Why
	}
	return "cut at the recording's body limit: " + strconv.Itoa(len(b.Text)) + " of " + strconv.FormatInt(b.Size, 10) + " bytes"
}

// absoluteURL is the request's URL with the Host it was sent to (the tap
// listens on plain HTTP).
func absoluteURL(req *model.WireRequest) string {
	if strings.HasPrefix(req.URL, "http://") || strings.HasPrefix(req.URL, "https://") {
		return req.URL // the client sent the absolute form
	}
	host := req.Host
	if host == "" {
		host = "localhost"
	}
	u := "http://" + host + req.URL
	if _, err := url.Parse(u); err != nil {
		return "http://" + host + "/"
	}
	return u
}

func query(raw string) []nameValue {
	out := []nameValue{}
	_, q, ok := strings.Cut(raw, "?")
	if !ok {
		return out
	}
	for _, kv := range strings.Split(q, "&") {
		k, v, _ := strings.Cut(kv, "=")
		k, _ = url.QueryUnescape(k)
		v, _ = url.QueryUnescape(v)
		out = append(out, nameValue{k, v})
	}
	return out
}

func pairs(h [][2]string) []nameValue {
	out := make([]nameValue, 0, len(h))
	for _, kv := range h {
		out = append(out, nameValue{kv[0], kv[1]})
	}
	return out
}

func header(h [][2]string, name string) string {
	for _, kv := range h {
		if strings.EqualFold(kv[0], name) {
			return kv[1]
		}
	}
	return ""
}

// roundMS keeps a duration in ms to the microsecond the recording holds.
func roundMS(ms float64) float64 { return math.Round(ms*1000) / 1000 }

func orHTTP11(v string) string {
	if v == "" {
		return "HTTP/1.1"
	}
	return v
}

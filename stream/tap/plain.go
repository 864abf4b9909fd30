package tap

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// plainMsg is traffic other than tools/call (initialize, tools/list,
// notifications, a GET stream...): one `event` each, with a small summary.
type plainMsg struct {
	eventType string
	kind      jsonrpc.Kind
	id        json.RawMessage
	key       string // jsonrpc.IDKey(id)
	method    string
	reply     *jsonrpc.Message
	shown     map[string]any // what the params say worth showing
	// capabilities are what an initialize declares (rounds.go).
	capabilities *jsonrpc.ClientCapabilities
	data         map[string]any
	silent       bool
}

func newPlainMsg(m *jsonrpc.Message) *plainMsg {
	p := &plainMsg{kind: m.Kind, id: m.ID, key: m.Key, method: m.Method, shown: m.Plain, capabilities: m.Capabilities}
	switch m.Kind {
	case jsonrpc.KindResponse:
		p.eventType = "mcp.response" // the client answering a server request
	default:
		p.eventType = "mcp." + m.Method
	}
	return p
}

func (p *plainMsg) note(key string, v any) {
	if p.data == nil {
		p.data = make(map[string]any)
	}
	p.data[key] = v
}

// httpEventType names requests that carry no JSON-RPC body.
func httpEventType(method string) string {
	switch method {
	case "GET":
		return "mcp.stream" // the server-to-client stream of a session
	case "DELETE":
		return "mcp.session_end"
	}
	return "http." + strings.ToLower(method)
}

// reportPlain emits one event per plain message once the exchange is over.
func (ex *exchange) reportPlain(now time.Time, status int, o outcome) {
	for _, p := range ex.req.plain {
		if p.silent {
			continue
		}
		p.note("exchange", ex.id)
		if len(p.id) > 0 {
			p.note("id", json.RawMessage(p.id))
		}
		if status != 0 {
			p.note("http_status", status)
		}
		p.note("duration_ms", durationMS(now.Sub(ex.start)))
		if o.resp != nil && o.resp.sessionID != "" {
			p.note("session", o.resp.sessionID)
			ex.t.declared.initialized(o.resp.sessionID, p.capabilities)
		}
		end := ex.end
		if end == errClientGone && bodilessAnswer(o) {
			end = io.EOF // the client had the whole answer before it closed
		}
		switch {
		case o.kind == outcomeClientGone || end == errClientGone:
			p.note("ended", ex.t.goneReason())
		case end != nil && end != io.EOF:
			p.note("ended", end.Error())
		case o.message != "":
			p.note("error", o.message)
		}
		summarizeParams(p)
		if p.reply != nil {
			summarizeReply(p)
		}
		data, err := json.Marshal(p.data)
		if err != nil {
			data = nil
		}
		ex.t.emit(model.Event{Time: now.UTC(), Kind: model.KindEvent, EventType: p.eventType, RequestID: string(p.id), Data: data})
	}
}

// bodilessAnswer says whether the upstream answered 202 or 204 and sent no
// body byte: such an answer is whole once its head is out (the proxy writes
// it before copying the body), so a client that closes it right away (the
// go-sdk and TypeScript clients do) has not left early, even if the
// upstream's end of the empty body reached the tap after the close.
func bodilessAnswer(o outcome) bool {
	rs := o.resp
	if rs == nil || (rs.status != http.StatusAccepted && rs.status != http.StatusNoContent) {
		return false
	}
	return rs.pipe == nil || !rs.pipe.sawBytes()
}

// summarizeParams keeps the few request fields worth seeing.
func summarizeParams(p *plainMsg) {
	for k, v := range p.shown {
		p.note(k, v)
	}
}

// summarizeReply keeps the few result fields worth seeing.
func summarizeReply(p *plainMsg) {
	if e := p.reply.Error; e != nil {
		p.note("error", map[string]any{"code": e.Code, "message": e.Message})
		return
	}
	if s := p.reply.Summary; s != nil {
		for k, v := range s.Plain {
			p.note(k, v)
		}
	}
}

func marshalData(v map[string]any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

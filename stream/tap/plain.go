package tap

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"toolscope/decoder"
	"toolscope/model"
)

// plainMsg is traffic other than tools/call (initialize, tools/list,
// notifications, a GET stream...): one `event` each, with a small summary.
type plainMsg struct {
	eventType string
	kind      decoder.MessageKind
	id        json.RawMessage
	method    string
	params    json.RawMessage
	reply     *decoder.Message
	data      map[string]any
	silent    bool
}

func newPlainMsg(m decoder.Message) *plainMsg {
	p := &plainMsg{kind: m.Kind, id: m.ID, method: m.Method, params: m.Params}
	switch m.Kind {
	case decoder.KindResponse:
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
	if len(p.params) == 0 {
		return
	}
	var v map[string]any
	if json.Unmarshal(p.params, &v) != nil {
		return
	}
	switch p.method {
	case "initialize":
		copyKeys(p, v, "protocolVersion", "clientInfo")
	case "notifications/cancelled":
		copyKeys(p, v, "requestId", "reason")
	case "resources/read", "resources/subscribe":
		copyKeys(p, v, "uri")
	case "prompts/get":
		copyKeys(p, v, "name")
	}
}

// summarizeReply keeps the few result fields worth seeing.
func summarizeReply(p *plainMsg) {
	if e := p.reply.Error; e != nil {
		p.note("error", map[string]any{"code": e.Code, "message": e.Message})
		return
	}
	var v map[string]any
	if json.Unmarshal(p.reply.Result, &v) != nil {
		return
	}
	switch p.method {
	case "initialize", "server/discover":
		copyKeys(p, v, "protocolVersion", "serverInfo", "supportedVersions")
		if c, ok := v["capabilities"].(map[string]any); ok {
			names := make([]string, 0, len(c))
			for k := range c {
				names = append(names, k)
			}
			p.note("capabilities", names)
		}
	case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
		for _, key := range []string{"tools", "prompts", "resources", "resourceTemplates"} {
			items, ok := v[key].([]any)
			if !ok {
				continue
			}
			p.note("count", len(items))
			var names []string
			for _, it := range items {
				if m, ok := it.(map[string]any); ok && len(names) < 64 {
					if n, ok := m["name"].(string); ok {
						names = append(names, n)
					}
				}
			}
			p.note("names", names)
		}
		copyKeys(p, v, "nextCursor")
	}
}

func copyKeys(p *plainMsg, v map[string]any, keys ...string) {
	for _, k := range keys {
		if x, ok := v[k]; ok {
			p.note(k, x)
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

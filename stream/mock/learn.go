package mock

import (
	"encoding/json"
	"strings"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

func ms(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }

// learnExchange learns the requests of one HTTP exchange and the server
// messages of its response (an event stream's with their times).
func (s *Script) learnExchange(e model.Event) {
	w := e.Wire
	if w.Request.Body == nil || w.Request.Body.Cut || w.Response == nil {
		return // nothing whole to learn from
	}
	msgs := jsonrpc.Read([]byte(w.Request.Body.Text)).Messages
	if len(msgs) == 0 {
		return
	}
	s.Exchanges++
	var reqs []*request
	for _, m := range msgs {
		if m.Kind == jsonrpc.KindRequest {
			reqs = append(reqs, &request{msg: m, ans: &answer{progress: progressKey(&m)}})
		}
	}
	if len(reqs) == 0 {
		return // notifications: answered 202 whatever was recorded
	}
	session := header(w.Response.Headers, "Mcp-Session-Id") != ""
	stream := strings.HasPrefix(strings.ToLower(header(w.Response.Headers, "Content-Type")), "text/event-stream")
	for _, r := range reqs {
		r.ans.stream, r.ans.session = stream, session
	}
	serverMessage := func(at time.Duration, data []byte) {
		ms := jsonrpc.Read(data).Messages
		for _, m := range ms {
			raw := rawOf(data, len(ms))
			if len(ms) > 1 {
				raw, _ = json.Marshal(messageJSON(m))
			}
			owner := ownerOf(reqs, m)
			if owner == nil {
				continue
			}
			if m.Kind == jsonrpc.KindResponse {
				owner.ans.final, owner.ans.finalAt = raw, at
			} else if owner.ans.final == nil {
				owner.ans.steps = append(owner.ans.steps, step{after: at, msg: raw})
			}
		}
	}
	resp := w.Response
	if resp.Body != nil && !resp.Body.Cut {
		serverMessage(ms(resp.EndMS), []byte(resp.Body.Text))
	}
	for _, ev := range resp.Events {
		serverMessage(ms(ev.AtMS), []byte(ev.Data))
	}
	for _, r := range reqs {
		s.add(r)
	}
}

// rawOf is a message's bytes: data itself when it holds one message.
func rawOf(data []byte, n int) json.RawMessage {
	if n == 1 {
		return json.RawMessage(append([]byte(nil), data...))
	}
	return nil
}

// messageJSON rebuilds one message of a batch.
func messageJSON(m jsonrpc.Message) map[string]any {
	out := map[string]any{"jsonrpc": "2.0"}
	if len(m.ID) > 0 {
		out["id"] = m.ID
	}
	if m.Method != "" {
		out["method"] = m.Method
	}
	if len(m.Params) > 0 {
		out["params"] = m.Params
	}
	if len(m.Result) > 0 {
		out["result"] = m.Result
	}
	if m.Error != nil {
		out["error"] = m.Error
	}
	return out
}

// ownerOf is the request a server message belongs to: a response by its
// id, progress by its token, anything else to the only (or first open)
// request.
func ownerOf(reqs []*request, m jsonrpc.Message) *request {
	switch {
	case m.Kind == jsonrpc.KindResponse:
		for _, r := range reqs {
			if r.msg.Key == m.Key {
				return r
			}
		}
		return nil
	case m.Method == jsonrpc.MethodProgress:
		tok := m.Progress.Key
		for _, r := range reqs {
			if r.ans.progress != "" && r.ans.progress == tok && r.ans.final == nil {
				return r
			}
		}
		return nil
	}
	for _, r := range reqs {
		if r.ans.final == nil {
			return r
		}
	}
	return nil
}

// progressKey is the IDKey of a message's progress token (a request's
// _meta.progressToken, a progress notification's own), "" without one.
func progressKey(m *jsonrpc.Message) string {
	if m.Method == jsonrpc.MethodProgress {
		return m.Progress.Key
	}
	return m.Meta.TokenKey
}

func header(h [][2]string, name string) string {
	for _, kv := range h {
		if strings.EqualFold(kv[0], name) {
			return kv[1]
		}
	}
	return ""
}

// stdioLearner pairs a stdio recording's lines: the client's requests with
// the server's lines that answer them (by id and progress token), timed
// from the request's line.
type stdioLearner struct {
	open []*request
}

func (l *stdioLearner) line(s *Script, e model.Event) {
	w := e.Wire
	if w.Message == nil || w.Message.Cut {
		return
	}
	data := []byte(w.Message.Text)
	msgs := jsonrpc.Read(data).Messages
	if w.From == "client" {
		for _, m := range msgs {
			if m.Kind == jsonrpc.KindRequest {
				s.Exchanges++
				l.open = append(l.open, &request{msg: m, at: e.Time, ans: &answer{progress: progressKey(&m)}})
			}
		}
		return
	}
	for _, m := range msgs {
		raw := rawOf(data, len(msgs))
		if len(msgs) > 1 {
			raw, _ = json.Marshal(messageJSON(m))
		}
		var owner *request
		switch {
		case m.Kind == jsonrpc.KindResponse, m.Method == jsonrpc.MethodProgress:
			owner = ownerOf(l.open, m)
		case len(l.open) > 0:
			owner = l.open[len(l.open)-1] // a log line goes with the latest request
		}
		if owner == nil {
			continue
		}
		at := e.Time.Sub(owner.at)
		if m.Kind == jsonrpc.KindResponse {
			owner.ans.final, owner.ans.finalAt = raw, at
			s.add(owner)
			l.remove(owner)
			continue
		}
		owner.ans.steps = append(owner.ans.steps, step{after: at, msg: raw})
	}
}

func (l *stdioLearner) remove(r *request) {
	for i, o := range l.open {
		if o == r {
			l.open = append(l.open[:i], l.open[i+1:]...)
			return
		}
	}
}

// flush drops the requests the recording never answered.
func (l *stdioLearner) flush(*Script) { l.open = nil }

package tap

import (
	"bytes"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// serverSide is where a server's messages arrive: an HTTP exchange's
// response (a JSON body or its SSE events) or a stdio server's stdout. One
// dispatch sorts them for both.
type serverSide interface {
	// callByID is the call a response answers, callByToken the one a
	// progress token names: the side's own calls first, then those in
	// flight in its scope (a resumed stream, a stdio session).
	callByID(key string) *call
	callByToken(key string) *call
	// answered hands a response to the client request (not a call) it
	// answers; false when none waits for it.
	answered(at time.Time, key string, m *jsonrpc.Message) bool
	// origin is what the events of server messages say of where they came
	// from; about is the call they belong to (nil when unknown).
	origin() map[string]any
	about() *call
	warn(code model.WarningCode, msg string)
	// unreadable reports a message the server sent that cannot be read.
	unreadable(why string)
}

// dispatch reports the messages of one response body, SSE event or stdio
// line the server sent: results end their calls, progress moves them,
// answers go to the requests that wait for them, anything else the server
// says is an event of its own.
func (t *Tap) dispatch(side serverSide, at time.Time, data []byte, status int) {
	body := jsonrpc.Read(data)
	if err := body.Err; err != nil {
		if len(bytes.TrimSpace(data)) > 0 {
			side.unreadable("not JSON-RPC: " + err.Error())
		}
		return
	}
	for i := range body.Messages {
		switch m := &body.Messages[i]; {
		case m.Kind == jsonrpc.KindResponse:
			if c := side.callByID(m.Key); c != nil {
				c.onResult(at, m, status)
			} else if !side.answered(at, m.Key, m) {
				data := side.origin()
				data["matched"] = false
				t.emit(model.Event{Time: at.UTC(), Kind: model.KindEvent, EventType: "mcp.response", RequestID: string(m.ID), Data: marshalData(data)})
			}
		case m.Kind == jsonrpc.KindNotification && m.Method == jsonrpc.MethodProgress:
			if m.ProgressErr != nil {
				side.warn(model.WarnMalformedProgress, m.ProgressErr.Error())
			} else if c := side.callByToken(m.Progress.Key); c != nil {
				c.onProgress(at, m.Progress)
			} else {
				side.warn(model.WarnProgressUnmatched, "notifications/progress for token "+model.Truncate(string(m.Progress.Token), 200)+" matches no call in flight")
			}
		case m.Kind == jsonrpc.KindInvalid:
			side.unreadable("invalid JSON-RPC message: " + m.Problem)
		default: // a request or notification of the server's own
			ev := model.Event{Time: at.UTC(), Kind: model.KindEvent, EventType: "mcp." + m.Method, RequestID: string(m.ID), Data: marshalData(side.origin())}
			if c := side.about(); c != nil {
				ev.TaskID, ev.ToolCallID, ev.Tool = c.taskID, c.toolCallID, c.tool
			}
			t.emit(ev)
		}
	}
}

// An HTTP exchange's response: its request's calls, then those of its
// session and connection.

func (ex *exchange) callByID(key string) *call {
	if c := ex.req.callByID(key); c != nil {
		return c
	}
	c, _ := ex.t.calls.byIDIn(key, ex.scope) // a result on a resumed (GET) stream
	return c
}

func (ex *exchange) callByToken(key string) *call {
	if c := ex.req.callByToken(key); c != nil {
		return c
	}
	return ex.t.calls.byTokenIn(key, ex.scope)
}

func (ex *exchange) answered(_ time.Time, key string, m *jsonrpc.Message) bool {
	p := ex.req.plainByID(key)
	if p != nil {
		p.reply = m
	}
	return p != nil
}

func (ex *exchange) origin() map[string]any {
	return map[string]any{"exchange": ex.id, "from": "server"}
}

func (ex *exchange) about() *call {
	if len(ex.req.calls) == 1 {
		return ex.req.calls[0]
	}
	return nil
}

// unreadable warns of a message the server sent that cannot be read, and
// keeps the first such reason for the calls the stream leaves unanswered.
func (ex *exchange) unreadable(why string) {
	ex.warn(model.WarnMalformedResponse, why)
	if ex.malformed == "" {
		ex.malformed = why
	}
}

// A stdio server's stdout: the session's calls in flight, and the client
// requests awaiting their answers.

func (s *stdioSession) callByID(key string) *call {
	c, _ := s.t.calls.byIDIn(key, stdioScope)
	return c
}

func (s *stdioSession) callByToken(key string) *call { return s.t.calls.byTokenIn(key, stdioScope) }

func (s *stdioSession) answered(at time.Time, key string, m *jsonrpc.Message) bool {
	sp := s.take(key)
	if sp != nil {
		sp.p.reply = m
		s.report(sp, at)
	}
	return sp != nil
}

func (s *stdioSession) origin() map[string]any { return map[string]any{"from": "server"} }

func (s *stdioSession) about() *call { return nil }

func (s *stdioSession) unreadable(why string) {
	s.warn(model.WarnMalformedResponse, "a message from the server: "+why)
}

package mock

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"toolscope/decoder/jsonrpc"
)

// Server answers live requests from a Script. It is safe for concurrent
// use; answers to the same request shape are taken in recorded order.
type Server struct {
	script *Script
	speed  float64
	mu     sync.Mutex
}

// NewServer serves script; speed scales the recorded timing (2: twice as
// fast, 0: at once).
func NewServer(s *Script, speed float64) *Server { return &Server{script: s, speed: speed} }

// reply is what to send for one live request: messages, each at its time
// from the request, then the response.
type reply struct {
	steps   []step
	final   json.RawMessage
	finalAt time.Duration
	stream  bool // recorded as an event stream
	session bool // recorded with a session id (initialize)
}

// replyTo plans the answer to one live request.
func (sv *Server) replyTo(m jsonrpc.Message) reply {
	var a *answer
	sv.mu.Lock()
	if m.Method == jsonrpc.MethodToolsCall {
		e, _, err := sv.script.findCall(m.Params)
		if err != nil {
			sv.mu.Unlock()
			resp := jsonrpc.ErrorResponse(m.ID, jsonrpc.CodeInvalidParams, err.Error())
			if u, ok := err.(*unrecordedCall); ok {
				resp = withErrorData(resp, u.data)
			}
			return reply{final: resp}
		}
		a = e.take()
	} else if e := sv.script.findMethod(m.Method, m.Params); e != nil {
		a = e.take()
	}
	sv.mu.Unlock()
	if a == nil {
		return reply{final: jsonrpc.ErrorResponse(m.ID, jsonrpc.CodeMethodNotFound,
			"toolscope mock: the recording holds no answer to "+m.Method+" (it holds: "+list(sv.script.recordedMethods())+", tools/call)")}
	}
	r := reply{final: withID(a.final, m.ID), finalAt: sv.scale(a.finalAt), stream: a.stream, session: a.session}
	live := progressTokenRaw(m.Params)
	for _, s := range a.steps {
		msg := s.msg
		if isProgress(msg) {
			if live == nil {
				continue // the live client asked for no progress
			}
			msg = withProgressToken(msg, live)
		}
		r.steps = append(r.steps, step{after: sv.scale(s.after), msg: msg})
	}
	return r
}

func (sv *Server) scale(d time.Duration) time.Duration {
	if sv.speed <= 0 {
		return 0
	}
	return time.Duration(float64(d) / sv.speed)
}

// play sends r's messages at their times from start, then the response;
// it stops early (false) when ctx ends or send fails.
func (r reply) play(ctx context.Context, start time.Time, send func(json.RawMessage) error) bool {
	for _, s := range r.steps {
		if !waitUntil(ctx, start.Add(s.after)) || send(s.msg) != nil {
			return false
		}
	}
	return waitUntil(ctx, start.Add(r.finalAt)) && send(r.final) == nil
}

func waitUntil(ctx context.Context, at time.Time) bool {
	d := time.Until(at)
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// withErrorData is an error response with data added to its error.
func withErrorData(resp []byte, data any) json.RawMessage {
	var m struct {
		JSONRPC string           `json:"jsonrpc"`
		ID      json.RawMessage  `json:"id"`
		Error   jsonrpc.RPCError `json:"error"`
	}
	if json.Unmarshal(resp, &m) != nil {
		return resp
	}
	m.Error.Data, _ = json.Marshal(data)
	b, err := json.Marshal(m)
	if err != nil {
		return resp
	}
	return b
}

// withID is a recorded response with the live request's id.
func withID(resp json.RawMessage, id json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(resp, &m) != nil {
		return resp
	}
	m["id"] = id
	b, err := json.Marshal(m)
	if err != nil {
		return resp
	}
	return b
}

func isProgress(msg json.RawMessage) bool {
	var m struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(msg, &m) == nil && m.Method == jsonrpc.MethodProgress
}

// progressTokenRaw is the live request's _meta.progressToken, as sent.
func progressTokenRaw(params json.RawMessage) json.RawMessage {
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Meta.Token) == 0 || string(p.Meta.Token) == "null" {
		return nil
	}
	return p.Meta.Token
}

// withProgressToken is a recorded progress notification for the live
// request's token.
func withProgressToken(msg, token json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return msg
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(m["params"], &params) != nil {
		return msg
	}
	params["progressToken"] = token
	m["params"], _ = json.Marshal(params)
	b, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return b
}

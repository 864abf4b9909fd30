package tap

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"toolscope/decoder"
	"toolscope/model"
)

// Over stdio there are no headers: a client that sends a context token
// puts it in the call's _meta under the header's name (AgentArea sends none
// to managed, command, instances). It is verified as the header would be.
const stdioContextMetaKey = decoder.ContextHeader

// maxPendingPlain bounds the client requests (other than tools/call)
// awaiting their answer; past it the oldest is reported unanswered.
const maxPendingPlain = 1024

// stdioPlain is a client request awaiting its answer.
type stdioPlain struct {
	p        *plainMsg
	exchange string
	start    time.Time
}

// parse reads both directions' copies in the order they passed.
func (s *stdioSession) parse() {
	for {
		c, ok := s.side.next()
		if !ok {
			return
		}
		sp := &s.split[c.dir]
		if c.gap {
			sp.gap()
			s.sayLagging(c.dir, false)
		}
		sp.feed(c.data, func(e lineEnd) { s.onLine(c.dir, c.at, e) })
	}
}

func dirName(d direction) string {
	if d == fromClient {
		return "client"
	}
	return "server"
}

func (s *stdioSession) onLine(dir direction, at time.Time, e lineEnd) {
	if s.side.busy() {
		// Bytes are flowing: the copies come first. On a busy machine the
		// parser's CPU is taken from them, so it steps aside between
		// messages; behind, the bounded queue drops its oldest bytes
		// (parse_lagging) rather than slow the pipe.
		time.Sleep(sideYield)
	}
	s.t.captureLine(dir, at, e)
	switch {
	case e.line == nil:
		s.oversized(dir, at, e)
	case len(bytes.TrimSpace(e.line)) == 0:
	case dir == fromClient:
		s.fromClient(at, e.line)
	default:
		s.fromServer(at, e.line)
	}
}

// fromClient reports one message line the client sent.
func (s *stdioSession) fromClient(at time.Time, line []byte) {
	id := strconv.FormatUint(s.t.seq.Add(1), 10)
	msgs, batch, err := decoder.ParseMessages(line)
	if err != nil {
		msgs, batch, err = parseLeniently(line, err)
	}
	if err != nil {
		s.warn(model.WarnMalformedRequest, "message "+id+" from the client is not JSON-RPC ("+err.Error()+"): forwarded unchanged")
		return
	}
	ex := &exchange{t: s.t, id: id, start: at, method: http.MethodPost, header: http.Header{}, scope: stdioScope}
	var calls []*call
	for _, m := range msgs {
		switch {
		case m.Kind == decoder.KindRequest && m.Method == decoder.MethodToolsCall:
			ex.header = stdioHeader(m.Params)
			calls = append(calls, s.t.newCall(ex, m, batch, len(calls), nil))
		case m.Kind == decoder.KindInvalid:
			s.warn(model.WarnMalformedRequest, "message "+id+": invalid JSON-RPC message: "+m.Problem)
		case m.Kind == decoder.KindNotification && m.Method == "notifications/cancelled":
			s.cancel(id, at, m)
		case m.Kind == decoder.KindRequest:
			s.await(&stdioPlain{p: newPlainMsg(m), exchange: id, start: at})
		default:
			s.report(&stdioPlain{p: newPlainMsg(m), exchange: id, start: at}, at)
		}
	}
	if batch && len(calls) > 0 {
		if _, _, reason, reject := decoder.BatchRejection(msgs); reject {
			for _, c := range calls {
				c.pending = append(c.pending, decoder.Warning{Code: model.WarnToolsCallInBatch, Message: reason})
			}
		}
	}
	if len(calls) == 0 {
		for _, w := range contextOnOtherMethods(ex, msgs) {
			s.warn(w.Code, "message "+id+": "+w.Message)
		}
	}
	for _, c := range calls {
		s.t.calls.add(c)
		s.t.emit(c.callEv)
		c.warnAll(c.start, c.pending)
		c.pending = nil
		c.startTimer()
	}
}

// stdioHeader carries a token found in _meta where the verifier reads it.
func stdioHeader(params json.RawMessage) http.Header {
	h := http.Header{}
	if !bytes.Contains(params, []byte(stdioContextMetaKey)) {
		return h
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	var token string
	if json.Unmarshal(params, &p) == nil && json.Unmarshal(p.Meta[stdioContextMetaKey], &token) == nil && token != "" {
		h.Set(decoder.ContextHeader, token)
	}
	return h
}

// cancel applies a notifications/cancelled to the call it names.
func (s *stdioSession) cancel(exID string, at time.Time, m decoder.Message) {
	p := newPlainMsg(m)
	cm := parseCancel(p, m.Params)
	reason := cm.reason
	if reason == "" {
		reason = "notifications/cancelled"
	}
	if target, _ := s.t.calls.byIDIn(decoder.IDKey(cm.requestID), stdioScope); target != nil {
		target.onCancel(at, reason) // the call's tool.cancelled says it all
		return
	}
	p.note("matched", false)
	s.report(&stdioPlain{p: p, exchange: exID, start: at}, at)
}

// fromServer reports one message line the server sent.
func (s *stdioSession) fromServer(at time.Time, line []byte) {
	msgs, _, err := decoder.ParseMessages(line)
	if err != nil {
		s.warn(model.WarnMalformedResponse, "a message from the server is not JSON-RPC ("+err.Error()+"): forwarded unchanged")
		return
	}
	for _, m := range msgs {
		switch m.Kind {
		case decoder.KindResponse:
			s.response(at, m)
		case decoder.KindNotification:
			if m.Method == decoder.MethodProgress {
				s.progress(at, m)
				continue
			}
			s.serverMessage(at, m)
		case decoder.KindRequest:
			s.serverMessage(at, m)
		default:
			s.warn(model.WarnMalformedResponse, "invalid JSON-RPC message from the server: "+m.Problem)
		}
	}
}

func (s *stdioSession) response(at time.Time, m decoder.Message) {
	key := decoder.IDKey(m.ID)
	if c, _ := s.t.calls.byIDIn(key, stdioScope); c != nil {
		c.onResult(at, m, 0)
		return
	}
	if sp := s.take(key); sp != nil {
		msg := m
		sp.p.reply = &msg
		s.report(sp, at)
		return
	}
	s.t.emit(model.Event{Time: at.UTC(), Kind: model.KindEvent, EventType: "mcp.response", RequestID: string(m.ID),
		Data: marshalData(map[string]any{"from": "server", "matched": false})})
}

func (s *stdioSession) progress(at time.Time, m decoder.Message) {
	p, err := decoder.ParseProgress(m.Params)
	if err != nil {
		s.warn(model.WarnMalformedProgress, err.Error())
		return
	}
	c := s.t.calls.byTokenIn(decoder.IDKey(p.Token), stdioScope)
	if c == nil {
		s.warn(model.WarnProgressUnmatched, "notifications/progress for token "+clipText(string(p.Token), 200)+" matches no call in flight")
		return
	}
	c.onProgress(at, p)
}

// serverMessage reports a server-to-client request or notification.
func (s *stdioSession) serverMessage(at time.Time, m decoder.Message) {
	s.t.emit(model.Event{Time: at.UTC(), Kind: model.KindEvent, EventType: "mcp." + m.Method, RequestID: string(m.ID),
		Data: marshalData(map[string]any{"from": "server"})})
}

// await keeps a client request until its answer comes.
func (s *stdioSession) await(sp *stdioPlain) {
	key := decoder.IDKey(sp.p.id)
	if old := s.pending[key]; old != nil {
		s.report(old, sp.start) // the client reused an id: the first gets no answer now
	}
	if len(s.order) >= maxPendingPlain {
		if old := s.take(s.order[0]); old != nil {
			old.p.note("ended", "no answer among the last "+strconv.Itoa(maxPendingPlain)+" requests")
			s.report(old, sp.start)
		}
	}
	s.pending[key] = sp
	s.order = append(s.order, key)
}

// take removes and returns the request awaiting the answer key names.
func (s *stdioSession) take(key string) *stdioPlain {
	sp := s.pending[key]
	if sp == nil {
		return nil
	}
	delete(s.pending, key)
	for i, k := range s.order {
		if k == key {
			s.order = append(s.order[:i:i], s.order[i+1:]...)
			break
		}
	}
	return sp
}

// flushPending reports the requests the server never answered.
func (s *stdioSession) flushPending(at time.Time) {
	for len(s.order) > 0 {
		if sp := s.take(s.order[0]); sp != nil {
			sp.p.note("ended", "the server exited before answering")
			s.report(sp, at)
		}
	}
}

// report emits one event for a message other than tools/call, with the
// summary the HTTP tap gives it.
func (s *stdioSession) report(sp *stdioPlain, end time.Time) {
	p := sp.p
	p.note("exchange", sp.exchange)
	if len(p.id) > 0 {
		p.note("id", json.RawMessage(p.id))
		p.note("duration_ms", durationMS(end.Sub(sp.start)))
	}
	summarizeParams(p)
	if p.reply != nil {
		summarizeReply(p)
	}
	s.t.emit(model.Event{Time: end.UTC(), Kind: model.KindEvent, EventType: p.eventType, RequestID: string(p.id), Data: marshalData(p.data)})
}

func (s *stdioSession) warn(code model.WarningCode, msg string) {
	s.t.emit(model.Event{Kind: model.KindWarning, Code: string(code), Message: msg})
}

// oversized reports a message over --max-parse-bytes. What its first bytes
// say is used: a result too large to parse still ends its call.
func (s *stdioSession) oversized(dir direction, at time.Time, e lineEnd) {
	h := peekHead(e.head)
	what := ""
	switch {
	case h.method != "":
		what = " (" + clipText(h.method, 100) + ")"
	case h.response && h.id != nil:
		what = " (the answer to id " + clipText(string(h.id), 100) + ")"
	}
	s.warn(model.WarnParseSkipped, "a message of "+strconv.FormatInt(e.size, 10)+" bytes from the "+dirName(dir)+what+
		" is over --max-parse-bytes ("+strconv.FormatInt(s.t.cfg.MaxParseBytes, 10)+"): forwarded unchanged, not parsed")
	if dir != fromServer || !h.response || h.id == nil {
		return
	}
	key := decoder.IDKey(h.id)
	if c, _ := s.t.calls.byIDIn(key, stdioScope); c != nil {
		c.onFailure(at, 0, 0, "") // not parsed: the time is what is known
	} else if sp := s.take(key); sp != nil {
		sp.p.note("error", "answer over --max-parse-bytes: not parsed")
		s.report(sp, at)
	}
}

// headInfo is what the first bytes of a message say of it.
type headInfo struct {
	id       json.RawMessage
	method   string
	response bool
}

// peekHead reads the top-level keys of a JSON object cut short: id and
// method when they come before the cut, and whether it holds a result or
// an error.
func peekHead(head []byte) headInfo {
	var h headInfo
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return h
	}
	for {
		t, err := dec.Token()
		if err != nil {
			return h
		}
		key, ok := t.(string)
		if !ok {
			return h
		}
		switch key {
		case "result", "error":
			h.response = true
		}
		v, err := dec.Token()
		if err != nil {
			return h
		}
		switch v := v.(type) {
		case json.Delim:
			if skipValue(dec) != nil {
				return h
			}
		case string:
			if key == "method" {
				h.method = v
			}
			if key == "id" {
				h.id, _ = json.Marshal(v)
			}
		case json.Number:
			if key == "id" {
				h.id = json.RawMessage(v)
			}
		}
	}
}

// skipValue reads tokens to the end of the object or array just opened.
func skipValue(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

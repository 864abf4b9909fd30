package tap

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// Over stdio there are no headers: a client that sends a context token
// puts it in the call's _meta under the header's name (AgentArea sends none
// to managed, command, instances): jsonrpc.MetaContextToken. It is verified
// as the header would be.

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
		s.t.dispatch(s, at, e.line, 0)
	}
}

// fromClient reports one message line the client sent: read and judged
// as the HTTP tap reads a request body (sortRequest), with no headers.
func (s *stdioSession) fromClient(at time.Time, line []byte) {
	id := strconv.FormatUint(s.t.seq.Add(1), 10)
	ex := &exchange{t: s.t, id: id, start: at, method: http.MethodPost, scope: stdioScope}
	pr := s.t.sortRequest(ex, s.t.judge.Request(decoder.Request{Body: line, Whole: true, Exchange: id, Now: at}), false)
	for _, w := range pr.warnings {
		s.warn(w.Code, "message "+id+": "+w.Message)
	}
	for _, c := range pr.calls {
		s.t.joinRound(c, 0) // one ordered queue: the round before is read already
		s.t.calls.add(c)
		s.t.emit(c.callEv)
		c.warnAll(c.start, c.pending)
		c.pending = nil
		c.startTimer()
	}
	for _, cm := range pr.cancels {
		s.cancel(id, at, cm)
	}
	for _, p := range pr.plain {
		s.t.declared.initialized(stdioScope.session, p.capabilities)
		switch {
		case p.eventType == "mcp.unparsed" || p.method == jsonrpc.MethodCancelled && p.kind == jsonrpc.KindNotification:
		case p.kind == jsonrpc.KindRequest:
			s.await(&stdioPlain{p: p, exchange: id, start: at})
		default:
			s.report(&stdioPlain{p: p, exchange: id, start: at}, at)
		}
	}
}

// cancel applies a notifications/cancelled to the call it names.
func (s *stdioSession) cancel(exID string, at time.Time, cm cancelMsg) {
	p := cm.plain
	reason := cm.reason
	if reason == "" {
		reason = "notifications/cancelled"
	}
	if target, _ := s.t.calls.byIDIn(cm.key, stdioScope); target != nil {
		target.onCancel(at, reason) // the call's tool.cancelled says it all
		return
	}
	p.note("matched", false)
	s.report(&stdioPlain{p: p, exchange: exID, start: at}, at)
}

// await keeps a client request until its answer comes.
func (s *stdioSession) await(sp *stdioPlain) {
	key := sp.p.key
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
	h := jsonrpc.ReadHead(e.head)
	what := ""
	switch {
	case h.Method != "":
		what = " (" + model.Truncate(h.Method, 100) + ")"
	case h.Response && h.ID != nil:
		what = " (the answer to id " + model.Truncate(string(h.ID), 100) + ")"
	}
	s.warn(model.WarnParseSkipped, "a message of "+strconv.FormatInt(e.size, 10)+" bytes from the "+dirName(dir)+what+
		" is over --max-parse-bytes ("+strconv.FormatInt(s.t.cfg.MaxParseBytes, 10)+"): forwarded unchanged, not parsed")
	if dir != fromServer || !h.Response || h.ID == nil {
		return
	}
	key := jsonrpc.IDKey(h.ID)
	if c, _ := s.t.calls.byIDIn(key, stdioScope); c != nil {
		c.onFailure(at, 0, 0, "") // not parsed: the time is what is known
	} else if sp := s.take(key); sp != nil {
		sp.p.note("error", "answer over --max-parse-bytes: not parsed")
		s.report(sp, at)
	}
}

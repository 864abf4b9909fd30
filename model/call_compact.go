package model

import (
	"encoding/json"
	"sync"
)

// The store keeps thousands of finished calls (10,000 by default), so a
// call keeps the objects its events bring, the agentarea/* keys of _meta,
// the token's claims and the request headers, as their JSON text: a third
// of a map's size, one allocation, no boxed values. They are read back
// into maps when the detail, a copy or the MCP server asks (Call.Meta,
// Call.Headers, Context.ClaimMap, Call.Timeline). Text read back gives the map encoding/json would: the
// maps came from JSON, and their values are JSON's (float64, string,
// bool, nil, []any, map[string]any).

// objectText is a JSON object kept as its text; "" is no object.
type objectText string

// texts writes the maps a call event brings as JSON text, as the JSON
// lines write them (a value JSON cannot hold, a NaN, is null there and
// here), into one allocation of their size: a tap's tool.call brings three.
// A nil map is "".
func texts(meta map[string]any, headers map[string]string, claims map[string]any) (m, h, c objectText) {
	buf := textBufs.Get().(*[]byte)
	b := (*buf)[:0]
	if meta != nil {
		b = AppendJSONMap(b, meta, AppendJSONValue)
	}
	endMeta := len(b)
	if headers != nil {
		b = AppendJSONMap(b, headers, AppendJSONString)
	}
	endHeaders := len(b)
	if claims != nil {
		b = AppendJSONMap(b, claims, AppendJSONValue)
	}
	all := objectText(b)
	if *buf = b; cap(b) <= 64<<10 {
		textBufs.Put(buf)
	}
	return all[:endMeta], all[endMeta:endHeaders], all[endHeaders:]
}

var textBufs = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// object reads the text back (nil for none).
func (t objectText) object() map[string]any {
	if t == "" {
		return nil
	}
	m := map[string]any{}
	if json.Unmarshal([]byte(t), &m) != nil {
		return nil // not reached: the text is AppendJSONMap's
	}
	return m
}

// strings reads a stringsText back (nil for none).
func (t objectText) strings() map[string]string {
	if t == "" {
		return nil
	}
	m := map[string]string{}
	if json.Unmarshal([]byte(t), &m) != nil {
		return nil // not reached: the text is AppendJSONMap's
	}
	return m
}

// Meta is the agentarea/* keys of the call's latest params._meta, nil
// when it had none. The map is the caller's.
func (c *Call) Meta() map[string]any { return c.meta.object() }

// HasMeta says whether the call's request carried agentarea/* keys.
func (c *Call) HasMeta() bool { return c.meta != "" }

// Headers is the request headers of the call's latest tool.call seen
// over HTTP (redacted), nil when none. The map is the caller's.
func (c *Call) Headers() map[string]string { return c.headers.strings() }

// ClaimMap is the token's claims: Claims, or in a context the store
// keeps, the claims read back from their text. Nil when there are none.
func (c *Context) ClaimMap() map[string]any {
	if c == nil {
		return nil
	}
	if c.Claims != nil || c.claims == "" {
		return c.Claims
	}
	return c.claims.object()
}

// Expanded is the context with its claims as a map, for encoding: c itself
// when they are already.
func (c *Context) Expanded() *Context {
	if c == nil || c.claims == "" {
		return c
	}
	e := *c
	e.Claims, e.claims = c.claims.object(), ""
	return &e
}

// kept is the context as a retained call keeps it: a copy of its own (a
// source's context may sit inside a larger value, a tap's judgment of the
// whole request), its claims as text (claims, written by texts), the
// common JOSE header shared.
func (c *Context) kept(claims objectText) *Context {
	if c == nil {
		return nil
	}
	k := *c
	if c.Claims != nil {
		k.Claims, k.claims = nil, claims
	}
	if isCommonHeader(c.Header) {
		k.Header = commonHeader
	}
	return &k
}

// commonHeader is the JOSE header of nearly every token, shared by the
// contexts stored calls keep (a Header is read only).
var commonHeader = map[string]any{"alg": "HS256", "typ": "JWT"}

func isCommonHeader(h map[string]any) bool {
	return len(h) == 2 && h["alg"] == "HS256" && h["typ"] == "JWT"
}

// timelineEvent is an event as a call's timeline keeps it: its _meta and
// headers as text, its context kept (Meta, Headers and Claims nil), read
// back by Timeline.
type timelineEvent struct {
	Event
	meta, headers objectText
}

// Timeline is every non-progress event of the call (bounded: the first
// and the latest), as applied, in a slice of the caller's.
func (c *Call) Timeline() []Event {
	out := make([]Event, len(c.timeline))
	for i := range c.timeline {
		out[i] = c.timeline[i].event()
	}
	return out
}

// TimelineLen is the number of events Timeline returns.
func (c *Call) TimelineLen() int { return len(c.timeline) }

func (t *timelineEvent) event() Event {
	e := t.Event
	e.Meta, e.Headers = t.meta.object(), t.headers.strings()
	e.Context = e.Context.Expanded()
	return e
}

// keptEvent is what the store keeps of a call event: its own copies of
// the raw values, which may hold a whole body, _meta as text and the
// context kept. The event's maps and context are not changed (the outputs
// still write them).
type keptEvent struct {
	ev            Event // Meta and Headers nil: meta and headers hold them
	meta, headers objectText
}

func keep(ev *Event) keptEvent {
	k := keptEvent{ev: *ev}
	e := &k.ev
	e.Arguments = ownRaw(e.Arguments)
	e.StructuredContent = ownRaw(e.StructuredContent)
	e.InputResponses = ownRaw(e.InputResponses)
	e.Data = ownRaw(e.Data)
	if len(e.InputRequests) > 0 { // a round's: as rare as a round
		asked := make([]InputRequest, len(e.InputRequests))
		for i, ir := range e.InputRequests {
			ir.RequestedSchema = ownRaw(ir.RequestedSchema)
			asked[i] = ir
		}
		e.InputRequests = asked
	}
	var meta, claims map[string]any
	var headers map[string]string
	if len(e.Meta) > 0 {
		meta = e.Meta
	}
	if len(e.Headers) > 0 {
		headers = e.Headers
	}
	if e.Context != nil {
		claims = e.Context.Claims
	}
	var claimsText objectText
	k.meta, k.headers, claimsText = texts(meta, headers, claims)
	e.Meta, e.Headers = nil, nil
	e.Context = e.Context.kept(claimsText)
	return k
}

// ownRaw copies a raw value, which may be a slice of a larger buffer (a
// request or answer body, its capacity cut to its length), so that
// keeping it keeps no more.
func ownRaw(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	return append(json.RawMessage(nil), raw...)
}

package mcpserver

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"toolscope/model"
)

// A call's document is bounded: what the tap kept of one call can be
// megabytes (arguments up to --max-parse-bytes, a timeline of 64 events
// each carrying its own copy), and an agent's context is small. Each value
// over its bound is cut, and the document's cut field says what was.
const (
	maxRawBytes      = 16 << 10 // the call's arguments, a result's structured content
	maxEventRawBytes = 1 << 10  // a raw value in a timeline event or warning
	maxObjectBytes   = 16 << 10 // _meta, a token's claims, as JSON
	maxTextBytes     = 4000     // one string (an error, a preview, a reason)
)

// boundedCall is the call's document (model.CallJSON, what `y` copies)
// with every value within its bound.
func boundedCall(snap *model.Snapshot, c *model.Call, now time.Time) model.CallJSON {
	doc := snap.CallJSON(c, now)
	b := &bounder{}
	doc.Arguments = b.raw("arguments", doc.Arguments, maxRawBytes)
	doc.Meta = b.object("meta", doc.Meta, maxObjectBytes)
	doc.Context = b.context("context", doc.Context)
	for i := range doc.MetaVsClaims {
		r := &doc.MetaVsClaims[i]
		at := fmt.Sprintf("meta_vs_claims[%d]", i)
		r.Meta, r.Signed = b.value(at+".meta", r.Meta), b.value(at+".signed", r.Signed)
	}
	doc.Progress.Message = b.text("progress.message", doc.Progress.Message)
	for i := range doc.Attempts {
		a := &doc.Attempts[i]
		where := fmt.Sprintf("attempts[%d]", i)
		a.Context = b.context(where+".context", a.Context)
		a.Cancelled = b.text(where+".cancelled", a.Cancelled)
		if a.Result != nil {
			r := *a.Result
			r.StructuredContent = b.raw(where+".result.structured_content", r.StructuredContent, maxRawBytes)
			r.TextPreview = b.text(where+".result.text_preview", r.TextPreview)
			r.Error = b.text(where+".result.error", r.Error)
			a.Result = &r
		}
		rounds := make([]model.RoundJSON, len(a.Rounds)) // a.Rounds may be the call's own
		for j, r := range a.Rounds {
			at := fmt.Sprintf("%s.rounds[%d]", where, j)
			r.Answers = b.raw(at+".input_responses", r.Answers, maxEventRawBytes)
			r.Asked = b.asked(at+".input_requests", r.Asked)
			rounds[j] = r
		}
		if a.Rounds != nil {
			a.Rounds = rounds
		}
	}
	doc.Warnings = b.events("warnings", doc.Warnings)
	doc.Timeline = b.events("timeline", doc.Timeline)
	doc.Cut = b.notes
	return doc
}

// bounder cuts values and notes each cut.
type bounder struct{ notes []string }

func (b *bounder) note(format string, a ...any) { b.notes = append(b.notes, fmt.Sprintf(format, a...)) }

// raw keeps a JSON value within max bytes; a longer one becomes a JSON
// string holding its first max bytes.
func (b *bounder) raw(where string, v json.RawMessage, max int) json.RawMessage {
	if len(v) <= max {
		return v
	}
	b.note("%s: %d bytes of JSON, the first %d kept as a string", where, len(v), max)
	s, _ := json.Marshal(string(v[:max]) + "…")
	return s
}

// object keeps a map within max bytes of JSON; a larger one becomes a map
// holding its first max bytes of JSON under "(cut)".
func (b *bounder) object(where string, m map[string]any, max int) map[string]any {
	if len(m) == 0 {
		return m
	}
	j, err := json.Marshal(m)
	if err != nil || len(j) <= max {
		return m
	}
	b.note("%s: %d bytes of JSON, the first %d kept as a string under \"(cut)\"", where, len(j), max)
	return map[string]any{"(cut)": string(j[:max]) + "…"}
}

// value keeps any JSON value within maxEventRawBytes; a larger one becomes
// a string of its first bytes.
func (b *bounder) value(where string, v any) any {
	j, err := json.Marshal(v)
	if err != nil || len(j) <= maxEventRawBytes {
		return v
	}
	b.note("%s: %d bytes of JSON, the first %d kept as a string", where, len(j), maxEventRawBytes)
	return string(j[:maxEventRawBytes]) + "…"
}

func (b *bounder) text(where, s string) string {
	if len(s) <= maxTextBytes {
		return s
	}
	b.note("%s: %d bytes, the first %d kept", where, len(s), maxTextBytes)
	return model.Truncate(s, maxTextBytes)
}

// context copies a context (the store's is shared) with its claims bounded.
func (b *bounder) context(where string, ctx *model.Context) *model.Context {
	if ctx == nil {
		return nil
	}
	c := *ctx
	c.Claims = b.object(where+".claims", c.Claims, maxObjectBytes)
	c.Reason = b.text(where+".reason", c.Reason)
	return &c
}

// events bounds the raw values and texts of events, in a copy (the
// document's events may be the store's).
func (b *bounder) events(where string, evs []model.Event) []model.Event {
	evs = append([]model.Event(nil), evs...)
	for i := range evs {
		e := &evs[i]
		at := fmt.Sprintf("%s[%d]", where, i)
		e.Arguments = b.raw(at+".arguments", e.Arguments, maxEventRawBytes)
		e.StructuredContent = b.raw(at+".structured_content", e.StructuredContent, maxEventRawBytes)
		e.Data = b.raw(at+".data", e.Data, maxEventRawBytes)
		e.Meta = b.object(at+".meta", e.Meta, maxEventRawBytes)
		e.Context = b.context(at+".context", e.Context)
		e.Message = b.text(at+".message", e.Message)
		e.Error = b.text(at+".error", e.Error)
		e.TextPreview = b.text(at+".text_preview", e.TextPreview)
		e.Detail = b.text(at+".detail", e.Detail)
		e.InputResponses = b.raw(at+".input_responses", e.InputResponses, maxEventRawBytes)
		e.InputRequests = b.asked(at+".input_requests", e.InputRequests)
	}
	return evs
}

// asked bounds what a server asked of the client (a copy: the call's own
// is never changed).
func (b *bounder) asked(where string, in []model.InputRequest) []model.InputRequest {
	if in == nil {
		return nil
	}
	out := make([]model.InputRequest, len(in))
	for i, ir := range in {
		ir.Message = b.text(fmt.Sprintf("%s[%d].message", where, i), ir.Message)
		ir.RequestedSchema = b.raw(fmt.Sprintf("%s[%d].requested_schema", where, i), ir.RequestedSchema, maxEventRawBytes)
		out[i] = ir
	}
	return out
}

func sortNewestFirst(rows []WarningRow) {
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Time.After(rows[j].Time) })
}

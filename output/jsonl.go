package output

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"toolscope/model"
)

// The JSON-lines format (--output json, --record, replay): one event an
// object a line, field names as model.Event's tags give them, in that
// order, a field left out when empty; a tool.progress always carries
// progress, total (null when unknown) and relayed. Strings are quoted and
// raw values compacted by jsontext; the line is then made safe to view on
// a terminal (model.TerminalSafeJSON: DEL, C1 and bidirectional controls,
// U+2028 and U+2029 as \u escapes). Events reach the outputs redacted (the
// hub): the format itself hides nothing.

// EncodeLine is an event's JSON line, with its newline. A raw value that
// is not JSON (arguments, structured content, data) is written as a
// string of its text rather than losing the line.
func EncodeLine(e *model.Event) []byte {
	buf := lineBuffers.Get().(*[]byte)
	line := appendEvent((*buf)[:0], e)
	line = append(model.TerminalSafeJSON(line), '\n')
	out := slices.Clone(line)
	if cap(line) <= 256<<10 { // one huge line does not stay pinned
		*buf = line[:0]
		lineBuffers.Put(buf)
	}
	return out
}

var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// DecodeLine reads one JSON line back into an event. A line without
// `kind` is an error: it is not a toolscope event.
func DecodeLine(line []byte) (model.Event, error) {
	var e model.Event
	if err := json.Unmarshal(line, &e); err != nil {
		return model.Event{}, err
	}
	if e.Kind == "" {
		return model.Event{}, errors.New("no kind field")
	}
	return e, nil
}

// fields writes an object's members: each name (with its comma and colon)
// before its value, a member left out when empty.
type fields struct{ b []byte }

// name starts a member; n is `,"name":` (the first member's comma is
// dropped by object).
func (f *fields) name(n string) { f.b = append(f.b, n...) }

func (f *fields) str(n, s string) {
	if s != "" {
		f.name(n)
		f.quote(s)
	}
}

func (f *fields) int(n string, v int64) {
	if v != 0 {
		f.name(n)
		f.b = strconv.AppendInt(f.b, v, 10)
	}
}

func (f *fields) flag(n string, set bool) {
	if set {
		f.name(n)
		f.b = append(f.b, "true"...)
	}
}

func (f *fields) bool(v bool) { f.b = strconv.AppendBool(f.b, v) }

// quote writes s as a JSON string; invalid UTF-8 becomes U+FFFD.
func (f *fields) quote(s string) { f.b, _ = jsontext.AppendQuote(f.b, s) }

// float writes a number as JSON writes it; a value JSON has no number for
// (NaN, infinities) is null.
func (f *fields) float(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		f.b = append(f.b, "null"...)
		return
	}
	// A whole number below 2^53 (timestamps, counts: most numbers of an
	// event) is its digits, written without the float formatting.
	if n := int64(v); float64(n) == v && n > -1<<53 && n < 1<<53 && (n != 0 || !math.Signbit(v)) {
		f.b = strconv.AppendInt(f.b, n, 10)
		return
	}
	f.b = jsontext.AppendFloat(f.b, v, 64)
}

// raw writes a raw JSON member, compacted; a value that is not JSON is
// written as a string of its text.
func (f *fields) raw(n string, v []byte) {
	if len(v) > 0 {
		f.name(n)
		f.rawValue(v)
	}
}

func (f *fields) rawValue(v []byte) {
	start := len(f.b)
	var err error
	if f.b, err = jsontext.AppendFormat(f.b, v); err != nil {
		f.b = f.b[:start]
		f.quote(string(v))
	}
}

// object writes {members} and drops the comma before the first member.
func (f *fields) object(members func()) {
	f.b = append(f.b, '{')
	start := len(f.b)
	members()
	if len(f.b) > start && f.b[start] == ',' {
		f.b = append(f.b[:start], f.b[start+1:]...)
	}
	f.b = append(f.b, '}')
}

func appendEvent(dst []byte, e *model.Event) []byte {
	f := fields{b: dst}
	f.object(func() {
		f.name(`"time":`)
		f.b = append(f.b, '"')
		f.b = e.Time.UTC().AppendFormat(f.b, time.RFC3339Nano)
		f.b = append(f.b, '"')
		f.name(`,"source":`)
		f.quote(e.Source)
		f.name(`,"source_name":`)
		f.quote(e.SourceName)
		f.name(`,"kind":`)
		f.quote(string(e.Kind))
		f.str(`,"task_id":`, e.TaskID)
		f.str(`,"tool_call_id":`, e.ToolCallID)
		f.str(`,"tool":`, e.Tool)
		f.str(`,"event_id":`, e.EventID)
		f.str(`,"exchange":`, e.Exchange)
		f.str(`,"request_id":`, e.RequestID)
		f.str(`,"idempotency_key":`, e.IdempotencyKey)
		f.callFields(e)
		f.resultFields(e)
		f.str(`,"reason":`, e.Reason)
		f.str(`,"event_type":`, e.EventType)
		f.str(`,"message":`, e.Message)
		f.str(`,"state":`, e.State)
		f.str(`,"detail":`, e.Detail)
		f.str(`,"code":`, e.Code)
		f.raw(`,"data":`, e.Data)
		if e.Kind == model.KindToolProgress {
			f.name(`,"progress":`)
			f.float(e.Progress)
			f.name(`,"total":`)
			if e.Total == nil {
				f.b = append(f.b, "null"...)
			} else {
				f.float(*e.Total)
			}
			f.name(`,"relayed":`)
			f.bool(e.Relayed)
		}
	})
	return f.b
}

// callFields are the tool.call fields, arguments to after_cancel.
func (f *fields) callFields(e *model.Event) {
	f.raw(`,"arguments":`, e.Arguments)
	f.int(`,"attempt":`, int64(e.Attempt))
	if len(e.Meta) > 0 {
		f.name(`,"meta":`)
		f.anyMap(e.Meta)
	}
	if e.Context != nil {
		f.name(`,"context":`)
		f.context(e.Context)
	}
	if len(e.SoatContext) > 0 {
		f.name(`,"soat_context":`)
		f.stringMap(e.SoatContext)
	}
	f.str(`,"agent_name":`, e.AgentName)
	f.int(`,"timeout_ms":`, e.TimeoutMS)
	if len(e.Headers) > 0 {
		f.name(`,"headers":`)
		f.stringMap(e.Headers)
	}
	f.str(`,"traceparent":`, e.TraceParent)
	f.str(`,"tracestate":`, e.TraceState)
	f.flag(`,"after_cancel":`, e.AfterCancel)
}

// resultFields are the tool.result fields, is_error to timed_out.
func (f *fields) resultFields(e *model.Event) {
	f.flag(`,"is_error":`, e.IsError)
	f.str(`,"error":`, e.Error)
	f.flag(`,"replayed":`, e.Replayed)
	f.int(`,"duration_ms":`, e.DurationMS)
	f.int(`,"http_status":`, int64(e.HTTPStatus))
	f.int(`,"rpc_code":`, int64(e.RPCCode))
	f.int(`,"text_chars":`, int64(e.TextChars))
	f.str(`,"text_preview":`, e.TextPreview)
	f.flag(`,"offloaded":`, e.Offloaded)
	if len(e.Images) > 0 {
		f.name(`,"images":[`)
		for i := range e.Images {
			im := &e.Images[i]
			if i > 0 {
				f.b = append(f.b, ',')
			}
			f.object(func() {
				f.str(`,"id":`, im.ID)
				f.name(`,"mime_type":`)
				f.quote(im.MimeType)
				f.name(`,"size":`)
				f.b = strconv.AppendInt(f.b, int64(im.Size), 10)
				f.str(`,"problem":`, im.Problem)
			})
		}
		f.b = append(f.b, ']')
	}
	f.raw(`,"structured_content":`, e.StructuredContent)
	f.int(`,"structured_content_bytes":`, int64(e.StructuredContentBytes))
	f.flag(`,"structured_content_dropped":`, e.StructuredContentDropped)
	f.flag(`,"late":`, e.Late)
	f.str(`,"result_type":`, e.ResultType)
	f.str(`,"denied":`, e.Denied)
	f.flag(`,"timed_out":`, e.TimedOut)
}

func (f *fields) context(c *model.Context) {
	f.object(func() {
		f.name(`"present":`)
		f.bool(c.Present)
		f.name(`,"verdict":`)
		f.quote(c.Verdict)
		f.int(`,"http_status":`, int64(c.HTTPStatus))
		f.int(`,"rpc_code":`, int64(c.RPCCode))
		f.str(`,"reason":`, c.Reason)
		if len(c.Header) > 0 {
			f.name(`,"header":`)
			f.anyMap(c.Header)
		}
		if len(c.Claims) > 0 {
			f.name(`,"claims":`)
			f.anyMap(c.Claims)
		}
		if len(c.Steps) > 0 {
			f.name(`,"steps":[`)
			for i, s := range c.Steps {
				if i > 0 {
					f.b = append(f.b, ',')
				}
				f.object(func() {
					f.name(`"name":`)
					f.quote(s.Name)
					f.name(`,"passed":`)
					f.bool(s.Passed)
					f.str(`,"detail":`, s.Detail)
				})
			}
			f.b = append(f.b, ']')
		}
		if len(c.Warnings) > 0 {
			f.name(`,"warnings":[`)
			for i, w := range c.Warnings {
				if i > 0 {
					f.b = append(f.b, ',')
				}
				f.quote(w)
			}
			f.b = append(f.b, ']')
		}
		f.flag(`,"credential_present":`, c.CredentialPresent)
	})
}

// writeMap writes a map as an object, its keys sorted as encoding/json
// does, each value by value.
func writeMap[V any](f *fields, m map[string]V, value func(V)) {
	var stack [16]string // the small maps of every event sort here
	f.b = append(f.b, '{')
	for i, k := range sortedKeys(stack[:0], m) {
		if i > 0 {
			f.b = append(f.b, ',')
		}
		f.quote(k)
		f.b = append(f.b, ':')
		value(m[k])
	}
	f.b = append(f.b, '}')
}

func (f *fields) stringMap(m map[string]string) { writeMap(f, m, f.quote) }

func (f *fields) anyMap(m map[string]any) { writeMap(f, m, f.any) }

// any writes what JSON decoding makes (and numbers of any Go type); other
// values go through encoding/json.
func (f *fields) any(v any) {
	switch t := v.(type) {
	case nil:
		f.b = append(f.b, "null"...)
	case string:
		f.quote(t)
	case bool:
		f.bool(t)
	case float64:
		f.float(t)
	case int:
		f.b = strconv.AppendInt(f.b, int64(t), 10)
	case int64:
		f.b = strconv.AppendInt(f.b, t, 10)
	case map[string]any:
		f.anyMap(t)
	case []any:
		f.b = append(f.b, '[')
		for i, e := range t {
			if i > 0 {
				f.b = append(f.b, ',')
			}
			f.any(e)
		}
		f.b = append(f.b, ']')
	case json.Number:
		f.rawValue([]byte(t))
	case json.RawMessage:
		if len(t) == 0 {
			f.b = append(f.b, "null"...)
			return
		}
		f.rawValue(t)
	default:
		b, err := json.Marshal(v)
		if err != nil || len(b) == 0 {
			f.b = append(f.b, "null"...)
			return
		}
		f.rawValue(b)
	}
}

// sortedKeys appends m's keys to keys, sorted.
func sortedKeys[V any](keys []string, m map[string]V) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

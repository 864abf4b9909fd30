package output

import (
	"encoding/json"

	"toolscope/model"
)

// lineAllowance is what a line spends beyond the bytes its event carries:
// field names, quotes, the time and the small fields.
const lineAllowance = 256

// eventBytes is about the size of e's JSON line: the bytes it carries
// (bodies, arguments, results, headers, texts, the values in its maps)
// plus an allowance for names and punctuation. It is known without
// encoding the line (encoding is the writer's job, off the emitter's
// goroutine), and it is what a queued event holds in memory until it is
// written; escaping can make the line somewhat longer.
func eventBytes(e *model.Event) int64 {
	n := lineAllowance + len(e.Source) + len(e.SourceName) + len(e.TaskID) + len(e.ToolCallID) + len(e.Tool) +
		len(e.EventID) + len(e.Exchange) + len(e.RequestID) + len(e.IdempotencyKey) + len(e.Arguments) +
		len(e.AgentName) + len(e.TraceParent) + len(e.TraceState) + len(e.Error) + len(e.TextPreview) +
		len(e.StructuredContent) + len(e.ResultType) + len(e.Denied) + len(e.Reason) + len(e.EventType) +
		len(e.Message) + len(e.State) + len(e.Detail) + len(e.Code) + len(e.Data) + len(e.Call) + len(e.InputResponses)
	for _, ir := range e.InputRequests {
		n += 64 + len(ir.ID) + len(ir.Method) + len(ir.Message) + len(ir.RequestedSchema) + len(ir.URL)
	}
	n += anyBytes(e.Meta) + stringsBytes(e.SoatContext) + stringsBytes(e.Headers)
	for _, im := range e.Images {
		n += 48 + len(im.ID) + len(im.MimeType) + len(im.Problem)
	}
	if c := e.Context; c != nil {
		n += 64 + len(c.Verdict) + len(c.Reason) + anyBytes(c.Header) + anyBytes(c.Claims)
		for _, s := range c.Steps {
			n += 32 + len(s.Name) + len(s.Detail)
		}
		for _, w := range c.Warnings {
			n += 4 + len(w)
		}
	}
	if w := e.Wire; w != nil {
		n += wireBytes(w)
	}
	return int64(n)
}

func wireBytes(w *model.Wire) int {
	n := 32 + len(w.Transport) + len(w.From) + bodyBytes(w.Message)
	if r := w.Request; r != nil {
		n += 64 + len(r.Method) + len(r.Host) + len(r.URL) + len(r.HTTPVersion) + pairsBytes(r.Headers) + bodyBytes(r.Body)
	}
	if r := w.Response; r != nil {
		n += 96 + len(r.HTTPVersion) + pairsBytes(r.Headers) + bodyBytes(r.Body) + len(r.Error)
		for _, ev := range r.Events {
			n += 32 + len(ev.ID) + len(ev.Event) + len(ev.Data)
		}
	}
	return n
}

func bodyBytes(b *model.WireBody) int {
	if b == nil {
		return 0
	}
	return 32 + len(b.Text) + len(b.Why)
}

func pairsBytes(pairs [][2]string) int {
	n := 0
	for _, p := range pairs {
		n += 8 + len(p[0]) + len(p[1])
	}
	return n
}

func stringsBytes(m map[string]string) int {
	n := 0
	for k, v := range m {
		n += 6 + len(k) + len(v)
	}
	return n
}

// anyBytes is about the JSON size of a decoded JSON value.
func anyBytes(v any) int {
	switch v := v.(type) {
	case nil:
		return 4
	case string:
		return 2 + len(v)
	case json.Number:
		return len(v)
	case json.RawMessage:
		return len(v)
	case map[string]any:
		n := 2
		for k, x := range v {
			n += 4 + len(k) + anyBytes(x)
		}
		return n
	case []any:
		n := 2
		for _, x := range v {
			n += 1 + anyBytes(x)
		}
		return n
	default: // numbers, booleans
		return 8
	}
}

package output

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"

	"toolscope/model"
)

// The JSON-lines format (docs/json-lines.md: --output json, --record,
// replay): one event an object a line, field names as model.Event's tags
// give them, in that order, a field left out when empty; a tool.progress
// always carries progress, total (null when unknown) and relayed. Strings are quoted and
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

// The writers below append to a line and return it, as strconv's do: a
// line is built in a local slice, member by member, each name written with
// its comma and colon (`,"name":`), a member left out when empty; the comma
// before an object's first member is dropped when the object closes.

func appendStr(b []byte, name, s string) []byte {
	if s == "" {
		return b
	}
	return model.AppendJSONString(append(b, name...), s)
}

func appendInt(b []byte, name string, v int64) []byte {
	if v == 0 {
		return b
	}
	return strconv.AppendInt(append(b, name...), v, 10)
}

func appendFlag(b []byte, name string, set bool) []byte {
	if !set {
		return b
	}
	return append(append(b, name...), "true"...)
}

// appendRaw writes a raw JSON member, compacted.
func appendRaw(b []byte, name string, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	return model.AppendJSONRaw(append(b, name...), v)
}

// closeObject ends the object opened at b[open] ('{'), dropping the comma
// its first member was written with.
func closeObject(b []byte, open int) []byte {
	if len(b) > open+1 && b[open+1] == ',' {
		b = append(b[:open+1], b[open+2:]...)
	}
	return append(b, '}')
}

func appendEvent(b []byte, e *model.Event) []byte {
	b = append(b, `{"time":"`...)
	b = e.Time.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","source":`...)
	b = model.AppendJSONString(b, e.Source)
	b = append(b, `,"source_name":`...)
	b = model.AppendJSONString(b, e.SourceName)
	b = append(b, `,"kind":`...)
	b = model.AppendJSONString(b, string(e.Kind))
	b = appendStr(b, `,"task_id":`, e.TaskID)
	b = appendStr(b, `,"tool_call_id":`, e.ToolCallID)
	b = appendStr(b, `,"tool":`, e.Tool)
	b = appendStr(b, `,"event_id":`, e.EventID)
	b = appendStr(b, `,"exchange":`, e.Exchange)
	b = appendStr(b, `,"request_id":`, e.RequestID)
	b = appendStr(b, `,"idempotency_key":`, e.IdempotencyKey)
	b = appendStr(b, `,"call":`, e.Call)
	b = appendCallFields(b, e)
	b = appendResultFields(b, e)
	b = appendStr(b, `,"reason":`, e.Reason)
	b = appendStr(b, `,"event_type":`, e.EventType)
	b = appendStr(b, `,"message":`, e.Message)
	b = appendStr(b, `,"state":`, e.State)
	b = appendStr(b, `,"detail":`, e.Detail)
	b = appendStr(b, `,"code":`, e.Code)
	b = appendRaw(b, `,"data":`, e.Data)
	if e.Wire != nil { // a recording's exchange: written by encoding/json, as rare as it is large
		b = model.AppendJSONValue(append(b, `,"wire":`...), e.Wire)
	}
	if e.Kind == model.KindToolProgress {
		b = model.AppendJSONNumber(append(b, `,"progress":`...), e.Progress)
		b = append(b, `,"total":`...)
		if e.Total == nil {
			b = append(b, "null"...)
		} else {
			b = model.AppendJSONNumber(b, *e.Total)
		}
		if e.Relayed != nil {
			b = strconv.AppendBool(append(b, `,"relayed":`...), *e.Relayed)
		}
	}
	return append(b, '}')
}

// appendCallFields writes the tool.call fields, arguments to after_cancel.
func appendCallFields(b []byte, e *model.Event) []byte {
	b = appendRaw(b, `,"arguments":`, e.Arguments)
	b = appendInt(b, `,"attempt":`, int64(e.Attempt))
	if len(e.Meta) > 0 {
		b = model.AppendJSONMap(append(b, `,"meta":`...), e.Meta, model.AppendJSONValue)
	}
	if e.Context != nil {
		b = appendContext(append(b, `,"context":`...), e.Context)
	}
	if len(e.SoatContext) > 0 {
		b = model.AppendJSONMap(append(b, `,"soat_context":`...), e.SoatContext, model.AppendJSONString)
	}
	b = appendStr(b, `,"agent_name":`, e.AgentName)
	b = appendInt(b, `,"timeout_ms":`, e.TimeoutMS)
	if len(e.Headers) > 0 {
		b = model.AppendJSONMap(append(b, `,"headers":`...), e.Headers, model.AppendJSONString)
	}
	b = appendStr(b, `,"traceparent":`, e.TraceParent)
	b = appendStr(b, `,"tracestate":`, e.TraceState)
	b = appendRaw(b, `,"input_responses":`, e.InputResponses)
	return appendFlag(b, `,"after_cancel":`, e.AfterCancel)
}

// appendResultFields writes the tool.result fields, is_error to timed_out.
func appendResultFields(b []byte, e *model.Event) []byte {
	b = appendFlag(b, `,"is_error":`, e.IsError)
	b = appendFlag(b, `,"replayed":`, e.Replayed)
	b = appendInt(b, `,"round":`, int64(e.Round))
	b = appendStr(b, `,"error":`, e.Error)
	b = appendInt(b, `,"duration_ms":`, e.DurationMS)
	b = appendInt(b, `,"http_status":`, int64(e.HTTPStatus))
	b = appendInt(b, `,"rpc_code":`, int64(e.RPCCode))
	b = appendInt(b, `,"text_chars":`, int64(e.TextChars))
	b = appendStr(b, `,"text_preview":`, e.TextPreview)
	b = appendFlag(b, `,"offloaded":`, e.Offloaded)
	if len(e.Images) > 0 {
		b = append(b, `,"images":[`...)
		for i := range e.Images {
			im := &e.Images[i]
			if i > 0 {
				b = append(b, ',')
			}
			open := len(b)
			b = append(b, '{')
			b = appendStr(b, `,"id":`, im.ID)
			b = model.AppendJSONString(append(b, `,"mime_type":`...), im.MimeType)
			b = strconv.AppendInt(append(b, `,"size":`...), int64(im.Size), 10)
			b = appendStr(b, `,"problem":`, im.Problem)
			b = closeObject(b, open)
		}
		b = append(b, ']')
	}
	b = appendRaw(b, `,"structured_content":`, e.StructuredContent)
	b = appendInt(b, `,"structured_content_bytes":`, int64(e.StructuredContentBytes))
	b = appendFlag(b, `,"structured_content_dropped":`, e.StructuredContentDropped)
	b = appendFlag(b, `,"late":`, e.Late)
	b = appendStr(b, `,"result_type":`, e.ResultType)
	if len(e.InputRequests) > 0 { // as rare as a round: written by encoding/json
		b = model.AppendJSONValue(append(b, `,"input_requests":`...), e.InputRequests)
	}
	b = appendStr(b, `,"denied":`, e.Denied)
	return appendFlag(b, `,"timed_out":`, e.TimedOut)
}

func appendContext(b []byte, c *model.Context) []byte {
	b = strconv.AppendBool(append(b, `{"present":`...), c.Present)
	b = model.AppendJSONString(append(b, `,"verdict":`...), c.Verdict)
	b = appendInt(b, `,"http_status":`, int64(c.HTTPStatus))
	b = appendInt(b, `,"rpc_code":`, int64(c.RPCCode))
	b = appendStr(b, `,"reason":`, c.Reason)
	if len(c.Header) > 0 {
		b = model.AppendJSONMap(append(b, `,"header":`...), c.Header, model.AppendJSONValue)
	}
	if len(c.Claims) > 0 {
		b = model.AppendJSONMap(append(b, `,"claims":`...), c.Claims, model.AppendJSONValue)
	}
	if len(c.Steps) > 0 {
		b = append(b, `,"steps":[`...)
		for i, st := range c.Steps {
			if i > 0 {
				b = append(b, ',')
			}
			b = model.AppendJSONString(append(b, `{"name":`...), st.Name)
			b = strconv.AppendBool(append(b, `,"passed":`...), st.Passed)
			b = appendStr(b, `,"detail":`, st.Detail)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(c.Warnings) > 0 {
		b = append(b, `,"warnings":[`...)
		for i, w := range c.Warnings {
			if i > 0 {
				b = append(b, ',')
			}
			b = model.AppendJSONString(b, w)
		}
		b = append(b, ']')
	}
	b = appendFlag(b, `,"credential_present":`, c.CredentialPresent)
	return append(b, '}')
}

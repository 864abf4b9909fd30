package model

import "strconv"

// appendEvent writes e exactly as encoding/json writes the Event struct
// (field order, omitempty, time in UTC) followed by the progress fields of a
// tool.progress event: the JSON-lines interface (docs/json-lines.md) without
// reflection. With r set (AppendLine's line), header values are written as
// r redacts them and text as TerminalSafeJSON rewrites it, in the same pass.
func appendEvent(dst []byte, e *Event, r *Redactor) ([]byte, error) {
	term := r != nil
	dst = append(dst, `{"time":`...)
	dst, err := appendTime(dst, e.Time)
	if err != nil {
		return dst, err
	}
	dst = append(dst, `,"source":`...)
	dst = appendString(dst, e.Source, term)
	dst = append(dst, `,"source_name":`...)
	dst = appendString(dst, e.SourceName, term)
	dst = append(dst, `,"kind":`...)
	dst = appendString(dst, string(e.Kind), term)
	dst = appendStringField(dst, `,"task_id":`, e.TaskID, term)
	dst = appendStringField(dst, `,"tool_call_id":`, e.ToolCallID, term)
	dst = appendStringField(dst, `,"tool":`, e.Tool, term)
	dst = appendStringField(dst, `,"event_id":`, e.EventID, term)
	dst = appendStringField(dst, `,"exchange":`, e.Exchange, term)
	dst = appendStringField(dst, `,"request_id":`, e.RequestID, term)
	dst = appendStringField(dst, `,"idempotency_key":`, e.IdempotencyKey, term)
	if dst, err = appendCallFields(dst, e, r); err != nil {
		return dst, err
	}
	if dst, err = appendResultFields(dst, e, term); err != nil {
		return dst, err
	}
	dst = appendStringField(dst, `,"reason":`, e.Reason, term)
	dst = appendStringField(dst, `,"event_type":`, e.EventType, term)
	dst = appendStringField(dst, `,"message":`, e.Message, term)
	dst = appendStringField(dst, `,"state":`, e.State, term)
	dst = appendStringField(dst, `,"detail":`, e.Detail, term)
	dst = appendStringField(dst, `,"code":`, e.Code, term)
	if dst, err = appendRawField(dst, `,"data":`, e.Data, term); err != nil {
		return dst, err
	}
	if e.Wire != nil {
		w := e.Wire
		if r != nil {
			w = r.Wire(w)
		}
		dst = append(dst, `,"wire":`...)
		if dst, err = appendMarshalled(dst, w, term); err != nil {
			return dst, err
		}
	}
	if e.Kind == KindToolProgress {
		dst = appendProgressTail(dst, e)
	}
	return append(dst, '}'), nil
}

// appendCallFields writes the tool.call fields, arguments to tracestate.
func appendCallFields(dst []byte, e *Event, r *Redactor) ([]byte, error) {
	term := r != nil
	dst, err := appendRawField(dst, `,"arguments":`, e.Arguments, term)
	if err != nil {
		return dst, err
	}
	dst = appendIntField(dst, `,"attempt":`, int64(e.Attempt))
	if len(e.Meta) > 0 {
		dst = append(dst, `,"meta":`...)
		start := len(dst)
		if dst, err = appendAnyMap(dst, e.Meta, 1, term); err == errTooDeep {
			dst, err = appendMarshalled(dst[:start], e.Meta, term)
		}
		if err != nil {
			return dst, err
		}
	}
	if e.Context != nil {
		dst = append(dst, `,"context":`...)
		start := len(dst)
		if dst, err = appendContext(dst, e.Context, term); err == errTooDeep {
			dst, err = appendMarshalled(dst[:start], e.Context, term)
		}
		if err != nil {
			return dst, err
		}
	}
	if len(e.SoatContext) > 0 {
		dst = append(dst, `,"soat_context":`...)
		dst = appendStringMap(dst, e.SoatContext, term)
	}
	dst = appendStringField(dst, `,"agent_name":`, e.AgentName, term)
	dst = appendIntField(dst, `,"timeout_ms":`, e.TimeoutMS)
	if len(e.Headers) > 0 {
		dst = append(dst, `,"headers":`...)
		if r == nil {
			dst = appendStringMap(dst, e.Headers, term)
		} else {
			dst = appendRedactedHeaders(dst, e.Headers, *r, term)
		}
	}
	dst = appendStringField(dst, `,"traceparent":`, e.TraceParent, term)
	dst = appendStringField(dst, `,"tracestate":`, e.TraceState, term)
	return appendTrueField(dst, `,"after_cancel":true`, e.AfterCancel), nil
}

// appendResultFields writes the tool.result fields, is_error to timed_out.
func appendResultFields(dst []byte, e *Event, term bool) ([]byte, error) {
	dst = appendTrueField(dst, `,"is_error":true`, e.IsError)
	dst = appendStringField(dst, `,"error":`, e.Error, term)
	dst = appendTrueField(dst, `,"replayed":true`, e.Replayed)
	dst = appendIntField(dst, `,"duration_ms":`, e.DurationMS)
	dst = appendIntField(dst, `,"http_status":`, int64(e.HTTPStatus))
	dst = appendIntField(dst, `,"rpc_code":`, int64(e.RPCCode))
	dst = appendIntField(dst, `,"text_chars":`, int64(e.TextChars))
	dst = appendStringField(dst, `,"text_preview":`, e.TextPreview, term)
	dst = appendTrueField(dst, `,"offloaded":true`, e.Offloaded)
	if len(e.Images) > 0 {
		dst = append(dst, `,"images":[`...)
		for i := range e.Images {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendImage(dst, &e.Images[i], term)
		}
		dst = append(dst, ']')
	}
	dst, err := appendRawField(dst, `,"structured_content":`, e.StructuredContent, term)
	if err != nil {
		return dst, err
	}
	dst = appendIntField(dst, `,"structured_content_bytes":`, int64(e.StructuredContentBytes))
	dst = appendTrueField(dst, `,"structured_content_dropped":true`, e.StructuredContentDropped)
	dst = appendTrueField(dst, `,"late":true`, e.Late)
	dst = appendStringField(dst, `,"result_type":`, e.ResultType, term)
	dst = appendStringField(dst, `,"denied":`, e.Denied, term)
	return appendTrueField(dst, `,"timed_out":true`, e.TimedOut), nil
}

// appendProgressTail writes what a tool.progress event always carries,
// numbers formatted as they always were here ('g', not encoding/json's).
func appendProgressTail(dst []byte, e *Event) []byte {
	dst = append(dst, `,"progress":`...)
	dst = strconv.AppendFloat(dst, e.Progress, 'g', -1, 64)
	dst = append(dst, `,"total":`...)
	if e.Total == nil {
		dst = append(dst, "null"...)
	} else {
		dst = strconv.AppendFloat(dst, *e.Total, 'g', -1, 64)
	}
	dst = append(dst, `,"relayed":`...)
	return strconv.AppendBool(dst, e.Relayed)
}

// appendRedactedHeaders is appendStringMap of the headers Redactor.Event
// would leave, without copying the map or building the redacted values.
func appendRedactedHeaders(dst []byte, h map[string]string, r Redactor, term bool) []byte {
	var stack [16]mapEntry[string]
	dst = append(dst, '{')
	for i, kv := range sortedEntries(stack[:0], h) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, kv.key, term)
		dst = append(dst, ':')
		v := kv.value
		keep, redacted := r.headerRedaction(kv.key, v)
		if !redacted {
			dst = appendString(dst, v, term)
			continue
		}
		dst = append(dst, '"')
		dst = appendStringContent(dst, v[:keep], term)
		dst = append(dst, Redacted...)
		dst = append(dst, '"')
	}
	return append(dst, '}')
}

package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Result is a result read as a tools/call result (a CallToolResult): what
// the model reads of it and what the platform's rules measure.
type Result struct {
	// Text is what the model reads of content: the text blocks and the
	// embedded text resources ("[resource <uri>]" then its text), one
	// part per line.
	Text string
	// Blocks counts the content blocks (0: content is empty or unreadable).
	Blocks int
	// Images are the image blocks and embedded resources with an image/*
	// blob, their data as sent (base64).
	Images []Image
	// Structured is structuredContent as sent (nil when absent or null).
	Structured json.RawMessage
	IsError    bool
	// Replayed is _meta["agentarea/replayed"].
	Replayed bool
	// ResultType is as sent ("" when absent, which means complete).
	ResultType string
	// InputRequests and RequestState are what an input_required answer
	// asks of the client and gives it to send back (MCP 2026-07-28), in
	// the order sent.
	InputRequests []InputRequest
	RequestState  string
	// Problems say what could not be read, each a result_malformed warning;
	// the rest is read all the same.
	Problems []string
	// Plain is what another method's result says worth showing
	// (initialize's server, a list's names).
	Plain map[string]any
}

// InputRequest is one request an input_required answer makes of the
// client: its id, its method (elicitation/create, sampling/createMessage,
// roots/list) and what its params say worth showing.
type InputRequest struct {
	ID     string
	Method string
	// An elicitation's message, requested schema (as sent) and URL (url mode).
	Message         string
	RequestedSchema json.RawMessage
	URL             string
	// A sampling request's messages (how many, the last one's text), its
	// system prompt and its token budget.
	Messages     int
	LastText     string
	SystemPrompt string
	MaxTokens    int64
}

// Image is one image a result carries: the content block it is in, its
// declared type and its base64 data.
type Image struct {
	Block    int
	MimeType string
	Data     []byte
}

func (res *Result) problem(format string, args ...any) {
	res.Problems = append(res.Problems, fmt.Sprintf(format, args...))
}

// text accumulates the parts the model reads.
type text struct {
	first string
	parts int
	b     strings.Builder
}

func (t *text) add(s string) {
	switch t.parts {
	case 0:
		t.first = s
	case 1:
		t.b.WriteString(t.first)
		fallthrough
	default:
		t.b.WriteByte('\n')
		t.b.WriteString(s)
	}
	t.parts++
}

func (t *text) String() string {
	if t.parts <= 1 {
		return t.first
	}
	return t.b.String()
}

// result reads a response's result; an object is read as a CallToolResult
// into m.Summary. Members are matched as encoding/json matches struct
// fields (the last of repeated ones counts); those shown for other methods
// as a map's keys.
func (r *reader) result(m *Message) json.RawMessage {
	if r.dec.PeekKind() != '{' {
		return r.value()
	}
	r.token()
	start := r.offset() - 1
	res := &Result{}
	var t text
	var isError, resultType json.RawMessage
	contentProblem := "result has no content array" // said unless the answer asks for input
	metaBad, replayed := false, json.RawMessage(nil)
	for r.more('}') {
		key := r.name()
		switch {
		case foldsTo(key, "content"):
			t, res.Images, res.Blocks = text{}, nil, 0
			contentProblem = r.content(res, &t)
		case foldsTo(key, "structuredContent"):
			if res.Structured = r.value(); isNull(res.Structured) {
				res.Structured = nil
			}
		case foldsTo(key, "isError"):
			isError = r.value()
		case foldsTo(key, "resultType"):
			resultType = r.value()
		case foldsTo(key, "inputRequests"):
			r.inputRequests(res)
		case foldsTo(key, "requestState"):
			if !r.stringInto(&res.RequestState) {
				res.problem("requestState is not a string")
			}
		case foldsTo(key, "_meta"):
			replayed, metaBad = r.resultMeta()
		default:
			r.plainResult(res, key)
		}
	}
	res.Text = t.String()
	switch string(isError) {
	case "", "null", "false":
	case "true":
		res.IsError = true
	default:
		res.problem("isError is not a boolean")
	}
	switch {
	case metaBad:
		res.problem("_meta is not an object")
	case string(replayed) == "true":
		res.Replayed = true
	case replayed != nil && !isNull(replayed) && string(replayed) != "false":
		res.problem("_meta agentarea/replayed is not a boolean")
	}
	if resultType != nil && !isNull(resultType) {
		var ok bool
		if res.ResultType, ok = stringValue(resultType); !ok {
			res.problem("resultType is not a string")
		}
	}
	if contentProblem != "" && res.ResultType != "input_required" {
		// An answer that asks for input has no content of its own.
		res.problem("%s", contentProblem)
	}
	m.Summary = res
	return r.text[start:r.offset()]
}

// content reads the content array: each block's type and what the model
// or the image rules read of it. It returns what is wrong with content as
// a whole ("" when it is an array).
func (r *reader) content(res *Result, t *text) string {
	switch r.dec.PeekKind() {
	case '[':
	case 'n':
		r.skip()
		return "result has no content array"
	default:
		r.skip()
		return "content is not an array"
	}
	r.token()
	for i := 0; r.more(']'); i++ {
		b, ok := r.block()
		res.Blocks++
		switch {
		case !ok:
			res.problem("content[%d] is not a content block", i)
		case b.typ == "text" && b.text == nil:
			res.problem("content[%d] is a text block without text", i)
		case b.typ == "text":
			t.add(*b.text)
		case b.typ == "image" && b.data == nil:
			res.problem("content[%d] is an image block without data", i)
		case b.typ == "image":
			res.Images = append(res.Images, Image{Block: i, MimeType: b.mimeType, Data: b.data})
		case b.typ == "resource" && !b.resource:
			res.problem("content[%d] is a resource block without resource", i)
		case b.typ == "resource" && b.blob != nil && strings.HasPrefix(strings.ToLower(b.resMime), "image/"):
			res.Images = append(res.Images, Image{Block: i, MimeType: b.resMime, Data: b.blob})
		case b.typ == "resource" && b.text != nil:
			t.add("[resource " + b.uri + "]\n" + *b.text)
		}
	}
	return ""
}

// inputRequests reads an input_required answer's inputRequests: an object
// of id to {method, params}. What is not one is a problem; the rest is read.
func (r *reader) inputRequests(res *Result) {
	res.InputRequests = nil
	switch r.dec.PeekKind() {
	case '{':
	case 'n':
		r.skip()
		return
	default:
		r.skip()
		res.problem("inputRequests is not an object")
		return
	}
	r.token()
	for r.more('}') {
		id := r.key()
		if r.dec.PeekKind() != '{' {
			r.skip()
			res.problem("inputRequests[%q] is not an object", id)
			continue
		}
		ir := InputRequest{ID: id}
		r.token()
		for r.more('}') {
			switch key := r.name(); {
			case string(key) == "method":
				if !r.stringInto(&ir.Method) {
					res.problem("inputRequests[%q].method is not a string", id)
				}
			case string(key) == "params":
				r.inputParams(&ir)
			default:
				r.skip()
			}
		}
		res.InputRequests = append(res.InputRequests, ir)
	}
}

// block is one content block as read.
type block struct {
	typ, mimeType string
	text          *string
	data          []byte
	resource      bool
	uri, resMime  string
	blob          []byte
}

// block reads one content block; ok is false when it is not one (not an
// object, or a member of the wrong type).
func (r *reader) block() (b block, ok bool) {
	if r.dec.PeekKind() != '{' {
		r.skip()
		return b, false
	}
	ok = true
	r.token()
	for r.more('}') {
		key := r.name()
		switch {
		case foldsTo(key, "type"):
			ok = r.stringInto(&b.typ) && ok
		case foldsTo(key, "text"):
			ok = r.optionalString(&b.text) && ok
		case foldsTo(key, "data"):
			ok = r.bytesInto(&b.data) && ok
		case foldsTo(key, "mimeType"):
			ok = r.stringInto(&b.mimeType) && ok
		case foldsTo(key, "resource"):
			ok = r.resource(&b) && ok
		default:
			r.skip()
		}
	}
	return b, ok
}

// resource reads an embedded resource: {uri, mimeType?, text | blob}.
func (r *reader) resource(b *block) bool {
	switch r.dec.PeekKind() {
	case 'n':
		r.skip()
		b.resource = false
		return true
	case '{':
	default:
		r.skip()
		return false
	}
	b.resource, b.text, b.blob = true, nil, nil
	ok := true
	r.token()
	for r.more('}') {
		key := r.name()
		switch {
		case foldsTo(key, "uri"):
			ok = r.stringInto(&b.uri) && ok
		case foldsTo(key, "mimeType"):
			ok = r.stringInto(&b.resMime) && ok
		case foldsTo(key, "text"):
			ok = r.optionalString(&b.text) && ok
		case foldsTo(key, "blob"):
			ok = r.bytesInto(&b.blob) && ok
		default:
			r.skip()
		}
	}
	return ok
}

// inputParams reads an input request's params: an elicitation's or a
// sampling request's members worth showing (any other value is skipped).
func (r *reader) inputParams(ir *InputRequest) {
	if r.dec.PeekKind() != '{' {
		r.skip()
		return
	}
	r.token()
	for r.more('}') {
		switch key := r.name(); string(key) {
		case "message":
			r.stringInto(&ir.Message)
		case "requestedSchema":
			if ir.RequestedSchema = r.value(); isNull(ir.RequestedSchema) {
				ir.RequestedSchema = nil
			}
		case "url":
			r.stringInto(&ir.URL)
		case "systemPrompt":
			r.stringInto(&ir.SystemPrompt)
		case "maxTokens":
			if n, err := strconv.ParseInt(string(r.value()), 10, 64); err == nil {
				ir.MaxTokens = n
			}
		case "messages":
			r.samplingMessages(ir)
		default:
			r.skip()
		}
	}
}

// samplingMessages counts a sampling request's messages and keeps the
// first text of the last one (its content a block or an array of blocks).
func (r *reader) samplingMessages(ir *InputRequest) {
	if r.dec.PeekKind() != '[' {
		r.skip()
		return
	}
	r.token()
	for r.more(']') {
		ir.Messages++
		if r.dec.PeekKind() != '{' {
			r.skip()
			continue
		}
		r.token()
		for r.more('}') {
			if key := r.name(); string(key) != "content" {
				r.skip()
				continue
			}
			var t text
			if r.dec.PeekKind() == '[' {
				var res Result
				r.content(&res, &t)
			} else if b, ok := r.block(); ok && b.typ == "text" && b.text != nil {
				t.add(*b.text)
			}
			ir.LastText = t.first
		}
	}
}

// stringInto reads a string into dst (null leaves it, as encoding/json
// does); false for any other value.
func (r *reader) stringInto(dst *string) bool {
	v := r.value()
	if isNull(v) {
		return true
	}
	s, ok := stringValue(v)
	if ok {
		*dst = s
	}
	return ok
}

// optionalString reads a string into a new *string, null into nil.
func (r *reader) optionalString(dst **string) bool {
	v := r.value()
	if isNull(v) {
		*dst = nil
		return true
	}
	s, ok := stringValue(v)
	if ok {
		*dst = &s
	}
	return ok
}

// bytesInto reads a string's text (base64 data: not copied unless it has
// escapes), null into nil.
func (r *reader) bytesInto(dst *[]byte) bool {
	v := r.value()
	switch {
	case isNull(v):
		*dst = nil
		return true
	case len(v) < 2 || v[0] != '"':
		return false
	}
	if s := v[1 : len(v)-1]; bytes.IndexByte(s, '\\') < 0 {
		*dst = s
		return true
	}
	s, _ := stringValue(v)
	*dst = []byte(s)
	return true
}

// resultMeta reads a result's _meta for agentarea/replayed (a map's key:
// exactly, the last one counting); bad says _meta is not an object.
func (r *reader) resultMeta() (replayed json.RawMessage, bad bool) {
	if r.dec.PeekKind() != '{' {
		return nil, !isNull(r.value())
	}
	r.token()
	for r.more('}') {
		if key := r.name(); string(key) == MetaReplayed {
			replayed = r.value()
		} else {
			r.skip()
		}
	}
	return replayed, false
}

// plainResult reads the members other methods' results show: initialize's
// protocol version, server and capabilities, a list's size and names.
func (r *reader) plainResult(res *Result, key []byte) {
	note := func(k string, v any) {
		if res.Plain == nil {
			res.Plain = map[string]any{}
		}
		res.Plain[k] = v
	}
	switch k := string(key); k {
	case "protocolVersion", "serverInfo", "supportedVersions", "nextCursor":
		v, _, _ := r.any(nil)
		note(k, v)
	case "capabilities":
		if r.dec.PeekKind() != '{' {
			r.skip()
			return
		}
		names := []string{}
		r.token()
		for r.more('}') {
			names = append(names, string(r.name()))
			r.skip()
		}
		note(k, names)
	case "tools", "prompts", "resources", "resourceTemplates":
		if r.dec.PeekKind() != '[' {
			r.skip()
			return
		}
		var names []string
		n := 0
		r.token()
		for r.more(']') {
			n++
			if r.dec.PeekKind() != '{' {
				r.skip()
				continue
			}
			r.token()
			for r.more('}') {
				name := r.name()
				if s, ok := stringValue(r.value()); ok && string(name) == "name" && len(names) < 64 {
					names = append(names, s)
				}
			}
		}
		note("count", n)
		note("names", names)
	default:
		r.skip()
	}
}

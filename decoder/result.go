package decoder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// Result types of MCP 2026-07-28 (a missing resultType means complete).
const (
	resultComplete      = "complete"
	resultInputRequired = model.ResultInputRequired
)

// supportedImageTypes are the image types the platform keeps.
var supportedImageTypes = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true,
}

// ResultSummary is what toolscope reports of one CallToolResult (or of a
// JSON-RPC error answering a tools/call).
type ResultSummary struct {
	// TextChars counts the characters (code points) of the text the model
	// reads: text blocks and embedded text resources, or the
	// structuredContent JSON when content is empty.
	TextChars int
	// Text is that text, whole; TextPreview is its start
	// (model.PreviewChars characters), what an event keeps.
	Text        string
	TextPreview string
	// Offloaded: TextChars is over model.MaxTextChars.
	Offloaded bool
	// Images from image blocks and embedded resources with an image/* blob.
	Images []model.Image
	// StructuredContent is the raw JSON as received (nil when absent); it
	// may share the bytes of the result summarised.
	StructuredContent json.RawMessage
	// StructuredContentBytes is its compact size in bytes, and
	// StructuredContentChars in characters (what the 16000 limit counts).
	StructuredContentBytes   int
	StructuredContentChars   int
	StructuredContentDropped bool
	// EmptyContent: content is empty, so the model reads structuredContent.
	EmptyContent bool
	IsError      bool
	// Error is the text of an isError result, or a JSON-RPC error's message.
	Error string
	// RPCCode is set when the call was answered with a JSON-RPC error.
	RPCCode    int
	Replayed   bool
	ResultType string
	// InputRequests are what an input_required answer asks of the client.
	InputRequests []model.InputRequest
}

// SummarizeResult judges a tools/call result, as jsonrpc.Read read it.
// MCP's rules hold for every result: its fields readable, a known
// resultType, image data that is base64 of the declared type. agentArea
// says the call speaks AgentArea (model.Call.AgentArea: it came with a
// token or agentarea/* keys, or a feed reported it), so the platform
// stands between the server and the model and its limits apply too: what
// the model reads (offloaded past 8000 characters, structuredContent when
// content is empty), the images (type, 5 MB, 8 per result),
// structuredContent (left out past 16000 characters). A plain MCP call has
// no platform in between: none of that happens to its result. nil is a
// result that is not an object. Malformed parts are result_malformed
// warnings; the summary holds what could be read.
func SummarizeResult(r *jsonrpc.Result, agentArea bool) (ResultSummary, []model.Warning) {
	s := ResultSummary{ResultType: resultComplete}
	var ws []model.Warning
	warn := func(code model.WarningCode, format string, args ...any) {
		ws = append(ws, model.Warning{Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if r == nil {
		warn(model.WarnResultMalformed, "tools/call result is not a JSON object")
		return s, ws
	}
	for _, p := range r.Problems {
		warn(model.WarnResultMalformed, "%s", p)
	}
	s.summarizeImages(r.Images, agentArea, warn)
	s.summarizeStructured(r.Structured, agentArea, warn)
	s.summarizeText(r, agentArea, warn)
	s.IsError, s.Replayed = r.IsError, r.Replayed
	if s.IsError {
		s.Error = model.Prefix(r.Text, model.PreviewChars)
	}
	if r.ResultType != "" {
		s.ResultType = r.ResultType
	}
	for _, ir := range r.InputRequests {
		s.InputRequests = append(s.InputRequests, inputRequest(ir))
	}
	if r.ResultType == resultInputRequired && len(r.InputRequests) == 0 && r.RequestState == "" {
		warn(model.WarnInputRequiredEmpty, "an input_required result with neither inputRequests nor requestState: the client has nothing to answer and no state to send back, so the call cannot go on")
	}
	if r.ResultType != "" && r.ResultType != resultComplete && r.ResultType != resultInputRequired {
		warn(model.WarnResultTypeUnknown, "resultType %q is neither complete nor input_required", r.ResultType)
	}
	return s, ws
}

// inputRequest is what one input request shows: an elicitation's message
// and schema, a sampling request's summary, roots as themselves.
func inputRequest(ir jsonrpc.InputRequest) model.InputRequest {
	out := model.InputRequest{ID: ir.ID, Method: ir.Method, Message: model.Prefix(ir.Message, model.PreviewChars), URL: ir.URL}
	if len(ir.RequestedSchema) <= model.MaxKeptStructuredBytes {
		out.RequestedSchema = append(json.RawMessage(nil), ir.RequestedSchema...)
	}
	if ir.Method == model.InputSample {
		out.Message = model.Plural(ir.Messages, "message")
		if ir.MaxTokens > 0 {
			out.Message += fmt.Sprintf(", up to %d tokens", ir.MaxTokens)
		}
		if ir.SystemPrompt != "" {
			out.Message += ", system prompt " + strconv.Quote(model.Prefix(ir.SystemPrompt, 80))
		}
		if ir.LastText != "" {
			out.Message += ": " + strconv.Quote(model.Prefix(ir.LastText, 200))
		}
	}
	return out
}

// warnFunc records a warning about the result.
type warnFunc = func(code model.WarningCode, format string, args ...any)

// summarizeImages checks the images: each against MCP, and on an AgentArea
// call each and their count against the platform's limits.
func (s *ResultSummary) summarizeImages(images []jsonrpc.Image, agentArea bool, warn warnFunc) {
	for _, im := range images {
		s.Images = append(s.Images, checkImage(im.Block, im.MimeType, im.Data, agentArea, warn))
	}
	if agentArea && len(s.Images) > model.MaxImages {
		warn(model.WarnTooManyImages, "%d images in one result; the platform keeps at most %d", len(s.Images), model.MaxImages)
		for i := model.MaxImages; i < len(s.Images); i++ {
			if s.Images[i].Problem == "" {
				s.Images[i].Problem = fmt.Sprintf("over %d images per result", model.MaxImages)
			}
		}
	}
}

// summarizeStructured measures structuredContent, on an AgentArea call
// against the platform's limit, as its compact JSON and as Python writes it.
func (s *ResultSummary) summarizeStructured(sc json.RawMessage, agentArea bool, warn warnFunc) {
	if sc == nil {
		return
	}
	s.StructuredContent = sc
	compact := compactJSON(sc)
	s.StructuredContentBytes = len(compact)
	s.StructuredContentChars = utf8.RuneCount(compact)
	if !agentArea {
		return
	}
	if s.StructuredContentChars > model.MaxStructuredChars {
		s.StructuredContentDropped = true
		warn(model.WarnStructuredContentDropped, "structuredContent is %d characters of JSON; over %d the platform leaves it out of the tool.result event",
			s.StructuredContentChars, model.MaxStructuredChars)
	} else if n := spacedASCIIJSONLen(compact); n > model.MaxStructuredChars {
		warn(model.WarnStructuredContentNearLimit, "structuredContent is %d characters of compact JSON but %d as Python's json.dumps writes it by default (spaces after separators, non-ASCII escaped); the platform may leave it out",
			s.StructuredContentChars, n)
	}
}

// summarizeText measures the result's text; on an AgentArea call it is
// what the model reads, held to the offload limit.
func (s *ResultSummary) summarizeText(r *jsonrpc.Result, agentArea bool, warn warnFunc) {
	s.EmptyContent = r.Blocks == 0
	modelText := r.Text
	if agentArea && s.EmptyContent && s.StructuredContent != nil {
		// The platform gives the model structuredContent as text instead.
		modelText = string(compactJSON(s.StructuredContent))
		warn(model.WarnContentEmpty, "content is empty; the model reads structuredContent as text")
	}
	s.Text = modelText
	s.TextChars = utf8.RuneCountInString(modelText)
	s.TextPreview = model.Prefix(modelText, model.PreviewChars)
	if agentArea && s.TextChars > model.MaxTextChars {
		s.Offloaded = true
		warn(model.WarnTextOffloaded, "the model reads %d characters; over %d the text is offloaded and the model sees a pointer and a preview",
			s.TextChars, model.MaxTextChars)
	}
}

// ErrorSummary describes a JSON-RPC error answering a tools/call.
func ErrorSummary(e *jsonrpc.RPCError) ResultSummary {
	s := ResultSummary{IsError: true}
	if e != nil {
		s.RPCCode = e.Code
		s.Error = model.Prefix(e.Message, model.PreviewChars)
	}
	return s
}

// ApplyTo fills the tool.result fields of ev.
func (s ResultSummary) ApplyTo(ev *model.Event) {
	ev.TextChars = s.TextChars
	ev.TextPreview = s.TextPreview
	ev.Offloaded = s.Offloaded
	if len(s.Images) > 0 {
		ev.Images = append([]model.Image(nil), s.Images...)
	}
	if s.StructuredContent != nil && len(s.StructuredContent) <= model.MaxKeptStructuredBytes {
		ev.StructuredContent = append(json.RawMessage(nil), s.StructuredContent...)
	}
	ev.StructuredContentBytes = s.StructuredContentBytes
	ev.StructuredContentDropped = s.StructuredContentDropped
	ev.IsError = s.IsError
	ev.Error = s.Error
	ev.Replayed = s.Replayed
	ev.ResultType = s.ResultType
	ev.InputRequests = s.InputRequests
	if s.RPCCode != 0 {
		ev.RPCCode = s.RPCCode
	}
}

// spacedASCIIJSONLen is the length of compact JSON as Python's json.dumps
// writes it by default: a space after every ',' and ':' between values, and
// every non-ASCII character escaped (\uXXXX, or a surrogate pair). The
// platform's own serialisation is not specified, so toolscope drops by the
// compact length and warns when this longer reading crosses the limit.
func spacedASCIIJSONLen(compact []byte) int {
	n := 0
	inString, escaped := false, false
	for i := 0; i < len(compact); {
		c := compact[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(compact[i:])
			i += size
			if r > 0xFFFF {
				n += 12
			} else {
				n += 6
			}
			continue
		}
		i++
		n++
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ',' || c == ':'):
			n++
		}
	}
	return n
}

// compactJSON is raw without insignificant whitespace (raw itself when it
// is not valid JSON).
func compactJSON(raw json.RawMessage) []byte {
	v := jsontext.Value(bytes.Clone(raw))
	if v.Compact() != nil {
		return raw
	}
	return v
}

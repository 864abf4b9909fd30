package decoder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"toolscope/model"
)

// The platform's result limits (the tool context contract's results rules;
// docs/warning-codes.md).
const (
	// MaxTextChars: text over this many characters is offloaded; the model
	// sees a pointer and a preview.
	MaxTextChars = 8000
	// MaxStructuredChars: structuredContent over this many characters of JSON
	// is left out of the tool.result event.
	MaxStructuredChars = 16000
	// MaxImageBytes: an image over 5 MB (decoded) is refused.
	MaxImageBytes = 5 * 1024 * 1024
	// MaxImages: at most this many images per result.
	MaxImages = 8
	// previewChars is how much text ApplyTo keeps as the event's preview.
	previewChars = 2000
	// maxKeptStructuredBytes: ApplyTo keeps the raw structuredContent only up
	// to this size, so one result cannot bloat the store or a recording.
	maxKeptStructuredBytes = 64 * 1024
)

// Result types of MCP 2026-07-28 (a missing resultType means complete).
const (
	resultComplete      = "complete"
	resultInputRequired = "input_required"
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
	// TextPreview is the start of that text (previewChars characters).
	TextPreview string
	// Offloaded: TextChars is over MaxTextChars.
	Offloaded bool
	// Images from image blocks and embedded resources with an image/* blob.
	Images []model.Image
	// Blocks counts content blocks by type.
	Blocks map[string]int
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
}

type wireBlock struct {
	Type     string  `json:"type"`
	Text     *string `json:"text"`
	Data     *string `json:"data"`
	MimeType string  `json:"mimeType"`
	Resource *struct {
		URI      string  `json:"uri"`
		MimeType string  `json:"mimeType"`
		Text     *string `json:"text"`
		Blob     *string `json:"blob"`
	} `json:"resource"`
}

// SummarizeResult summarises a tools/call result against the platform's
// rules. Malformed parts produce warnings (code result_malformed); the
// summary holds whatever could be read.
func SummarizeResult(result json.RawMessage) (ResultSummary, []Warning) {
	return summarizeResult(result, true)
}

// ApplyResult fills ev's tool.result fields from a tools/call result, as
// SummarizeResult then ApplyTo would, without the block counts an event
// does not carry (a map per result) or a copy of the images.
func ApplyResult(ev *model.Event, result json.RawMessage) []Warning {
	s, ws := summarizeResult(result, false)
	images := s.Images
	s.Images = nil
	s.ApplyTo(ev)
	if len(images) > 0 {
		ev.Images = images // the summary was ours alone: no copy
	}
	return ws
}

func summarizeResult(result json.RawMessage, countBlocks bool) (ResultSummary, []Warning) {
	s := ResultSummary{ResultType: resultComplete}
	var ws []Warning
	warn := func(code model.WarningCode, format string, args ...any) {
		ws = append(ws, Warning{Code: code, Message: fmt.Sprintf(format, args...)})
	}
	r := bytes.TrimSpace(result)
	if len(r) == 0 || r[0] != '{' {
		warn(model.WarnResultMalformed, "tools/call result is not a JSON object")
		return s, ws
	}
	w, blocks, ok := decodeResultFast(r)
	if !ok {
		var readable bool
		w, blocks, readable = decodeResultSlow(r, warn)
		if !readable {
			return s, ws
		}
	}
	var text joinedText
	s.summarizeContent(blocks, countBlocks, &text, warn)
	s.summarizeStructured(w, warn)
	s.summarizeText(blocks, &text, warn)
	s.summarizeFlags(w, &text, warn)
	return s, ws
}

// warnFunc records a warning about the result.
type warnFunc = func(code model.WarningCode, format string, args ...any)

// summarizeContent counts the content blocks, checks the images and joins
// the text the model reads into text.
func (s *ResultSummary) summarizeContent(blocks []wireBlock, countBlocks bool, text *joinedText, warn warnFunc) {
	addText := text.add
	for i, b := range blocks {
		if b.Type == badBlock {
			continue
		}
		if countBlocks {
			if s.Blocks == nil {
				s.Blocks = make(map[string]int)
			}
			s.Blocks[b.Type]++
		}
		switch b.Type {
		case "text":
			if b.Text == nil {
				warn(model.WarnResultMalformed, "content[%d] is a text block without text", i)
				continue
			}
			addText(*b.Text)
		case "image":
			if b.Data == nil {
				warn(model.WarnResultMalformed, "content[%d] is an image block without data", i)
				continue
			}
			s.Images = append(s.Images, checkImage(i, b.MimeType, *b.Data, warn))
		case "resource":
			if b.Resource == nil {
				warn(model.WarnResultMalformed, "content[%d] is a resource block without resource", i)
				continue
			}
			res := b.Resource
			switch {
			case res.Blob != nil && strings.HasPrefix(strings.ToLower(res.MimeType), "image/"):
				s.Images = append(s.Images, checkImage(i, res.MimeType, *res.Blob, warn))
			case res.Text != nil:
				addText("[resource " + res.URI + "]\n" + *res.Text)
			}
		}
	}
	if len(s.Images) > MaxImages {
		warn(model.WarnTooManyImages, "%d images in one result; the platform keeps at most %d", len(s.Images), MaxImages)
		for i := MaxImages; i < len(s.Images); i++ {
			if s.Images[i].Problem == "" {
				s.Images[i].Problem = fmt.Sprintf("over %d images per result", MaxImages)
			}
		}
	}
}

// summarizeStructured measures structuredContent against the platform's
// limit, as its compact JSON and as Python writes it.
func (s *ResultSummary) summarizeStructured(w wireResult, warn warnFunc) {
	sc := nonNull(w.StructuredContent)
	if sc == nil {
		return
	}
	s.StructuredContent = sc
	compact := compactJSON(sc)
	s.StructuredContentBytes = len(compact)
	s.StructuredContentChars = utf8.RuneCount(compact)
	if s.StructuredContentChars > MaxStructuredChars {
		s.StructuredContentDropped = true
		warn(model.WarnStructuredContentDropped, "structuredContent is %d characters of JSON; over %d the platform leaves it out of the tool.result event",
			s.StructuredContentChars, MaxStructuredChars)
	} else if n := spacedASCIIJSONLen(compact); n > MaxStructuredChars {
		warn(model.WarnStructuredContentNearLimit, "structuredContent is %d characters of compact JSON but %d as Python's json.dumps writes it by default (spaces after separators, non-ASCII escaped); the platform may leave it out",
			s.StructuredContentChars, n)
	}
}

// summarizeText measures what the model reads against the offload limit.
func (s *ResultSummary) summarizeText(blocks []wireBlock, text *joinedText, warn warnFunc) {
	s.EmptyContent = len(blocks) == 0
	modelText := text.String()
	if s.EmptyContent && s.StructuredContent != nil {
		// The model reads structuredContent as text instead.
		modelText = string(compactJSON(s.StructuredContent))
		warn(model.WarnContentEmpty, "content is empty; the model reads structuredContent as text")
	}
	s.TextChars = utf8.RuneCountInString(modelText)
	s.TextPreview = keptPrefix(modelText, previewChars)
	if s.TextChars > MaxTextChars {
		s.Offloaded = true
		warn(model.WarnTextOffloaded, "the model reads %d characters; over %d the text is offloaded and the model sees a pointer and a preview",
			s.TextChars, MaxTextChars)
	}
}

// summarizeFlags reads isError, the replay flag and resultType.
func (s *ResultSummary) summarizeFlags(w wireResult, text *joinedText, warn warnFunc) {
	// The flags are decoded into locals by helpers: &s.IsError given to
	// encoding/json would put the whole summary on the heap, every result.
	if ie := nonNull(w.IsError); ie != nil {
		var err error
		if s.IsError, err = jsonBool(ie, s.IsError); err != nil {
			warn(model.WarnResultMalformed, "isError is not a boolean")
		}
	}
	if s.IsError {
		s.Error = keptPrefix(text.String(), previewChars)
	}
	if rep, ok := replayedFlag(w.Meta, warn); ok {
		if b, err := jsonBool(rep, false); err == nil {
			s.Replayed = b
		} else {
			warn(model.WarnResultMalformed, "_meta agentarea/replayed is not a boolean")
		}
	}
	rt := nonNull(w.ResultType)
	if rt == nil {
		return
	}
	var t string
	switch string(rt) {
	case `"` + resultComplete + `"`:
		t = resultComplete
	case `"` + resultInputRequired + `"`:
		t = resultInputRequired
	default:
		var err error
		if t, err = jsonString(rt); err != nil {
			warn(model.WarnResultMalformed, "resultType is not a string")
			return
		}
	}
	if t != "" {
		s.ResultType = t
	}
	if t != resultComplete && t != resultInputRequired {
		warn(model.WarnResultTypeUnknown, "resultType %q is neither complete nor input_required", t)
	}
}

// jsonBool decodes raw as encoding/json decodes it into a bool holding
// prev (which null leaves, as a failed decode does).
func jsonBool(raw []byte, prev bool) (bool, error) {
	switch string(raw) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	v := prev
	err := json.Unmarshal(raw, &v)
	return v, err
}

// ErrorSummary describes a JSON-RPC error answering a tools/call.
func ErrorSummary(e *RPCError) ResultSummary {
	s := ResultSummary{IsError: true}
	if e != nil {
		s.RPCCode = e.Code
		s.Error = keptPrefix(e.Message, previewChars)
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
	if s.StructuredContent != nil && len(s.StructuredContent) <= maxKeptStructuredBytes {
		ev.StructuredContent = append(json.RawMessage(nil), s.StructuredContent...)
	}
	ev.StructuredContentBytes = s.StructuredContentBytes
	ev.StructuredContentDropped = s.StructuredContentDropped
	ev.IsError = s.IsError
	ev.Error = s.Error
	ev.Replayed = s.Replayed
	ev.ResultType = s.ResultType
	if s.RPCCode != 0 {
		ev.RPCCode = s.RPCCode
	}
}

// keptPrefix is truncateRunes for text the store keeps: a cut preview is a
// copy, so a retained call holds its 2000 characters, not the whole text
// the preview was cut from (a large result's megabytes, per call).
func keptPrefix(s string, n int) string {
	p := truncateRunes(s, n)
	if len(p) < len(s) {
		return strings.Clone(p)
	}
	return p
}

// truncateRunes returns at most n code points of s, never splitting one.
func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// summarizeResponse summarises the JSON-RPC response to a tools/call: its
// result, or its error.
func summarizeResponse(m Message) (ResultSummary, []Warning) {
	if m.Error != nil {
		return ErrorSummary(m.Error), nil
	}
	return SummarizeResult(m.Result)
}

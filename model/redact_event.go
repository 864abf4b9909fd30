package model

import (
	"encoding/json"
	"slices"
)

// Event is the event with every secret it holds redacted; the credentials
// in its headers are remembered first. The original is not modified (its
// maps may be shared): what changes is copied.
func (r *Redactor) Event(e Event) Event {
	headers := e.Headers
	if e.Wire != nil && len(headers) == 0 {
		headers = wireHeaders(e.Wire)
	}
	x := r.pass(headers)
	e.Headers = x.stringMap(e.Headers, true)
	e.Wire = x.wire(e.Wire)
	e.SoatContext = x.stringMap(e.SoatContext, false)
	e.Meta, _ = x.anyMap(e.Meta)
	if e.Context != nil {
		e.Context = x.context(e.Context)
	}
	e.Arguments = x.raw(e.Arguments)
	e.InputResponses = x.raw(e.InputResponses)
	e.InputRequests = x.inputRequests(e.InputRequests)
	e.StructuredContent = x.raw(e.StructuredContent)
	e.Data = x.raw(e.Data)
	for _, s := range []*string{&e.SourceName, &e.Message, &e.Detail, &e.Error, &e.Reason, &e.TextPreview, &e.Denied} {
		*s = x.text(*s)
	}
	return e
}

// inputRequests are what a server asked, redacted as text and JSON are
// (a copy when something changes).
func (x redaction) inputRequests(in []InputRequest) []InputRequest {
	out := in
	for i, ir := range in {
		red := ir
		red.Message, red.URL = x.text(ir.Message), x.text(ir.URL)
		red.RequestedSchema = x.raw(ir.RequestedSchema)
		if red.Message != ir.Message || red.URL != ir.URL || string(red.RequestedSchema) != string(ir.RequestedSchema) {
			if &out[0] == &in[0] {
				out = slices.Clone(in)
			}
			out[i] = red
		}
	}
	return out
}

func (x redaction) raw(m json.RawMessage) json.RawMessage {
	red, _ := x.json(m)
	return red
}

// context is a token's decoded header and claims, and what was said of
// them, redacted; c itself is shared and left as it is (a copy is made
// only when something changes).
func (x redaction) context(c *Context) *Context {
	header, headerChanged := x.anyMap(c.Header)
	claims, claimsChanged := x.anyMap(c.Claims)
	reason := x.text(c.Reason)
	steps, stepsChanged := c.Steps, false
	for i, st := range c.Steps {
		if d := x.text(st.Detail); d != st.Detail {
			if !stepsChanged {
				steps, stepsChanged = slices.Clone(c.Steps), true
			}
			steps[i].Detail = d
		}
	}
	warnings, warningsChanged := c.Warnings, false
	for i, w := range c.Warnings {
		if red := x.text(w); red != w {
			if !warningsChanged {
				warnings, warningsChanged = slices.Clone(c.Warnings), true
			}
			warnings[i] = red
		}
	}
	if !headerChanged && !claimsChanged && reason == c.Reason && !stepsChanged && !warningsChanged {
		return c
	}
	out := *c
	out.Header, out.Claims, out.Reason, out.Steps, out.Warnings = header, claims, reason, steps, warnings
	return &out
}

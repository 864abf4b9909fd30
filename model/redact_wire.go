package model

// wire is a recorded exchange with every secret it may hold replaced, by
// the one policy: header values as headers are, the request-target as text
// (credentials in its query), and bodies, SSE data and stdio lines as JSON
// (the values of credential keys at any depth, a context token's signature
// wherever it is carried) or, when not JSON, as text. A body holding no
// secret is kept byte for byte; w is not modified.
func (x redaction) wire(w *Wire) *Wire {
	if w == nil {
		return nil
	}
	c := *w
	if w.Request != nil {
		req := *w.Request
		req.URL = x.text(req.URL)
		req.Headers = x.headerPairs(req.Headers)
		req.Body = x.body(req.Body)
		c.Request = &req
	}
	if w.Response != nil {
		resp := *w.Response
		resp.Headers = x.headerPairs(resp.Headers)
		resp.Body = x.body(resp.Body)
		resp.Error = x.text(resp.Error)
		for i, ev := range resp.Events {
			if red := x.bodyText(ev.Data); red != ev.Data {
				if &resp.Events[0] == &w.Response.Events[0] {
					resp.Events = append([]WireEvent(nil), w.Response.Events...)
				}
				resp.Events[i].Data = red
			}
		}
		c.Response = &resp
	}
	c.Message = x.body(w.Message)
	return &c
}

func (x redaction) headerPairs(h [][2]string) [][2]string {
	out := h
	for i, kv := range h {
		if red := x.header(kv[0], kv[1]); red != kv[1] {
			if &out[0] == &h[0] {
				out = append([][2]string(nil), h...)
			}
			out[i][1] = red
		}
	}
	return out
}

func (x redaction) body(b *WireBody) *WireBody {
	if b == nil || b.Text == "" {
		return b
	}
	if red := x.bodyText(b.Text); red != b.Text {
		c := *b
		c.Text = red
		return &c
	}
	return b
}

// bodyText is a body redacted as JSON (text when it is not JSON).
func (x redaction) bodyText(s string) string {
	red, changed := x.json([]byte(s))
	if !changed {
		return s
	}
	return string(red)
}

// wireHeaders are a recorded request's headers as the pass learns
// credentials from (their values are then redacted in its bodies too).
func wireHeaders(w *Wire) map[string]string {
	if w == nil || w.Request == nil || len(w.Request.Headers) == 0 {
		return nil
	}
	m := make(map[string]string, len(w.Request.Headers))
	for _, kv := range w.Request.Headers {
		m[kv[0]] = kv[1]
	}
	return m
}

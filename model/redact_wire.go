package model

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
)

// Wire returns w with every secret it may hold replaced: credential header
// values (as Header redacts them), credentials in the URL's query, and in
// the JSON bodies the values of secret keys at any depth (secretKey) and
// the context token's signature wherever it is carried (_meta over stdio).
// A body that is not JSON, or holds no secret, is kept byte for byte. w is
// not modified.
func (r Redactor) Wire(w *Wire) *Wire {
	if w == nil {
		return nil
	}
	c := *w
	if w.Request != nil {
		req := *w.Request
		req.URL = redactRequestURL(req.URL)
		req.Headers = r.headerPairs(req.Headers)
		req.Body = redactBody(req.Body)
		c.Request = &req
	}
	if w.Response != nil {
		resp := *w.Response
		resp.Headers = r.headerPairs(resp.Headers)
		resp.Body = redactBody(resp.Body)
		if len(resp.Events) > 0 {
			resp.Events = append([]WireEvent(nil), resp.Events...)
			for i := range resp.Events {
				resp.Events[i].Data = RedactJSONText(resp.Events[i].Data)
			}
		}
		c.Response = &resp
	}
	c.Message = redactBody(w.Message)
	return &c
}

func (r Redactor) headerPairs(h [][2]string) [][2]string {
	out := h
	for i, kv := range h {
		if red := r.Header(kv[0], kv[1]); red != kv[1] {
			if &out[0] == &h[0] {
				out = append([][2]string(nil), h...)
			}
			out[i][1] = red
		}
	}
	return out
}

func redactRequestURL(s string) string {
	if !strings.Contains(s, "?") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return RedactURL(u)
}

func redactBody(b *WireBody) *WireBody {
	if b == nil || b.Text == "" {
		return b
	}
	if red := RedactJSONText(b.Text); red != b.Text {
		c := *b
		c.Text = red
		return &c
	}
	return b
}

// RedactJSONText is text with the secrets of a JSON document (or of each
// line of JSON lines) redacted; text that is not JSON comes back as it is.
func RedactJSONText(text string) string {
	if !mayHoldSecret(text) {
		return text
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if dec.Decode(&v) != nil || dec.More() {
		return text
	}
	if !redactValue(v) {
		return text
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return text
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// mayHoldSecret is a quick look for a secret key's words before decoding.
func mayHoldSecret(text string) bool {
	lower := strings.ToLower(text)
	for _, w := range []string{"auth", "token", "secret", "passw", "key", "cookie", "credential", "agentarea-context"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// redactValue redacts secrets in a decoded JSON value in place and says
// whether it changed anything.
func redactValue(v any) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && s != "" {
				switch {
				case strings.EqualFold(k, ContextHeader):
					if red := RedactToken(s); red != s {
						v[k], changed = red, true
					}
					continue
				case secretKey(k):
					if s != Redacted {
						v[k], changed = Redacted, true
					}
					continue
				}
			}
			changed = redactValue(x) || changed
		}
	case []any:
		for _, x := range v {
			changed = redactValue(x) || changed
		}
	}
	return changed
}

// secretKey says whether a JSON key names a credential: authorization,
// password, secret, api key, access or refresh token, private key, cookie,
// credentials, and header-like names that read as credentials. MCP's own
// token keys (progressToken) and counts (max_tokens) are not secrets.
func secretKey(k string) bool {
	norm := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == ' ' {
			return -1
		}
		return r
	}, strings.ToLower(k))
	switch norm {
	case "progresstoken", "maxtokens", "tokens", "tokencount", "totaltokens", "inputtokens", "outputtokens", "nextcursor":
		return false
	case "authorization", "auth", "password", "passwd", "pass", "secret", "clientsecret", "apikey", "xapikey",
		"token", "accesstoken", "refreshtoken", "idtoken", "bearer", "privatekey", "cookie", "setcookie",
		"credential", "credentials", "sessiontoken", "authtoken", "secretkey", "accesskey", "signature":
		return true
	}
	return strings.HasSuffix(norm, "password") || strings.HasSuffix(norm, "secret") || strings.HasSuffix(norm, "apikey") ||
		strings.HasSuffix(norm, "accesstoken") || strings.HasSuffix(norm, "authtoken")
}

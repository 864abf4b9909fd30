package model

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"unicode/utf8"
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

// mayHoldSecret is a quick look, before decoding, for a key that names a
// secret (or the context token): one pass over the text's strings, the
// keys among them (a string followed by a colon) checked as redactValue
// checks them. A key with escapes is taken as a possible secret.
func mayHoldSecret(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] != '"' {
			continue
		}
		start, escaped := i+1, false
		for i++; i < len(text) && text[i] != '"'; i++ {
			if text[i] == '\\' {
				escaped = true
				i++
			}
		}
		if i >= len(text) {
			return false
		}
		key := text[start:i]
		j := i + 1
		for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r') {
			j++
		}
		if j < len(text) && text[j] == ':' && (escaped || secretKey(key) || strings.EqualFold(key, ContextHeader)) {
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
// token keys (progressToken) and counts (max_tokens) are not secrets. It
// runs on every key of a recorded body: an ASCII key is folded on the stack.
func secretKey(k string) bool {
	var buf [64]byte
	norm := buf[:0]
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '-' || c == '_' || c == ' ':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c >= utf8.RuneSelf: // Unicode case rules: folded the slow way
			return secretKeyFolded(strings.Map(func(r rune) rune {
				if r == '-' || r == '_' || r == ' ' {
					return -1
				}
				return r
			}, strings.ToLower(k)))
		}
		norm = append(norm, c)
	}
	return secretKeyFolded(string(norm))
}

// secretKeyFolded is secretKey of a key lowered, without - _ or spaces.
func secretKeyFolded(norm string) bool {
	if notSecretKeys[norm] {
		return false
	}
	if secretKeys[norm] {
		return true
	}
	for _, s := range secretKeySuffixes {
		if strings.HasSuffix(norm, s) {
			return true
		}
	}
	return false
}

var notSecretKeys = map[string]bool{"progresstoken": true, "maxtokens": true, "tokens": true, "tokencount": true,
	"totaltokens": true, "inputtokens": true, "outputtokens": true, "nextcursor": true}

var secretKeys = map[string]bool{"authorization": true, "auth": true, "password": true, "passwd": true, "pass": true,
	"secret": true, "clientsecret": true, "apikey": true, "xapikey": true, "token": true, "accesstoken": true,
	"refreshtoken": true, "idtoken": true, "bearer": true, "privatekey": true, "cookie": true, "setcookie": true,
	"credential": true, "credentials": true, "sessiontoken": true, "authtoken": true, "secretkey": true,
	"accesskey": true, "signature": true}

var secretKeySuffixes = []string{"password", "secret", "apikey", "accesstoken", "authtoken"}

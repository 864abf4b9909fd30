package decoder

import (
	"crypto/subtle"
	"mime"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"

	"toolscope/decoder/jsonrpc"
	"toolscope/decoder/soat"
	"toolscope/model"
)

var canonicalContextHeader = textproto.CanonicalMIMEHeaderKey(model.ContextHeader)

// contextToken is the request's context token header ("" when absent).
func contextToken(h http.Header) string { return headerValue(h, canonicalContextHeader) }

// headerValue is h.Get of a canonical name, without canonicalising it on
// every call.
func headerValue(h http.Header, canonical string) string {
	if vs := h[canonical]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// sent is what of a call's context and credential reaches the server.
type sent struct {
	token      string // the token the server receives
	tokenSent  bool   // the client sent one (it may not reach the server)
	credential bool   // the static credential reaches the server
}

// received says what of the context token and the static credential the
// server receives: the proxy drops the headers a client names in
// Connection (each a warning). Over stdio the token comes in _meta. A
// credential header holding the context secret is a warning: the contract
// keeps the two apart (a leaked credential would let its holder sign
// context).
func (j *Judge) received(r Request, m *jsonrpc.Message, c *CallJudgment) sent {
	if r.Header == nil {
		return sent{token: m.Meta.ContextToken, tokenSent: m.Meta.ContextToken != ""}
	}
	h := r.Header
	s := sent{token: contextToken(h)}
	s.tokenSent = s.token != ""
	if s.token != "" && hopByHop(h, canonicalContextHeader) {
		s.token = ""
		c.warn(model.WarnContextHeaderStripped, "the client lists "+model.ContextHeader+" in Connection, so the proxy removes it as hop-by-hop: the server never receives the token and the verdict is what it sees")
	}
	if j.CredentialHeader != "" {
		name := textproto.CanonicalMIMEHeaderKey(j.CredentialHeader)
		s.credential = headerValue(h, name) != ""
		if s.credential && hopByHop(h, name) {
			s.credential = false
			c.warn(model.WarnCredentialHeaderStripped, "the client lists "+j.CredentialHeader+" in Connection, so the proxy removes it as hop-by-hop: the server never receives the static credential")
		}
	}
	for _, name := range []string{"Authorization", j.CredentialHeader} {
		if name != "" && j.isSecret(headerValue(h, textproto.CanonicalMIMEHeaderKey(name))) {
			c.warn(model.WarnCredentialIsSecret, "the static credential in "+name+" is the context secret; the contract keeps them different values (a leaked credential would let its holder sign context)")
			break
		}
	}
	return s
}

// isSecret says whether a credential header's value, or the part after its
// scheme ("Bearer x"), is one of the context secrets (compared in constant
// time; the value is never kept).
func (j *Judge) isSecret(value string) bool {
	if value == "" {
		return false
	}
	candidates := []string{value}
	if _, rest, ok := strings.Cut(value, " "); ok {
		candidates = append(candidates, strings.TrimSpace(rest))
	}
	for _, secret := range j.Secrets {
		for _, v := range candidates {
			if subtle.ConstantTimeCompare([]byte(v), secret) == 1 {
				return true
			}
		}
	}
	return false
}

// hopByHop says whether the proxy removes the request header name
// (canonical) before the upstream: a standard hop-by-hop header, or one the
// Connection header names.
func hopByHop(h http.Header, name string) bool {
	switch name {
	case "Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
		"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade":
		return true
	}
	for _, v := range h["Connection"] {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			if part = textproto.TrimString(part); part != "" && textproto.CanonicalMIMEHeaderKey(part) == name {
				return true
			}
		}
	}
	return false
}

// strict is the first reason servers could read the request differently: a
// header that makes the body mean different things, else the body's own.
func (j *Judge) strict(r Request) *jsonrpc.Ambiguity {
	if r.Method != "" && r.Method != http.MethodPost {
		return nil
	}
	if a := headerProblem(r.Header); a != nil {
		if msgs := r.Body.Messages; len(msgs) > 0 && msgs[0].Kind == jsonrpc.KindRequest && r.Body.Strict == nil {
			a.ID = msgs[0].ID // the body itself is clear
		}
		return a
	}
	return r.Body.Strict
}

// headerProblem is a request header that makes the body mean different
// things to different servers, or nil.
func headerProblem(h http.Header) *jsonrpc.Ambiguity {
	for _, v := range h.Values("Content-Encoding") {
		for _, coding := range strings.Split(v, ",") {
			if c := strings.TrimSpace(coding); c != "" && !strings.EqualFold(c, "identity") {
				return &jsonrpc.Ambiguity{RPCCode: jsonrpc.CodeInvalidRequest,
					Reason: "the request body has Content-Encoding " + strconv.Quote(model.Clip(c, 40)) + ", which the tap does not decode and a server may"}
			}
		}
	}
	if ct := h.Get("Content-Type"); strings.IndexByte(ct, ';') >= 0 {
		_, params, _ := mime.ParseMediaType(ct)
		if cs := params["charset"]; cs != "" && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
			return &jsonrpc.Ambiguity{RPCCode: jsonrpc.CodeInvalidRequest,
				Reason: "the request body is declared charset " + strconv.Quote(model.Clip(cs, 40)) + ": the tap reads UTF-8, a server may decode it"}
		}
	}
	if n := len(h[canonicalContextHeader]); n > 1 {
		return &jsonrpc.Ambiguity{RPCCode: jsonrpc.CodeInvalidRequest,
			Reason: "the request has " + model.ContextHeader + " " + strconv.Itoa(n) + " times; servers take the first, the last or all of them"}
	}
	return nil
}

// soat reads the request's SOAT context bag, without the keys a client
// names in Connection (the proxy removes them: the server never sees them).
func (j *Judge) soat(r Request) (soat.Bag, []model.Warning) {
	prefix := j.Prefix()
	var bag soat.Bag
	var ws []model.Warning
	if r.SoatHeader != nil || r.SoatOrder != nil {
		bag, ws = soat.ReadOrdered(r.SoatHeader, r.SoatOrder, prefix)
	} else {
		bag, ws = soat.Read(r.Header, prefix)
	}
	if len(r.Header["Connection"]) == 0 {
		return bag, ws
	}
	for key := range bag.Values {
		if hopByHop(r.Header, textproto.CanonicalMIMEHeaderKey(prefix+key)) {
			delete(bag.Values, key)
			delete(bag.Identity, key)
			ws = append(ws, model.Warning{Code: model.WarnContextHeaderStripped, Message: "the client lists " + strconv.Quote(prefix+key) +
				" in Connection, so the proxy removes it as hop-by-hop: the server never receives this SOAT key"})
		}
	}
	return bag, ws
}

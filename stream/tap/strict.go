package tap

import (
	"mime"
	"net/http"
	"strconv"
	"strings"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// readStrictly looks for what would let servers read the request
// differently from the tap (README "What --enforce guarantees and
// refuses"): a body on a method other than POST, a request
// Content-Encoding, a charset other than UTF-8, more than one context
// token, or a body CheckStrict finds ambiguous or unreadable. It records
// the finding for --enforce and flags an ambiguity with an ambiguous_json
// warning, on the request's calls or, without one, on the exchange. It runs
// (deferred) at the end of parseRequest, once the calls exist.
func (t *Tap) readStrictly(ex *exchange, pr *parsedRequest) {
	pr.strict = strictProblem(ex, pr)
	if pr.strict == nil || pr.strict.RPCCode == jsonrpc.CodeParseError {
		return // a body that is not JSON already has its malformed_request
	}
	msg := "servers can read this request differently: " + pr.strict.Reason
	if t.cfg.Enforce {
		msg += "; refused (--enforce)"
	} else {
		msg += "; forwarded, and what the tap shows may not be what the server ran"
	}
	w := decoder.Warning{Code: model.WarnAmbiguousJSON, Message: msg}
	if len(pr.calls) == 0 {
		pr.warnings = append(pr.warnings, w)
		return
	}
	for _, c := range pr.calls {
		c.pending = append(c.pending, w)
	}
}

// strictProblem is the first reason the request is not read the same by
// every server, or nil.
func strictProblem(ex *exchange, pr *parsedRequest) *jsonrpc.Ambiguity {
	if ex.method != http.MethodPost {
		if len(ex.body) == 0 {
			return nil
		}
		// MCP sends calls only by POST and the tap reads only POST bodies;
		// a server that reads any method's body would run what it did not see.
		return &jsonrpc.Ambiguity{RPCCode: jsonrpc.CodeInvalidRequest,
			Reason: "a " + strconv.Quote(clipText(ex.method, 20)) + " request with a body, which the tap reads only on POST"}
	}
	if a := headerProblem(ex.header); a != nil {
		if msgs := pr.body.Messages; len(msgs) > 0 && msgs[0].Kind == jsonrpc.KindRequest && pr.body.Strict == nil {
			a.ID = msgs[0].ID // the body itself is clear
		}
		return a
	}
	if !ex.bodyWhole {
		return nil // too large to read: --enforce answers that apart
	}
	return pr.body.Strict
}

// headerProblem is a request header that makes the body mean different
// things to different servers, or nil.
func headerProblem(h http.Header) *jsonrpc.Ambiguity {
	for _, v := range h.Values("Content-Encoding") {
		for _, coding := range strings.Split(v, ",") {
			if c := strings.TrimSpace(coding); c != "" && !strings.EqualFold(c, "identity") {
				return &jsonrpc.Ambiguity{RPCCode: jsonrpc.CodeInvalidRequest,
					Reason: "the request body has Content-Encoding " + strconv.Quote(clipText(c, 40)) + ", which the tap does not decode and a server may"}
			}
		}
	}
	// Parameters follow a ';': without one there is no charset, and no
	// parameter map to build for every request.
	if ct := h.Get("Content-Type"); strings.IndexByte(ct, ';') >= 0 {
		cs := contentCharset(ct)
		if cs != "" && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
			return &jsonrpc.Ambiguity{RPCCode: jsonrpc.CodeInvalidRequest,
				Reason: "the request body is declared charset " + strconv.Quote(clipText(cs, 40)) + ": the tap reads UTF-8, a server may decode it"}
		}
	}
	if n := len(h[canonicalContextHeader]); n > 1 {
		return &jsonrpc.Ambiguity{RPCCode: jsonrpc.CodeInvalidRequest,
			Reason: "the request has " + decoder.ContextHeader + " " + strconv.Itoa(n) + " times; servers take the first, the last or all of them"}
	}
	return nil
}

// contentCharset is the charset parameter of a Content-Type ("" when it
// has none or does not parse).
func contentCharset(contentType string) string {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return params["charset"]
}

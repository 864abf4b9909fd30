package tap

import (
	"mime"
	"net/http"
	"strconv"
	"strings"

	"toolscope/decoder"
	"toolscope/model"
)

// readStrictly looks for what would let servers read the request
// differently from the tap (docs/security.md, "What --enforce guarantees
// and refuses"): a body on a method other than POST, a request
// Content-Encoding, a charset other than UTF-8, more than one context
// token, or a body CheckStrict finds ambiguous or unreadable. It records
// the finding for --enforce and flags an ambiguity with an ambiguous_json
// warning, on the request's calls or, without one, on the exchange. It runs
// (deferred) at the end of parseRequest, once the calls exist.
func (t *Tap) readStrictly(ex *exchange, pr *parsedRequest) {
	pr.strict = strictProblem(ex, pr)
	if pr.strict == nil || pr.strict.RPCCode == decoder.CodeParseError {
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
func strictProblem(ex *exchange, pr *parsedRequest) *decoder.Ambiguity {
	if ex.method != http.MethodPost {
		if len(ex.body) == 0 {
			return nil
		}
		// MCP sends calls only by POST and the tap reads only POST bodies;
		// a server that reads any method's body would run what it did not see.
		return &decoder.Ambiguity{RPCCode: decoder.CodeInvalidRequest,
			Reason: "a " + strconv.Quote(clipText(ex.method, 20)) + " request with a body, which the tap reads only on POST"}
	}
	if a := headerProblem(ex.header); a != nil {
		if len(pr.msgs) > 0 && pr.msgs[0].Kind == decoder.KindRequest && pr.checkStrict(ex.body) == nil {
			a.ID = pr.msgs[0].ID // the body itself is clear
		}
		return a
	}
	if !ex.bodyWhole {
		return nil // too large to read: --enforce answers that apart
	}
	return pr.checkStrict(ex.body)
}

// checkStrict is decoder.CheckStrict, told when ParseMessages has already
// checked the body's syntax.
func (pr *parsedRequest) checkStrict(body []byte) *decoder.Ambiguity {
	if pr.read {
		return decoder.CheckStrictRead(body)
	}
	return decoder.CheckStrict(body)
}

// headerProblem is a request header that makes the body mean different
// things to different servers, or nil.
func headerProblem(h http.Header) *decoder.Ambiguity {
	for _, v := range h.Values("Content-Encoding") {
		for _, coding := range strings.Split(v, ",") {
			if c := strings.TrimSpace(coding); c != "" && !strings.EqualFold(c, "identity") {
				return &decoder.Ambiguity{RPCCode: decoder.CodeInvalidRequest,
					Reason: "the request body has Content-Encoding " + strconv.Quote(clipText(c, 40)) + ", which the tap does not decode and a server may"}
			}
		}
	}
	// Parameters follow a ';': without one there is no charset, and no
	// parameter map to build for every request.
	if ct := h.Get("Content-Type"); strings.IndexByte(ct, ';') >= 0 {
		cs := contentCharset(ct)
		if cs != "" && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
			return &decoder.Ambiguity{RPCCode: decoder.CodeInvalidRequest,
				Reason: "the request body is declared charset " + strconv.Quote(clipText(cs, 40)) + ": the tap reads UTF-8, a server may decode it"}
		}
	}
	if n := len(h[canonicalContextHeader]); n > 1 {
		return &decoder.Ambiguity{RPCCode: decoder.CodeInvalidRequest,
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

// parseLeniently reads a body ParseMessages could not (err) as a lenient
// server would, without its BOM or what follows its first value, so the
// tap shows the call such a server runs; readStrictly flags it.
func parseLeniently(body []byte, err error) ([]decoder.Message, bool, error) {
	lenient := decoder.LenientBody(body)
	if lenient == nil {
		return nil, false, err
	}
	return decoder.ParseMessages(lenient)
}

package tap

import (
	"net/http"

	"toolscope/decoder"
)

// The request judged once: the third step of a request's way through the
// tap (ServeHTTP). The tap's judge (decoder.Judge) reads the body and judges
// it (judgeRequest); with --enforce this runs before the request is
// forwarded, and the judgment names the answer the tap gives itself, as a
// server following the contract would (decoder.Answer). Without --enforce
// it runs on the side work, after the request is forwarded (parseRequest).

// newJudge is the judge of a tap's requests, configured as the tap is.
func newJudge(cfg Config) *decoder.Judge {
	return &decoder.Judge{Secrets: cfg.Secrets, InstanceID: cfg.InstanceID, InstanceName: cfg.InstanceName,
		CredentialHeader: cfg.CredentialHeader, SoatPrefix: cfg.SoatPrefix, Enforce: cfg.Enforce,
		MaxParseBytes: cfg.MaxParseBytes}
}

// parseRequest judges the request and prepares, without emitting, the
// events it causes (sortRequest).
func (t *Tap) parseRequest(ex *exchange) *parsedRequest {
	return t.sortRequest(ex, t.judgeRequest(ex), true)
}

// judgeRequest has the tap's judge read the request body once and judge it.
func (t *Tap) judgeRequest(ex *exchange) decoder.Judgment {
	req := decoder.Request{Method: ex.method, Header: ex.header, Body: ex.body, Whole: ex.bodyWhole, Exchange: ex.id, Now: ex.start}
	if raw := ex.rawHeader; raw != nil { // SOAT keys are the header names verbatim
		req.SoatHeader, req.SoatOrder = soatFields(raw)
	}
	return t.judge.Request(req)
}

// soatFields are the head's fields that may be SOAT keys (the head keeps
// those), by name as they arrived and in that order: what the judge reads
// the SOAT context from.
func soatFields(raw *rawHeader) (http.Header, []string) {
	h := make(http.Header, len(raw.fields))
	var order []string
	for _, f := range raw.fields {
		if _, seen := h[f.name]; !seen {
			order = append(order, f.name)
		}
		h[f.name] = append(h[f.name], f.value)
	}
	return h, order
}

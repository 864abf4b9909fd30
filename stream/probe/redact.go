package probe

import (
	"strings"

	"toolscope/model"
)

// redactor is the run's redaction policy (model.Redactor): the names it
// was given (--redact) and the static credential's, and the values it must
// never show, the context secret and the credential. Everything probe
// writes passes it: each result (its message, the request and the answer)
// before anyone sees it, and why a run stopped.
func newRedactor(cfg Config) *model.Redactor {
	secrets := []string{string(cfg.Secret), cfg.Credential.Value}
	if _, after, ok := strings.Cut(cfg.Credential.Value, " "); ok { // "Bearer tok": tok alone too
		secrets = append(secrets, after)
	}
	return model.NewRedactor(model.RedactionConfig{Names: append([]string{cfg.Credential.Name}, cfg.Redact...), Secrets: secrets})
}

// redactResult is a result as it may be shown or written.
func (p *prober) redactResult(r Result) Result {
	r.Message = p.redactor.Text(r.Message)
	headers := make(map[string]string, len(r.Exchange.RequestHeader))
	for k, v := range r.Exchange.RequestHeader {
		headers[k] = p.redactor.Header(k, v)
	}
	r.Exchange.RequestHeader = headers
	r.Exchange.RequestBody = string(p.redactor.JSON([]byte(r.Exchange.RequestBody)))
	r.Exchange.ResponseBody = p.redactor.Text(r.Exchange.ResponseBody)
	return r
}

// redactStop is why a run stopped, as it may be said (stderr, JUnit).
func (p *prober) redactStop(s *Stop) *Stop {
	out := *s
	out.What, out.Cause, out.Check = p.redactor.Text(s.What), p.redactor.Text(s.Cause), p.redactor.Text(s.Check)
	return &out
}

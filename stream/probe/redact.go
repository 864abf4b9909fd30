package probe

import (
	"context"
	"errors"
	"strings"

	"toolscope/model"
)

// redactor is the run's redaction policy (model.Redactor): the names it
// was given (--redact) and the static credential's, and the values it must
// never show, the context secret and the credential. Everything probe
// writes passes it: each result (its message, the request and the answer)
// before anyone sees it, and the error that stops a run.
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

// redactError is an error that stopped the run, as it may be said; a
// cancellation stays what it is.
func (p *prober) redactError(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &redactedError{msg: p.redactor.Text(err.Error()), err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

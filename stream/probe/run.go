// Package probe checks that an MCP server keeps the AgentArea tool context
// contract: it sends tools/call requests exactly as the platform does, each
// with one thing wrong, and compares every answer with the contract's.
package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"toolscope/decoder"
	"toolscope/model"
)

// Credential is the static credential header the instance stores.
type Credential struct{ Name, Value string }

// Config of one probe run.
type Config struct {
	URL        string
	InstanceID string // the aud a valid token names
	Tool       string // "": the first tool of tools/list
	Args       json.RawMessage
	Secret     []byte     // the instance's context_secret
	Credential Credential // Name "": none configured
	Only       []string   // case ids; empty: all
	Strict     bool       // Recommended cases are required
	Timeout    time.Duration
	// Redact are more credential names (--redact): their values are
	// redacted in everything probe writes, as the credential's are.
	Redact []string
	// OnCase, when set, sees each result as it comes (live display),
	// redacted.
	OnCase func(Result)
}

// Result is one case's outcome.
type Result struct {
	Case     string        `json:"case"`
	Title    string        `json:"title"`
	Required bool          `json:"required"`
	Pass     bool          `json:"pass"`
	Skipped  bool          `json:"skipped,omitempty"`
	Expected Answer        `json:"expected"`
	Also     *Answer       `json:"also_accepted,omitempty"`
	Actual   Answer        `json:"actual"`
	Ran      bool          `json:"tool_ran"`
	Message  string        `json:"message"`
	Exchange Exchange      `json:"exchange"`
	Duration time.Duration `json:"-"`
	At       time.Time     `json:"-"` // when the case ended
}

// Report is a whole run.
type Report struct {
	URL      string
	Tool     string
	Results  []Result
	Duration time.Duration
	// Stop, when set, is why the run ended before judging every case.
	Stop *Stop
}

// Counts of a report.
func (r Report) Counts() (passed, failed, requiredFailed, skipped int) {
	for _, x := range r.Results {
		switch {
		case x.Skipped:
			skipped++
		case x.Pass:
			passed++
		default:
			failed++
			if x.Required {
				requiredFailed++
			}
		}
	}
	return
}

// OK says every required case passed, and the run was not stopped.
func (r Report) OK() bool {
	_, _, rf, _ := r.Counts()
	return rf == 0 && r.Stop == nil
}

// Select returns the cases of --only (all when empty), or an error naming
// an unknown id.
func Select(only []string) ([]Case, error) {
	all := Cases()
	if len(only) == 0 {
		return all, nil
	}
	var out []Case
	for _, id := range only {
		i := slices.IndexFunc(all, func(c Case) bool { return c.ID == id })
		if i < 0 {
			return nil, fmt.Errorf("unknown case %q (see --list)", id)
		}
		out = append(out, all[i])
	}
	return out, nil
}

type prober struct {
	cfg      Config
	redactor *model.Redactor
	http     *http.Client
	nextID   atomic.Int64
	valid    *reply // the valid call's answer, for the Info cases
	// answered says the server has answered a request (any HTTP status);
	// until it has, a request without an answer makes it unreachable.
	answered    bool
	unreachable *Stop
}

// Run probes the server with the selected cases in order. It returns an
// error when the probe cannot start (configuration), and a *Stop when it
// cannot judge the server: its first request got no answer, or tools/list
// named no tool.
func Run(ctx context.Context, cfg Config) (Report, error) {
	cases, err := Select(cfg.Only)
	if err != nil {
		return Report{}, err
	}
	if cfg.URL == "" || cfg.InstanceID == "" || len(cfg.Secret) == 0 {
		return Report{}, errors.New("probe needs a URL, an instance id and a context secret")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if len(cfg.Args) == 0 {
		cfg.Args = json.RawMessage(`{}`)
	}
	// A new connection per call, as the platform opens; a redirect is an
	// answer, not something to follow with the credential and token.
	p := &prober{cfg: cfg, redactor: newRedactor(cfg), http: &http.Client{Transport: &http.Transport{DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	start := time.Now()
	if p.cfg.Tool == "" {
		var stop *Stop
		if p.cfg.Tool, stop = p.firstTool(ctx); stop != nil {
			if ctx.Err() != nil {
				return Report{URL: cfg.URL}, ctx.Err()
			}
			stop = p.redactStop(stop)
			return Report{URL: cfg.URL, Stop: stop, Duration: time.Since(start)}, stop
		}
	}
	rep := Report{URL: cfg.URL, Tool: p.cfg.Tool}
	for _, cs := range cases {
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		t0 := time.Now()
		res := p.redactResult(p.runCase(ctx, cs))
		if p.unreachable != nil {
			// The server never answered: no case can be judged.
			stop := p.redactStop(p.unreachable)
			rep.Duration, rep.Stop = time.Since(start), stop
			return rep, stop
		}
		res.At = time.Now()
		res.Duration = res.At.Sub(t0)
		rep.Results = append(rep.Results, res)
		if cfg.OnCase != nil {
			cfg.OnCase(res)
		}
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

func (p *prober) runCase(ctx context.Context, cs Case) Result {
	res := Result{Case: cs.ID, Title: cs.Title, Expected: cs.Expect, Also: cs.Also,
		Required: cs.Level == Required || cs.Level == Recommended && p.cfg.Strict}
	switch {
	case cs.NeedsCredential && p.cfg.Credential.Name == "":
		res.Skipped, res.Pass = true, true
		res.Message = "skipped: no static credential configured"
	case cs.measure != nil:
		r := p.validReply(ctx)
		v := judge(cs, r)
		res.Actual, res.Ran, res.Exchange = v.actual, v.ran, r.exchange
		if !v.pass {
			res.Message = "the valid call did not run: " + v.message
			break
		}
		res.Pass, res.Message = cs.measure(p, r)
	case cs.replay:
		p.replay(ctx, cs, &res)
	default:
		c := p.newCall(cs.ID, newContext(cs.ID))
		if cs.change != nil {
			cs.change(c, time.Now())
		}
		r := p.send(ctx, c)
		v := judge(cs, r)
		res.Actual, res.Ran, res.Pass, res.Message, res.Exchange = v.actual, v.ran, v.pass, v.message, r.exchange
		if cs.ID == "valid" {
			p.valid = &r
		}
	}
	return res
}

// newCall is the platform's call for context cc, with the next request id.
func (p *prober) newCall(caseID string, cc decoder.CallContext) *call {
	return newCall(p.nextID.Add(1), p.cfg.Tool, p.cfg.Args, cc, p.cfg.InstanceID, p.cfg.Secret, time.Now())
}

// validReply is the valid call's answer, made now when the valid case was
// not selected.
func (p *prober) validReply(ctx context.Context) reply {
	if p.valid == nil {
		r := p.send(ctx, p.newCall("valid", newContext("valid")))
		p.valid = &r
	}
	return *p.valid
}

// replay sends a call, then the platform's retry of it: the same task,
// tool_call_id, idempotency key and arguments, a new token and request id.
func (p *prober) replay(ctx context.Context, cs Case, res *Result) {
	cc := newContext(cs.ID)
	first := p.send(ctx, p.newCall(cs.ID, cc))
	if v := judge(cs, first); !v.pass {
		res.Actual, res.Ran, res.Exchange = v.actual, v.ran, first.exchange
		res.Message = "the first call did not run: " + v.message
		return
	}
	second := p.send(ctx, p.newCall(cs.ID, cc))
	v := judge(cs, second)
	res.Actual, res.Ran, res.Exchange = v.actual, v.ran, second.exchange
	if !v.pass {
		res.Message = "the retry: " + v.message
		return
	}
	a, _ := first.response()
	b, _ := second.response()
	sa, _ := decoder.SummarizeResult(a.Summary, true)
	sb, _ := decoder.SummarizeResult(b.Summary, true)
	same := sameContent(a.Result, b.Result)
	switch {
	case sb.Replayed && same:
		res.Pass, res.Message = true, `the first result back, marked _meta["agentarea/replayed"]: true`
	case same:
		res.Pass, res.Message = true, "the same result back, not marked replayed (the tool may have run again)"
	case sa.Replayed || sb.Replayed:
		res.Message = "marked replayed, but the result differs from the first"
	default:
		res.Message = "a different result: the tool ran again for the same idempotency key"
	}
}

// sameContent compares two results' content and structuredContent.
func sameContent(a, b json.RawMessage) bool {
	type body struct {
		Content    any `json:"content"`
		Structured any `json:"structuredContent"`
	}
	var x, y body
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// firstTool lists the server's tools as the platform does when an instance
// is added (credential, no context token) and returns the first.
func (p *prober) firstTool(ctx context.Context) (string, *Stop) {
	id := p.nextID.Add(1)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/list",
		"params": map[string]any{"_meta": decoder.ProtocolMeta()}})
	h := decoder.PlatformHeaders("tools/list", "")
	if p.cfg.Credential.Name != "" {
		h.Set(p.cfg.Credential.Name, p.cfg.Credential.Value)
	}
	r := p.post(ctx, id, body, h)
	m, _ := r.response()
	if r.err != nil || m == nil || m.Result == nil {
		rpcErr := ""
		if m != nil && m.Error != nil {
			rpcErr = fmt.Sprintf("JSON-RPC %d: %s", m.Error.Code, model.Clip(m.Error.Message, maxShownBytes))
		}
		return "", listFailed(p.cfg.URL, r, rpcErr, p.cfg.Timeout)
	}
	var names []string // as the reader read tools/list's result
	if m.Summary != nil {
		names, _ = m.Summary.Plain["names"].([]string)
	}
	if len(names) == 0 || names[0] == "" {
		return "", &Stop{Case: CaseListTools, What: "listing the tools at " + ShownURL(p.cfg.URL),
			Cause: "tools/list named no tool", Check: "name the tool to call with --tool"}
	}
	return model.Sanitize(names[0]), nil
}

package model

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestExplainSaysRuleAndAnswer: a rejected token names the failed step,
// the answer the contract makes the server give and whether it gave it.
func TestExplainSaysRuleAndAnswer(t *testing.T) {
	ctx := &Context{Present: true, Verdict: VerdictRejected, HTTPStatus: 401, RPCCode: -32001, Reason: "wrong aud: token is for other",
		Steps: []Step{{Name: "signature", Passed: true}, {Name: "aud", Passed: false, Detail: "wrong aud: token is for other"}}}
	ranAnyway := &Call{ID: "t/c1", Tool: "lookup_customer", Status: StatusOK, Context: ctx,
		Attempts: []Attempt{{N: 1, Exchange: "1", HasResult: true, Result: Result{HTTPStatus: 200}}}}
	x := Explain(ranAnyway, time.Now())
	if x.Cause != "" { // it ended ok: the token is a finding, not why it ended
		t.Errorf("cause %q", x.Cause)
	}
	f := x.Findings[0]
	if f.Level != LevelError || f.HTTPStatus != 401 || f.RPCCode != -32001 || !strings.Contains(f.Rule, "Verification a server performs") ||
		!strings.Contains(f.Must, "must answer HTTP 401 · JSON-RPC -32001") || !strings.Contains(f.Must, "ran the tool on a token it had to refuse") {
		t.Errorf("finding %+v", f)
	}
	if !strings.HasPrefix(x.Summary, "ok. The server must answer HTTP 401") {
		t.Errorf("summary %q", x.Summary)
	}

	refused := *ranAnyway
	refused.Status = StatusError
	refused.Attempts = []Attempt{{N: 1, Exchange: "1", HasResult: true, Result: Result{HTTPStatus: 401, RPCCode: -32001}}}
	x = Explain(&refused, time.Now())
	if len(x.Findings) != 1 || !strings.HasSuffix(x.Findings[0].Must, "; it did") || x.Cause != "wrong aud: token is for other" {
		t.Errorf("a server that refused as it must: %+v", x)
	}
}

// TestExplainTimeoutAndLimits: a timed-out call says the timeout rule and
// what to change; a result over the limits says each limit.
func TestExplainTimeoutAndLimits(t *testing.T) {
	c := &Call{ID: "t/c2", Tool: "export_ledger", Status: StatusCancelled, TimeoutMS: 10000,
		Context:  &Context{Present: true, Verdict: VerdictValid},
		Warnings: []Event{{Kind: KindWarning, Code: string(WarnCallTimeout), Message: "no result within 10s"}},
		Attempts: []Attempt{{N: 1, Cancelled: "MCP tool call timed out: no result within 10 s", HasResult: true,
			Result: Result{TextChars: 13628, Offloaded: true, StructuredContentBytes: 20136, StructuredContentDropped: true}}},
		Progress: Progress{Sent: 23, WouldRelay: 12}, Relays: true}
	x := Explain(c, time.Now())
	var text strings.Builder
	for _, f := range x.Findings {
		text.WriteString(f.Level + " | " + f.What + " | " + f.Rule + " | " + f.Must + "\n")
	}
	for _, want := range []string{
		"error | the call timed out: MCP tool call timed out",
		"\"Timeout\"", "within the instance's timeout (10s)",
		"text of 13628 characters, over 8000: offloaded",
		"structured content of 20136 characters of JSON, over 16000: dropped by the platform",
		"23 progress notifications sent, 12 relayed to the task feed under the 0.5 s rule",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("findings lack %q:\n%s", want, text.String())
		}
	}
	if x.Cause != "MCP tool call timed out: no result within 10 s" {
		t.Errorf("cause %q", x.Cause)
	}
}

// TestExplainPlainMCP: a call without AgentArea context is said to be plain
// MCP, with no relay rule.
func TestExplainPlainMCP(t *testing.T) {
	c := &Call{ID: "tap#1", Tool: "echo", Status: StatusOK, Context: &Context{Verdict: VerdictAbsent},
		Progress: Progress{Sent: 5}, Attempts: []Attempt{{N: 1, Exchange: "1", HasResult: true}}}
	x := Explain(c, time.Now())
	if len(x.Findings) != 1 || !strings.Contains(x.Findings[0].What, "plain MCP call") || x.Cause != "" || x.Summary != "ok." {
		t.Errorf("%+v", x)
	}
}

// TestExplainPlainMCPWithoutContext: a tap reports a plain call with no
// context at all; it is said to be plain MCP all the same, and a result
// after --timeout is not said to be one a platform failed.
func TestExplainPlainMCPWithoutContext(t *testing.T) {
	c := &Call{ID: "tap#1", Tool: "echo", Status: StatusOK, TimeoutMS: 10000,
		Attempts: []Attempt{{N: 1, Exchange: "1", HasResult: true}}}
	if x := Explain(c, time.Now()); len(x.Findings) != 1 || !strings.Contains(x.Findings[0].What, "plain MCP call") {
		t.Errorf("%+v", x)
	}
	c.Status, c.Attempts[0].Result.Late = StatusLate, true
	var text strings.Builder
	for _, f := range Explain(c, time.Now()).Findings {
		text.WriteString(f.What + " | " + f.Rule + " | " + f.Must + "\n")
	}
	if got := text.String(); strings.Contains(got, "platform") || strings.Contains(got, "tool_timeout_seconds") ||
		!strings.Contains(got, "after toolscope's --timeout (10s)") {
		t.Errorf("plain late findings:\n%s", got)
	}
	soat := &Call{ID: "tap#2", Tool: "get_order", Status: StatusOK, SoatContext: map[string]string{"tenantId": "acme"},
		Attempts: []Attempt{{N: 1, Exchange: "2", HasResult: true}}}
	if x := Explain(soat, time.Now()); len(x.Findings) != 1 || !strings.HasPrefix(x.Findings[0].What, "a SOAT call") {
		t.Errorf("a SOAT call: %+v", x)
	}
	failed := &Call{ID: "tap#3", Tool: "get_sum", Status: StatusError,
		Attempts: []Attempt{{N: 1, Exchange: "3", HasResult: true, Result: Result{IsError: true, Error: "a is not a number."}}}}
	if x := Explain(failed, time.Now()); x.Summary != "error: a is not a number. Nothing, if the tool meant to fail; otherwise fix what its text says." {
		t.Errorf("summary %q", x.Summary)
	} else if rule := x.Findings[len(x.Findings)-1].Rule; !strings.HasPrefix(rule, "MCP, \"Tool results\"") || strings.Contains(rule, "AgentArea") {
		t.Errorf("a plain call's isError rule: %q", rule) // no platform is there: MCP's rule alone
	}
	failed.Context = &Context{Present: true, Verdict: VerdictValid}
	if x := Explain(failed, time.Now()); !strings.Contains(x.Findings[len(x.Findings)-1].Rule, "AgentArea tool context, \"Results\"") {
		t.Errorf("an AgentArea call's isError rule: %+v", x.Findings)
	}
	feed := &Call{ID: "t/c1", Tool: "echo", Status: StatusOK, SeenByFeed: true, Attempts: []Attempt{{N: 1, FeedCall: true, HasResult: true}}}
	if x := Explain(feed, time.Now()); len(x.Findings) != 0 {
		t.Errorf("a feed's call: %+v", x)
	} else if b, _ := json.Marshal(x); !strings.Contains(string(b), `"findings":[]`) { // an array to a client, never null
		t.Errorf("a call without findings: %s", b)
	}
}

// TestExplainPlainResult: a plain MCP call's long text, large structured
// content and many large images are not findings (no platform is there to
// offload or drop them); image data that breaks MCP is.
func TestExplainPlainResult(t *testing.T) {
	images := make([]Image, MaxImages+1)
	for i := range images {
		images[i] = Image{MimeType: "image/bmp", Size: MaxImageBytes + 1}
	}
	images[0] = Image{MimeType: "image/png", Problem: "data is not valid base64"}
	result := Result{TextChars: 13628, StructuredContentBytes: 20136, Images: images}
	plain := &Call{ID: "tap#1", Tool: "render", Status: StatusOK, Attempts: []Attempt{{N: 1, Exchange: "1", HasResult: true, Result: result}}}
	var text strings.Builder
	for _, f := range Explain(plain, time.Now()).Findings {
		text.WriteString(f.What + " | " + f.Rule + "\n")
	}
	if got := text.String(); strings.Contains(got, "offloaded") || strings.Contains(got, "over 16000") || strings.Contains(got, "refused") ||
		!strings.Contains(got, "image image/png: data is not valid base64 | MCP, ImageContent") {
		t.Errorf("plain findings:\n%s", got)
	}
	agentArea := *plain
	agentArea.Context = &Context{Present: true, Verdict: VerdictValid}
	text.Reset()
	for _, f := range Explain(&agentArea, time.Now()).Findings {
		text.WriteString(f.What + "\n")
	}
	for _, want := range []string{"over 8000: offloaded", "over 16000", "9 images, over 8", "is refused: 5242881 bytes, over 5 MB"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the AgentArea call's findings lack %q:\n%s", want, text.String())
		}
	}
}

// TestExplainRounds: a multi-round call that ended says its rounds: what
// the server asked, what the client answered, and the time split; one that
// waits says what it waits for.
func TestExplainRounds(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	asked := []InputRequest{{ID: "confirm", Method: InputElicit, Message: "Cancel order A-1042?\x1b[2J"}}
	c := &Call{ID: "tap#4", Tool: "cancel_order", Status: StatusOK, Started: t0, Ended: t0.Add(2300 * time.Millisecond),
		Attempts: []Attempt{{N: 1, Exchange: "4", HasResult: true, Rounds: []Round{
			{N: 1, Started: t0, Ended: t0.Add(100 * time.Millisecond), Asked: asked, AskedInput: true},
			{N: 2, Started: t0.Add(2100 * time.Millisecond), Ended: t0.Add(2300 * time.Millisecond),
				Answers: []byte(`{"confirm":{"action":"accept","content":{"confirm":true}}}`)},
		}}}}
	var text strings.Builder
	for _, f := range Explain(c, t0.Add(time.Minute)).Findings {
		text.WriteString(f.What + " | " + f.Rule + "\n")
	}
	want := "the call took 2 rounds (300ms in the server, 2.0s waiting for the client's input); round 1: the server asked " +
		"(elicitation: Cancel order A-1042?␛[2J), the client answered accept | MCP 2026-07-28 multi-round calls"
	if got := text.String(); !strings.Contains(got, want) || strings.Contains(got, "\x1b") {
		t.Errorf("findings lack %q:\n%q", want, got)
	}

	waits := *c
	waits.Status, waits.Ended = StatusNeedsInput, time.Time{}
	waits.Attempts = []Attempt{{N: 1, Exchange: "4", Rounds: c.Attempts[0].Rounds[:1]}}
	text.Reset()
	for _, f := range Explain(&waits, t0.Add(time.Second)).Findings {
		text.WriteString(f.What + "\n")
	}
	if got := text.String(); strings.Contains(got, "took") || !strings.Contains(got, "asked the client for input (elicitation: Cancel order A-1042?") ||
		!strings.Contains(got, "waits for round 2") {
		t.Errorf("a waiting call's findings:\n%s", got)
	}
}

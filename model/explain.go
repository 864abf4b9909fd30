package model

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Explanation says why a call ended as it did, in plain words: what
// happened, the contract rule it touches, and what the server or the
// platform must do. The MCP server's explain_call returns it.
type Explanation struct {
	ID       string    `json:"id"`
	Tool     string    `json:"tool,omitempty"`
	Status   Status    `json:"status"`
	Cause    string    `json:"cause,omitempty"`
	Summary  string    `json:"summary"`
	Findings []Finding `json:"findings"`
}

// Finding is one thing said about a call.
type Finding struct {
	Level      string `json:"level"` // error, warning or info
	What       string `json:"what"`
	Rule       string `json:"rule,omitempty"` // the contract's rule, by document and section
	Must       string `json:"must,omitempty"` // what the server or the platform must do
	HTTPStatus int    `json:"http_status,omitempty"`
	RPCCode    int    `json:"rpc_code,omitempty"`
	Code       string `json:"code,omitempty"` // a warning's code
}

// Finding levels.
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelInfo    = "info"
)

// Explain says why the call ended as it did.
func Explain(c *Call, now time.Time) Explanation {
	x := Explanation{ID: c.ID, Tool: c.Tool, Status: c.Status, Cause: c.Cause(now), Findings: []Finding{}} // [] when none, never null
	if x.Tool == "" {
		x.Tool = c.AgentName
	}
	x.token(c)
	x.outcome(c, now)
	x.rounds(c, now)
	x.result(c)
	x.progress(c)
	x.warnings(c)
	x.Summary = x.summary(c, now)
	return x
}

func (x *Explanation) add(f Finding) { x.Findings = append(x.Findings, f) }

// token: the verdict on the call's context token, and whether the server
// answered as the contract makes it.
func (x *Explanation) token(c *Call) {
	ctx := c.Context
	switch {
	case ctx == nil && c.Flags&FlagRejected != 0:
		f := Finding{Level: LevelError, What: "the platform reports that the server rejected the credentials", Rule: ruleVerification,
			Must: "check the instance's static credential and its context_secret against the server's; a tap in front of " +
				"the server shows which verification step fails"}
		if a := c.LastAttempt(); a != nil {
			f.HTTPStatus = a.Result.HTTPStatus
		}
		x.add(f)
	case ctx == nil && !c.AgentArea() && tapped(c) && len(c.SoatContext) > 0:
		x.add(Finding{Level: LevelInfo, What: "a SOAT call: its context is in its X-Soat-Context-* headers; no AgentArea " +
			"token check and no relay rule apply"})
	case ctx == nil && !c.AgentArea() && tapped(c):
		// A tap reports a plain call with no context at all.
		x.add(Finding{Level: LevelInfo, What: plainCall})
	case ctx == nil:
		return
	case ctx.Verdict == VerdictRejected:
		what := "the context token fails verification"
		if ctx.Reason != "" {
			what += ": " + ctx.Reason
		}
		if step := failedStep(ctx); step != "" {
			what += " (failed step: " + step + ")"
		}
		must := "the server must answer " + RequiredAnswer(ctx) + " with the request id, and not run the tool"
		if answered := serverAnswer(c); answered != "" {
			must += "; " + answered
		}
		x.add(Finding{Level: LevelError, What: what, Rule: ruleVerification, Must: must, HTTPStatus: ctx.HTTPStatus, RPCCode: ctx.RPCCode})
	case ctx.Verdict == VerdictValid:
		x.add(Finding{Level: LevelInfo, What: "the context token is valid: the server " + SaysValid, Rule: ruleVerification})
	case ctx.Verdict == VerdictUnverified:
		what := "the context token was " + SaysUnverified
		if ctx.Reason != "" {
			what += "; " + ctx.Reason
		}
		x.add(Finding{Level: LevelWarning, What: what, Rule: ruleVerification,
			Must: "give toolscope the instance's context_secret to judge the token as the server must"})
	case ctx.Verdict == VerdictAbsent && !c.HasMeta():
		x.add(Finding{Level: LevelInfo, What: plainCall})
	case ctx.Verdict == VerdictAbsent:
		x.add(Finding{Level: LevelError, What: "agentarea/* _meta keys without a token: " + SaysAbsent, Rule: ruleVerification,
			Must:       "the server must answer HTTP 401 · JSON-RPC -32001 (missing token) and not trust _meta alone",
			HTTPStatus: 401, RPCCode: -32001})
	}
}

const plainCall = "a plain MCP call: no AgentArea context token and no agentarea/* _meta keys, " +
	"so no token check and no relay rule apply"

// tapped says whether a tap carried one of the call's attempts.
func tapped(c *Call) bool {
	for i := range c.Attempts {
		if c.Attempts[i].Exchange != "" {
			return true
		}
	}
	return false
}

// failedStep is the first verification step that failed, with its detail.
func failedStep(ctx *Context) string {
	for _, s := range ctx.Steps {
		if !s.Passed {
			if s.Detail != "" && !strings.Contains(ctx.Reason, s.Detail) {
				return s.Name + ": " + s.Detail
			}
			return s.Name
		}
	}
	return ""
}

// serverAnswer says whether the server answered a rejected token as it must.
func serverAnswer(c *Call) string {
	a := c.LastAttempt()
	if a == nil || !a.HasResult || a.Exchange == "" { // only a tap sees the server's own answer
		return ""
	}
	r := &a.Result
	want := c.Context
	switch {
	case r.HTTPStatus == want.HTTPStatus && (want.RPCCode == 0 || r.RPCCode == want.RPCCode):
		return "it did"
	case r.HTTPStatus < 300 && r.RPCCode == 0:
		return fmt.Sprintf("this server answered HTTP %d with a result: it ran the tool on a token it had to refuse", r.HTTPStatus)
	}
	got := "HTTP " + strconv.Itoa(r.HTTPStatus)
	if r.RPCCode != 0 {
		got += " · JSON-RPC " + strconv.Itoa(r.RPCCode)
	}
	return "this server answered " + got + " instead"
}

// outcome: how the call ended (error, cancelled, late, running).
func (x *Explanation) outcome(c *Call, now time.Time) {
	a := c.LastAttempt()
	switch c.Status {
	case StatusCancelled:
		reason := ""
		if a != nil {
			reason = a.Cancelled
		}
		if isTimeout(c) {
			x.add(Finding{Level: LevelError, What: "the call timed out: " + cmp.Or(reason, "no result within the timeout"), Rule: ruleTimeout,
				Must: "the server must send its result within the instance's timeout (" + timeoutText(c) + "); progress does " +
					"not extend it: make the tool answer sooner, or raise the instance's tool_timeout_seconds (at most 1800 s)"})
			return
		}
		x.add(Finding{Level: LevelWarning, What: "the call was cancelled: " + cmp.Or(reason, "no reason given"),
			Must: "a client that disconnects or sends notifications/cancelled ends the call; the server should stop its work"})
	case StatusLate:
		if !c.AgentArea() { // no platform failed it: toolscope's --timeout passed
			x.add(Finding{Level: LevelWarning, What: "the result came after toolscope's --timeout (" + timeoutText(c) + "): " +
				"a client that waits no longer gave up on it",
				Must: "the server should answer sooner, or toolscope's --timeout should be what this tool needs (1 s to 1800 s)"})
			return
		}
		x.add(Finding{Level: LevelError, What: "the result came after the call's timeout (" + timeoutText(c) + "): the platform had " +
			"already failed the call, so the model never read it", Rule: ruleTimeout,
			Must: "the server must answer within the timeout, or the instance's tool_timeout_seconds must be raised"})
	case StatusRunning:
		x.add(Finding{Level: LevelInfo, What: "still running after " + FormatDuration(c.Elapsed(now)) +
			" of a " + timeoutText(c) + " timeout"})
	case StatusNeedsInput:
		server, waiting := c.RoundTimes(now)
		x.add(Finding{Level: LevelInfo, What: "the server asked the client for input (" + AskedSummary(c) + ") and waits for round " +
			strconv.Itoa(c.Rounds()+1) + ": " + FormatDuration(server) + " in the server, " + FormatDuration(waiting) + " waiting for the client",
			Must: "the client must send the same call again with inputResponses and the requestState the server gave"})
	case StatusError:
		if a == nil || !a.HasResult {
			return
		}
		r := &a.Result
		switch {
		case c.Context != nil && c.Context.Verdict == VerdictRejected && r.HTTPStatus == c.Context.HTTPStatus:
			// said by token()
		case r.IsError:
			x.add(Finding{Level: LevelError, What: "the tool answered isError: true; the model reads: " + cmp.Or(Truncate(cmp.Or(r.Error, r.TextPreview), 300), "(no text)"),
				Rule: isErrorRule(c), Must: "nothing, if the tool meant to fail; otherwise fix what its text says"})
		case r.RPCCode != 0:
			x.add(Finding{Level: LevelError, What: "the server answered a JSON-RPC error " + strconv.Itoa(r.RPCCode) + ": " + cmp.Or(Truncate(r.Error, 300), "(no message)"),
				Rule: ruleJSONRPC, HTTPStatus: r.HTTPStatus, RPCCode: r.RPCCode,
				Must: "a tool that fails should answer a result with isError: true, which the model reads; a JSON-RPC error fails the call"})
		case r.HTTPStatus >= 400:
			x.add(Finding{Level: LevelError, What: "the server answered HTTP " + strconv.Itoa(r.HTTPStatus) + ": " + cmp.Or(Truncate(r.Error, 300), "(no message)"),
				Rule: ruleJSONRPC, HTTPStatus: r.HTTPStatus,
				Must: "answer a tools/call with a JSON-RPC response carrying its id; an HTTP error fails the call"})
		default:
			x.add(Finding{Level: LevelError, What: "the call failed: " + cmp.Or(Truncate(r.Error, 300), "(no message)")})
		}
	}
}

// rounds: a multi-round call that ended, round by round: what the server
// asked, what the client answered, and the time split between the server
// and the wait for the client's input (a waiting call is said by outcome).
func (x *Explanation) rounds(c *Call, now time.Time) {
	a := c.LastAttempt()
	if a == nil || len(a.Rounds) < 2 || c.Status == StatusNeedsInput {
		return
	}
	server, waiting := c.RoundTimes(now)
	var what strings.Builder
	what.WriteString("the call took " + strconv.Itoa(len(a.Rounds)) + " rounds (" + FormatDuration(server) + " in the server, " +
		FormatDuration(waiting) + " waiting for the client's input)")
	for i := range a.Rounds[:len(a.Rounds)-1] {
		r := &a.Rounds[i]
		what.WriteString("; round " + strconv.Itoa(r.N) + ": the server asked (" + r.AskedSummary() + ")")
		if answered := a.Rounds[i+1].AnswersSummary(); answered != "" {
			what.WriteString(", the client answered " + answered)
		}
	}
	x.add(Finding{Level: LevelInfo, What: what.String(), Rule: ruleRounds})
}

// isErrorRule is the rule a tool's isError answer touches: MCP's, and
// AgentArea's only on a call that speaks it.
func isErrorRule(c *Call) string {
	if c.AgentArea() {
		return ruleIsErrorAgentArea
	}
	return ruleIsError
}

func isTimeout(c *Call) bool {
	for i := range c.Warnings {
		if c.Warnings[i].Code == string(WarnCallTimeout) {
			return true
		}
	}
	a := c.LastAttempt()
	return a != nil && (strings.Contains(a.Cancelled, "timed out") || strings.Contains(a.Result.Error, "timed out"))
}

func timeoutText(c *Call) string {
	if c.TimeoutMS > 0 {
		return FormatTimeout(c.TimeoutMS)
	}
	return FormatTimeout(DefaultTimeout.Milliseconds()) + " (the default)"
}

// result: the answer against MCP's rules and, on a call that speaks
// AgentArea, the platform's limits (a plain MCP call has no platform in
// between: decoder.SummarizeResult holds it to MCP alone).
func (x *Explanation) result(c *Call) {
	a := c.LastAttempt()
	if a == nil || !a.HasResult {
		return
	}
	r := &a.Result
	if r.Replayed {
		x.add(Finding{Level: LevelInfo, What: "replayed: " + SaysReplayed, Rule: ruleReplayed})
	}
	agentArea := c.AgentArea()
	if !agentArea {
		for _, im := range r.Images {
			if im.Problem != "" {
				x.add(Finding{Level: LevelWarning, What: "image " + cmp.Or(im.ID, im.MimeType) + ": " + im.Problem,
					Rule: ruleImageData, Must: "send base64 image data of the declared type"})
			}
		}
		return
	}
	if r.Offloaded || r.TextChars > MaxTextChars {
		x.add(Finding{Level: LevelWarning, Code: string(WarnTextOffloaded), What: fmt.Sprintf("text of %d characters, over %d: %s", r.TextChars, MaxTextChars, SaysOffloaded),
			Rule: ruleResultsText, Must: "return text under 8000 characters if the model must read it whole"})
	}
	if size := max(r.StructuredContentBytes, len(r.StructuredContent)); r.StructuredContentDropped || size > MaxStructuredChars {
		x.add(Finding{Level: LevelWarning, Code: string(WarnStructuredContentDropped), What: fmt.Sprintf("structured content of %d characters of JSON, over %d: %s", size, MaxStructuredChars, SaysDropped),
			Rule: ruleResultsSC, Must: "keep structuredContent under 16000 characters of JSON, and put what the model must read in content"})
	}
	if len(r.Images) > MaxImages {
		x.add(Finding{Level: LevelWarning, Code: string(WarnTooManyImages), What: fmt.Sprintf("%d images, over %d: the platform keeps %d", len(r.Images), MaxImages, MaxImages),
			Rule: ruleResultsImg, Must: "return at most 8 images"})
	}
	for _, im := range r.Images {
		problem := im.Problem
		if problem == "" && im.Size > MaxImageBytes {
			problem = fmt.Sprintf("%d bytes, over 5 MB", im.Size)
		}
		if problem != "" {
			x.add(Finding{Level: LevelWarning, What: "image " + cmp.Or(im.ID, im.MimeType) + " is refused: " + problem,
				Rule: ruleResultsImg, Must: "send PNG, JPEG, GIF or WebP of at most 5 MB"})
		}
	}
}

// progress: what the relay rule does to the call's notifications.
func (x *Explanation) progress(c *Call) {
	sent, relayed := c.SentCount(), c.RelayedCount()
	if sent == 0 || sent <= relayed || !c.Relays {
		return // plain MCP has no relay rule
	}
	x.add(Finding{Level: LevelInfo, What: fmt.Sprintf("%d progress notifications sent, %d relayed to the task feed under %s", sent, relayed, SaysRelayRule),
		Rule: ruleRelay, Must: "nothing is wrong; send progress at most every 0.5 s if every update must reach the feed"})
}

// warnings: each code once, with its meaning and rule from the one table;
// a code a finding above said already is not said twice.
func (x *Explanation) warnings(c *Call) {
	seen := map[string]bool{}
	for _, f := range x.Findings {
		seen[f.Code] = f.Code != ""
	}
	for i := range c.Warnings {
		w := &c.Warnings[i]
		if seen[w.Code] || w.Code == string(WarnCallTimeout) {
			continue
		}
		seen[w.Code] = true
		f := Finding{Level: LevelWarning, Code: w.Code, What: Truncate(w.Message, 300)}
		if info, ok := WarningInfoOf(w.Code); ok {
			f.What = plainMarkdown(info.Meaning) + ": " + f.What
			f.Rule = plainMarkdown(info.Rule)
		}
		f.Must = mustOf[WarningCode(w.Code)]
		x.add(f)
	}
}

// WarningInfoOf is the table's row for a code.
func WarningInfoOf(code string) (WarningInfo, bool) {
	for _, w := range WarningCodes {
		if string(w.Code) == code {
			return w, true
		}
	}
	return WarningInfo{}, false
}

func (x *Explanation) summary(c *Call, now time.Time) string {
	s := string(c.Status)
	if c.Status == StatusRunning || c.Status == StatusNeedsInput {
		s += " for " + FormatDuration(c.Elapsed(now))
	}
	if x.Cause != "" {
		s += ": " + x.Cause
	}
	for _, f := range x.Findings {
		if f.Level == LevelError && f.Must != "" {
			return sentence(s) + " " + sentence(upperFirst(f.Must))
		}
	}
	return sentence(s)
}

// sentence ends s with a full stop, unless it ends a sentence already (a
// cause quoted from the server often does).
func sentence(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!") {
		return s
	}
	return s + "."
}

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// plainMarkdown drops the table's code marks (`x` reads as x).
func plainMarkdown(s string) string { return strings.ReplaceAll(s, "`", "") }

package ui

// What the `?` page says under the keys: what every glyph, flag and column
// of the part on screen means, and the filter's syntax under the table.
// One glyph means one thing everywhere: ✓ ok (a call, a task, a step), ✕
// failed, ⊘ cancelled, ! late, ● a source that is up (its word says how),
// ○ ended or idle, ~ waiting (a task; a call that needs input), ⚠ warnings, ↓ follow, | / - \ running.

// helpNotes are the paragraphs under the keys ("" is a blank line).
func (m *Model) helpNotes() []string {
	notes := []string{""}
	switch m.mode {
	case modeTable:
		k := &m.filterKeys
		notes = append(notes,
			"while typing the filter: "+keyHelp(k.Apply)+" · "+keyHelp(k.Clear),
			"filter  tool:NAME task:ID source:tap|feed|NAME status:ok,error,running,needs-input,cancelled,late",
			"flag:valid,rejected,unverified,no-token,attempt,replayed,img,sc,dropped,offloaded,limit,pii,warning",
			"-TERM negates; plain text matches ids, task, tool, progress message, arguments, result and error text, cancel reason and warnings; every term must match",
			"")
		notes = append(notes, callsLegend...)
	case modeTasks:
		notes = append(notes, tasksLegend...)
	case modeDetail:
		notes = append(notes, detailLegend...)
	case modeLog:
		notes = append(notes, logLegend...)
	}
	return append(append(notes, ""), headerLegend...)
}

var callsLegend = []string{
	"status  ✓ ok  ✕ error  ⊘ cancelled  ! late (the result came after the timeout)  ~ needs input (the server asked the client for input, MCP 2026-07-28 input_required: the call waits for its next round; the progress column says what it asked)  | / - \\ running (it turns; ∙●∙ in the progress column when the total is unknown); in a narrow terminal the status is this glyph, before the tool, and a valid token is not flagged (the flags say only what is wrong); the status line under the table says the selected call whole",
	"PROGRESS  a bar with progress/total and the last message; for a call that failed, was cancelled or came late, why, most specific first (the token's failed step before the platform's words) and where its progress stopped (· at 5/23); else the start of its result",
	"FLAGS  valid, rejected N (the server must answer HTTP N), unverified (no secret to check it) or no token: the context token's verdict · attempt N: the platform's Nth try · round N: a multi-round call (the server asked the client for input), N rounds so far (the detail's ROUNDS say what was asked and answered) · replayed: answered from the idempotency store, not run again · img N: images · sc: structured content · sc dropped: over 16,000 characters, the platform leaves it out · offloaded: text over 8,000 characters, the model sees a pointer and a preview · limit: an image over the platform's limits · PII: personal data in the SOAT context · ⚠N: N warnings on the call",
	"SENT→REL (S→R)  progress notifications the server sent → those the platform relays (at most one each 0.5 s); ELAPSED  time taken/the call's timeout; TASK  the task's id, shown when the rows are of several tasks",
}

var tasksLegend = []string{
	"STATE  running (| / - \\ turning, in a narrow terminal), completed ✓, failed ✕, cancelled ⊘ (from the feed's task events), waiting ~ (for a follow-up or a continuation), idle ○ (no task event, no call running); calls without a task id are grouped by the source that saw them (TASK —)",
	"FROM  the feed (or tap) that reported the task · NOW  the call running now, its progress and last message (+N: more calls running), else how the task ended or its last call · CALLS  ended/all · FAIL  calls that failed, were cancelled or came late · WARN  warnings on its calls · LAST  since its last event",
}

var detailLegend = []string{
	"rounds  a multi-round call: each round's request, what the client answered, the server's time, and what the server asked (an elicitation's message and requested schema, a sampling request's summary, roots); above them the call's time in the server and waiting for the client's input",
	"verification  ✓ the step passed  ✗ it failed: the first ✗ is why the server must refuse the call, with the HTTP status and JSON-RPC code it must answer",
	"progress  sent: what the server sent (a tap sees it) · relayed: what the platform passed on (a feed sees it) · would relay / dropped by the 0.5 s rule: the tap's prediction",
}

var logLegend = []string{
	"each line  time (UTC)  source  name  kind  [task/call]  fields; a source's state changes, task events, pass-through events and warnings that belong to no call",
}

var headerLegend = []string{
	"header  N events (the sources' own, warnings apart) · N calls · N running · N need input (calls waiting for the client's input) · N/s events a second · ⚠ N warnings (a call's are in its detail, the rest in the l log) · N evicted: finished calls let go to bound memory · ↓ follow: the newest call stays selected · ⏸ PAUSED: drawing stopped, N events wait",
	"sources  ● connected (an output: ok) · ● connecting · ● reconnecting N: the Nth try · ● failing: up, but what it talks to does not answer (a tap's upstream, the OpenTelemetry collector), with why · ✕ failed: stopped, with why · ○ ended; a tap that has seen calls says what it speaks: AgentArea (a token or agentarea/* keys), SOAT (its context headers) or plain MCP (neither: no token to check, nothing relayed); the lines under the calls say a troubled source's reason whole",
}

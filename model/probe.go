package model

import "time"

// ProbeCase is one case of `toolscope probe` as a screen shows it: planned
// (Done false: ID, Title, Required and Expected only) or finished. The
// strings are as the probe made them; the request and the answer come from
// the wire, so whatever shows them sanitises them first.
type ProbeCase struct {
	ID       string
	Title    string // what is wrong in the call
	Required bool   // a failure fails the probe (exit 1)
	Expected string // the contract's answer: "401/-32001", "200 result", "… or …"

	Done     bool
	Actual   string // the server's answer; "-" when skipped
	Pass     bool
	Skipped  bool
	ToolRan  bool // the answer was a result: the tool ran
	Message  string
	Request  string // the request sent: request line, headers, body; secrets redacted
	Answer   string // the first 4 KiB of the answer
	Duration time.Duration
}

// ProbeEnd is how a probe run ended.
type ProbeEnd struct {
	Tool     string // the tool the cases called
	ExitCode int    // what the command exits with: 0 every required case passed, else 1
	Err      string // why the server could not be probed ("": it was)
	Duration time.Duration
}

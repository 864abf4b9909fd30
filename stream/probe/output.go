package probe

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"toolscope/model"
)

// caseLine is a probe.case JSON line.
type caseLine struct {
	Time string `json:"time"`
	Kind string `json:"kind"`
	Result
	DurationMS int64 `json:"duration_ms"`
}

// WriteCaseJSON writes one probe.case line.
func WriteCaseJSON(w io.Writer, r Result) error {
	b, err := json.Marshal(caseLine{Time: stamp(r.At), Kind: "probe.case", Result: r, DurationMS: r.Duration.Milliseconds()})
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// summaryLine is the final probe.summary JSON line.
type summaryLine struct {
	Time           string `json:"time"`
	Kind           string `json:"kind"`
	URL            string `json:"url"`
	Tool           string `json:"tool"`
	Pass           bool   `json:"pass"`
	Cases          int    `json:"cases"`
	Passed         int    `json:"passed"`
	Failed         int    `json:"failed"`
	RequiredFailed int    `json:"required_failed"`
	Skipped        int    `json:"skipped"`
	DurationMS     int64  `json:"duration_ms"`
	// Stopped is why the run ended before judging every case.
	Stopped string `json:"stopped,omitempty"`
}

// WriteSummaryJSON writes the probe.summary line.
func WriteSummaryJSON(w io.Writer, rep Report) error {
	passed, failed, rf, skipped := rep.Counts()
	line := summaryLine{Time: stamp(time.Now()), Kind: "probe.summary", URL: ShownURL(rep.URL), Tool: rep.Tool, Pass: rep.OK(),
		Cases: len(rep.Results), Passed: passed, Failed: failed, RequiredFailed: rf, Skipped: skipped,
		DurationMS: rep.Duration.Milliseconds()}
	if rep.Stop != nil {
		line.Stopped = rep.Stop.Error()
	}
	b, err := json.Marshal(line)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// textRow lays out one row of the text table.
const textRow = "%-24s %-9s %-26s %-12s %s\n"

// WriteTextHeader writes the text table's header.
func WriteTextHeader(w io.Writer, url, tool string) {
	fmt.Fprintf(w, "probing %s, calling %s\n", ShownURL(url), model.Sanitize(tool))
	fmt.Fprintf(w, textRow, "CASE", "REQUIRED", "EXPECTED", "ACTUAL", "VERDICT")
}

// WriteTextCase writes one case's row and its message.
func WriteTextCase(w io.Writer, r Result) {
	req := "no"
	if r.Required {
		req = "yes"
	}
	expected := r.Expected.String()
	if r.Also != nil {
		expected += " or " + r.Also.String()
	}
	verdict := "pass"
	switch {
	case r.Skipped:
		verdict = "skip"
	case !r.Pass && r.Required:
		verdict = "FAIL"
	case !r.Pass:
		verdict = "fail (informative)"
	}
	actual := r.Actual.String()
	if r.Skipped {
		actual = "-"
	}
	fmt.Fprintf(w, textRow, r.Case, req, expected, actual, verdict)
	fmt.Fprintf(w, "%-24s %s\n", "", r.Message)
}

// WriteTextSummary writes the closing line.
func WriteTextSummary(w io.Writer, rep Report) {
	passed, failed, rf, skipped := rep.Counts()
	verdict := "PASS: every required case passed"
	switch {
	case rep.Stop != nil:
		verdict = "FAIL: " + rep.Stop.Error()
	case rf == 1:
		verdict = "FAIL: 1 required case failed"
	case rf > 1:
		verdict = fmt.Sprintf("FAIL: %d required cases failed", rf)
	}
	fmt.Fprintf(w, "%s (%d passed, %d failed, %d skipped, in %s)\n", verdict, passed, failed, skipped,
		rep.Duration.Round(time.Millisecond))
}

// WriteList prints the cases without sending anything.
func WriteList(w io.Writer, cases []Case, strict bool) {
	fmt.Fprintf(w, "%-24s %-9s %-26s %s\n", "CASE", "REQUIRED", "EXPECTED", "WHAT IS WRONG")
	for _, c := range cases {
		req := "yes"
		if c.Level == Info || c.Level == Recommended && !strict {
			req = "no"
		}
		expected := c.Expect.String()
		if c.Accept() {
			expected = "the tool runs"
		}
		if c.Also != nil {
			expected += " or " + c.Also.String()
		}
		title := c.Title
		if c.NeedsCredential {
			title += " (only with a credential)"
		}
		fmt.Fprintf(w, "%-24s %-9s %-26s %s\n", c.ID, req, expected, title)
	}
}

// ShownURL is the URL without a password or query credentials.
func ShownURL(raw string) string {
	if u, err := parseURL(raw); err == nil {
		return model.RedactURL(u)
	}
	return model.Sanitize(strings.SplitN(raw, "?", 2)[0])
}

// stamp is a JSON line's time, as every toolscope line has it.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

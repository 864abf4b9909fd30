package decoder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"toolscope/model"
)

// MethodProgress is the MCP progress notification.
const MethodProgress = "notifications/progress"

// RelayInterval is the platform's rate (model.RelayInterval).
const RelayInterval = model.RelayInterval

// Progress is the params of one notifications/progress.
type Progress struct {
	Token    json.RawMessage
	Progress float64
	Total    *float64
	Message  string
}

// Done says whether this notification reports completion (progress >= total).
func (p Progress) Done() bool { return p.Total != nil && p.Progress >= *p.Total }

// ParseProgress reads notifications/progress params. progressToken (string or
// integer) and a finite numeric progress are required; total and message are
// optional.
func ParseProgress(params json.RawMessage) (Progress, error) {
	var raw wireProgress
	p := bytes.TrimSpace(params)
	if len(p) == 0 || p[0] != '{' {
		return Progress{}, errors.New("progress params is not an object")
	}
	if !raw.readOnePass(p) {
		raw = wireProgress{}
		if err := json.Unmarshal(p, &raw); err != nil {
			return Progress{}, fmt.Errorf("progress params: %v", err)
		}
	}
	var out Progress
	tok := nonNull(raw.Token)
	if tok == nil {
		return out, errors.New("progress notification has no progressToken")
	}
	if tok[0] != '"' && tok[0] != '-' && (tok[0] < '0' || tok[0] > '9') {
		return out, errors.New("progressToken is neither a string nor a number")
	}
	out.Token = append(json.RawMessage(nil), tok...)
	if nonNull(raw.Progress) == nil {
		return out, errors.New("progress notification has no progress")
	}
	v, err := finiteNumber(raw.Progress)
	if err != nil {
		return out, fmt.Errorf("progress: %v", err)
	}
	out.Progress = v
	if nonNull(raw.Total) != nil {
		t, err := finiteNumber(raw.Total)
		if err != nil {
			return out, fmt.Errorf("total: %v", err)
		}
		out.Total = &t
	}
	if nonNull(raw.Message) != nil {
		if out.Message, err = jsonString(raw.Message); err != nil {
			return out, errors.New("message is not a string")
		}
	}
	return out, nil
}

func finiteNumber(raw json.RawMessage) (float64, error) {
	if f, ok := plainNumber(raw); ok {
		return f, nil
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		return 0, errors.New("not a number")
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, errors.New("not a finite number")
	}
	return f, nil
}

// RelaySimulator says which progress notifications of one call the platform
// relays as tool.progress events: the first one, then at most one per 0.5 s,
// and always one reporting progress >= total. The zero value is ready; use
// one per call.
type RelaySimulator struct {
	last    time.Time
	started bool
}

// Relay reports whether the notification seen at time at would be relayed,
// and records it when it is.
func (r *RelaySimulator) Relay(at time.Time, p Progress) bool {
	if p.Done() || !r.started || at.Sub(r.last) >= RelayInterval {
		r.started = true
		r.last = at
		return true
	}
	return false
}

// ProgressChecker watches one call's notifications for the MCP rule that
// progress must increase with each one. The zero value is ready.
type ProgressChecker struct {
	last    float64
	started bool
}

// Check returns a progress_not_increasing warning when p does not exceed the
// previous progress of the call.
func (c *ProgressChecker) Check(p Progress) *Warning {
	prev, seen := c.last, c.started
	c.last, c.started = p.Progress, true
	if seen && p.Progress <= prev {
		return &Warning{Code: model.WarnProgressNotIncreasing, Message: fmt.Sprintf(
			"progress %s does not increase on the previous %s", fmtNum(p.Progress), fmtNum(prev))}
	}
	return nil
}

func fmtNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%g", f)
}

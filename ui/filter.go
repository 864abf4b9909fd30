package ui

import (
	"strings"

	"toolscope/model"
)

// filterTerm is one token of the `/` filter: a field (or "" for plain text),
// the lower-cased value, and whether it is negated with a leading '-'.
type filterTerm struct {
	field  string
	value  string
	negate bool
}

// filterQuery is every token, ANDed.
type filterQuery struct {
	text  string
	terms []filterTerm
}

var filterFields = map[string]bool{"tool": true, "task": true, "status": true, "source": true, "flag": true}

// parseFilter splits the query on spaces: `tool:get status:error,late -flag:valid sheet`.
func parseFilter(s string) filterQuery {
	q := filterQuery{text: strings.TrimSpace(s)}
	for _, tok := range strings.Fields(s) {
		t := filterTerm{}
		if strings.HasPrefix(tok, "-") && len(tok) > 1 {
			t.negate = true
			tok = tok[1:]
		}
		if f, v, ok := strings.Cut(tok, ":"); ok && filterFields[strings.ToLower(f)] {
			t.field, tok = strings.ToLower(f), v
		}
		t.value = strings.ToLower(tok)
		if t.value == "" {
			continue // "tool:" while typing matches everything
		}
		q.terms = append(q.terms, t)
	}
	return q
}

func (q *filterQuery) empty() bool { return len(q.terms) == 0 }

// match says whether a call passes every term.
func (q *filterQuery) match(c *model.Call) bool {
	for i := range q.terms {
		t := &q.terms[i]
		if t.matches(c) == t.negate {
			return false
		}
	}
	return true
}

func (t *filterTerm) matches(c *model.Call) bool {
	switch t.field {
	case "tool":
		return containsFold(c.Tool, t.value) || containsFold(c.AgentName, t.value)
	case "task":
		return containsFold(c.TaskID, t.value)
	case "status":
		for _, v := range strings.Split(t.value, ",") {
			if v != "" && strings.HasPrefix(string(c.Status), v) {
				return true
			}
		}
		return false
	case "source":
		for _, s := range c.Sources {
			if containsFold(s, t.value) {
				return true
			}
		}
		for _, kind := range sourceKinds(c) {
			if kind == t.value {
				return true
			}
		}
		return false
	case "flag":
		for _, v := range strings.Split(t.value, ",") {
			if v != "" && hasFlag(c, v) {
				return true
			}
		}
		return false
	}
	return containsFold(c.ID, t.value) || containsFold(c.Tool, t.value) ||
		containsFold(c.AgentName, t.value) || containsFold(c.Progress.Message, t.value) ||
		strings.HasPrefix(string(c.Status), t.value) || containsFold(c.IdempotencyKey, t.value)
}

// sourceKinds lists the kinds of source (tap, feed, ...) that saw the call.
func sourceKinds(c *model.Call) []string {
	var kinds []string
	add := func(k string) {
		for _, x := range kinds {
			if x == k {
				return
			}
		}
		kinds = append(kinds, k)
	}
	for _, a := range c.Attempts {
		if a.Exchange != "" {
			add(model.SourceTap)
		}
	}
	for i := range c.Timeline {
		if s := c.Timeline[i].Source; s != "" {
			add(s)
		}
	}
	return kinds
}

// hasFlag answers `flag:` terms with the names the flags column shows.
func hasFlag(c *model.Call, name string) bool {
	f := c.Flags
	verdict := ""
	if c.Context != nil {
		verdict = c.Context.Verdict
	}
	switch name {
	case "attempt", "retry", "retried":
		return f&model.FlagRetried != 0
	case "replayed", "replay":
		return f&model.FlagReplayed != 0
	case "img", "image", "images":
		return f&model.FlagImages != 0
	case "sc", "structured":
		return f&model.FlagStructured != 0
	case "dropped", "sc-dropped":
		return f&model.FlagStructuredDropped != 0
	case "offloaded":
		return f&model.FlagOffloaded != 0
	case "limit", "limits":
		return f&model.FlagLimit != 0
	case "rejected":
		return f&model.FlagRejected != 0 || verdict == model.VerdictRejected
	case "late":
		return f&model.FlagLate != 0
	case "pii":
		return f&model.FlagPII != 0
	case "warning", "warn", "warnings":
		return f&model.FlagWarning != 0
	case "valid", "unverified", "absent":
		return verdict == name
	case "no-token", "notoken":
		return verdict == model.VerdictAbsent
	case "token":
		return c.Context != nil && c.Context.Present
	}
	return false
}

// containsFold is a case-insensitive substring test; sub is already lower-case.
func containsFold(s, sub string) bool {
	if len(sub) > len(s) {
		return false
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		if equalFoldASCII(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

func equalFoldASCII(s, lower string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

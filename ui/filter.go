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
	// problems say what in the query names no field, status or flag: shown
	// in the filter line, so "0 of 11" is never a silent typo.
	problems []string
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
		} else if ok && looksLikeField(f, v) {
			q.problems = append(q.problems, "no field "+f+": (tool task status source flag)")
		}
		t.value = strings.ToLower(tok)
		if t.value == "" {
			continue // "tool:" while typing matches everything
		}
		q.problems = append(q.problems, t.unknownValues()...)
		q.terms = append(q.terms, t)
	}
	return q
}

// looksLikeField: "bogus:x" was meant as a field, "INV:2291" or a URL not.
func looksLikeField(f, v string) bool {
	if f == "" || strings.HasPrefix(v, "//") {
		return false
	}
	for _, r := range f {
		if (r < 'a' || r > 'z') && r != '_' && r != '-' {
			return false
		}
	}
	return true
}

var filterStatuses = []string{"ok", "error", "running", "cancelled", "late"}

// filterFlags are the names `flag:` knows (hasFlag), aliases included.
var filterFlags = map[string]bool{
	"attempt": true, "retry": true, "retried": true, "replayed": true, "replay": true,
	"img": true, "image": true, "images": true, "sc": true, "structured": true,
	"dropped": true, "sc-dropped": true, "offloaded": true, "limit": true, "limits": true,
	"rejected": true, "late": true, "pii": true, "warning": true, "warn": true, "warnings": true,
	"valid": true, "unverified": true, "absent": true, "no-token": true, "notoken": true, "token": true,
}

// unknownValues names the values of a status: or flag: term that match
// nothing ever.
func (t *filterTerm) unknownValues() []string {
	var bad []string
	for _, v := range strings.Split(t.value, ",") {
		if v == "" {
			continue
		}
		switch t.field {
		case "status":
			known := false
			for _, s := range filterStatuses {
				known = known || strings.HasPrefix(s, v)
			}
			if !known {
				bad = append(bad, "no status "+v+" ("+strings.Join(filterStatuses, " ")+")")
			}
		case "flag":
			if !filterFlags[v] {
				bad = append(bad, "no flag "+v+" (see ?)")
			}
		}
	}
	return bad
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
		strings.HasPrefix(string(c.Status), t.value) || containsFold(c.IdempotencyKey, t.value) ||
		containsFold(c.TaskID, t.value) || matchesShownText(c, t.value)
}

// maxSearchedArgs bounds the argument bytes plain text searches (a filter
// is re-run on every change; a huge argument must not stall the screen).
const maxSearchedArgs = 4096

// matchesShownText: plain text also finds what the table and detail show
// of a call: its arguments, result and error text, cancel reason, warnings.
func matchesShownText(c *model.Call, v string) bool {
	args := c.Arguments
	if len(args) > maxSearchedArgs {
		args = args[:maxSearchedArgs]
	}
	if containsFold(string(args), v) {
		return true
	}
	for i := range c.Attempts {
		a := &c.Attempts[i]
		if containsFold(a.Result.Error, v) || containsFold(a.Result.TextPreview, v) || containsFold(a.Cancelled, v) {
			return true
		}
	}
	for i := range c.Warnings {
		if containsFold(c.Warnings[i].Message, v) {
			return true
		}
	}
	return false
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

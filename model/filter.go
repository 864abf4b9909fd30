package model

import (
	"strings"
)

// Filter is a parsed call filter: the screen's `/` line and the MCP
// server's list_calls share it. Terms are separated by spaces and ANDed;
// a leading '-' negates one: `tool:get status:error,late -flag:valid sheet`.
type Filter struct {
	Text  string // the query as given, trimmed
	terms []filterTerm
	// Problems say what in the query names no field, status or flag, so
	// that matching nothing is never a silent typo.
	Problems []FilterProblem
}

// FilterProblem is one part of a query that can never match: an unknown
// field (Field "", Value the field's name), or an unknown value of the
// status or flag field. Valid lists what would have been understood.
type FilterProblem struct {
	Field string
	Value string
	Valid []string
}

// Error says the problem and what is valid.
func (p FilterProblem) Error() string {
	valid := strings.Join(p.Valid, " ")
	if p.Field == "" {
		return "no field " + p.Value + ": (fields: " + valid + ")"
	}
	return "no " + p.Field + " " + p.Value + " (" + p.Field + ": " + valid + ")"
}

// filterTerm is one token: a field ("" for plain text), the lower-cased
// value, and whether it is negated.
type filterTerm struct {
	field  string
	value  string
	negate bool
}

// FilterFields are the fields a term may name.
var FilterFields = []string{"tool", "task", "status", "source", "flag"}

// FilterStatuses are the values of status: (a prefix works: status:err),
// a space written '-' (status:needs-input).
var FilterStatuses = []string{string(StatusOK), string(StatusError), string(StatusRunning), "needs-input", string(StatusCancelled), string(StatusLate)}

// statusIs says whether a status starts with a status: value, whose '-'
// stands for a space (a query splits on spaces).
func statusIs(status, v string) bool {
	return strings.HasPrefix(strings.ReplaceAll(status, " ", "-"), strings.ReplaceAll(v, " ", "-"))
}

// filterFlag is one name flag: knows, with the names it also answers to.
// has is asked of a call of the snapshot s.
type filterFlag struct {
	name    string
	aliases []string
	has     func(s *Snapshot, c *Call) bool
}

func flagBit(bit CallFlag) func(*Snapshot, *Call) bool {
	return func(_ *Snapshot, c *Call) bool { return c.Flags&bit != 0 }
}

func verdictIs(v string) func(*Snapshot, *Call) bool {
	return func(_ *Snapshot, c *Call) bool { return c.Context != nil && c.Context.Verdict == v }
}

// missingToken: the call has no token where AgentArea's contract applies
// (SpeaksAgentArea), as the screen's "no token"; a plain MCP call has no
// token to miss, even where a recording says "absent" of it.
func missingToken(s *Snapshot, c *Call) bool { return s.MissingToken(c) }

// filterFlags are the names the table's flags column shows, in its order.
var filterFlags = []filterFlag{
	{"attempt", []string{"retry", "retried"}, flagBit(FlagRetried)},
	{"replayed", []string{"replay"}, flagBit(FlagReplayed)},
	{"valid", nil, verdictIs(VerdictValid)},
	{"rejected", nil, func(s *Snapshot, c *Call) bool { return c.Flags&FlagRejected != 0 || verdictIs(VerdictRejected)(s, c) }},
	{"unverified", nil, verdictIs(VerdictUnverified)},
	{"no-token", []string{"notoken", "absent"}, missingToken},
	{"token", nil, func(_ *Snapshot, c *Call) bool { return c.Context != nil && c.Context.Present }},
	{"img", []string{"image", "images"}, flagBit(FlagImages)},
	{"sc", []string{"structured"}, flagBit(FlagStructured)},
	{"dropped", []string{"sc-dropped"}, flagBit(FlagStructuredDropped)},
	{"offloaded", nil, flagBit(FlagOffloaded)},
	{"limit", []string{"limits"}, flagBit(FlagLimit)},
	{"late", nil, flagBit(FlagLate)},
	{"pii", nil, flagBit(FlagPII)},
	{"warning", []string{"warn", "warnings"}, flagBit(FlagWarning)},
}

// filterFlagIndex finds a flag by any of its names.
var filterFlagIndex = func() map[string]*filterFlag {
	m := map[string]*filterFlag{}
	for i := range filterFlags {
		f := &filterFlags[i]
		m[f.name] = f
		for _, a := range f.aliases {
			m[a] = f
		}
	}
	return m
}()

// FilterFlagNames are the values of flag: (each also has aliases).
var FilterFlagNames = func() []string {
	names := make([]string, len(filterFlags))
	for i, f := range filterFlags {
		names[i] = f.name
	}
	return names
}()

// ParseFilter splits the query on spaces into terms.
func ParseFilter(s string) Filter {
	f := Filter{Text: strings.TrimSpace(s)}
	for _, tok := range strings.Fields(s) {
		t := filterTerm{}
		if strings.HasPrefix(tok, "-") && len(tok) > 1 {
			t.negate = true
			tok = tok[1:]
		}
		if name, v, ok := strings.Cut(tok, ":"); ok && isFilterField(strings.ToLower(name)) {
			t.field, tok = strings.ToLower(name), v
		} else if ok && looksLikeField(name, v) {
			f.Problems = append(f.Problems, FilterProblem{Value: name, Valid: FilterFields})
		}
		t.value = strings.ToLower(tok)
		if t.value == "" {
			continue // "tool:" while typing matches everything
		}
		f.Problems = append(f.Problems, t.unknownValues()...)
		f.terms = append(f.terms, t)
	}
	return f
}

func isFilterField(name string) bool {
	for _, f := range FilterFields {
		if f == name {
			return true
		}
	}
	return false
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

// unknownValues are the values of a status: or flag: term that match
// nothing ever.
func (t *filterTerm) unknownValues() []FilterProblem {
	var bad []FilterProblem
	for _, v := range strings.Split(t.value, ",") {
		if v == "" {
			continue
		}
		switch t.field {
		case "status":
			known := false
			for _, s := range FilterStatuses {
				known = known || statusIs(s, v)
			}
			if !known {
				bad = append(bad, FilterProblem{Field: "status", Value: v, Valid: FilterStatuses})
			}
		case "flag":
			if filterFlagIndex[v] == nil {
				bad = append(bad, FilterProblem{Field: "flag", Value: v, Valid: FilterFlagNames})
			}
		}
	}
	return bad
}

// Empty says whether the filter lets every call through.
func (f *Filter) Empty() bool { return len(f.terms) == 0 }

// Match says whether a call of the snapshot s passes every term.
func (f *Filter) Match(s *Snapshot, c *Call) bool {
	for i := range f.terms {
		t := &f.terms[i]
		if t.matches(s, c) == t.negate {
			return false
		}
	}
	return true
}

func (t *filterTerm) matches(s *Snapshot, c *Call) bool {
	switch t.field {
	case "tool":
		return ContainsFoldASCII(c.Tool, t.value) || ContainsFoldASCII(c.AgentName, t.value)
	case "task":
		return ContainsFoldASCII(c.TaskID, t.value)
	case "status":
		for _, v := range strings.Split(t.value, ",") {
			if v != "" && statusIs(string(c.Status), v) {
				return true
			}
		}
		return false
	case "source":
		for _, s := range c.Sources {
			if ContainsFoldASCII(s, t.value) {
				return true
			}
		}
		for _, kind := range c.SourceKinds() {
			if kind == t.value {
				return true
			}
		}
		return false
	case "flag":
		for _, v := range strings.Split(t.value, ",") {
			if f := filterFlagIndex[v]; f != nil && f.has(s, c) {
				return true
			}
		}
		return false
	}
	return ContainsFoldASCII(c.ID, t.value) || ContainsFoldASCII(c.Tool, t.value) ||
		ContainsFoldASCII(c.AgentName, t.value) || ContainsFoldASCII(c.Progress.Message, t.value) ||
		strings.HasPrefix(string(c.Status), t.value) || ContainsFoldASCII(c.IdempotencyKey, t.value) ||
		ContainsFoldASCII(c.TaskID, t.value) || matchesShownText(c, t.value)
}

// maxSearchedArgs bounds the argument bytes plain text searches (a filter
// is run again on every change; a huge argument must not stall a reader).
const maxSearchedArgs = 4096

// matchesShownText: plain text also finds what the table and detail show
// of a call: its arguments, result and error text, cancel reason, warnings.
func matchesShownText(c *Call, v string) bool {
	args := c.Arguments
	if len(args) > maxSearchedArgs {
		args = args[:maxSearchedArgs]
	}
	if ContainsFoldASCII(string(args), v) {
		return true
	}
	for i := range c.Attempts {
		a := &c.Attempts[i]
		if ContainsFoldASCII(a.Result.Error, v) || ContainsFoldASCII(a.Result.TextPreview, v) || ContainsFoldASCII(a.Cancelled, v) {
			return true
		}
	}
	for i := range c.Warnings {
		if ContainsFoldASCII(c.Warnings[i].Message, v) {
			return true
		}
	}
	return false
}

// SourceKinds lists the kinds of source (tap, feed, ...) that saw the call.
func (c *Call) SourceKinds() []string {
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
			add(SourceTap)
		}
	}
	for i := range c.timeline {
		if s := c.timeline[i].Source; s != "" {
			add(s)
		}
	}
	return kinds
}

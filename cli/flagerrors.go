package cli

import (
	"fmt"
	"slices"
	"strings"

	"toolscope/model"
)

// undefinedFlag is the flag package's message for a flag no one defined.
const undefinedFlag = "flag provided but not defined: -"

// flagError is the reason a parse error gets on its one line: a flag this
// form of the command refuses says why, an unknown one says "unknown flag"
// with what was likely meant; the flag package's other messages are kept,
// with flags spelled as the help spells them.
func (s *flagSet) flagError(err error) string {
	name, undefined := strings.CutPrefix(err.Error(), undefinedFlag)
	if !undefined {
		return dashDash(err)
	}
	if why, ok := s.refused[name]; ok {
		return why
	}
	name = model.Sanitize(name)
	msg := "unknown flag --" + name
	if others := commandsWithFlag(name); len(others) > 0 {
		return msg + fmt.Sprintf(": a flag of %s, not of %s", strings.Join(others, " and "), s.helpName)
	}
	if near := nearestName(name, s.names()); near != "" {
		return msg + ": did you mean --" + near + "?"
	}
	return msg
}

// commandsWithFlag are the commands that take --name ("tap -- COMMAND"
// when only the stdio tap does).
func commandsWithFlag(name string) []string {
	var out []string
	for _, fs := range allFlagSets() {
		shown := fs.helpName
		if shown == "tap --" {
			shown = "tap -- COMMAND"
		}
		if fs.Lookup(name) != nil && !slices.Contains(out, fs.Name()) && !slices.Contains(out, shown) {
			out = append(out, shown)
		}
	}
	return out
}

// allFlagSets are every command's flags, each form of tap apart.
func allFlagSets() []*flagSet {
	var out []*flagSet
	for _, c := range commands() {
		out = append(out, c.new().flags())
	}
	return append(out, newStdioTapCommand().fs)
}

// nearestName is the name within two edits of name (a typo), or "".
func nearestName(name string, names []string) string {
	best, bestDist := "", 3
	for _, n := range names {
		if d := editDistance(name, n); d < bestDist && d < len(n) {
			best, bestDist = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

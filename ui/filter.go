package ui

import (
	"strings"

	"toolscope/model"
)

// The filter's parser and matcher are model.Filter's (the MCP server's
// list_calls reads the same syntax); the screen keeps how a problem reads
// in its one-line footer.

// filterProblemText is a filter problem as the footer says it: the fields
// and statuses listed, the flags left to `?` (they do not fit a line).
func filterProblemText(p model.FilterProblem) string {
	switch p.Field {
	case "":
		return "no field " + p.Value + ": (" + strings.Join(p.Valid, " ") + ")"
	case "flag":
		return "no flag " + p.Value + " (see ?)"
	}
	return "no " + p.Field + " " + p.Value + " (" + strings.Join(p.Valid, " ") + ")"
}

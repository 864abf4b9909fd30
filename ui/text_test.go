package ui

import (
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"toolscope/model"
)

// shortID cuts between characters and to at most 8 cells.
func TestShortIDCutsCharacters(t *testing.T) {
	for id, want := range map[string]string{
		"":                 "",
		"task-1":           "task-1",
		"6f1c2a9e-4b7d":    "6f1c2a9e",
		"tâche-éèà":        "tâche-éè",
		"T\x1b[2J\x1b]0;x": "T␛[2J␛]0",
		"任务标识符号码":          "任务标识",
		"ab任务标识符":          "ab任务标",
		"abcdefg任":         "abcdefg",
		"e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301": "e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301",
	} {
		got := shortID(model.Sanitize(id))
		if got != want || !utf8.ValidString(got) || ansi.StringWidth(got) > 8 {
			t.Errorf("shortID(%q) = %q, want %q", id, got, want)
		}
	}
}

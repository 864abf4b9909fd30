package model

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var updateDoc = flag.Bool("update", false, "rewrite docs/warning-codes.md's table from WarningCodes")

// codeForm is how every warning code is spelled.
var codeForm = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)+$`)

// flagNames are the names docs/warning-codes.md (and the `flag:` filter) give the
// flags a warning can raise.
var flagNames = map[CallFlag]string{FlagLimit: "limit", FlagPII: "pii"}

func TestWarningCodesTable(t *testing.T) {
	seen := map[WarningCode]bool{}
	for _, w := range WarningCodes {
		if !codeForm.MatchString(string(w.Code)) {
			t.Errorf("%q is not spelled like a code (%s)", w.Code, codeForm)
		}
		if seen[w.Code] {
			t.Errorf("%s is in the table twice", w.Code)
		}
		seen[w.Code] = true
		for what, text := range map[string]string{"meaning": w.Meaning, "rule": w.Rule} {
			if strings.TrimSpace(text) == "" || strings.ContainsAny(text, "|\n") {
				t.Errorf("%s: %s %q is empty or would break the docs table", w.Code, what, text)
			}
		}
		if _, ok := flagNames[w.Flag]; w.Flag != 0 && !ok {
			t.Errorf("%s raises flag %d, which has no name in the docs table", w.Code, w.Flag)
		}
	}
	// Every constant declared has its row.
	for name, code := range declaredWarningCodes(t) {
		if !seen[code] {
			t.Errorf("%s (%q) is declared but not in WarningCodes", name, code)
		}
	}
}

// declaredWarningCodes reads the WarningCode constants from the table's
// source file, so a constant added without a row is caught.
func declaredWarningCodes(t *testing.T) map[string]WarningCode {
	f, err := parser.ParseFile(token.NewFileSet(), "warning_codes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]WarningCode{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "WarningCode" {
				continue
			}
			for i, n := range vs.Names {
				v, err := strconv.Unquote(vs.Values[i].(*ast.BasicLit).Value)
				if err != nil {
					t.Fatal(err)
				}
				out[n.Name] = WarningCode(v)
			}
		}
	}
	if len(out) != len(WarningCodes) {
		t.Errorf("%d WarningCode constants, %d rows", len(out), len(WarningCodes))
	}
	return out
}

// TestWarningFlagsKeepTheOldRule: the flags the table gives are those the
// substring rule gave before it (pii_in_context; too_large, too_many,
// image_), so the table changed no call's flags. history_event_too_large
// matched that rule by accident: it is about the feed's memory ceiling,
// never on a call, and raises nothing.
func TestWarningFlagsKeepTheOldRule(t *testing.T) {
	oldRule := func(code string) CallFlag {
		var f CallFlag
		if code == "pii_in_context" {
			f |= FlagPII
		}
		if strings.Contains(code, "too_large") || strings.Contains(code, "too_many") || strings.HasPrefix(code, "image_") {
			f |= FlagLimit
		}
		return f
	}
	for _, w := range WarningCodes {
		want := oldRule(string(w.Code))
		if w.Code == WarnHistoryEventTooLarge {
			want = 0
		}
		if got := warningFlag(string(w.Code)); got != want {
			t.Errorf("%s raises %b, the old rule %b", w.Code, got, want)
		}
	}
}

// TestWarningFlagOnCall: a warning on a call raises FlagWarning and the
// flag its row names; a code the table does not hold raises FlagWarning only.
func TestWarningFlagOnCall(t *testing.T) {
	cases := []struct {
		code string
		want CallFlag
	}{
		{string(WarnImageTooLarge), FlagWarning | FlagLimit},
		{string(WarnMetadataTooLarge), FlagWarning | FlagLimit},
		{string(WarnPIIInContext), FlagWarning | FlagPII},
		{string(WarnTokenReused), FlagWarning},
		{"image_from_another_version", FlagWarning},
	}
	for _, tc := range cases {
		s := NewStore(Options{})
		s.Apply(tapCall(0, "ex-1"))
		w := tapCall(10, "ex-1")
		w.Kind, w.Code, w.Message, w.Context = KindWarning, tc.code, "m", nil
		s.Apply(w)
		calls := s.Snapshot().Calls
		if len(calls) != 1 {
			t.Fatalf("%s: %d calls", tc.code, len(calls))
		}
		if got := calls[0].Flags & (FlagWarning | FlagLimit | FlagPII); got != tc.want {
			t.Errorf("%s: flags %b, want %b", tc.code, got, tc.want)
		}
	}
}

const (
	docStart = "<!-- warning-codes:start (generated from model/warning_codes.go: go test ./model -run TestWarningCodesDoc -update) -->"
	docEnd   = "<!-- warning-codes:end -->"
)

// warningCodesMarkdown is docs/warning-codes.md's table, one row per code.
func warningCodesMarkdown() string {
	var b strings.Builder
	b.WriteString("| code | meaning | rule | flag |\n| --- | --- | --- | --- |\n")
	for _, w := range WarningCodes {
		fl := ""
		if w.Flag != 0 {
			fl = "`" + flagNames[w.Flag] + "`"
		}
		b.WriteString("| `" + string(w.Code) + "` | " + w.Meaning + " | " + w.Rule + " | " + fl + " |\n")
	}
	return b.String()
}

// TestWarningCodesDoc: docs/warning-codes.md's table is the one
// WarningCodes generates. With -update it rewrites it between the markers.
func TestWarningCodesDoc(t *testing.T) {
	path := filepath.Join("..", "docs", "warning-codes.md")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	start := strings.Index(doc, docStart)
	end := strings.Index(doc, docEnd)
	if start < 0 || end < start {
		t.Fatalf("docs/warning-codes.md lacks the markers %q ... %q", docStart, docEnd)
	}
	start += len(docStart)
	want := "\n" + warningCodesMarkdown()
	if doc[start:end] == want {
		return
	}
	if *updateDoc {
		if err := os.WriteFile(path, []byte(doc[:start]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("docs/warning-codes.md: table rewritten")
		return
	}
	t.Errorf("docs/warning-codes.md's table differs from WarningCodes; run\n"+
		"  go test ./model -run TestWarningCodesDoc -update\nto write this one:\n%s", want)
}

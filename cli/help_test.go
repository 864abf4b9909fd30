package cli

import (
	"flag"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// captureStdout runs f with os.Stdout going to a pipe and returns what it wrote.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	return capture(t, &os.Stdout, f)
}

// capture runs f with *file going to a pipe and returns what it wrote.
func capture(t *testing.T, file **os.File, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := *file
	*file = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	defer func() { *file = old }()
	f()
	w.Close()
	return <-done
}

// helpOf runs args (a --help) and returns what it printed and the flags
// the command parsed with.
func helpOf(t *testing.T, args ...string) (string, *flagSet) {
	t.Helper()
	var seen *flagSet
	onFlagSet = func(s *flagSet) { seen = s }
	defer func() { onFlagSet = nil }()
	var code int
	help := captureStdout(t, func() { code = run(args) })
	if code != 0 || seen == nil {
		t.Fatalf("%v: exit %d, flags seen: %v", args, code, seen != nil)
	}
	return help, seen
}

// helpFlagLine finds the flags the help lists: "  --name" at a line's
// start, not one of a comma-separated list (the stdio tap's, in tap's help).
var helpFlagLine = regexp.MustCompile(`(?m)^  --([a-z][a-z0-9-]*)(?:[ \n]|$)`)

// TestHelpListsExactlyItsFlags: every form of every command lists in its
// help each flag it accepts, described, and no flag it does not accept.
func TestHelpListsExactlyItsFlags(t *testing.T) {
	forms := [][]string{{"tap", "--help", "--"}}
	for _, c := range commands() {
		forms = append(forms, []string{c.name, "--help"})
	}
	for _, args := range forms {
		help, s := helpOf(t, args...)
		listed := map[string]bool{}
		for _, m := range helpFlagLine.FindAllStringSubmatch(help, -1) {
			listed[m[1]] = true
			if s.Lookup(m[1]) == nil {
				t.Errorf("%v lists --%s, which it does not accept", args, m[1])
			}
		}
		s.VisitAll(func(f *flag.Flag) {
			if !listed[f.Name] {
				t.Errorf("%v lacks --%s", args, f.Name)
			}
			if f.Usage == "" {
				t.Errorf("%v: --%s has no description", args, f.Name)
			}
		})
		if len(listed) == 0 {
			t.Errorf("%v lists no flag", args)
		}
	}
}

// TestHelpCommand: 'toolscope help CMD' is CMD's help ('help tap --' the
// stdio tap's), and the tap's help names every flag the stdio form takes.
func TestHelpCommand(t *testing.T) {
	for _, c := range commands() {
		viaHelp, _ := helpOf(t, "help", c.name)
		direct, _ := helpOf(t, c.name, "--help")
		if viaHelp != direct || !strings.Contains(viaHelp, "Usage: toolscope "+c.name) {
			t.Errorf("help %s differs from %s --help:\n%s", c.name, c.name, viaHelp)
		}
	}
	stdio, s := helpOf(t, "help", "tap", "--")
	if !strings.HasPrefix(stdio, "Usage: toolscope tap [flags] -- COMMAND") || s.Lookup("enforce") != nil || s.Lookup("output") != nil {
		t.Errorf("help tap --: %q", stdio)
	}
	tapHelp, _ := helpOf(t, "help", "tap")
	for _, name := range s.names() {
		if !strings.Contains(tapHelp, "--"+name+",") && !strings.Contains(tapHelp, "--"+name+".") {
			t.Errorf("tap's help does not say -- COMMAND takes --%s", name)
		}
	}
}

// TestUsageErrorsSayWhy: a flag that is unknown, misplaced, misspelt or
// does not apply to the form used is one line saying so, exit 2.
func TestUsageErrorsSayWhy(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "toolscope: unknown flag --bogus"},
		{[]string{"--output", "json"}, "--output goes after a command"},
		{[]string{"replay", "--no-such-flag", "x"}, "toolscope replay: unknown flag --no-such-flag (run 'toolscope help replay')"},
		{[]string{"replay", "--ouput", "json", "x"}, "unknown flag --ouput: did you mean --output?"},
		{[]string{"demo", "--enforce"}, "toolscope demo: unknown flag --enforce: a flag of watch and tap, not of demo"},
		{[]string{"replay", "--feed", "u", "x"}, "unknown flag --feed: a flag of watch and tap, not of replay"},
		{[]string{"tap", "--enforce", "--", "cat"}, "toolscope tap: --enforce does not apply to -- COMMAND: the stdio tap only watches the pipes"},
		{[]string{"tap", "--upstream", "http://127.0.0.1:9/mcp", "--", "cat"}, "--upstream does not apply to -- COMMAND: there is no HTTP"},
		{[]string{"tap", "--feed", "http://127.0.0.1:9/x", "--", "cat"}, "--feed does not apply to -- COMMAND: a stdio tap has no feeds"},
		{[]string{"tap", "--upstream", "http://127.0.0.1:9/mcp", "--name", "x"}, "--name applies only to a stdio server"},
		{[]string{"help", "bogus"}, `toolscope help: no help for "bogus"`},
		{[]string{"frobnicate"}, `toolscope: unknown command "frobnicate"`},
		{[]string{"replay", "--speed", "x", "f"}, `invalid value "x" for flag --speed`},
	}
	for _, tc := range cases {
		code, stderr := runCapturingStderr(t, tc.args)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
			t.Errorf("toolscope %v: exit %d, stderr %q; want 2 and one line with %q", tc.args, code, stderr, tc.want)
		}
	}
}

func TestVersionAndDashDash(t *testing.T) {
	var code int
	out := captureStdout(t, func() { code = run([]string{"--version"}) })
	if code != 0 || !strings.HasPrefix(out, "toolscope ") || !strings.Contains(out, "go1.") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Float64("speed", 1, "")
	for args, want := range map[string]string{
		"--bogus":    "flag provided but not defined: --bogus",
		"--speed=x":  `invalid value "x" for flag --speed`,
		"--speed":    "flag needs an argument: --speed",
		"--speed=-1": "", // a negative value is a value, not a flag
	} {
		err := fs.Parse([]string{args})
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", args, err)
			}
			continue
		}
		if got := dashDash(err); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", args, got, want)
		}
	}
}

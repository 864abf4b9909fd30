package cli

import (
	"flag"
	"io"
	"os"
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

// TestHelpListsEveryFlag: every flag a command accepts is in its --help,
// with a description.
func TestHelpListsEveryFlag(t *testing.T) {
	sets := map[string]*flag.FlagSet{}
	onFlagSet = func(fs *flag.FlagSet) { sets[fs.Name()] = fs }
	defer func() { onFlagSet = nil }()
	for _, c := range commands() {
		var code int
		help := captureStdout(t, func() { code = run([]string{c.name, "--help"}) })
		if code != 0 {
			t.Errorf("%s --help: exit %d", c.name, code)
		}
		fs := sets[c.name]
		if fs == nil {
			t.Fatalf("%s: no FlagSet seen", c.name)
		}
		n := 0
		fs.VisitAll(func(f *flag.Flag) {
			n++
			if !strings.Contains(help, "  --"+f.Name+" ") && !strings.Contains(help, "  --"+f.Name+"\n") {
				t.Errorf("%s --help lacks --%s", c.name, f.Name)
			}
			if f.Usage == "" {
				t.Errorf("%s --%s has no description", c.name, f.Name)
			}
		})
		if n == 0 {
			t.Errorf("%s accepts no flag", c.name)
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

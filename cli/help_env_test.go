package cli

import (
	"strings"
	"testing"

	"toolscope/decoder/soat"
	"toolscope/decoder/token"
)

// TestHelpNamesEnvOnce: the usage texts name the environment variables the
// decoder reads (filled in from its constants) and keep no marker.
func TestHelpNamesEnvOnce(t *testing.T) {
	for _, c := range commands() {
		help := captureStdout(t, func() { run([]string{c.name, "--help"}) })
		if strings.Contains(help, "{{") {
			t.Errorf("%s --help keeps a marker: %q", c.name, help)
		}
	}
	tap := captureStdout(t, func() { run([]string{"tap", "--help"}) })
	for _, name := range []string{token.SecretEnv, soat.PrefixEnv} {
		if !strings.Contains(tap, name+" ") && !strings.Contains(tap, name+".") {
			t.Errorf("tap --help does not name %s", name)
		}
	}
}

package model_test

import (
	"encoding/json"
	"testing"

	"toolscope/model"
	"toolscope/model/modeltest"
)

// TestSecretTableRedacted: the policy alone hides every secret of the one
// table (cli's TestSecretsReachNoOutput runs it through every output), and
// each event still says what it was.
func TestSecretTableRedacted(t *testing.T) {
	tb := modeltest.Secrets()
	r := model.NewRedactor(tb.Redaction())
	var all []byte
	for _, e := range tb.Events() {
		b, err := json.Marshal(r.Event(e))
		if err != nil {
			t.Fatal(err)
		}
		all = append(append(all, b...), '\n')
	}
	tb.Check(t, "the redacted events", string(all))
	args := r.Args(tb.Argv)
	b, _ := json.Marshal(args)
	tb.Check(t, "the redacted command line", string(b))
	if args[0] != "ledger-server" || args[len(args)-1] != "8080" {
		t.Errorf("the command line lost what is no secret: %q", args)
	}
}

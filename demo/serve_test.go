package demo

import (
	"context"
	"testing"
	"time"

	"toolscope/stream/probe"
)

// The demo's server is the reference strict server: toolscope probe passes
// every case against it, --strict included, and no rejected case runs the
// tool.
func TestProbePassesAgainstTheDemoServer(t *testing.T) {
	s := StartServer(20)
	t.Cleanup(s.Close)
	rep, err := probe.Run(context.Background(), probe.Config{URL: s.URL, InstanceID: s.InstanceID, Secret: s.Secret,
		Tool: s.Tool, Args: s.Args, Strict: true, Timeout: 10 * time.Second,
		Credential: probe.Credential{Name: "Authorization", Value: "Bearer " + s.Credential}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != len(probe.Cases()) {
		t.Fatalf("%d results, want %d", len(rep.Results), len(probe.Cases()))
	}
	accepted := map[string]bool{}
	for _, c := range probe.Cases() {
		accepted[c.ID] = c.Accept()
	}
	for _, r := range rep.Results {
		if !r.Pass || r.Skipped {
			t.Errorf("%s: pass=%v skipped=%v: %s", r.Case, r.Pass, r.Skipped, r.Message)
		}
		if r.Ran != accepted[r.Case] {
			t.Errorf("%s: tool ran = %v, want %v", r.Case, r.Ran, accepted[r.Case])
		}
	}
}

package probe

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"
)

func runProbe(t *testing.T, cfg Config) Report {
	t.Helper()
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// failedRequired lists the ids of the required cases that failed.
func failedRequired(rep Report) []string {
	var out []string
	for _, r := range rep.Results {
		if r.Required && !r.Pass {
			out = append(out, r.Case)
		}
	}
	return out
}

// acceptedCases are the cases whose call the contract lets run, with how
// many times the tool runs for each on a server that keeps an idempotency
// store.
var acceptedCases = map[string]int{"valid": 1, "skew_expired": 1, "skew_iat_ahead": 1, "key_order": 1,
	"protocol_minor": 1, "idempotent_replay": 1}

func TestStrictServerPassesEveryCase(t *testing.T) {
	s := startContractServer(t, laxness{})
	var live []string
	cfg := s.config()
	cfg.Strict = true
	cfg.OnCase = func(r Result) { live = append(live, r.Case) }
	rep := runProbe(t, cfg)
	if rep.Tool != "echo" {
		t.Errorf("tool = %q, want the first of tools/list, echo", rep.Tool)
	}
	if len(rep.Results) != len(Cases()) || len(live) != len(Cases()) {
		t.Fatalf("%d results, %d live callbacks, want %d", len(rep.Results), len(live), len(Cases()))
	}
	for _, r := range rep.Results {
		if !r.Pass || r.Skipped {
			t.Errorf("%s: pass=%v skipped=%v: %s (actual %s)", r.Case, r.Pass, r.Skipped, r.Message, r.Actual)
		}
	}
	if !rep.OK() {
		t.Error("report not OK")
	}
	// The details show the request sent, never the credential or a signature.
	var out strings.Builder
	for _, r := range rep.Results {
		_ = WriteCaseJSON(&out, r)
		if tok, ok := r.Exchange.RequestHeader["X-Agentarea-Context"]; ok && r.Case != "token_not_jwt" && !strings.HasSuffix(tok, ".[redacted]") {
			t.Errorf("%s: token shown as %q, want its signature redacted", r.Case, tok)
		}
	}
	if strings.Contains(out.String(), s.credential) || !strings.Contains(out.String(), `"Authorization":"Bearer [redacted]"`) {
		t.Error("the JSON lines show the static credential, or not its redacted form")
	}
	// Rejected cases never ran the tool; accepted ones ran it once (the
	// replay's retry came from the store; result_limits and progress_relay
	// read the valid call's answer).
	if got := s.ranCases(); !mapsEqual(got, acceptedCases) {
		t.Errorf("tool runs by case = %v, want %v", got, acceptedCases)
	}
}

func TestLaxServersFail(t *testing.T) {
	tests := []struct {
		name string
		lax  laxness
		want []string // failing required cases
		ran  []string // rejected cases whose call ran the tool
	}{
		{"accepts alg none", laxness{acceptAlgNone: true}, []string{"alg_none"}, []string{"alg_none"}},
		{"ignores aud", laxness{ignoreAud: true}, []string{"wrong_aud"}, []string{"wrong_aud"}},
		{"500 instead of 401", laxness{status500: true},
			[]string{"credential_missing", "token_missing", "bad_signature", "alg_none", "alg_hs384", "alg_rs256",
				"expired", "iat_too_old", "wrong_aud", "wrong_iss", "token_not_jwt"}, nil},
		{"401 without the request id", laxness{noID: true},
			[]string{"credential_missing", "token_missing", "bad_signature", "alg_none", "alg_hs384", "alg_rs256",
				"expired", "iat_too_old", "wrong_aud", "wrong_iss", "tool_mismatch", "meta_mismatch",
				"protocol_unknown_major", "meta_not_object", "meta_wrong_type", "token_not_jwt", "batch"}, nil},
		{"runs the tool on a _meta mismatch", laxness{runOnMismatch: true}, []string{"meta_mismatch"}, []string{"meta_mismatch"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := startContractServer(t, tc.lax)
			rep := runProbe(t, s.config())
			if rep.OK() {
				t.Fatal("report OK for a lax server")
			}
			got := failedRequired(rep)
			if !slices.Equal(got, tc.want) {
				t.Errorf("failed required cases = %v, want %v", got, tc.want)
			}
			runs := s.ranCases()
			var ranRejected []string
			for c := range runs {
				if _, ok := acceptedCases[c]; !ok {
					ranRejected = append(ranRejected, c)
				}
			}
			sort.Strings(ranRejected)
			if !slices.Equal(ranRejected, tc.ran) {
				t.Errorf("rejected cases that ran the tool = %v, want %v", ranRejected, tc.ran)
			}
			for _, r := range rep.Results {
				if slices.Contains(tc.ran, r.Case) && !r.Ran {
					t.Errorf("%s: the tool ran on the server but the probe says it did not", r.Case)
				}
			}
		})
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A server that runs the tool again for a known idempotency key fails an
// informative case: the probe still passes, unless --strict.
func TestInformativeCasesFailOnlyUnderStrict(t *testing.T) {
	s := startContractServer(t, laxness{noIdempotency: true})
	cfg := s.config()
	cfg.Only = []string{"valid", "idempotent_replay"}
	rep := runProbe(t, cfg)
	if len(rep.Results) != 2 || rep.Results[1].Pass || rep.Results[1].Required || !rep.OK() {
		t.Fatalf("without --strict: %+v, OK=%v; want idempotent_replay failed, informative, the probe OK", rep.Results, rep.OK())
	}
	if !strings.Contains(rep.Results[1].Message, "ran again") {
		t.Errorf("message %q does not say the tool ran again", rep.Results[1].Message)
	}
	cfg.Strict = true
	if rep := runProbe(t, cfg); rep.OK() || !rep.Results[1].Required {
		t.Errorf("with --strict: OK=%v, required=%v; want the failure required", rep.OK(), rep.Results[1].Required)
	}
	if got := s.ranCases()["idempotent_replay"]; got != 4 {
		t.Errorf("idempotent_replay ran the tool %d times over two probes, want 4 (no store)", got)
	}
}

func TestSelect(t *testing.T) {
	cs, err := Select([]string{"batch", "valid"})
	if err != nil || len(cs) != 2 || cs[0].ID != "batch" || cs[1].ID != "valid" {
		t.Errorf("Select = %v, %v", cs, err)
	}
	if _, err := Select([]string{"nope"}); err == nil {
		t.Error("Select of an unknown case: no error")
	}
	seen := map[string]bool{}
	for _, c := range Cases() {
		if seen[c.ID] {
			t.Errorf("case id %s twice", c.ID)
		}
		seen[c.ID] = true
	}
}

// TestAnswerText: an HTTP error without a JSON-RPC error does not read as if
// the tool ran.
func TestAnswerText(t *testing.T) {
	for _, c := range []struct {
		a    Answer
		want string
	}{
		{Answer{}, "no answer"},
		{Answer{HTTPStatus: 200}, "200 result"},
		{Answer{HTTPStatus: 401, RPCCode: -32001}, "401/-32001"},
		{Answer{HTTPStatus: 501}, "501, no JSON-RPC error"},
	} {
		if got := c.a.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.a, got, c.want)
		}
	}
}

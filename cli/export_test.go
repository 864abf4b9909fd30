package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"toolscope/model/modeltest"
)

// TestExportHAR: a session recorded through the tap exports as HAR 1.2 that
// the HAR schema accepts (har-validator), one entry per exchange, with the
// call's request body and its event stream.
func TestExportHAR(t *testing.T) {
	node := modeltest.NeedNode(t)
	rec, _ := recordSession(t, sdkSaw)
	out := filepath.Join(t.TempDir(), "session.har")
	if code := run([]string{"export", "--har", out, rec}); code != 0 {
		t.Fatalf("export: exit %d", code)
	}
	res, err := exec.Command(node, modeltest.Testdata("node", "validate-har.mjs"), out).CombinedOutput()
	if err != nil {
		t.Fatalf("har-validator: %v\n%s", err, res)
	}
	t.Logf("har-validator: %s", strings.TrimSpace(string(res)))
	b, _ := os.ReadFile(out)
	var har struct {
		Log struct {
			Entries []struct {
				Request struct {
					Method, URL string
					PostData    struct{ Text string }
				}
				Response struct {
					Status  int
					Content struct{ MimeType, Text string }
				}
				Timings struct{ Wait, Receive float64 }
			}
		}
	}
	if err := json.Unmarshal(b, &har); err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, e := range har.Log.Entries {
		if !strings.HasPrefix(e.Request.URL, "http://127.0.0.1:") {
			t.Errorf("url %q", e.Request.URL)
		}
		if strings.Contains(e.Request.PostData.Text, `"tools/call"`) {
			calls++
			if e.Response.Status != 200 || !strings.Contains(e.Response.Content.Text, "data: ") {
				t.Errorf("a call's response: %+v", e.Response)
			}
		}
		if strings.Contains(e.Request.PostData.Text, `"name":"count"`) && strings.Count(e.Response.Content.Text, "notifications/progress") != 3 {
			t.Errorf("count's stream: %s", e.Response.Content.Text)
		}
	}
	if calls != 4 {
		t.Errorf("%d tools/call entries of %d, want 4", calls, len(har.Log.Entries))
	}
	// A recording without exchanges says so.
	if code := run([]string{"export", "--har", filepath.Join(t.TempDir(), "x.har"), modeltest.SessionFile()}); code != 1 {
		t.Errorf("an old recording without wire lines: exit %d, want 1", code)
	}
}

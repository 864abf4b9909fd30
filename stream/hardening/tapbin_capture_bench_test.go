package hardening_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"toolscope/output/recordfile"
)

// BenchmarkRecordingCost measures what a complete recording (the wire
// lines: every request and response as sent, on top of the events) costs
// the tap as a user runs it: two tap binaries side by side in one run,
// alternating, the same calls through each, both --output json to a file
// and --record FILE, one complete ("wire") and one of events alone
// ("events", --record-body-limit 0, as recordings were before). It reports
// each one's latency and CPU per call, their ratios, and each recording's
// bytes per call. Run it with -benchtime 1x.
func BenchmarkRecordingCost(b *testing.B) {
	dir := b.TempDir()
	bin := toolscopeBinary(b)
	upstream := httptest.NewServer(http.HandlerFunc(benchMCPUpstream))
	defer upstream.Close()
	upstreamURL := upstream.URL + "/mcp"
	const instanceID, secret = "3f6e2b7a-9c41-4d8e-a5f0-1b2c3d4e5f60", "bench-context-secret-0123456789abcdef"
	rec, events := filepath.Join(dir, "rec.jsonl"), filepath.Join(dir, "events-rec.jsonl")
	start := func(name string, extra ...string) *benchProc {
		out, err := os.Create(filepath.Join(dir, name+".jsonl"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { out.Close() })
		cmd := exec.Command(bin, append([]string{"tap", "--upstream", upstreamURL, "--listen", "127.0.0.1:0", "--output", "json", "--instance-id", instanceID}, extra...)...)
		cmd.Env = append(os.Environ(), "TOOLSCOPE_CONTEXT_SECRET="+secret)
		cmd.Stdout = out
		return startProc(b, name, cmd)
	}
	procs := []*benchProc{start("wire", "--record", rec), start("events", "--record", events, "--record-body-limit", "0")}
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 256, DisableCompression: true}}
	mint := &callMinter{aud: instanceID, secret: []byte(secret), task: uuid.NewString()}
	b.ResetTimer()
	var lat [2][]time.Duration
	var thru [2]float64
	for range b.N {
		l := benchSequential(b, client, procs, mint, 1000)
		t := benchThroughput(b, client, procs, mint, 50, 3*time.Second)
		for j := range procs {
			lat[j] = append(lat[j], l[j]...)
			thru[j] += t[j] / float64(b.N)
		}
	}
	b.StopTimer()
	var cpu [2]time.Duration
	for j, p := range procs {
		cpu[j] = p.stop(b, true)
	}
	for j, p := range procs {
		b.ReportMetric(us(pct(lat[j], 50)), p.name+"-p50-µs")
		b.ReportMetric(thru[j], p.name+"-req/s")
		b.ReportMetric(float64(cpu[j].Microseconds())/float64(p.calls), p.name+"-cpu-µs/call")
	}
	b.ReportMetric(float64(pct(lat[0], 50))/float64(pct(lat[1], 50)), "wire/events-p50")
	b.ReportMetric(thru[0]/thru[1], "wire/events-thru")
	b.ReportMetric((float64(cpu[0])/float64(procs[0].calls))/(float64(cpu[1])/float64(procs[1].calls)), "wire/events-cpu")
	for j, path := range []string{rec, events} {
		var size int64
		for _, part := range append(recordfile.Parts(path), path) {
			fi, err := os.Stat(part)
			if err != nil {
				b.Fatal(err)
			}
			size += fi.Size()
		}
		b.ReportMetric(float64(size)/float64(procs[j].calls), procs[j].name+"-record-B/call")
	}
	if got := countTapOutput(b, filepath.Join(dir, "wire.jsonl")); got.calls != procs[0].calls {
		b.Errorf("the recording tap's output has %d calls of %d", got.calls, procs[0].calls)
	}
}

package tap

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"testing"

	"toolscope/model"
	"toolscope/output"
)

// BenchmarkHandlerPath makes sequential calls over loopback through a bare
// httputil.ReverseProxy and through the tap, one way per sub-benchmark, so
// that -benchmem, a memory profile focused on Tap.ServeHTTP, or callgrind
// counts what a call costs each way. The tap's figures include its side
// work (it runs in the same process); BenchmarkSideWork counts that alone.
func BenchmarkHandlerPath(b *testing.B) {
	upstream := httptest.NewServer(benchUpstream())
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 256, DisableCompression: true}}
	calls := newBenchCalls(b, 8192)
	run := func(b *testing.B, url string) {
		b.ReportAllocs()
		for range b.N {
			body, token := calls.next()
			if err := benchCall(client, url, body, token); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("bare", func(b *testing.B) {
		bare := httptest.NewServer(&httputil.ReverseProxy{
			Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(u) },
			Transport:     newTransport(),
			FlushInterval: -1,
			ErrorLog:      discardLog,
			BufferPool:    copyBuffers,
		})
		defer bare.Close()
		run(b, bare.URL)
	})
	b.Run("tap", func(b *testing.B) {
		tp, err := New(Config{Name: "bench", Listen: "127.0.0.1:0", Upstream: upstream.URL, Secrets: [][]byte{testSecret},
			InstanceID: testInstanceID, InstanceName: "Bench"}, output.NewHub(model.NewStore(model.Options{})))
		if err != nil {
			b.Fatal(err)
		}
		if err := tp.Start(); err != nil {
			b.Fatal(err)
		}
		defer tp.Shutdown(context.Background())
		run(b, "http://"+tp.Addr())
	})
}

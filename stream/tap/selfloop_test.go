package tap

import (
	"net"
	"strconv"
	"strings"
	"testing"

	"toolscope/model"
)

// TestUpstreamIsItself: a tap whose upstream is its own --listen address
// refuses to start instead of forwarding every request to itself until the
// process runs out of descriptors; another port starts.
func TestUpstreamIsItself(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close() // free again for the tap
	listen := "127.0.0.1:" + port
	for _, up := range []string{"http://" + listen + "/mcp", "http://localhost:" + port + "/mcp"} {
		tp, err := New(Config{Listen: listen, Upstream: up}, model.SinkFunc(func(model.Event) {}))
		if err != nil {
			t.Fatal(err)
		}
		err = tp.Start()
		if err == nil {
			tp.Shutdown(t.Context())
			t.Fatalf("upstream %s: the tap started on its own address", up)
		}
		if !strings.Contains(err.Error(), "forward every request to itself") {
			t.Errorf("upstream %s: %v", up, err)
		}
	}
	other := "http://127.0.0.1:1/mcp"
	tp, err := New(Config{Listen: listen, Upstream: other}, model.SinkFunc(func(model.Event) {}))
	if err != nil {
		t.Fatal(err)
	}
	if err := tp.Start(); err != nil {
		t.Fatalf("upstream %s on another port: %v", other, err)
	}
	tp.Shutdown(t.Context())
}

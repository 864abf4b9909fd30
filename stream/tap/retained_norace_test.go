//go:build !race

package tap

import (
	"encoding/json"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"toolscope/decoder"
	"toolscope/decoder/token"
	"toolscope/model"
)

// retainedTapCalls is the store's default: finished calls kept.
const retainedTapCalls = 10000

// maxRetainedTapCallBytes is the ceiling of heap a finished tap call
// holds, the tap's own memory of it included (tokens seen, ids): 14,914
// bytes when the store kept its evicted calls until it compacted its order
// and a call its maps, both bodies and the tap's judgment; 6,067 since
// (an Event, and so a timeline entry, grew to the 704-byte size class).
const maxRetainedTapCallBytes = 6500

// TestRetainedTapCallBytes holds the heap a finished tap call costs in the
// store: the binary keeps 10,000 of them by default, and its resident size
// follows. Each call is what AgentArea sends (PlatformMeta, PlatformHeaders,
// a fresh signed token) and a small JSON answer, through the tap's side
// work and the hub into the store, twice the store's limit so that
// eviction runs. TOOLSCOPE_HEAPPROFILE=file writes the heap profile of the
// full store (go tool pprof -sample_index=inuse_space).
func TestRetainedTapCallBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 20,000 calls")
	}
	tp, store := newSideTap(t, "mem", "")
	bodies, tokens := platformCalls(t, 2*retainedTapCalls)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range bodies {
		id := strconv.Itoa(i + 1)
		result := []byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"order A-17: shipped"}],"structuredContent":{"status":"shipped"}}}`)
		h := decoder.PlatformHeaders("tools/call", "get_order")
		h.Set(model.ContextHeader, tokens[i])
		ex := &exchange{t: tp, id: id, start: time.Now(), method: "POST", header: h, body: bodies[i], bodyWhole: true}
		ex.req = tp.parseRequest(ex)
		ex.announce()
		ex.dispatch(time.Now(), result, 200)
		ex.end = nil
		ex.conclude(outcome{kind: outcomeResponse, resp: &responseStart{status: 200, contentType: "application/json"}})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	snap := store.Snapshot()
	if len(snap.Calls) != retainedTapCalls {
		t.Fatalf("%d calls kept, want %d", len(snap.Calls), retainedTapCalls)
	}
	c := snap.Calls[len(snap.Calls)-1]
	if c.Status != model.StatusOK || c.Context == nil || c.Context.Verdict != model.VerdictValid {
		t.Fatalf("last call: %s", model.TextLine(c.Timeline()[0]))
	}
	if path := os.Getenv("TOOLSCOPE_HEAPPROFILE"); path != "" {
		runtime.GC() // the profile is as of the last collection but one
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.WriteHeapProfile(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	perCall := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / retainedTapCalls
	t.Logf("%.0f bytes of heap per retained tap call", perCall)
	if perCall > maxRetainedTapCallBytes {
		t.Errorf("%.0f bytes of heap per retained tap call, want at most %d", perCall, maxRetainedTapCallBytes)
	}
	runtime.KeepAlive(store)
	runtime.KeepAlive(bodies) // counted in before and after alike
	runtime.KeepAlive(tokens)
	runtime.KeepAlive(tp)
}

// platformCalls mints n tools/call bodies and tokens as AgentArea sends
// them: each its own tool call id and token.
func platformCalls(t testing.TB, n int) (bodies [][]byte, tokens []string) {
	task := uuid.NewString()
	for i := range n {
		meta := decoder.PlatformMeta(decoder.CallContext{TaskID: task, ToolCallID: uuid.NewString(), WorkspaceID: "ws-bench"}, int64(i+1))
		tok, err := token.Sign(token.Claims(testInstanceID, "get_order", meta, time.Now()), testSecret)
		if err != nil {
			t.Fatal(err)
		}
		body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
			"params": map[string]any{"name": "get_order", "arguments": map[string]any{"orderId": "A-17"}, "_meta": meta}})
		if err != nil {
			t.Fatal(err)
		}
		bodies, tokens = append(bodies, body), append(tokens, tok)
	}
	return bodies, tokens
}

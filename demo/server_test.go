package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// testServer starts the demo server fast, with a task to call it for.
func testServer(t *testing.T) (*demoServer, *task, []byte) {
	t.Helper()
	secret := newSecret()
	s := startDemoServer(newPace(50), "3f0c9b7e-1111-4a2b-8c3d-000000000001", secret, "cred-123", 5*time.Second, newPlannedTimes())
	t.Cleanup(s.Close)
	tk := newTask(taskPlan{Title: "test", EndUserID: "user-42", Metadata: map[string]any{"chatId": "c-9", "n": 2.0}})
	return s, tk, secret
}

// rawCall makes one tools/call to the server directly, with a token from
// mint (nil: no token) and the given credential.
func rawCall(t *testing.T, s *demoServer, tk *task, tool, callID, credential string, mint func(meta map[string]any) string, onProgress func(jsonrpc.Progress)) (rpcOutcome, error) {
	t.Helper()
	meta := tk.meta(callID, 7)
	hdr := http.Header{}
	if credential != "" {
		hdr.Set("Authorization", "Bearer "+credential)
	}
	if mint != nil {
		hdr.Set(model.ContextHeader, mint(meta))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return newRPCClient().call(ctx, rpcRequest{URL: s.URL(), ID: 7, Method: jsonrpc.MethodToolsCall, Name: tool,
		Header: hdr, Params: map[string]any{"name": tool, "arguments": map[string]any{}, "_meta": meta}}, onProgress)
}

func goodToken(t *testing.T, s *demoServer, secret []byte, tool string) func(map[string]any) string {
	return func(meta map[string]any) string {
		tok, err := mintToken(secret, s.instanceID, tool, meta, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
}

func TestServerAnswersTheContract(t *testing.T) {
	s, tk, secret := testServer(t)
	cases := []struct {
		name       string
		credential string
		mint       func(meta map[string]any) string
		status     int
		code       int
	}{
		{"verified call", "cred-123", goodToken(t, s, secret, toolLookupCustomer), 200, 0},
		{"no credential", "", goodToken(t, s, secret, toolLookupCustomer), 401, jsonrpc.CodeUnauthorized},
		{"wrong credential", "cred-999", goodToken(t, s, secret, toolLookupCustomer), 401, jsonrpc.CodeUnauthorized},
		{"no token", "cred-123", nil, 401, jsonrpc.CodeUnauthorized},
		{"another instance", "cred-123", func(meta map[string]any) string {
			tok, _ := mintToken(secret, "another-instance", toolLookupCustomer, meta, time.Now())
			return tok
		}, 401, jsonrpc.CodeUnauthorized},
		{"another secret", "cred-123", func(meta map[string]any) string {
			tok, _ := mintToken(newSecret(), s.instanceID, toolLookupCustomer, meta, time.Now())
			return tok
		}, 401, jsonrpc.CodeUnauthorized},
		{"expired", "cred-123", func(meta map[string]any) string {
			tok, _ := mintToken(secret, s.instanceID, toolLookupCustomer, meta, time.Now().Add(-20*time.Minute))
			return tok
		}, 401, jsonrpc.CodeUnauthorized},
		{"token for another tool", "cred-123", goodToken(t, s, secret, toolExportLedger), 403, jsonrpc.CodeForbidden},
		{"_meta differs from its claim", "cred-123", func(meta map[string]any) string {
			other := with(meta, jsonrpc.MetaEndUserID, "user-43")
			tok, _ := mintToken(secret, s.instanceID, toolLookupCustomer, other, time.Now())
			return tok
		}, 403, jsonrpc.CodeForbidden},
		{"not a JWT", "cred-123", func(map[string]any) string { return "not a token" }, 401, jsonrpc.CodeUnauthorized},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := rawCall(t, s, tk, toolLookupCustomer, "call_contract_"+strings.Repeat("x", i), c.credential, c.mint, nil)
			if err != nil {
				t.Fatal(err)
			}
			if out.HTTPStatus != c.status {
				t.Errorf("HTTP %d, want %d (%+v)", out.HTTPStatus, c.status, out.Err)
			}
			switch {
			case c.code == 0 && (out.Err != nil || !bytes.Contains(out.Result, []byte("Acme Corp"))):
				t.Errorf("want the tool's result, got %s / %+v", out.Result, out.Err)
			case c.code != 0 && (out.Err == nil || out.Err.Code != c.code):
				t.Errorf("JSON-RPC error %+v, want code %d", out.Err, c.code)
			}
		})
	}
}

func TestServerRejectsToolsCallInABatch(t *testing.T) {
	s, _, _ := testServer(t)
	body := `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup_customer"}},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`
	req, _ := http.NewRequest(http.MethodPost, s.URL(), strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer cred-123")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msg struct {
		Error jsonrpc.RPCError `json:"error"`
	}
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &msg); err != nil || resp.StatusCode != 400 || msg.Error.Code != jsonrpc.CodeInvalidRequest {
		t.Errorf("HTTP %d %s, want 400 with -32600", resp.StatusCode, b)
	}
}

func TestServerIdempotencyAndDroppedStream(t *testing.T) {
	s, tk, secret := testServer(t)
	var progress []float64
	onProgress := func(p jsonrpc.Progress) { progress = append(progress, p.Progress) }

	// First run: progress arrives, the result is stored, then the connection drops.
	_, err := rawCall(t, s, tk, toolPostLedgerEntry, "call_ledger", "cred-123", goodToken(t, s, secret, toolPostLedgerEntry), onProgress)
	if !errors.Is(err, errStreamBroken) {
		t.Fatalf("first attempt: err %v, want a broken stream", err)
	}
	if len(progress) != ledgerSteps {
		t.Errorf("progress before the drop: %v", progress)
	}
	// The retry (same idempotency key, a new token) gets the stored result.
	out, err := rawCall(t, s, tk, toolPostLedgerEntry, "call_ledger", "cred-123", goodToken(t, s, secret, toolPostLedgerEntry), nil)
	if err != nil || out.Err != nil {
		t.Fatalf("retry: %v %+v", err, out.Err)
	}
	if res := out.Summary; res == nil || !res.Replayed || !strings.Contains(res.Text, "LE-5521") {
		t.Errorf("retry result %s, want the stored one marked replayed", out.Result)
	}
	// Another call (another key) runs the tool afresh: no replay.
	out, err = rawCall(t, s, tk, toolLookupCustomer, "call_fresh", "cred-123", goodToken(t, s, secret, toolLookupCustomer), nil)
	if err != nil || bytes.Contains(out.Result, []byte(jsonrpc.MetaReplayed)) {
		t.Errorf("a fresh call must not be replayed: %s %v", out.Result, err)
	}
}

package token

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"toolscope/decoder/jsonrpc"
)

// TestVectors verifies tokens made by another JWT implementation (Python's
// hmac/hashlib/base64/json, testdata/make_vectors.py) the way a tap would.
func TestVectors(t *testing.T) {
	raw, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Now     int64 `json:"now"`
		Vectors []struct {
			Name       string          `json:"name"`
			Token      string          `json:"token"`
			Call       json.RawMessage `json:"call"`
			Secrets    []string        `json:"secrets"`
			InstanceID string          `json:"instance_id"`
			Expect     struct {
				Verdict    string   `json:"verdict"`
				HTTPStatus int      `json:"http_status"`
				RPCCode    int      `json:"rpc_code"`
				FailedStep string   `json:"failed_step"`
				Warnings   []string `json:"warnings"`
			} `json:"expect"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Vectors) < 30 {
		t.Fatalf("only %d vectors", len(file.Vectors))
	}
	now := time.Unix(file.Now, 0)
	for _, v := range file.Vectors {
		t.Run(v.Name, func(t *testing.T) {
			b := jsonrpc.Read([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + string(v.Call) + `}`))
			if b.Err != nil || b.Messages[0].Call.Problem != "" {
				t.Fatal(b.Err, b.Messages)
			}
			m := b.Messages[0]
			in := Input{Token: v.Token, InstanceID: v.InstanceID, ToolName: m.Call.Name, Meta: m.Meta.AgentArea, Now: now}
			for _, s := range v.Secrets {
				in.Secrets = append(in.Secrets, []byte(s))
			}
			ctx, ws := Verify(in)
			if ctx.Verdict != v.Expect.Verdict || ctx.HTTPStatus != v.Expect.HTTPStatus || ctx.RPCCode != v.Expect.RPCCode {
				t.Fatalf("got %s %d/%d (%s), want %s %d/%d", ctx.Verdict, ctx.HTTPStatus, ctx.RPCCode, ctx.Reason,
					v.Expect.Verdict, v.Expect.HTTPStatus, v.Expect.RPCCode)
			}
			first := ""
			for _, s := range ctx.Steps {
				if !s.Passed {
					first = s.Name
					break
				}
			}
			if v.Expect.Verdict == "rejected" && first != v.Expect.FailedStep {
				t.Fatalf("first failing step %q, want %q", first, v.Expect.FailedStep)
			}
			var codes []string
			for _, w := range ws {
				codes = append(codes, string(w.Code))
			}
			sort.Strings(codes)
			want := append([]string(nil), v.Expect.Warnings...)
			sort.Strings(want)
			if strings.Join(codes, ",") != strings.Join(want, ",") {
				t.Fatalf("warnings %v, want %v", ws, want)
			}
			out, _ := json.Marshal(ctx)
			for _, s := range v.Secrets {
				if strings.Contains(string(out), s) {
					t.Fatal("a secret leaked into the context")
				}
			}
			if sig := v.Token[strings.LastIndexByte(v.Token, '.')+1:]; len(sig) > 8 && strings.Contains(string(out), sig) {
				t.Fatal("the signature leaked into the context")
			}
		})
	}
}

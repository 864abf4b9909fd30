package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"toolscope/model/modeltest"
)

func callBody(t *testing.T, claims jwt.MapClaims, name string) []byte {
	return modeltest.CallBody(t, 3, name, map[string]any{"orderId": "A-17"}, modeltest.MetaFor(claims))
}

func TestRunDecode(t *testing.T) {
	claims := modeltest.BaseClaims()
	good := modeltest.Sign(t, jwt.SigningMethodHS256, claims, []byte(modeltest.Secret))
	secrets := [][]byte{[]byte(modeltest.Secret)}
	cases := []struct {
		rule   string
		args   DecodeArgs
		exit   int
		output []string // substrings the output must hold
	}{
		{"valid token and call exit 0 and print every step", DecodeArgs{Token: good, Call: callBody(t, claims, "get_order"), InstanceID: modeltest.Instance, Secrets: secrets},
			0, []string{`"alg":"HS256"`, "signature [redacted]", "iss              agentarea", "2026-11-30T11:59:48Z",
				"issued 12 s ago, expires in 4 m 48 s", "✓ 1 signature", "✓ 2 tool", "✓ 3 meta", "✓ 4 run", "verdict  valid", "answer   run the tool"}},
		{"no secret decodes, says unverified and exits 0", DecodeArgs{Token: good, InstanceID: modeltest.Instance},
			0, []string{"not verified", "verdict  unverified", "✗ 1 signature  not checked: no secret"}},
		{"a rejected call exits 1 and names the answer", DecodeArgs{Token: good, Call: callBody(t, claims, "delete_order"), InstanceID: modeltest.Instance, Secrets: secrets},
			1, []string{"✗ 2 tool", "verdict  rejected", "answer   HTTP 403, JSON-RPC -32003"}},
		{"wrong key exits 1 with 401", DecodeArgs{Token: good, InstanceID: modeltest.Instance, Secrets: [][]byte{[]byte(modeltest.OtherSecret)}},
			1, []string{"answer   HTTP 401, JSON-RPC -32001: bad signature"}},
		{"a call in a batch is 400/-32600", DecodeArgs{Token: good, Call: []byte("[" + string(callBody(t, claims, "get_order")) + "]"), InstanceID: modeltest.Instance, Secrets: secrets},
			1, []string{"✗ batch", "HTTP 400, JSON-RPC -32600"}},
		{"a bare params object is accepted as the call", DecodeArgs{Token: good, Call: modeltest.MustJSON(map[string]any{"name": "get_order", "_meta": modeltest.MetaFor(claims)}), InstanceID: modeltest.Instance, Secrets: secrets},
			0, []string{"verdict  valid"}},
		{"several secrets are announced", DecodeArgs{Token: good, InstanceID: modeltest.Instance, Secrets: [][]byte{[]byte(modeltest.OtherSecret), []byte(modeltest.Secret)}},
			0, []string{"secrets  2 (any one may verify)", "secret 2 of 2"}},
		{"no instance id is said", DecodeArgs{Token: good, Secrets: secrets}, 0, []string{"aud      not compared", "warning  aud_unchecked"}},
		{"a pasted header line is accepted", DecodeArgs{Token: "x-agentarea-context: " + good, InstanceID: modeltest.Instance, Secrets: secrets},
			0, []string{"verdict  valid"}},
		{"a crit header naming an unknown extension is rejected", DecodeArgs{Token: modeltest.SignWithHeader(t, claims, map[string]any{"crit": []string{"exp-x"}, "exp-x": 1}), InstanceID: modeltest.Instance, Secrets: secrets},
			1, []string{"✗ 1 signature", "crit header", "answer   HTTP 401, JSON-RPC -32001"}},
		{"a _meta that is not an object is 400/-32602", DecodeArgs{Token: good, Call: []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_order","_meta":"x"}}`), InstanceID: modeltest.Instance, Secrets: secrets},
			1, []string{"✗ 3 meta", "answer   HTTP 400, JSON-RPC -32602"}},
		{"params.name that is not a string is judged as the tap judges it: 400/-32602, exit 1", DecodeArgs{Token: good, Call: []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":5}}`), InstanceID: modeltest.Instance, Secrets: secrets},
			1, []string{"✗ 2 tool", "answer   HTTP 400, JSON-RPC -32602", "warning  malformed_call", "warning  meta_key_missing", "warning  progress_token_missing"}},
		{"headers are judged with the call", DecodeArgs{Token: good, Call: callBody(t, claims, "get_order"), Header: http.Header{"Authorization": {"Bearer " + modeltest.Secret}, "Mcp-Session-Id": {"s-1"}}, InstanceID: modeltest.Instance, Secrets: secrets},
			0, []string{"verdict  valid", "warning  credential_is_secret", "warning  session_on_context_call"}},
		{"an unknown output is a usage error", DecodeArgs{Token: good, Output: "yaml"}, 2, []string{"--output must be text or json"}},
		{"no token is a usage error", DecodeArgs{Token: "  "}, 2, []string{"no token"}},
		{"an unreadable call is a usage error", DecodeArgs{Token: good, Call: []byte("{")}, 2, []string{"--call"}},
		{"a call without tools/call is a usage error", DecodeArgs{Token: good, Call: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)}, 2, []string{"no tools/call"}},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			c.args.Now = modeltest.Now
			var out bytes.Buffer
			if code := RunDecode(c.args, &out); code != c.exit {
				t.Fatalf("exit %d, want %d\n%s", code, c.exit, out.String())
			}
			for _, s := range c.output {
				if !strings.Contains(out.String(), s) {
					t.Fatalf("output lacks %q:\n%s", s, out.String())
				}
			}
			sig := good[strings.LastIndexByte(good, '.')+1:]
			if strings.Contains(out.String(), sig) || strings.Contains(out.String(), modeltest.Secret) || strings.Contains(out.String(), modeltest.OtherSecret) {
				t.Fatalf("a secret or the signature was printed:\n%s", out.String())
			}
		})
	}
}

func TestRunDecodeJSON(t *testing.T) {
	claims := modeltest.BaseClaims()
	claims["exp"] = modeltest.Now.Add(-time.Minute).Unix()
	token := modeltest.Sign(t, jwt.SigningMethodHS256, claims, []byte(modeltest.Secret))
	var out bytes.Buffer
	code := RunDecode(DecodeArgs{Token: token, InstanceID: modeltest.Instance, Secrets: [][]byte{[]byte(modeltest.Secret)}, Output: "json", Now: modeltest.Now}, &out)
	if code != ExitRejected {
		t.Fatalf("exit %d", code)
	}
	var rep struct {
		Verdict    string `json:"verdict"`
		HTTPStatus int    `json:"http_status"`
		RPCCode    int    `json:"rpc_code"`
		Times      struct {
			Age string `json:"age"`
		} `json:"times"`
		Steps []struct {
			Name   string `json:"name"`
			Passed bool   `json:"passed"`
		} `json:"steps"`
		Warnings []struct {
			Code string `json:"code"`
		} `json:"warnings"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if rep.Verdict != "rejected" || rep.HTTPStatus != 401 || rep.RPCCode != -32001 || len(rep.Steps) != 4 || rep.Steps[0].Passed {
		t.Fatalf("%+v", rep)
	}
	if rep.Times.Age != "issued 12 s ago, expired 1 m ago" {
		t.Fatalf("age %q", rep.Times.Age)
	}
	if len(rep.Warnings) == 0 || rep.Warnings[0].Code != "token_lifetime" {
		t.Fatalf("warnings %+v", rep.Warnings)
	}
}

package decoder

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const strictCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_order","arguments":{"orderId":"A-17","name":"x","Name":"y"},"_meta":{"progressToken":7,"agentarea/task_id":"t1","agentarea/metadata":{"a":1,"A":2},"other":1,"Other":2}}}`

func TestCheckStrict(t *testing.T) {
	cases := []struct {
		name, body string
		code       int    // 0: no ambiguity
		id         string // the id the answer carries ("" for none)
		reason     string // part of the reason
	}{
		{name: "plain call", body: strictCall},
		{name: "whitespace around", body: " \r\n\t" + strictCall + "\n "},
		{name: "batch", body: `[` + strictCall + `,{"jsonrpc":"2.0","method":"notifications/initialized"}]`},
		{name: "not an object", body: `"x"`},
		{name: "escaped key is the key", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","n\u0061me":"b"}}`, code: CodeInvalidParams, id: "1", reason: "twice"},
		{name: "method case variant", body: `{"jsonrpc":"2.0","id":1,"Method":"ping","method":"tools/call"}`, code: CodeInvalidRequest, id: "1", reason: `"Method" differs from "method"`},
		{name: "jsonrpc case variant", body: `{"jsonrpc":"2.0","JSONRPC":"1.0","id":"a","method":"tools/call"}`, code: CodeInvalidRequest, reason: "only in case"},
		{name: "kelvin sign is no k", body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","\u212aey":1}}`},
		{name: "long s in params", body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","param\u017f":{}}`, code: CodeInvalidRequest, id: "2", reason: "only in case"},
		{name: "long s folds to s", body: `{"j\u017fonrpc":"1.0","jsonrpc":"2.0","id":2,"method":"tools/call"}`, code: CodeInvalidRequest, reason: "only in case"},
		{name: "duplicate method", body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","method":"ping"}`, code: CodeInvalidRequest, id: "3", reason: "twice"},
		{name: "duplicate id", body: `{"jsonrpc":"2.0","id":3,"id":4,"method":"ping"}`, code: CodeInvalidRequest, reason: "twice"},
		{name: "name case variant", body: `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"delete_all","Name":"get_order"}}`, code: CodeInvalidParams, id: `"x"`, reason: `"Name"`},
		{name: "_meta twice", body: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":{},"name":"a","_meta":{}}}`, code: CodeInvalidParams, id: "5"},
		{name: "_META", body: `{"id":5,"jsonrpc":"2.0","method":"tools/call","params":{"_META":{},"name":"a"}}`, code: CodeInvalidParams, id: "5"},
		{name: "context key twice", body: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a","_meta":{"agentarea/task_id":"a","agentarea/task_id":"b"}}}`, code: CodeInvalidParams, id: "5", reason: "twice"},
		{name: "context keys differ in case", body: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a","_meta":{"agentarea/task_id":"a","agentarea/TASK_ID":"b"}}}`, code: CodeInvalidParams, id: "5", reason: "only in case"},
		{name: "prefix in another case", body: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a","_meta":{"AgentArea/task_id":"a"}}}`, code: CodeInvalidParams, id: "5", reason: "prefix"},
		{name: "progress token case", body: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a","_meta":{"progresstoken":1}}}`, code: CodeInvalidParams, id: "5", reason: "progressToken"},
		{name: "metadata holds a key twice", body: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a","_meta":{"agentarea/metadata":{"a":{"b":[{"c":1,"c":2}]}}}}}`, code: CodeInvalidParams, id: "5", reason: `"c" twice`},
		{name: "metadata keys differing in case are two keys", body: `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a","_meta":{"agentarea/metadata":{"chatId":1,"chatID":2}}}}`},
		{name: "surrogate pair", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\ud83d\ude00"}}`},
		{name: "escaped backslash then u", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\\ud800"}}`},
		{name: "lone high surrogate", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"agentarea/task_id":"t\ud800"}}}`, code: CodeInvalidRequest, id: "1", reason: "surrogate"},
		{name: "lone low surrogate", body: `{"jsonrpc":"2.0","id":1,"method":"x\udc00"}`, code: CodeInvalidRequest, id: "1", reason: "surrogate"},
		{name: "high then not low", body: `{"jsonrpc":"2.0","id":1,"method":"\ud800\u0041"}`, code: CodeInvalidRequest, id: "1", reason: "surrogate"},
		{name: "three backslashes then u", body: `{"jsonrpc":"2.0","id":1,"method":"\\\ud800"}`, code: CodeInvalidRequest, id: "1", reason: "surrogate"},
		{name: "trailing brace", body: strictCall + "}", code: CodeInvalidRequest, id: "7", reason: "follows"},
		{name: "second value", body: strictCall + strictCall, code: CodeInvalidRequest, id: "7"},
		{name: "bom", body: "\xef\xbb\xbf" + strictCall, code: CodeInvalidRequest, id: "7", reason: "byte-order mark"},
		{name: "invalid utf-8", body: strings.Replace(strictCall, "A-17", "A-\xff", 1), code: CodeInvalidRequest, id: "7", reason: "UTF-8"},
		{name: "not json", body: `{"jsonrpc":`, code: CodeParseError},
		{name: "empty", body: "  ", code: CodeInvalidRequest, reason: "empty"},
		{name: "duplicate in batch element", body: `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping","Method":"tools/call"}]`, code: CodeInvalidRequest, id: "2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := CheckStrict([]byte(tc.body))
			if tc.code == 0 {
				if a != nil {
					t.Fatalf("ambiguity %+v, want none", a)
				}
				return
			}
			if a == nil {
				t.Fatalf("no ambiguity, want code %d", tc.code)
			}
			if a.RPCCode != tc.code || string(a.ID) != tc.id || !strings.Contains(a.Reason, tc.reason) {
				t.Fatalf("got code %d id %q reason %q; want %d %q ~%q", a.RPCCode, a.ID, a.Reason, tc.code, tc.id, tc.reason)
			}
		})
	}
}

// benchCallBody is a 1 KiB tools/call with the contract's _meta.
var benchCallBody = []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_order","arguments":{"orderId":"A-17","lines":[1,2,3,4,5,6,7,8],"note":"` + strings.Repeat("x", 512) + `"},"_meta":{"progressToken":3,"agentarea/protocol":"1","agentarea/task_id":"6f1c5a4e-0000-4000-8000-000000000001","agentarea/tool_call_id":"call_abc","agentarea/workspace_id":"1b2e0c4d-aaaa-bbbb-cccc-123456789abc","agentarea/agent_id":"9d4a","agentarea/end_user_id":"user-42","agentarea/metadata":{"chatId":"c-9"},"agentarea/idempotency_key":"6f1c5a4e-0000-4000-8000-000000000001:call_abc"}}}`)

// BenchmarkCheckStrict is what --enforce adds to reading a request; compare
// BenchmarkParseCall, the tap's own reading of the same body.
func BenchmarkCheckStrict(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchCallBody)))
	for b.Loop() {
		if CheckStrict(benchCallBody) != nil {
			b.Fatal("ambiguous")
		}
	}
}

func BenchmarkParseCall(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchCallBody)))
	for b.Loop() {
		msgs, _, err := ParseMessages(benchCallBody)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ParseCallParams(msgs[0].Params); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLenientBody(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"\xef\xbb\xbf{\"a\":1}", `{"a":1}`},
		{`{"a":1}}`, `{"a":1}`},
		{"\xef\xbb\xbf[1] x", `[1]`},
		{`{"a":1}`, ""},
		{`{"a":`, ""},
	} {
		if got := string(LenientBody([]byte(tc.body))); got != tc.want {
			t.Errorf("LenientBody(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
}

// validJSON agrees with json.Valid, whichever pass answers.
func FuzzValidJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"\u00e9\n"}]}`, `{"a":1,}`, " [] ", "\"\x01\"", `"\x"`, "{\"a\":\"\xff\"}", `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`, "1", "-0.5e+3", "01"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Errorf("validJSON(%q) = %v, json.Valid %v", b, got, want)
		}
	})
}

// FuzzCheckStrictRead checks that a body ParseMessages read needs no
// second syntax check: CheckStrictRead finds what CheckStrict finds.
func FuzzCheckStrictRead(f *testing.F) {
	f.Add([]byte(strictCall))
	f.Add(benchCallBody)
	for _, body := range strictSetBodies() {
		f.Add([]byte(body))
		f.Add([]byte(" \r\n" + body + "\t "))
		f.Add([]byte("\v" + body))
		f.Add([]byte(body + "\u00a0"))
		f.Add([]byte("\ufeff" + body))
		f.Add([]byte("[" + body + "," + body + "]"))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, _, err := ParseMessages(body); err != nil {
			return
		}
		if read, full := CheckStrictRead(body), CheckStrict(body); !reflect.DeepEqual(read, full) {
			t.Fatalf("body %q: CheckStrictRead %+v, CheckStrict %+v", body, read, full)
		}
	})
}

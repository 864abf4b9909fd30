package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	cases := []struct {
		rule   string
		body   string
		batch  bool
		kinds  []Kind
		method string
		err    bool
	}{
		{"request has a method and an id", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}}`, false, []Kind{KindRequest}, "tools/call", false},
		{"string id is a request", `{"jsonrpc":"2.0","id":"a-1","method":"ping"}`, false, []Kind{KindRequest}, "ping", false},
		{"notification has a method and no id", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":1}}`, false, []Kind{KindNotification}, "notifications/progress", false},
		{"response with result", `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`, false, []Kind{KindResponse}, "", false},
		{"response with a null result", `{"jsonrpc":"2.0","id":3,"result":null}`, false, []Kind{KindResponse}, "", false},
		{"response with error", `{"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"no"}}`, false, []Kind{KindResponse}, "", false},
		{"error response with a null id (unreadable request)", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`, false, []Kind{KindResponse}, "", false},
		{"missing jsonrpc version is invalid", `{"id":3,"method":"x"}`, false, []Kind{KindInvalid}, "x", false},
		{"wrong jsonrpc version is invalid", `{"jsonrpc":"1.0","id":3,"method":"x"}`, false, []Kind{KindInvalid}, "x", false},
		{"result and error together is invalid", `{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":""}}`, false, []Kind{KindInvalid}, "", false},
		{"response without id is invalid", `{"jsonrpc":"2.0","result":{}}`, false, []Kind{KindInvalid}, "", false},
		{"object id is invalid", `{"jsonrpc":"2.0","id":{},"method":"x"}`, false, []Kind{KindInvalid}, "", false},
		{"scalar params are invalid", `{"jsonrpc":"2.0","id":1,"method":"x","params":3}`, false, []Kind{KindInvalid}, "", false},
		{"error that is not an object is invalid", `{"jsonrpc":"2.0","id":1,"error":"bad"}`, false, []Kind{KindInvalid}, "", false},
		{"batch of mixed messages", `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"},3]`, true, []Kind{KindRequest, KindNotification, KindInvalid}, "tools/list", false},
		{"empty batch is an error", `[]`, true, nil, "", true},
		{"not JSON is an error", `{"jsonrpc":`, false, nil, "", true},
		{"empty body is an error", "  \n", false, nil, "", true},
		{"a scalar body is an invalid message", `42`, false, []Kind{KindInvalid}, "", false},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			b := Read([]byte(c.body))
			msgs, batch, err := b.Messages, b.Batch, b.Err
			if (err != nil) != c.err {
				t.Fatalf("err = %v, want error %v", err, c.err)
			}
			if err != nil {
				return
			}
			if batch != c.batch || len(msgs) != len(c.kinds) {
				t.Fatalf("batch=%v msgs=%+v", batch, msgs)
			}
			for i, k := range c.kinds {
				if msgs[i].Kind != k {
					t.Fatalf("message %d is %v (%s), want %v", i, msgs[i].Kind, msgs[i].Problem, k)
				}
				if k == KindInvalid && msgs[i].Problem == "" {
					t.Fatalf("invalid message %d without a problem", i)
				}
			}
			if c.method != "" && msgs[0].Method != c.method {
				t.Fatalf("method %q", msgs[0].Method)
			}
		})
	}
	t.Run("id is kept raw", func(t *testing.T) {
		msgs := Read([]byte(`{"jsonrpc":"2.0","id": 12345678901234567890,"method":"x"}`)).Messages
		if string(msgs[0].ID) != "12345678901234567890" {
			t.Fatalf("id %s", msgs[0].ID)
		}
	})
	t.Run("error object is read", func(t *testing.T) {
		msgs := Read([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"forbidden","data":{"x":1}}}`)).Messages
		if e := msgs[0].Error; e == nil || e.Code != -32003 || e.Message != "forbidden" || string(e.Data) != `{"x":1}` {
			t.Fatalf("error %+v", msgs[0].Error)
		}
	})
}

func TestErrorResponse(t *testing.T) {
	cases := []struct {
		rule string
		id   json.RawMessage
		want string
	}{
		{"numeric id is echoed", json.RawMessage("3"), `{"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"missing token"}}`},
		{"string id is echoed", json.RawMessage(`"a"`), `{"jsonrpc":"2.0","id":"a","error":{"code":-32001,"message":"missing token"}}`},
		{"absent id becomes null", nil, `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"missing token"}}`},
		{"invalid id becomes null", json.RawMessage("{"), `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"missing token"}}`},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			got := string(ErrorResponse(c.id, -32001, "missing token"))
			if got != c.want {
				t.Fatalf("got %s", got)
			}
			b := Read([]byte(got))
			msgs, err := b.Messages, b.Err
			if err != nil || msgs[0].Kind != KindResponse || msgs[0].Error.Code != -32001 {
				t.Fatalf("the body does not read back as an error response: %v %+v", err, msgs)
			}
		})
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindRequest: "request", KindNotification: "notification", KindResponse: "response", KindInvalid: "invalid"} {
		if k.String() != want {
			t.Errorf("%d.String() = %q", k, k.String())
		}
	}
}

const strictCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_order","arguments":{"orderId":"A-17","name":"x","Name":"y"},"_meta":{"progressToken":7,"agentarea/task_id":"t1","agentarea/metadata":{"a":1,"A":2},"other":1,"Other":2}}}`

func TestStrict(t *testing.T) {
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
			a := Read([]byte(tc.body)).Strict
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

// BenchmarkRead: a 1 KiB tools/call with the contract's _meta, read once:
// envelope, params, _meta and the strict check.
func BenchmarkRead(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchCallBody)))
	for b.Loop() {
		body := Read(benchCallBody)
		if body.Strict != nil || body.Messages[0].Call.Name != "get_order" {
			b.Fatal(body.Strict)
		}
	}
}

// FuzzRead holds Read to JSON-RPC's shapes on any body: a request has an
// id, a notification none, a response a result or an error, an invalid
// message a problem, and an error answer to any id reads back.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":3}}}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":1,"total":2}},{"jsonrpc":"2.0","id":"a","result":{}}]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		b := Read(body)
		if b.Err != nil {
			return
		}
		if len(b.Messages) == 0 || (!b.Batch && len(b.Messages) != 1) {
			t.Fatalf("%d messages, batch %v", len(b.Messages), b.Batch)
		}
		for _, m := range b.Messages {
			switch m.Kind {
			case KindRequest:
				if m.ID == nil {
					t.Fatal("request without id")
				}
			case KindNotification:
				if m.ID != nil {
					t.Fatal("notification with id")
				}
			case KindResponse:
				if m.ID == nil || (m.Result == nil) == (m.Error == nil) {
					t.Fatalf("response %+v", m)
				}
			case KindInvalid:
				if m.Problem == "" {
					t.Fatal("invalid without a problem")
				}
			}
			back := Read(ErrorResponse(m.ID, CodeInvalidRequest, "x"))
			if back.Err != nil || back.Messages[0].Kind != KindResponse {
				t.Fatalf("error response for id %s does not read back: %v", m.ID, back.Err)
			}
		}
	})
}

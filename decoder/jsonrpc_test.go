package decoder

import (
	"encoding/json"
	"testing"
)

func TestParseMessages(t *testing.T) {
	cases := []struct {
		rule   string
		body   string
		batch  bool
		kinds  []MessageKind
		method string
		err    bool
	}{
		{"request has a method and an id", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}}`, false, []MessageKind{KindRequest}, "tools/call", false},
		{"string id is a request", `{"jsonrpc":"2.0","id":"a-1","method":"ping"}`, false, []MessageKind{KindRequest}, "ping", false},
		{"notification has a method and no id", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":1}}`, false, []MessageKind{KindNotification}, "notifications/progress", false},
		{"response with result", `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`, false, []MessageKind{KindResponse}, "", false},
		{"response with a null result", `{"jsonrpc":"2.0","id":3,"result":null}`, false, []MessageKind{KindResponse}, "", false},
		{"response with error", `{"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"no"}}`, false, []MessageKind{KindResponse}, "", false},
		{"error response with a null id (unreadable request)", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`, false, []MessageKind{KindResponse}, "", false},
		{"missing jsonrpc version is invalid", `{"id":3,"method":"x"}`, false, []MessageKind{KindInvalid}, "x", false},
		{"wrong jsonrpc version is invalid", `{"jsonrpc":"1.0","id":3,"method":"x"}`, false, []MessageKind{KindInvalid}, "x", false},
		{"result and error together is invalid", `{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":""}}`, false, []MessageKind{KindInvalid}, "", false},
		{"response without id is invalid", `{"jsonrpc":"2.0","result":{}}`, false, []MessageKind{KindInvalid}, "", false},
		{"object id is invalid", `{"jsonrpc":"2.0","id":{},"method":"x"}`, false, []MessageKind{KindInvalid}, "", false},
		{"scalar params are invalid", `{"jsonrpc":"2.0","id":1,"method":"x","params":3}`, false, []MessageKind{KindInvalid}, "", false},
		{"error that is not an object is invalid", `{"jsonrpc":"2.0","id":1,"error":"bad"}`, false, []MessageKind{KindInvalid}, "", false},
		{"batch of mixed messages", `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"},3]`, true, []MessageKind{KindRequest, KindNotification, KindInvalid}, "tools/list", false},
		{"empty batch is an error", `[]`, true, nil, "", true},
		{"not JSON is an error", `{"jsonrpc":`, false, nil, "", true},
		{"empty body is an error", "  \n", false, nil, "", true},
		{"a scalar body is an invalid message", `42`, false, []MessageKind{KindInvalid}, "", false},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			msgs, batch, err := ParseMessages([]byte(c.body))
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
		msgs, _, _ := ParseMessages([]byte(`{"jsonrpc":"2.0","id": 12345678901234567890,"method":"x"}`))
		if string(msgs[0].ID) != "12345678901234567890" {
			t.Fatalf("id %s", msgs[0].ID)
		}
	})
	t.Run("error object is read", func(t *testing.T) {
		msgs, _, _ := ParseMessages([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32003,"message":"forbidden","data":{"x":1}}}`))
		if e := msgs[0].Error; e == nil || e.Code != -32003 || e.Message != "forbidden" || string(e.Data) != `{"x":1}` {
			t.Fatalf("error %+v", msgs[0].Error)
		}
	})
}

func TestBatchRejection(t *testing.T) {
	cases := []struct {
		rule   string
		body   string
		reject bool
	}{
		{"a batch holding tools/call is 400/-32600", `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}]`, true},
		{"a batch without tools/call is not rejected here", `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`, false},
		{"a tools/call notification (no id) is not a call", `[{"jsonrpc":"2.0","method":"tools/call"}]`, false},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			msgs, _, err := ParseMessages([]byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			status, code, reason, reject := BatchRejection(msgs)
			if reject != c.reject {
				t.Fatalf("reject = %v", reject)
			}
			if reject && (status != 400 || code != -32600 || reason == "") {
				t.Fatalf("answer %d/%d %q", status, code, reason)
			}
		})
	}
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
			msgs, _, err := ParseMessages([]byte(got))
			if err != nil || msgs[0].Kind != KindResponse || msgs[0].Error.Code != -32001 {
				t.Fatalf("the body does not read back as an error response: %v %+v", err, msgs)
			}
		})
	}
}

func TestMessageKindString(t *testing.T) {
	for k, want := range map[MessageKind]string{KindRequest: "request", KindNotification: "notification", KindResponse: "response", KindInvalid: "invalid"} {
		if k.String() != want {
			t.Errorf("%d.String() = %q", k, k.String())
		}
	}
}

func TestBatchCallID(t *testing.T) {
	msgs, _, err := ParseMessages([]byte(`[{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"c-7","method":"tools/call","params":{"name":"t"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(BatchCallID(msgs)); got != `"c-7"` {
		t.Fatalf("BatchCallID = %s, want \"c-7\"", got)
	}
	msgs, _, _ = ParseMessages([]byte(`[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`))
	if got := BatchCallID(msgs); got != nil {
		t.Fatalf("BatchCallID without tools/call = %s, want nil", got)
	}
}

package decoder

import (
	"encoding/json"
	"reflect"
	"testing"
)

var envelopeCases = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"q":"é\n\"x\"\u00e9"},"_meta":{"progressToken":7}}}`,
	`{ "jsonrpc" : "2.0" , "id" : "a" , "result" : { "content" : [ { "type" : "text" , "text" : "hi" } ] , "n" : -1.5e+3 } }`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"total":null}}`,
	`{"jsonrpc":"2.0","id":1,"error":null,"extra":[true,false,null,{}, []]}`,
	`{"JSONRPC":"2.0","id":1,"method":"x"}`,
	`{"jsonrpc":"2.0","Method":"x"}`,
	`{"jsonrpc":"2.\u0030","id":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","method":null}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}`,
	`{"jsonrpc":2,"id":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":01}`,
	`{"jsonrpc":"2.0","id":1,}`,
	`{"jsonrpc":"2.0","id":"\x"}`,
	`{"jsonrpc":"2.0","id":"\u12"}`,
	`{"jsonrpc":"2.0","params":{"a":1}} x`,
	`{}`,
	`{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
}

// The fast envelope reader gives exactly json.Unmarshal's wireMessage
// wherever it answers, and answers for the tap's everyday messages.
func TestEnvelopeFastPath(t *testing.T) {
	for _, c := range envelopeCases {
		checkEnvelope(t, c)
	}
	for _, c := range envelopeCases[:5] {
		if _, ok := fastWireMessage([]byte(c)); !ok {
			t.Errorf("fast path declined the everyday message %s", c)
		}
	}
}

func FuzzEnvelopeFastPath(f *testing.F) {
	for _, c := range envelopeCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) { checkEnvelope(t, s) })
}

func checkEnvelope(t *testing.T, s string) {
	t.Helper()
	if len(s) == 0 || s[0] != '{' {
		return
	}
	got, ok := fastWireMessage([]byte(s))
	if !ok {
		return
	}
	var want wireMessage
	if err := json.Unmarshal([]byte(s), &want); err != nil {
		t.Fatalf("fast path took %q, encoding/json says %v", s, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: fast path %+v, encoding/json %+v", s, got, want)
	}
}

var callParamsCases = []string{
	`{"name":"read","arguments":{"orderId":"A-17"},"_meta":{"progressToken":12,"agentarea/task_id":"t"}}`,
	` { "name" : "read" , "arguments" : null , "_meta" : null } `,
	`{"name":"read"}`,
	`{"name":"r\u00e9ad","arguments":[1]}`,
	`{"name":1,"arguments":{}}`,
	`{"Name":"read","name":"x"}`,
	`{"name":"a","name":"b","_meta":"x"}`,
	`{"name":"a","arguments":{"a":1},"arguments":{"b":2},"other":[{}]}`,
	`{"name":"a",}`,
	`{}`,
	`{ }`,
}

// ParseCallParams (fast envelope reader first) answers exactly as
// encoding/json alone does, errors included.
func TestCallParamsFastPath(t *testing.T) {
	for _, c := range callParamsCases {
		checkCallParams(t, c)
	}
	if _, _, _, ok := fastCallParams([]byte(callParamsCases[0])); !ok {
		t.Errorf("fast path declined the everyday params %s", callParamsCases[0])
	}
}

func FuzzCallParamsFastPath(f *testing.F) {
	for _, c := range callParamsCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) { checkCallParams(t, s) })
}

func checkCallParams(t *testing.T, s string) {
	t.Helper()
	got, gotErr := ParseCallParams(json.RawMessage(s))
	want, wantErr := parseCallParamsJSON(json.RawMessage(s))
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("%q: error %v, encoding/json %v", s, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: %#v, encoding/json %#v", s, got, want)
	}
}

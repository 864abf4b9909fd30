package decoder

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
)

var progressCases = []string{
	`{"progressToken":3,"progress":5,"total":23,"message":"m"}`,
	`{"progressToken":"tok-1","progress":0.5}`,
	` { "progressToken" : 3 , "progress" : 1e2 , "total" : null , "message" : "step \"two\"\n\u00e9" } `,
	`{"progressToken":3,"progress":5,"_meta":{"a":[1,{}]}}`,
	`{"progressToken":3,"progress":null}`,
	`{"progressToken":3,"progress":"5"}`,
	`{"progressToken":3,"progress":1e400}`,
	`{"progressToken":3,"progress":01}`,
	`{"progressToken":3,"progress":5,"message":7}`,
	`{"progressToken":3,"progress":5,"progress":null}`,
	`{"progressToken":3,"Progress":5}`,
	`{"progresstoken":3,"progress":5}`,
	`{"progressToken":[1],"progress":5}`,
	`{"progressToken":3,"progress":5,}`,
	`{"progressToken":3,"progress":5} x`,
	`{}`,
	`[]`,
}

// parseProgressReference is ParseProgress as it was before its one-pass
// reader: encoding/json throughout.
func parseProgressReference(params json.RawMessage) (Progress, error) {
	var raw struct {
		Token    json.RawMessage  `json:"progressToken"`
		Progress *json.RawMessage `json:"progress"`
		Total    *json.RawMessage `json:"total"`
		Message  *json.RawMessage `json:"message"`
	}
	p := bytes.TrimSpace(params)
	if len(p) == 0 || p[0] != '{' {
		return Progress{}, errors.New("progress params is not an object")
	}
	if err := json.Unmarshal(p, &raw); err != nil {
		return Progress{}, fmt.Errorf("progress params: %v", err)
	}
	var out Progress
	tok := nonNull(raw.Token)
	if tok == nil {
		return out, errors.New("progress notification has no progressToken")
	}
	if tok[0] != '"' && tok[0] != '-' && (tok[0] < '0' || tok[0] > '9') {
		return out, errors.New("progressToken is neither a string nor a number")
	}
	out.Token = append(json.RawMessage(nil), tok...)
	if raw.Progress == nil {
		return out, errors.New("progress notification has no progress")
	}
	number := func(raw json.RawMessage) (float64, error) {
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil {
			return 0, errors.New("not a number")
		}
		return f, nil
	}
	v, err := number(*raw.Progress)
	if err != nil {
		return out, fmt.Errorf("progress: %v", err)
	}
	out.Progress = v
	if raw.Total != nil && nonNull(*raw.Total) != nil {
		t, err := number(*raw.Total)
		if err != nil {
			return out, fmt.Errorf("total: %v", err)
		}
		out.Total = &t
	}
	if raw.Message != nil && nonNull(*raw.Message) != nil {
		if err := json.Unmarshal(*raw.Message, &out.Message); err != nil {
			return out, errors.New("message is not a string")
		}
	}
	return out, nil
}

// ParseProgress gives what encoding/json alone gave, value and error, and
// its one-pass reader answers for the everyday notifications.
func TestProgressOnePass(t *testing.T) {
	for _, c := range progressCases {
		checkProgress(t, []byte(c))
	}
	for _, c := range progressCases[:4] {
		var w wireProgress
		if !w.readOnePass(bytes.TrimSpace([]byte(c))) {
			t.Errorf("one-pass reader declined the everyday notification %s", c)
		}
	}
}

func FuzzProgressOnePass(f *testing.F) {
	for _, c := range progressCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, params []byte) { checkProgress(t, params) })
}

func checkProgress(t *testing.T, params []byte) {
	t.Helper()
	got, gotErr := ParseProgress(params)
	want, wantErr := parseProgressReference(params)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: ParseProgress %+v %v, encoding/json %+v %v", params, got, gotErr, want, wantErr)
	}
	if p := bytes.TrimSpace(params); len(p) > 0 && p[0] == '{' {
		var w, ref wireProgress
		if w.readOnePass(p) && (json.Unmarshal(p, &ref) != nil || !reflect.DeepEqual(w, ref)) {
			t.Fatalf("%q: one-pass %+v, encoding/json %+v", p, w, ref)
		}
	}
}

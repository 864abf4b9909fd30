package model

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// identityCases are events of every kind and the values that are hard to
// encode: escaping, invalid UTF-8, terminal controls, untidy raw JSON,
// float formats, every type a map of any may hold, and encoding errors.
func identityCases() []Event {
	events := append(oneOfEachKind(), realisticTapCall(), realisticTapResult())
	odd := realisticTapCall()
	odd.Arguments = json.RawMessage("{ \"q\" : \"<a&b>\\u2028 \u2028\u2029 \xff\u009b\x7f\" ,\n\t\"n\": [ 1 , 2.50 , -0 ] }\n")
	odd.Message = "<tag> & \u2028\u2029 \x00\x01\x1f\b\f\n\r\t\"\\ \x7f \u009b \u202e \xff\xfe \xed\xa0\x80 ok ✓ инструменты"
	odd.Headers = map[string]string{"authorization": "Bearer s", "Cookie": "a=b", "X-Agentarea-Context": "not-a-token",
		"x-agentarea-context": "", "Proxy-Authorization": "VeryLongSchemeName12 x", "X-Custom": "v<>&", "\u212a-Token": "k"}
	odd.Meta = map[string]any{"nil": nil, "f": 1e21, "g": 1e-7, "h": 123456789.125, "neg0": math.Copysign(0, -1),
		"tiny": 5e-324, "max": math.MaxFloat64, "s": []any{nil, true, false, "x", 0.1, []any{}, map[string]any{}},
		"nilmap": map[string]any(nil), "nilslice": []any(nil), "num": json.Number("12.5e3"), "zero": json.Number(""),
		"int": -7, "i64": int64(1) << 60, "raw": json.RawMessage(` {"a" : "<"} `), "nilraw": json.RawMessage(nil),
		"strs": []string{"a", "<b>"}, "sm": map[string]string{"z": "1", "a": "2"}, "f32": float32(0.1),
		"keys": map[string]any{"b": 1.0, "a": 2.0, "\u2028": 3.0, "<": 4.0, "": 5.0, "é": 6.0, "e": 7.0}}
	odd.SoatContext = map[string]string{"z": "1", "a": "<", "m": "\xff"}
	odd.Images = []Image{{MimeType: "image/png", Size: 0}, {ID: "<i>", MimeType: "", Size: -1, Problem: "size"}}
	odd.Context.Warnings = []string{"w1", "<w2>"}
	odd.Context.HTTPStatus, odd.Context.RPCCode, odd.Context.Reason = 401, -32001, "expired \u202e"
	odd.StructuredContent = json.RawMessage(`[1,"\u003c",{"a":null}]`)
	odd.Data = json.RawMessage(`"x"`)
	nested := realisticTapCall()
	nested.Meta = deep(maxHandDepth + 3)
	nested.Context.Claims = deep(maxHandDepth - 1)
	events = append(events, nested)
	many := realisticTapCall()
	many.Meta = map[string]any{}
	for _, k := range []string{"q", "w", "e", "r", "t", "y", "u", "i", "o", "p", "a", "s", "d", "f", "g", "h", "j", "k", "l", "z"} {
		many.Meta[k] = k
	}
	progress := Event{Time: time.Date(1, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 3600)), Kind: KindToolProgress,
		Progress: 1e21, Total: f64(1e-7), Relayed: true, AfterCancel: true}
	local := realisticTapResult()
	local.Time = time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("CET", 3600))
	local.IsError, local.Replayed, local.Offloaded, local.StructuredContentDropped, local.Late, local.TimedOut = true, true, true, true, true, true
	local.Reason, local.EventType, local.State, local.Detail, local.Code, local.Denied = "r", "t", "s", "d", "c", "p"
	return append(events, odd, many, progress, local)
}

// errorCases cannot be encoded; the error must be the one json.Marshal gave.
func errorCases() []Event {
	base := realisticTapCall()
	with := func(f func(*Event)) Event { e := base; f(&e); return e }
	return []Event{
		with(func(e *Event) { e.Arguments = json.RawMessage(`{"a":`) }),
		with(func(e *Event) { e.Arguments = json.RawMessage(` `) }),
		with(func(e *Event) { e.Data = json.RawMessage(`{"a":1}x`) }),
		with(func(e *Event) { e.StructuredContent = json.RawMessage(`nul`) }),
		with(func(e *Event) { e.Meta = map[string]any{"a": math.NaN()} }),
		with(func(e *Event) { e.Meta = map[string]any{"b": math.Inf(-1), "a": json.RawMessage(`x`)} }),
		with(func(e *Event) { e.Meta = map[string]any{"a": json.Number("1.")} }),
		with(func(e *Event) { e.Meta = map[string]any{"a": json.RawMessage{}} }),
		with(func(e *Event) { e.Meta = map[string]any{"a": make(chan int)} }),
		with(func(e *Event) { e.Context = &Context{Claims: map[string]any{"exp": math.Inf(1)}} }),
		with(func(e *Event) { e.Meta = cyclic() }),
		with(func(e *Event) { e.Context = &Context{Header: map[string]any{"x": []any{cyclic()}}} }),
		with(func(e *Event) { e.Time = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }),
		with(func(e *Event) { e.Time = time.Date(9999, 12, 31, 23, 0, 0, 0, time.FixedZone("w", -5*3600)) }),
		with(func(e *Event) { e.Time = time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC) }),
	}
}

// cyclic is a map that holds itself: JSON decoding never yields one, but
// encoding/json reports it as an error, and so must the encoder.
func cyclic() map[string]any {
	m := map[string]any{"a": 1.0}
	m["self"] = []any{m}
	return m
}

// deep is n maps (each in a slice) nested in each other: deeper than the
// encoder goes by hand.
func deep(n int) map[string]any {
	m := map[string]any{"leaf": "<x>"}
	for range n {
		m = map[string]any{"k": []any{1.0, m}}
	}
	return m
}

func TestEncodeMatchesReflection(t *testing.T) {
	redactors := []Redactor{{}, NewRedactor("X-Custom", "Mcp-Session-Id")}
	for i, ev := range append(identityCases(), errorCases()...) {
		assertSameEncoding(t, i, ev, redactors...)
	}
}

func TestEncodeErrorsAreReflections(t *testing.T) {
	for i, ev := range errorCases() {
		if _, err := EncodeLine(ev); err == nil {
			t.Errorf("case %d: no error", i)
		}
	}
}

// assertSameEncoding compares MarshalJSON and each redactor's EncodeLine
// and AppendLine (after a prefix) with the oracle: bytes and error text.
func assertSameEncoding(t *testing.T, id any, ev Event, redactors ...Redactor) {
	t.Helper()
	got, gotErr := ev.MarshalJSON()
	want, wantErr := oracleMarshal(ev)
	compareEncoding(t, id, "MarshalJSON", got, want, gotErr, wantErr)
	for _, r := range redactors {
		want, wantErr := oracleEncodeLine(r, ev)
		got, gotErr := r.EncodeLine(ev)
		compareEncoding(t, id, "EncodeLine", got, want, gotErr, wantErr)
		prefix := []byte("prefix\u202e")
		appended, gotErr := r.AppendLine(prefix, ev)
		if gotErr == nil && string(appended[:len(prefix)]) != string(prefix) {
			t.Errorf("%v: AppendLine changed the bytes before it: %q", id, appended)
		}
		if gotErr != nil && string(appended) != string(prefix) {
			t.Errorf("%v: AppendLine failed but left %q", id, appended)
		}
		compareEncoding(t, id, "AppendLine", appended[len(prefix):], want, gotErr, wantErr)
	}
}

func compareEncoding(t *testing.T, id any, what string, got, want []byte, gotErr, wantErr error) {
	t.Helper()
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Errorf("%v %s: error %v, want %v", id, what, gotErr, wantErr)
		return
	}
	if string(got) != string(want) {
		t.Errorf("%v %s:\n got %s\nwant %s", id, what, got, want)
	}
}

// Raw JSON is checked and compacted by hand: valid, invalid and untidy
// messages give encoding/json's bytes or its error.
func TestRawJSONMatchesEncodingJSON(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	cases := []string{
		``, ` `, `0`, `-0`, `01`, `-`, `1.`, `1.5`, `.5`, `1e`, `1E+5`, `1e-05`, `-0.0e-0`, `1ee2`, `2.e3`,
		`"\u12"`, `"\uZZZZ"`, `"\u00aF"`, `"\/\b\f\n\r\t\"\\"`, `"\x"`, "\"\t\"", "\"\x7f\xff\xe2\x80\"", `"\u2028"`,
		"\"\u2028\u2029\u2027\"", "\"<>&\"", `"unterminated`, `[1,]`, `[,1]`, `{,}`, `{"a"}`, `{"a":1,}`, `{"a" 1}`, `{1:2}`,
		`tru`, `true`, `false`, `null`, `nulll`, `nul`, " [ ] ", " { \"a\" : [ 1 , { } , \"x y\" ] } \n", `[] []`, `{}}`,
		deep(maxRawDepth), deep(maxRawDepth + 1), `[[[[[`, `]`,
	}
	for _, raw := range cases {
		want, wantErr := json.Marshal(json.RawMessage(raw))
		got, gotErr := appendRawJSON([]byte("x"), []byte(raw), false)
		compareEncoding(t, fmt.Sprintf("%.40q", raw), "appendRawJSON", got[1:], want, gotErr, wantErr)
	}
}

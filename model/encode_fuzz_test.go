package model

import (
	"encoding/json"
	"testing"
	"time"
)

// FuzzEncodeMatchesReflection: the hand-written encoder writes what the
// reflective one wrote, byte for byte and error for error, for any strings,
// raw JSON, floats and map keys; TerminalSafeJSON rewrites any bytes as it did.
func FuzzEncodeMatchesReflection(f *testing.F) {
	f.Add("hello <b> & \u2028", "key", []byte(`{ "a" : [1, 2.5e3, "x\u2029"] }`), 1.5, int64(1796039988), uint8(0))
	f.Add("\xff\xfe\u009b\x7f\u202e", "\x00", []byte("\"\xff\u009b\""), 1e21, int64(-62135596801), uint8(1))
	f.Add("", "", []byte(nil), 1e-7, int64(253402300800), uint8(2))
	f.Add("Bearer x", "Authorization", []byte(`nul`), -0.000001, int64(0), uint8(3))
	f.Fuzz(func(t *testing.T, text, key string, raw []byte, num float64, secs int64, kind uint8) {
		ev := fuzzEvent(text, key, raw, num, secs, kind)
		assertSameEncoding(t, "fuzz", ev, Redactor{}, NewRedactor(key))
		if got, want := TerminalSafeJSON(raw), oracleTerminalSafe(raw); string(got) != string(want) {
			t.Errorf("TerminalSafeJSON(%q) = %q, want %q", raw, got, want)
		}
	})
}

// fuzzEvent puts the fuzzed values in every place that encodes them
// differently: fields, raw messages, map keys and values, headers.
func fuzzEvent(text, key string, raw []byte, num float64, secs int64, kind uint8) Event {
	ev := realisticTapCall()
	ev.Time = time.Unix(secs, int64(kind)*1e6).In(time.FixedZone("z", int(kind)*60))
	ev.Kind = Kinds[int(kind)%len(Kinds)]
	ev.Message, ev.TextPreview, ev.Tool = text, key, text+key
	ev.Progress, ev.Total = num, &num
	ev.Headers = map[string]string{key: text, "Authorization": text, "X-Agentarea-Context": text, text: key}
	ev.SoatContext = map[string]string{key: text}
	ev.Meta = map[string]any{key: text, text: num, "n": []any{num, key, nil}}
	ev.Context.Claims = map[string]any{key: map[string]any{text: num}}
	switch kind % 4 {
	case 0:
		ev.Arguments = raw
	case 1:
		ev.StructuredContent = raw
	case 2:
		ev.Data = raw
	case 3:
		ev.Meta["raw"] = json.RawMessage(raw)
		ev.Meta["num"] = json.Number(text)
	}
	return ev
}

package decoder

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// jsonFastCases: objects the quick reader takes, and ones it must leave to
// encoding/json (escapes, non-ASCII, bad grammar, huge numbers).
var jsonFastCases = []struct {
	in   string
	fast bool
}{
	{`{"alg":"HS256","typ":"JWT"}`, true},
	{` {"iss":"agentarea","iat":1796039988,"exp":1.796040288e9,"aud":["a","b"],"n":null,"t":true,"f":false,"m":{"x":[1,-2.5,{}],"e":[]}} `, true},
	{`{"a":1,"a":2}`, true}, // last wins, as in encoding/json
	{`{}`, true},
	{`{"a":"\u0041"}`, false},
	{`{"a":"é"}`, false},
	{`{"a":01}`, false},
	{`{"a":1e999}`, false},
	{`{"a":1,}`, false},
	{`{"a":1} x`, false},
	{`["a"]`, false},
	{`{"a":tru}`, false},
	{`{"a":-}`, false},
	{`{"a":1.}`, false},
}

func TestTokenJSONFastPath(t *testing.T) {
	for _, c := range jsonFastCases {
		got, ok := fastObject(c.in)
		if ok != c.fast {
			t.Errorf("fastObject(%s): ok %v, want %v", c.in, ok, c.fast)
		}
		want := decodeObject([]byte(c.in))
		if ok && !reflect.DeepEqual(got, want) {
			t.Errorf("fastObject(%s) = %#v, encoding/json gives %#v", c.in, got, want)
		}
		if d := decodeObjectString(c.in); !reflect.DeepEqual(d, want) {
			t.Errorf("decodeObjectString(%s) = %#v, want %#v", c.in, d, want)
		}
	}
}

// FuzzTokenJSONFastPath: whatever the quick reader accepts, encoding/json
// decodes to the same value.
func FuzzTokenJSONFastPath(f *testing.F) {
	for _, c := range jsonFastCases {
		f.Add(c.in)
	}
	f.Add(string(mustJSON(baseClaims())))
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := fastObject(s)
		if !ok {
			return
		}
		var want any
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatalf("fast path took %q, encoding/json says %v", s, err)
		}
		if !reflect.DeepEqual(any(got), want) {
			t.Fatalf("fast path %#v, encoding/json %#v", got, want)
		}
	})
}

// FuzzBase64URLDecode: the quick decoder agrees with
// base64.RawURLEncoding wherever it answers.
func FuzzBase64URLDecode(f *testing.F) {
	for _, s := range []string{"", "e30", "eyJhbGciOiJIUzI1NiJ9", "a", "ab", "abc", "a-_9", "ab==", "a\nb", "YQ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var dst [256]byte
		n, ok := base64URLDecode(dst[:], s)
		want, err := base64.RawURLEncoding.DecodeString(s)
		if ok && (err != nil || string(want) != string(dst[:n])) {
			t.Fatalf("%q: quick %q, library %q %v", s, dst[:n], want, err)
		}
		if !ok && err == nil && len(want) <= len(dst) && !strings.ContainsAny(s, "\r\n") {
			// Only line breaks (which the library skips) send a valid input to the library.
			t.Fatalf("%q: valid, but the quick decoder declined", s)
		}
	})
}

// FuzzParseCallParamsFastPath: ParseCallParams answers as encoding/json
// alone does (parseCallParamsJSON), value and error.
func FuzzParseCallParamsFastPath(f *testing.F) {
	for _, p := range []string{
		`{"name":"x","arguments":{"a":1},"_meta":{"progressToken":12345678901234567890,"agentarea/task_id":"t"}}`,
		`{"name":"x","_meta":{"progressToken":1,"progressToken":"s"}}`,
		`{"name":"x","_META":{"progressToken":-0.5e3},"_meta":null}`,
		`{"name":"x","_meta":{"a":1e999}}`,
		`{"name":1}`, `{"name":"x","_meta":[]}`, `{"name":"x","arguments":null}`, `[]`,
	} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, params string) {
		got, gotErr := ParseCallParams([]byte(params))
		want, wantErr := parseCallParamsJSON([]byte(params))
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\n got %#v %v\nwant %#v %v", params, got, gotErr, want, wantErr)
		}
	})
}

// TestSpecialBytes: the word test marks a byte first exactly where the
// byte-wise test finds the first special one, for every byte at every
// position, among plain bytes and next to special ones.
func TestSpecialBytes(t *testing.T) {
	plain := func(c byte) bool { return c != '"' && c != '\\' && c >= 0x20 && c < 0x80 }
	for _, fill := range []byte{'a', 0x20, 0x7f, 0x21, 0x5d, 0x00, 0xff, '"', 0x1f, 0xa0} {
		for p := 0; p < 8; p++ {
			for c := 0; c < 256; c++ {
				w := make([]byte, 8)
				for i := range w {
					w[i] = fill
				}
				w[p] = byte(c)
				first := 8
				for i, b := range w {
					if !plain(b) {
						first = i
						break
					}
				}
				m := specialBytes(binary.LittleEndian.Uint64(w))
				if got := bits.TrailingZeros64(m) / 8; got != first {
					t.Fatalf("%q: first special byte at %d, want %d", w, got, first)
				}
			}
		}
	}
}

// TestParseNumber: the whole-number path gives what strconv.ParseFloat gives.
func TestParseNumber(t *testing.T) {
	texts := []string{"0", "-0", "7", "00", "1795000000", "999999999999999", "9999999999999999", "123456789012345678",
		"-1795000000", "1.5", "1e3", "1E400", "-", ""}
	for n := uint64(1); n < 1e16; n = n*3 + 1 {
		texts = append(texts, strconv.FormatUint(n, 10), strconv.FormatUint(n-1, 10))
	}
	for _, text := range texts {
		got, ok := parseNumber(text)
		want, err := strconv.ParseFloat(text, 64)
		if ok != (err == nil) || ok && math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("%q: %v %v, ParseFloat %v %v", text, got, ok, want, err)
		}
	}
}

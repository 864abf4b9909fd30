package tap

import (
	"bytes"
	"testing"

	"toolscope/decoder"
)

var canonicalArgumentsCases = []string{
	`{"orderId":"A-17"}`, `{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1`, `1.0`, `1e0`, `10.0E2`, `0.000e5`,
	`12345678901234567890123`, `1e1234567890123456`, `-1.5e-7`, `0.0100`,
	`{"b":1,"a":2}`, `{"a":1,"a":2}`, `{"a":1,"b":{"y":[1,2,{"z":null}],"x":"s"},"a":"last"}`,
	` { "a" : [ 1 , 2 ] } `, `{"a":"line\nbreak \"q\" \\ \/ \t \r \b \f"}`, `{"a":"é ü 日本"}`,
	`{"a":"<b>&"}`, `{"a":"\u00e9"}`, `{"\u0061":1}`, `{"a\n":1}`, `{"a":"\u2028"}`, "{\"a\":\"\u2028\"}",
	"{\"a\":\"\xff\"}", `{"a":1,}`, `[1,]`, `{"a":1} x`, `{"a":1}{}`, `{"a" 1}`, `[01]`, `[1.]`, `[-]`, `"`, ``,
	`{"B":1,"a":2,"_":3,"Z":4}`, `{"a":[[[[]]]],"b":[{}]}`, `[1e400]`, `{"k":tru}`,
}

// The one-walk canonical form is byte for byte encoding/json's, wherever it
// answers.
func TestCanonicalArgumentsMatchesJSON(t *testing.T) {
	answered := 0
	for _, in := range canonicalArgumentsCases {
		if checkCanonicalArguments(t, []byte(in)) {
			answered++
		}
	}
	if answered < 25 {
		t.Errorf("the fast form answered only %d of %d cases", answered, len(canonicalArgumentsCases))
	}
}

func FuzzCanonicalArguments(f *testing.F) {
	for _, in := range canonicalArgumentsCases {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkCanonicalArguments(t, raw) })
}

func checkCanonicalArguments(t *testing.T, raw []byte) bool {
	t.Helper()
	fast, ok := decoder.AppendCanonicalJSON(nil, raw)
	if !ok {
		return false
	}
	if want := canonicalArgumentsJSON(bytes.Clone(raw)); !bytes.Equal(fast, want) {
		t.Errorf("%q: fast form %s, encoding/json %s", raw, fast, want)
	}
	return true
}

// put is set for a key not looked up first (the tests' way in).
func (b *boundedMap) put(k string, v [2]string) {
	_, present := b.get(k)
	b.set(k, v, present)
}

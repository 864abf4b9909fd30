package decoder

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"
)

// contextClaimsOf, from the members the quick reader lists, gives the names
// and values contextClaimNames and the map give: sorted, a repeated key
// once with its last value, registered claims left out.
func TestContextClaimsOfMatchesMap(t *testing.T) {
	for _, text := range []string{
		`{"task_id":"t","agent_id":"a","iss":"agentarea","exp":1}`,
		`{"b":1,"a":2,"b":3,"tool":"x","a":"last"}`,
		`{"z":{"k":[1,"s"]},"m":null,"a":true,"m":false}`,
		`{}`,
	} {
		var keys [maxFastFields]string
		var vals [maxFastFields]any
		claims, members, known := decodeObjectMembers(text, memberList{keys: keys[:0], values: vals[:0]})
		if !known {
			t.Fatalf("%s: not read by the quick reader", text)
		}
		names, values := contextClaimsOf(claims, known, members)
		want := contextClaimNames(claims, nil)
		if len(names) != len(want) || (len(want) > 0 && !reflect.DeepEqual(names, want)) {
			t.Errorf("%s: names %q, want %q", text, names, want)
			continue
		}
		for i, name := range names {
			if !reflect.DeepEqual(values[i], claims[name]) {
				t.Errorf("%s: %s is %#v, the map has %#v", text, name, values[i], claims[name])
			}
		}
	}
}

// The claims the checks read, taken as the quick reader decodes them, are
// what the map holds, and the members left over are the context claims.
func TestTokenClaimsTakenMatchMap(t *testing.T) {
	for _, text := range []string{
		`{"task_id":"t","agent_id":"a","iss":"agentarea","exp":1}`,
		`{"iss":"x","aud":["a","b"],"exp":1.5,"iat":null,"nbf":2,"jti":"j","sub":"s","tool":"t","iss":"agentarea"}`,
		`{"protocol":"1","task_id":"t","tool_call_id":"c","idempotency_key":"t:c","metadata":{"k":1},"end_user_id":"u","protocol":"1.2"}`,
		`{"b":1,"tool":"x","a":"last","tool":null,"exp":3,"exp":4}`,
		`{}`,
	} {
		var keys [maxFastFields]string
		var vals [maxFastFields]any
		var tc tokenClaims
		claims, members, known := decodeObjectMembers(text, memberList{keys[:0], vals[:0], &tc})
		if !known {
			t.Fatalf("%s: not read by the quick reader", text)
		}
		if want := claimsOf(claims); !reflect.DeepEqual(tc, want) {
			t.Errorf("%s: taken %#v, the map gives %#v", text, tc, want)
		}
		names, values := contextClaimsOf(claims, known, members)
		if want := contextClaimNames(claims, nil); len(names) != len(want) || len(want) > 0 && !reflect.DeepEqual(names, want) {
			t.Errorf("%s: names %q, want %q", text, names, want)
		}
		for i, name := range names {
			if !reflect.DeepEqual(values[i], claims[name]) {
				t.Errorf("%s: %s is %#v, the map has %#v", text, name, values[i], claims[name])
			}
		}
	}
}

// The header golang-jwt writes is built without the reader, to the same map.
func TestDecodeHeaderSignedMatchesReader(t *testing.T) {
	if got, want := decodeHeader(signedHeader), decodeObjectString(signedHeader); !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeHeader = %#v, the reader gives %#v", got, want)
	}
	segment, _, _ := strings.Cut(platformInput(t).Token, ".")
	if head, err := base64.RawURLEncoding.DecodeString(segment); err != nil || string(head) != signedHeader {
		t.Fatalf("the platform's header is %s (%v), not %s", head, err, signedHeader)
	}
}

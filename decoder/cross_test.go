package decoder

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"toolscope/model"
)

// TestCrossIndexBounded: however many calls pass, and however long their
// keys, the cross-call index keeps at most maxCrossEntries small entries.
func TestCrossIndexBounded(t *testing.T) {
	var x crossIndex
	long := strings.Repeat("k", 1<<10)
	for i := 0; i < maxCrossEntries+1000; i++ {
		id := fmt.Sprintf("%s-%d", long, i)
		x.check(crossCall{what: "exchange", id: "1", idemKey: id, taskID: id, claims: map[string]any{"jti": id},
			meta: map[string]any{"agentarea/end_user_id": id}})
	}
	for name, m := range map[string]*boundedMap{"args": &x.args, "jtis": &x.jtis, "endUsers": &x.endUsers} {
		if len(m.m) > maxCrossEntries || len(m.order) > maxCrossEntries {
			t.Errorf("%s holds %d entries, order %d", name, len(m.m), len(m.order))
		}
		for k, v := range m.m {
			if len(k) > 64 || len(v[0]) > 64 {
				t.Fatalf("%s keeps a long key or value (%d, %d bytes)", name, len(k), len(v[0]))
			}
		}
	}
	// Exactly the newest maxCrossEntries keys are kept, however often the
	// ring went round.
	var b boundedMap
	for i := 0; i < 3*maxCrossEntries+7; i++ {
		b.put(strconv.Itoa(i), [2]string{"v", "1"})
	}
	for i := 0; i < 3*maxCrossEntries+7; i++ {
		if _, ok := b.get(strconv.Itoa(i)); ok != (i >= 2*maxCrossEntries+7) {
			t.Fatalf("key %d kept %v", i, ok)
		}
	}
	// The oldest were forgotten, the newest still match.
	last := fmt.Sprintf("%s-%d", long, maxCrossEntries+999)
	if ws := x.check(crossCall{what: "exchange", id: "2", claims: map[string]any{"jti": last}}); len(ws) != 1 || ws[0].Code != "token_reused" {
		t.Fatalf("the newest jti was forgotten: %v", ws)
	}
}

// TestCrossIndexLongValues: a long key or value is matched by its digest:
// the same long value is the same, another one of the same length is not.
func TestCrossIndexLongValues(t *testing.T) {
	var x crossIndex
	long := strings.Repeat("u", 200)
	task := strings.Repeat("t", 100)
	call := func(ex, endUser string) crossCall {
		return crossCall{what: "exchange", id: ex, taskID: task, meta: map[string]any{"agentarea/end_user_id": endUser}}
	}
	if ws := x.check(call("1", long)); len(ws) != 0 {
		t.Fatalf("first call: %v", ws)
	}
	if ws := x.check(call("2", long)); len(ws) != 0 {
		t.Fatalf("the same long end_user_id warned: %v", ws)
	}
	if ws := x.check(call("3", strings.Repeat("v", 200))); len(ws) != 1 || ws[0].Code != model.WarnEndUserIDChanged {
		t.Fatalf("another long end_user_id: %v", ws)
	}
}

// put is set for a key not looked up first (the tests' way in).
func (b *boundedMap) put(k string, v [2]string) {
	_, present := b.get(k)
	b.set(k, v, present)
}

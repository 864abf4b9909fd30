package decoder

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// maxCrossEntries bounds each index of crossIndex: the oldest entry goes
// first, so memory stays flat however many calls pass.
const maxCrossEntries = 4096

// crossIndex remembers, for the contract's rules that span calls, what
// earlier calls carried: the arguments of each idempotency key (a retry
// sends the same), each token's jti (minted per call), and each task's
// end_user_id (fixed when the task was created).
type crossIndex struct {
	mu       sync.Mutex
	args     boundedMap // idempotency key -> sha256 of the canonical arguments, exchange
	jtis     boundedMap // jti -> exchange
	endUsers boundedMap // task id -> end_user_id, exchange
}

// boundedMap is a map that forgets its oldest key past maxCrossEntries.
// Its keys in the order they came are a ring: once full, the next slot is
// the oldest key's, and a new key takes it (nothing more is made per key).
type boundedMap struct {
	m     map[string][2]string
	order []string // up to maxCrossEntries keys
	next  int      // the slot of the oldest key once order is full
}

func (b *boundedMap) get(k string) ([2]string, bool) {
	v, ok := b.m[short(k)]
	return v, ok
}

// set records v for k, a key get has just looked up (present: it was
// found): every call passes here, and the map is not searched for it again.
func (b *boundedMap) set(k string, v [2]string, present bool) {
	k, v[0] = short(k), short(v[0])
	if b.m == nil {
		b.m = make(map[string][2]string)
	}
	b.m[k] = v
	if present {
		return
	}
	if len(b.order) < maxCrossEntries {
		b.order = append(b.order, k)
		return
	}
	delete(b.m, b.order[b.next])
	b.order[b.next] = k
	b.next = (b.next + 1) % maxCrossEntries
}

// short keeps a key or value small: past 80 bytes (an idempotency key is
// 73) it is a digest, so a hostile megabyte-long key costs the index no
// more than a short one.
func short(s string) string {
	if len(s) <= 80 {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + string(sum[:])
}

// crossCall is what the cross-call rules read of one tools/call.
type crossCall struct {
	// what and id name the call in later messages ("exchange" "12", "event"
	// "e-7"); a judge sees calls of one kind.
	what, id  string
	idemKey   string
	arguments json.RawMessage
	claims    map[string]any
	meta      map[string]any
	taskID    string
}

// check compares the call with the calls before it and remembers it.
func (x *crossIndex) check(c crossCall) []model.Warning {
	x.mu.Lock()
	defer x.mu.Unlock()
	var ws []model.Warning
	if c.idemKey != "" {
		sum := x.argumentsDigest(c.arguments)
		prev, seen := x.args.get(c.idemKey)
		switch {
		case !seen:
			x.args.set(c.idemKey, [2]string{sum, c.id}, false)
		case prev[0] != sum:
			ws = append(ws, model.Warning{Code: model.WarnRetryArgumentsChanged, Message: fmt.Sprintf(
				"idempotency key %q was sent by %s %s with other arguments; a retry sends the same arguments", model.Truncate(c.idemKey, 80), c.what, prev[1])})
		}
	}
	if jti, ok := c.claims["jti"].(string); ok && jti != "" {
		if prev, ok := x.jtis.get(jti); ok {
			ws = append(ws, model.Warning{Code: model.WarnTokenReused, Message: fmt.Sprintf(
				"the token (jti %q) was already sent by %s %s; the platform mints a new token per call, a retry included: this is a replay", model.Truncate(jti, 80), c.what, prev[1])})
		} else {
			x.jtis.set(jti, [2]string{jti, c.id}, false)
		}
	}
	if c.taskID != "" {
		eu, has := c.meta[jsonrpc.MetaEndUserID].(string)
		if !has {
			eu, has = c.claims["end_user_id"].(string)
		}
		val := "\x00absent"
		if has {
			val = eu
		}
		prev, seen := x.endUsers.get(c.taskID)
		if seen && short(val) != prev[0] {
			ws = append(ws, model.Warning{Code: model.WarnEndUserIDChanged, Message: fmt.Sprintf(
				"end_user_id is %s but was %s on %s %s of the same task; it is fixed when the task is created", describeEndUser(val), describeEndUser(prev[0]), c.what, prev[1])})
		}
		x.endUsers.set(c.taskID, [2]string{val, c.id}, seen)
	}
	return ws
}

func describeEndUser(v string) string {
	switch {
	case v == "\x00absent":
		return "absent"
	case len(v) == len("sha256:")+sha256.Size && strings.HasPrefix(v, "sha256:"):
		return "a long value"
	}
	return fmt.Sprintf("%q", model.Truncate(v, 80))
}

// argumentsDigest identifies arguments by value: key order, spacing and
// the form of a number (1, 1.0, 1e0) do not count; digits past float64 do.
func (x *crossIndex) argumentsDigest(raw json.RawMessage) string {
	buf := digestBufs.Get().(*[]byte)
	defer digestBufs.Put(buf)
	// Canonicalized in a copy (it rewrites in place); only the sum is kept.
	canon := jsontext.Value(append((*buf)[:0], raw...))
	// Integers keep every digit; other numbers are compared as float64s.
	if canon.Canonicalize(digestOptions...) != nil {
		canon = jsontext.Value(raw)
	} else if cap(canon) <= 64<<10 { // a huge argument list does not stay pinned
		*buf = canon[:0]
	}
	sum := sha256.Sum256(canon)
	return string(sum[:])
}

var (
	digestBufs    = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}
	digestOptions = []jsontext.Options{jsontext.CanonicalizeRawInts(false), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
)

package model

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// minSecretLen is the shortest value redacted wherever it appears: a
// shorter one would hide common words.
const minSecretLen = 8

// maxLearntSecrets bounds the credentials remembered from headers (the
// oldest is forgotten first): a run sees a handful of static credentials.
const maxLearntSecrets = 64

// secretMemory holds the values redacted wherever they appear: the fixed
// ones a run was told of, and the credentials seen in headers. Readers
// take the list without a lock; it is replaced whole when it changes.
type secretMemory struct {
	mu     sync.Mutex
	fixed  []string
	learnt []string                 // oldest first
	values atomic.Pointer[[]string] // both, longest first
}

func (m *secretMemory) list() []string {
	if m == nil {
		return nil
	}
	if p := m.values.Load(); p != nil {
		return *p
	}
	return nil
}

// fix adds values that are never forgotten.
func (m *secretMemory) fix(values []string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, v := range values {
		if v = strings.TrimSpace(v); len(v) >= minSecretLen && !slices.Contains(m.fixed, v) {
			m.fixed = append(m.fixed, strings.Clone(v))
		}
	}
	m.publish()
}

// learn remembers a credential seen in a header.
func (m *secretMemory) learn(v string) {
	if m == nil || len(v) < minSecretLen || v == Redacted || slices.Contains(m.list(), v) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if slices.Contains(m.learnt, v) || slices.Contains(m.fixed, v) {
		return
	}
	if len(m.learnt) >= maxLearntSecrets {
		m.learnt = slices.Delete(m.learnt, 0, 1)
	}
	m.learnt = append(m.learnt, strings.Clone(v))
	m.publish()
}

// publish makes the list readers see: longest first, so a value that holds
// another is replaced whole.
func (m *secretMemory) publish() {
	all := slices.Concat(m.fixed, m.learnt)
	slices.SortStableFunc(all, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	m.values.Store(&all)
}

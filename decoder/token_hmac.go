package decoder

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"hash"
	"sync"
	"unsafe"
)

// hs256Matches says whether sig is the HMAC-SHA256 of signingInput under
// secret, as golang-jwt's HS256 Verify computes it (crypto/hmac, compared in
// constant time). A pool keeps each secret's keyed MAC, reset between uses,
// and a buffer for the sum, so a verification costs the hashing alone.
func hs256Matches(secret []byte, signingInput string, sig []byte) bool {
	st := macPool.Get().(*macState)
	mac := st.macFor(secret)
	// The input is hashed in place: a hash reads what it is given and
	// neither keeps nor changes it.
	mac.Write(unsafe.Slice(unsafe.StringData(signingInput), len(signingInput)))
	st.sum = mac.Sum(st.sum[:0])
	ok := hmac.Equal(st.sum, sig)
	macPool.Put(st)
	return ok
}

var macPool = sync.Pool{New: func() any { return new(macState) }}

// macState holds the keyed MACs of the last few secrets (rotation uses two
// or three) and a reusable buffer for the sum.
type macState struct {
	keys [][]byte
	macs []hash.Hash
	sum  []byte
}

const macsKept = 4

func (st *macState) macFor(secret []byte) hash.Hash {
	for i, k := range st.keys {
		if len(k) == len(secret) && subtle.ConstantTimeCompare(k, secret) == 1 {
			st.macs[i].Reset()
			return st.macs[i]
		}
	}
	key := append([]byte(nil), secret...)
	mac := hmac.New(sha256.New, key)
	if len(st.keys) == macsKept {
		st.keys, st.macs = st.keys[1:], st.macs[1:]
	}
	st.keys, st.macs = append(st.keys, key), append(st.macs, mac)
	return mac
}

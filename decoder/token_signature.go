package decoder

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"
	"unsafe"

	"toolscope/model"

	"github.com/golang-jwt/jwt/v5"
)

// decodedToken is a compact JWS read once: its header and claims for the
// report, and the signing input and signature for verification (the
// signature is never shown).
type decodedToken struct {
	header, claims map[string]any
	signingInput   string // header.claims, what the HMAC covers
	sig            [sha256.Size * 2]byte
	sigLen         int    // bytes of sig used; -1: longSig holds it
	longSig        []byte // a signature longer than sig (never a valid HS256 one)
	// spare is the unused room after the decoded text, for the step
	// details (see detailArena): one allocation for both.
	spare []byte
}

func (t *decodedToken) signature() []byte {
	if t.sigLen < 0 {
		return t.longSig
	}
	return t.sig[:t.sigLen]
}

// decodeToken reads a compact JWS the way golang-jwt's parser does: three
// segments, unpadded base64url, JSON objects (with encoding/json's
// semantics; see token_json.go). Verification reuses what it decoded instead
// of parsing the token again.
func decodeToken(token string) (decodedToken, error) {
	t, _, _, err := decodeTokenMembers(token, memberList{})
	return t, err
}

// decodeTokenMembers is decodeToken that also lists the claims in claims
// (the caller's buffers, kept apart from the token so that they stay on the
// caller's stack), in the token's order, repeats included; known is false
// when they are not listed (encoding/json decoded the claims).
func decodeTokenMembers(token string, claims memberList) (t decodedToken, _ memberList, known bool, _ error) {
	if n := strings.Count(token, "."); n != 2 {
		return t, claims, false, fmt.Errorf("a JWT has 3 dot-separated parts, this has %d", n+1)
	}
	head, rest, _ := strings.Cut(token, ".")
	body, sig, _ := strings.Cut(rest, ".")
	// Header and claims decode into one string, whose substrings become
	// the maps' keys and values.
	text, hn, hok, cok, spare := decodeSegments(head, body)
	t.spare = spare
	if !hok {
		return t, claims, false, errors.New("header is not base64url")
	}
	if t.header = decodeHeader(text[:hn]); t.header == nil {
		return t, claims, false, errors.New("header is not a JSON object")
	}
	if !cok {
		return t, claims, false, errors.New("claims are not base64url")
	}
	if t.claims, claims, known = decodeObjectMembers(text[hn:], claims); t.claims == nil {
		return t, claims, false, errors.New("claims are not a JSON object")
	}
	if sig == model.Redacted {
		// A token copied from toolscope's own output: said as such, not as
		// a malformed signature.
		return t, claims, false, errors.New("signature redacted by toolscope (recordings, copies and the screen never keep it): the token cannot be verified")
	}
	var ok bool
	if t.sigLen, ok = base64URLDecode(t.sig[:], sig); !ok {
		b, err := base64.RawURLEncoding.DecodeString(sig)
		if err != nil {
			return t, claims, false, errors.New("signature is not base64url")
		}
		t.sigLen, t.longSig = -1, b
	}
	t.signingInput = token[:len(head)+1+len(body)]
	return t, claims, known, nil
}

// signedHeader is the header golang-jwt writes for every HS256 token (and
// so AgentArea's): its map is not built again for each token.
const signedHeader = `{"alg":"HS256","typ":"JWT"}`

// signedHeaderMap is the decoded signedHeader, one map shared by every
// Context whose token has that header: a Context's Header is only ever read
// (shown, encoded), never written.
var signedHeaderMap = map[string]any{"alg": TokenAlg, "typ": "JWT"}

// decodeHeader is decodeObjectString for a token's header.
func decodeHeader(s string) map[string]any {
	if s == signedHeader {
		return signedHeaderMap
	}
	return decodeObjectString(s)
}

// decodeSegments decodes the header and claims segments into one string
// (header first, hn bytes); hok and cok say whether each was base64url. The
// bytes are decoded into the string's own memory, never written after
// (no copy of the text, no large stack buffer to clear). spare is the
// buffer's room after the text (detailArenaSize bytes), whose bytes are
// distinct from the text's.
func decodeSegments(head, body string) (text string, hn int, hok, cok bool, spare []byte) {
	n := base64.RawURLEncoding.DecodedLen(len(head)) + base64.RawURLEncoding.DecodedLen(len(body))
	buf := make([]byte, n, n+detailArenaSize)
	hn, hok = decodeSegment(buf, head)
	if !hok {
		return "", 0, false, false, nil
	}
	cn, cok := decodeSegment(buf[hn:], body)
	if !cok {
		cn = 0
	}
	spare = buf[n:n:cap(buf)]
	if hn+cn == 0 {
		return "", hn, true, cok, spare
	}
	return unsafe.String(&buf[0], hn+cn), hn, true, cok, spare
}

// decodeSegment decodes unpadded base64url into dst as
// base64.RawURLEncoding does, using the library for what the quick decoder
// leaves to it (line breaks, which the library skips, and every error).
func decodeSegment(dst []byte, s string) (int, bool) {
	if n, ok := base64URLDecode(dst, s); ok {
		return n, true
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) > len(dst) {
		return 0, false
	}
	return copy(dst, b), true
}

// base64URLDecode decodes s, unpadded base64url of the URL alphabet only,
// into dst (non-canonical trailing bits are accepted, as the library's
// non-strict encoding does); ok is false for anything else or when dst is
// too short.
func base64URLDecode(dst []byte, s string) (int, bool) {
	if len(s)%4 == 1 || base64.RawURLEncoding.DecodedLen(len(s)) > len(dst) {
		return 0, false
	}
	n, i := 0, 0
	// Eight characters at a time, six bytes written as one 8-byte store
	// while dst has the room (a byte-wise loop spends most of its time on
	// bounds checks and stores); the shifted tables turn four characters
	// into their 24 bits with three ORs, an invalid one setting bit 31.
	t := &base64URLShifted
	for ; i+8 <= len(s) && n+8 <= len(dst); i += 8 {
		q := s[i : i+8]
		hi := t[0][q[0]] | t[1][q[1]] | t[2][q[2]] | t[3][q[3]]
		lo := t[0][q[4]] | t[1][q[5]] | t[2][q[6]] | t[3][q[7]]
		if (hi|lo)>>24 != 0 {
			return 0, false
		}
		binary.BigEndian.PutUint64(dst[n:], uint64(hi)<<40|uint64(lo)<<16)
		n += 6
	}
	for ; i+4 <= len(s); i += 4 {
		a, b, c, d := base64URLValue[s[i]], base64URLValue[s[i+1]], base64URLValue[s[i+2]], base64URLValue[s[i+3]]
		if a|b|c|d == 0xff {
			return 0, false
		}
		v := uint32(a)<<18 | uint32(b)<<12 | uint32(c)<<6 | uint32(d)
		dst[n], dst[n+1], dst[n+2] = byte(v>>16), byte(v>>8), byte(v)
		n += 3
	}
	var acc uint32
	bits := 0
	for ; i < len(s); i++ {
		v := base64URLValue[s[i]]
		if v == 0xff {
			return 0, false
		}
		acc = acc<<6 | uint32(v)
		if bits += 6; bits >= 8 {
			bits -= 8
			dst[n] = byte(acc >> bits)
			n++
		}
	}
	return n, true
}

// base64URLShifted[k][c] is c's value shifted to the place of the k-th of
// four characters (18, 12, 6, 0 bits), 1<<31 for a character outside the
// alphabet.
var base64URLShifted = func() (t [4][256]uint32) {
	for c, v := range base64URLValue {
		for k := range t {
			t[k][c] = uint32(v) << (18 - 6*k)
			if v == 0xff {
				t[k][c] = 1 << 31
			}
		}
	}
	return t
}()

var base64URLValue = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// verifySignature checks a decoded HS256 token as golang-jwt does: an
// HMAC-SHA256 of the signing input per secret (crypto/hmac, what the
// library's HS256 Verify computes), compared in constant time, then the
// library's claim validator configured to the contract, on the claims
// already decoded. The validator runs only where its verdict can differ from
// checkRegisteredClaims's (needValidator): checks that already failed
// decide, and on plain claims the two rules are the same. It returns the
// index of the secret (-1 when none verifies) and the library's verdict,
// wrapped as the parser wraps it.
func verifySignature(tok *decodedToken, in VerifyInput, needValidator bool) (int, error) {
	which := -1
	for i, secret := range in.Secrets {
		if hs256Matches(secret, tok.signingInput, tok.signature()) {
			which = i
			break
		}
	}
	if which < 0 {
		return -1, jwt.ErrSignatureInvalid
	}
	if !needValidator {
		return which, nil
	}
	return which, validateWithLibrary(tok.claims, in)
}

// validateWithLibrary runs golang-jwt's claim validator, configured to the
// contract, on decoded claims (apart, so that its closure over in costs
// nothing when it does not run).
func validateWithLibrary(claims map[string]any, in VerifyInput) error {
	opts := []jwt.ParserOption{
		jwt.WithIssuer(TokenIssuer),
		jwt.WithLeeway(ClockSkew),
		jwt.WithTimeFunc(func() time.Time { return in.Now }),
		jwt.WithIssuedAt(),
		jwt.WithExpirationRequired(),
	}
	if in.InstanceID != "" {
		opts = append(opts, jwt.WithAudience(in.InstanceID))
	}
	if err := jwt.NewValidator(opts...).Validate(jwt.MapClaims(claims)); err != nil {
		return fmt.Errorf("%w: %w", jwt.ErrTokenInvalidClaims, err)
	}
	return nil
}

// plainRegisteredClaims says whether golang-jwt's MapClaims reads the
// registered claims exactly as checkRegisteredClaims does: aud a string or
// an array of strings (the library refuses any other element), and exp, iat
// and nbf whole seconds (the library truncates fractions to
// jwt.TimePrecision). On such claims that pass checkRegisteredClaims, the
// library's validator passes too (FuzzVerifyClaims checks this).
func plainRegisteredClaims(claims registeredValues) bool {
	if aud, ok := claims.aud.([]any); ok {
		for _, a := range aud {
			if _, ok := a.(string); !ok {
				return false
			}
		}
	}
	for _, c := range [...]struct {
		v       any
		present bool
	}{{claims.exp, claims.expPresent}, {claims.iat, claims.iatPresent}, {claims.nbf, claims.nbfPresent}} {
		if c.present {
			f, ok := c.v.(float64)
			if !ok || f != float64(int64(f)) || jwt.TimePrecision != time.Second {
				return false
			}
		}
	}
	return true
}

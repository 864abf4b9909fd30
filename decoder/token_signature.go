package decoder

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"toolscope/model"

	"github.com/golang-jwt/jwt/v5"
)

// decodedToken is a compact JWS read once: its header and claims for the
// report, and the signing input and signature for verification (the
// signature is never shown).
type decodedToken struct {
	header, claims map[string]any
	signingInput   string // header.claims, what the HMAC covers
	signature      []byte
}

// decodeToken reads a compact JWS the way golang-jwt's parser does: three
// segments, unpadded base64url, JSON objects decoded with encoding/json.
// Verification reuses what it decoded instead of parsing the token again.
func decodeToken(token string) (decodedToken, error) {
	var t decodedToken
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return t, fmt.Errorf("a JWT has 3 dot-separated parts, this has %d", len(parts))
	}
	hb, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return t, errors.New("header is not base64url")
	}
	if t.header = decodeObject(hb); t.header == nil {
		return t, errors.New("header is not a JSON object")
	}
	cb, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return t, errors.New("claims are not base64url")
	}
	if t.claims = decodeObject(cb); t.claims == nil {
		return t, errors.New("claims are not a JSON object")
	}
	if parts[2] == model.Redacted {
		// A token copied from toolscope's own output: said as such, not as
		// a malformed signature.
		return t, errors.New("signature redacted by toolscope (recordings, copies and the screen never keep it): the token cannot be verified")
	}
	if t.signature, err = base64.RawURLEncoding.DecodeString(parts[2]); err != nil {
		t.signature = nil
		return t, errors.New("signature is not base64url")
	}
	t.signingInput = token[:len(parts[0])+1+len(parts[1])]
	return t, nil
}

// decodeObject decodes a JSON object, or returns nil for anything else.
// Decoding into an interface takes encoding/json's generic path, which builds
// the map without reflection (a map[string]any target costs twice the
// allocations); duplicate keys and every value come out the same.
func decodeObject(b []byte) map[string]any {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	m, _ := v.(map[string]any)
	return m
}

// verifySignature checks a decoded HS256 token with golang-jwt: the
// library's HS256 Verify finds the secret that signed it (one HMAC per
// secret, no parsing), then the library's claim validator, configured to the
// contract, checks the claims already decoded. This is what jwt.Parser does
// after its own decode, without decoding the token a second time. It returns
// the index of the secret (-1 when none verifies) and the library's verdict,
// wrapped as the parser wraps it.
func verifySignature(tok decodedToken, in VerifyInput) (int, error) {
	which := -1
	for i, secret := range in.Secrets {
		if jwt.SigningMethodHS256.Verify(tok.signingInput, tok.signature, secret) == nil {
			which = i
			break
		}
	}
	if which < 0 {
		return -1, jwt.ErrSignatureInvalid
	}
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
	if err := jwt.NewValidator(opts...).Validate(jwt.MapClaims(tok.claims)); err != nil {
		return which, fmt.Errorf("%w: %w", jwt.ErrTokenInvalidClaims, err)
	}
	return which, nil
}

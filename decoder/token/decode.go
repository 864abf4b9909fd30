package token

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/golang-jwt/jwt/v5"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// decodedToken is a compact JWS read once: its header and claims (the
// signature is never shown), and what the HMAC covers.
type decodedToken struct {
	header       map[string]any
	claims       map[string]any
	signingInput string
	signature    []byte
}

// decodeToken reads a compact JWS as golang-jwt's parser does: three
// segments of unpadded base64url, the first two JSON objects (read by the
// project's one JSON reader, as encoding/json reads them). The header and
// claims are kept even when a later part is unreadable, so a report shows
// them.
func decodeToken(token string) (decodedToken, error) {
	var t decodedToken
	if n := strings.Count(token, ".") + 1; n != 3 {
		return t, fmt.Errorf("a JWT has 3 dot-separated parts, this has %d", n)
	}
	header, rest, _ := strings.Cut(token, ".")
	claims, signature, _ := strings.Cut(rest, ".")
	t.signingInput = token[:len(header)+1+len(claims)]
	// The two JSON segments decode into one pooled buffer: the reader
	// copies what it keeps.
	buf := segmentBufs.Get().(*[]byte)
	defer segmentBufs.Put(buf)
	var err error
	if t.header, err = segmentObject(buf, header); err != nil {
		return t, fmt.Errorf("the header %v", err)
	}
	if t.claims, err = segmentObject(buf, claims); err != nil {
		return t, fmt.Errorf("the claims %v", err)
	}
	if signature == model.Redacted {
		// A token copied from toolscope's own output: said as such, not as
		// a malformed signature.
		return t, errors.New("signature redacted by toolscope (recordings, copies and the screen never keep it): the token cannot be verified")
	}
	if t.signature, err = base64.RawURLEncoding.DecodeString(signature); err != nil {
		return t, errors.New("the signature is not base64url")
	}
	return t, nil
}

// segmentBufs hold a segment's decoded JSON while it is read.
var segmentBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// segmentObject decodes one base64url segment holding a JSON object, in
// buf (reused: the object shares none of it).
func segmentObject(buf *[]byte, seg string) (map[string]any, error) {
	text, err := base64.RawURLEncoding.AppendDecode((*buf)[:0], []byte(seg))
	*buf = text[:0]
	if err != nil {
		return nil, errors.New("is not base64url")
	}
	m, err := jsonrpc.Object(text)
	if err != nil {
		return nil, fmt.Errorf("is not a JSON object: %v", err)
	}
	return m, nil
}

// verifySignature checks an HS256 signature with each secret (golang-jwt's
// HMAC-SHA256, compared in constant time). It returns the index of the
// secret that verifies, -1 when none does. The claims are judged by
// checkRegisteredClaims alone; FuzzVerifyClaims holds that judgment to
// golang-jwt's validator.
func verifySignature(tok *decodedToken, in Input) int {
	for i, secret := range in.Secrets {
		if jwt.SigningMethodHS256.Verify(tok.signingInput, tok.signature, secret) == nil {
			return i
		}
	}
	return -1
}

// signatureProblem says why no secret verified the signature, without ever
// naming a secret.
func signatureProblem(n int) string {
	if n == 1 {
		return "it does not verify with the secret"
	}
	return fmt.Sprintf("it verifies with none of the %d secrets", n)
}

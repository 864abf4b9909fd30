package token

import (
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"toolscope/model"
)

// TestRedactedSignatureSaidSo: a token copied from toolscope's own output
// (its signature replaced by model.Redacted) is said to be redacted by
// toolscope, not to have a signature that is not base64url; its claims are
// still read.
func TestRedactedSignatureSaidSo(t *testing.T) {
	good := sign(t, jwt.SigningMethodHS256, jwt.MapClaims{"iss": "agentarea", "tool": "get_order"}, []byte(testSecret))
	redacted := model.RedactToken(good)
	if !strings.HasSuffix(redacted, "."+model.Redacted) {
		t.Fatalf("RedactToken(%q) = %q", good, redacted)
	}
	d, err := decodeToken(redacted)
	if err == nil || !strings.Contains(err.Error(), "redacted by toolscope") {
		t.Fatalf("err = %v, want it to say the signature was redacted by toolscope", err)
	}
	if d.claims["tool"] != "get_order" {
		t.Errorf("claims %v, want them read", d.claims)
	}
}

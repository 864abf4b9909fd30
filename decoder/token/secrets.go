package token

import (
	"bytes"
	"fmt"
	"os"
	"unicode/utf8"
)

// SecretEnv names the variable holding a context secret.
const SecretEnv = "TOOLSCOPE_CONTEXT_SECRET"

// The platform's bounds on an instance's context_secret.
const (
	minSecretChars = 32
	maxSecretChars = 512
)

// validateSecret checks a context secret is 32 to 512 characters, as the
// platform requires; the error never contains the secret.
func validateSecret(secret []byte) error {
	n := utf8.RuneCount(secret)
	if n < minSecretChars || n > maxSecretChars {
		return fmt.Errorf("context secret is %d characters; AgentArea requires %d to %d", n, minSecretChars, maxSecretChars)
	}
	return nil
}

// LoadSecrets gathers the context secrets: the value of
// TOOLSCOPE_CONTEXT_SECRET (env, when not empty) and the content of each
// --secret-file, trimmed of one trailing newline. Several secrets let a
// rotation be followed (old and new both verify). A secret outside 32..512
// characters is a configuration error naming where it came from, never its
// value. Duplicates are kept once.
func LoadSecrets(env string, files []string) ([][]byte, error) {
	var out [][]byte
	add := func(secret []byte, from string) error {
		if err := validateSecret(secret); err != nil {
			return fmt.Errorf("%s: %v", from, err)
		}
		for _, s := range out {
			if bytes.Equal(s, secret) {
				return nil
			}
		}
		out = append(out, secret)
		return nil
	}
	if env != "" {
		if err := add([]byte(env), SecretEnv); err != nil {
			return nil, err
		}
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("--secret-file %s: %v", f, err)
		}
		if err := add(trimOneNewline(b), "--secret-file "+f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func trimOneNewline(b []byte) []byte {
	if bytes.HasSuffix(b, []byte("\r\n")) {
		return b[:len(b)-2]
	}
	if bytes.HasSuffix(b, []byte("\n")) {
		return b[:len(b)-1]
	}
	return b
}

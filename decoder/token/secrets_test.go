package token

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateSecret(t *testing.T) {
	cases := []struct {
		rule   string
		secret string
		ok     bool
	}{
		{"31 characters is too short", strings.Repeat("k", 31), false},
		{"32 characters is enough", strings.Repeat("k", 32), true},
		{"512 characters is the most", strings.Repeat("k", 512), true},
		{"513 characters is too long", strings.Repeat("k", 513), false},
		{"characters, not bytes, are counted", strings.Repeat("é", 32), true},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			err := validateSecret([]byte(c.secret))
			if (err == nil) != c.ok {
				t.Fatalf("err = %v", err)
			}
			if err != nil && strings.Contains(err.Error(), c.secret) {
				t.Fatal("the error repeats the secret")
			}
		})
	}
}

func TestLoadSecrets(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	newer := write("new", otherSecret+"\n")
	crlf := write("crlf", testSecret+"\r\n")
	twoNewlines := write("two", testSecret+"\n\n")
	short := write("short", "tooshort-but-secret\n")

	t.Run("env and files, one trailing newline trimmed, duplicates kept once", func(t *testing.T) {
		got, err := LoadSecrets(testSecret, []string{newer, crlf})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || string(got[0]) != testSecret || string(got[1]) != otherSecret {
			t.Fatalf("got %d secrets", len(got))
		}
	})
	t.Run("only one newline is trimmed", func(t *testing.T) {
		got, err := LoadSecrets("", []string{twoNewlines})
		if err != nil || len(got) != 1 || string(got[0]) != testSecret+"\n" {
			t.Fatalf("err %v, %d secrets", err, len(got))
		}
	})
	t.Run("no sources give no secret", func(t *testing.T) {
		got, err := LoadSecrets("", nil)
		if err != nil || len(got) != 0 {
			t.Fatalf("%v %d", err, len(got))
		}
	})
	t.Run("a short secret names its file, not its value", func(t *testing.T) {
		_, err := LoadSecrets("", []string{short})
		if err == nil || !strings.Contains(err.Error(), short) || strings.Contains(err.Error(), "tooshort") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a short env secret names the variable", func(t *testing.T) {
		_, err := LoadSecrets("short-secret", nil)
		if err == nil || !strings.Contains(err.Error(), SecretEnv) || strings.Contains(err.Error(), "short-secret") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a missing file is an error", func(t *testing.T) {
		if _, err := LoadSecrets("", []string{filepath.Join(dir, "absent")}); err == nil {
			t.Fatal("no error")
		}
	})
}

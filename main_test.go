package main

import (
	"os"
	"strings"
	"testing"
)

func TestExitCodes(t *testing.T) {
	cases := []struct {
		args []string
		want int
	}{
		{[]string{}, 2},
		{[]string{"--help"}, 0},
		{[]string{"frobnicate"}, 2},
		{[]string{"replay", "--help"}, 0},
		{[]string{"replay", "--no-such-flag"}, 2},
		{[]string{"replay"}, 2},
		{[]string{"replay", "testdata/missing.jsonl", "--output", "json"}, 1},
		{[]string{"replay", "testdata/session.jsonl", "--output", "yaml"}, 2},
		{[]string{"replay", "testdata/session.jsonl", "--speed", "0", "--output", "json"}, 0},
	}
	for _, tc := range cases {
		if got := run(tc.args); got != tc.want {
			t.Errorf("toolscope %v: exit %d, want %d", tc.args, got, tc.want)
		}
	}
}

// TestDecodeStdinCut: a token on standard input over 1 MiB is refused as
// cut (exit 2), not decoded from its first megabyte ("has 2 parts").
func TestDecodeStdinCut(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "token")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("eyJhbGciOiJIUzI1NiJ9." + strings.Repeat("A", maxTokenInput) + ".sig")
	f.Seek(0, 0)
	defer func(in *os.File) { os.Stdin = in }(os.Stdin)
	os.Stdin = f
	if got := run([]string{"decode", "-"}); got != 2 {
		t.Fatalf("exit %d, want 2", got)
	}
	if _, err := readToken(strings.NewReader(strings.Repeat("a", maxTokenInput+1))); err == nil || !strings.Contains(err.Error(), "cut there") {
		t.Fatalf("err %v", err)
	}
	if tok, err := readToken(strings.NewReader("a.b.c\n")); err != nil || tok != "a.b.c\n" {
		t.Fatalf("%q %v", tok, err)
	}
}

package main

import "testing"

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

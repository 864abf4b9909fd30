package model

import "testing"

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:0": true, "localhost:7070": true, "[::1]:1": true, // host:port (a listener)
		"127.0.0.2": true, "::1": true, "[::1]": true, "LocalHost": true, // a host alone (a URL's)
		"0.0.0.0:0": false, ":7070": false, "192.168.1.4:80": false, "example.com": false, "": false,
	} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

package model

import (
	"net"
	"strings"
)

// IsLoopback says whether addr ("host:port", or a host alone, an IPv6 one
// bracketed or not) names this machine's loopback: localhost or a loopback
// IP. Listeners beyond it serve what toolscope saw to the network.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

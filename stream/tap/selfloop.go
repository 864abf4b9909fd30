package tap

import (
	"net"
	"strconv"
	"strings"

	"toolscope/model"
)

// forwardsToItself says whether the upstream is the tap's own listener
// (--listen equal to the upstream's host and port): every request would be
// forwarded to the tap again, until the process runs out of descriptors.
// Only what can be told without DNS counts: a loopback or literal upstream
// host on the listener's port, where the listener takes that address.
func (t *Tap) forwardsToItself(ln net.Listener) bool {
	tcp, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		return false
	}
	port := t.upstream.Port()
	if port == "" {
		port = "80"
		if t.upstream.Scheme == "https" {
			port = "443"
		}
	}
	if port != strconv.Itoa(tcp.Port) {
		return false
	}
	host := strings.Trim(t.upstream.Hostname(), "[]")
	ip := net.ParseIP(host)
	switch {
	case tcp.IP.IsUnspecified():
		// Listening on every address: any local one reaches it.
		return model.IsLoopback(host) || ip != nil && isLocalIP(ip)
	case model.IsLoopback(host) && tcp.IP.IsLoopback():
		return strings.EqualFold(host, "localhost") || ip.Equal(tcp.IP)
	default:
		return ip != nil && ip.Equal(tcp.IP)
	}
}

// isLocalIP says whether ip is one of this machine's addresses.
func isLocalIP(ip net.IP) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true
		}
	}
	return false
}

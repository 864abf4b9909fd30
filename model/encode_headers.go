package model

import "net/textproto"

// headerClass is what headerRedaction decides from a header's canonical
// name alone, before this run's --credential-header names are consulted.
type headerClass uint8

const (
	headerPlain   headerClass = iota + 1 // secret only if this run names it
	headerSecret                         // a credential (secretHeaders or credentialLike)
	headerContext                        // the context token: its signature goes
)

// commonHeaders are the names seen on (nearly) every call. Their verdicts
// are worked out once, at start-up, by the same rules as any other name.
var commonHeaders = []string{
	"Accept", "Accept-Encoding", "Accept-Language", "Baggage", "Cache-Control",
	"Connection", "Content-Encoding", "Content-Length", "Content-Type", "Host",
	"Last-Event-Id", "Mcp-Method", "Mcp-Protocol-Version", "Mcp-Session-Id",
	"Origin", "Referer", "Traceparent", "Tracestate", "User-Agent",
	"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Request-Id",
}

// knownHeaders maps canonical names to their class. A name found here is
// its own canonical form (CanonicalMIMEHeaderKey leaves a canonical name
// as it is), so it needs neither canonicalising nor credentialLike's scan.
var knownHeaders = func() map[string]headerClass {
	m := map[string]headerClass{}
	for _, n := range commonHeaders {
		canon := textproto.CanonicalMIMEHeaderKey(n)
		m[canon] = headerPlain
		if secretHeaders[canon] || credentialLike(canon) {
			m[canon] = headerSecret
		}
	}
	for n := range secretHeaders {
		m[textproto.CanonicalMIMEHeaderKey(n)] = headerSecret
	}
	m[canonicalContextHeader] = headerContext
	return m
}()

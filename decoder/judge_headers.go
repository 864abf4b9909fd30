package decoder

import (
	"cmp"
	"fmt"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"

	"toolscope/decoder/jsonrpc"
	"toolscope/decoder/soat"
	"toolscope/model"
)

// The rules on a request's headers: MCP 2026-07-28's and SOAT's context, and
// what of the headers reaches the server through a proxy.

// headerRules compare the MCP headers with the body's one message, and read
// the SOAT context bag; findings go to the first call, or to the request.
func (j *Judge) headerRules(r Request, out *Judgment) {
	msgs := out.Body.Messages
	if r.Header == nil || len(msgs) == 0 || out.Body.Batch {
		return
	}
	m := &msgs[0]
	ws := CheckMCPHeaders(r.Header, m.Method, m.Call.Name, m.Meta.ProtocolVersion)
	if len(out.Calls) == 0 {
		out.Warnings = append(out.Warnings, ws...)
		return
	}
	first := &out.Calls[0]
	first.Warnings = append(first.Warnings, ws...)
	bag, soatWarnings := j.soat(r)
	first.Warnings = append(first.Warnings, soatWarnings...)
	if len(bag.Values) > 0 {
		for i := range out.Calls {
			out.Calls[i].Soat = bag.Values
		}
	}
}

// MCP 2026-07-28 request headers.
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
)

// MCP revisions toolscope knows; 2026-07-28 is the stateless one whose
// requests carry Mcp-Method and Mcp-Name.
const (
	MCPStateless = "2026-07-28"
)

var knownMCPVersions = map[string]bool{
	"2024-11-05": true, "2025-03-26": true, "2025-06-18": true, "2025-11-25": true, MCPStateless: true,
}

// CheckMCPHeaders compares MCP-Protocol-Version, Mcp-Method and Mcp-Name
// with the body when both sides are present; each mismatch is a warning
// (code mcp_header_mismatch; a 2026-07-28 server answers it with -32020).
// It also warns of a protocol version toolscope does not know
// (mcp_protocol_version_unknown) and of a 2026-07-28 request without the
// headers that revision requires (mcp_header_missing).
func CheckMCPHeaders(h http.Header, method, toolName, metaProtocolVersion string) []model.Warning {
	var ws []model.Warning
	check := func(header, got, want, what string) {
		if got == "" || want == "" || got == want {
			return
		}
		ws = append(ws, model.Warning{Code: model.WarnMCPHeaderMismatch, Message: fmt.Sprintf(
			"%s header %q differs from the body's %s %q", header, model.Truncate(got, 80), what, model.Truncate(want, 80))})
	}
	version := strings.TrimSpace(h.Get(protocolVersionHeader))
	gotMethod := strings.TrimSpace(h.Get(HeaderMethod))
	gotName := strings.TrimSpace(h.Get(HeaderName))
	check(HeaderProtocolVersion, version, metaProtocolVersion, "_meta protocolVersion")
	check(HeaderMethod, gotMethod, method, "method")
	if method == jsonrpc.MethodToolsCall {
		check(HeaderName, gotName, toolName, "tool name")
	}
	if version != "" && !knownMCPVersions[version] {
		ws = append(ws, model.Warning{Code: model.WarnMCPProtocolVersionUnknown, Message: fmt.Sprintf(
			"MCP-Protocol-Version %q is not a revision toolscope knows", model.Truncate(version, 80))})
	}
	if version == MCPStateless || metaProtocolVersion == MCPStateless {
		var missing []string
		if gotMethod == "" && method != "" {
			missing = append(missing, HeaderMethod)
		}
		if gotName == "" && method == jsonrpc.MethodToolsCall {
			missing = append(missing, HeaderName)
		}
		if version == "" {
			missing = append(missing, HeaderProtocolVersion)
		}
		if len(missing) > 0 {
			ws = append(ws, model.Warning{Code: model.WarnMCPHeaderMissing, Message: fmt.Sprintf(
				"a %s request must carry %s", MCPStateless, strings.Join(missing, " and "))})
		}
	}
	return ws
}

// soat reads the request's SOAT context bag, without the keys a client
// names in Connection (the proxy removes them: the server never sees them).
func (j *Judge) soat(r Request) (soat.Bag, []model.Warning) {
	prefix := cmp.Or(j.SoatPrefix, soat.DefaultPrefix)
	var bag soat.Bag
	var ws []model.Warning
	if r.SoatHeader != nil || r.SoatOrder != nil {
		bag, ws = soat.ReadOrdered(r.SoatHeader, r.SoatOrder, prefix)
	} else {
		bag, ws = soat.Read(r.Header, prefix)
	}
	for key := range bag.Values {
		if name := textproto.CanonicalMIMEHeaderKey(prefix + key); r.dropped[name] || hopByHop[name] {
			delete(bag.Values, key)
			delete(bag.Identity, key)
			ws = append(ws, model.Warning{Code: model.WarnContextHeaderStripped, Message: "the client lists " + strconv.Quote(prefix+key) +
				" in Connection, so the proxy removes it as hop-by-hop: the server never receives this SOAT key"})
		}
	}
	return bag, ws
}

// hopByHop are the request headers a proxy removes whatever the client
// says (RFC 9110 7.6.1).
var hopByHop = map[string]bool{"Connection": true, "Proxy-Connection": true, "Keep-Alive": true, "Proxy-Authenticate": true,
	"Proxy-Authorization": true, "Te": true, "Trailer": true, "Transfer-Encoding": true, "Upgrade": true}

// connectionListed is the set of headers (canonical names) the client names
// in Connection: the proxy removes them too (nil when there is none).
func connectionListed(h http.Header) map[string]bool {
	var listed map[string]bool
	for _, v := range h["Connection"] {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			if part = textproto.TrimString(part); part != "" {
				if listed == nil {
					listed = map[string]bool{}
				}
				listed[textproto.CanonicalMIMEHeaderKey(part)] = true
			}
		}
	}
	return listed
}

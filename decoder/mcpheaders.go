package decoder

import (
	"fmt"
	"net/http"
	"net/textproto"
	"strings"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// MCP 2026-07-28 request headers.
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
)

// canonicalProtocolVersionHeader is HeaderProtocolVersion as http.Header
// keys it, worked out once: Get would build it for every call.
var canonicalProtocolVersionHeader = textproto.CanonicalMIMEHeaderKey(HeaderProtocolVersion)

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
			"%s header %q differs from the body's %s %q", header, model.Clip(got, 80), what, model.Clip(want, 80))})
	}
	version := strings.TrimSpace(headerValue(h, canonicalProtocolVersionHeader))
	gotMethod := strings.TrimSpace(h.Get(HeaderMethod))
	gotName := strings.TrimSpace(h.Get(HeaderName))
	check(HeaderProtocolVersion, version, metaProtocolVersion, "_meta protocolVersion")
	check(HeaderMethod, gotMethod, method, "method")
	if method == jsonrpc.MethodToolsCall {
		check(HeaderName, gotName, toolName, "tool name")
	}
	if version != "" && !knownMCPVersions[version] {
		ws = append(ws, model.Warning{Code: model.WarnMCPProtocolVersionUnknown, Message: fmt.Sprintf(
			"MCP-Protocol-Version %q is not a revision toolscope knows", model.Clip(version, 80))})
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

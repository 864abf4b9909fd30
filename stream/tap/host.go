package tap

import (
	"net"
	"net/http"
	"strconv"

	"toolscope/decoder"
	"toolscope/model"
)

// refuseRebinding answers 403 to a request that reached the tap on a
// loopback address with a Host that is not a loopback name, when the tap
// rewrites Host (RewriteHost): the upstream then sees its own name and can no
// longer apply the MCP transport's DNS-rebinding rule for local servers, so
// the tap applies it, as the go-sdk does. It reports whether it answered.
func (t *Tap) refuseRebinding(w http.ResponseWriter, r *http.Request) bool {
	if !t.cfg.RewriteHost {
		return false // the upstream sees the client's Host and judges it itself
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil || !isLoopback(local.String()) || isLoopback(r.Host) {
		return false
	}
	msg := "Host " + quoteClip(r.Host) + " is not a loopback name on a loopback listener (DNS rebinding): refused by the tap"
	writeRPCError(w, http.StatusForbidden, decoder.ErrorResponse(nil, decoder.CodeInvalidRequest, "Forbidden: invalid Host header"))
	t.runners.aside(t, func() {
		t.emit(model.Event{Kind: model.KindWarning, Code: string(model.WarnHostRejected), Message: msg})
	})
	return true
}

// quoteClip quotes untrusted text for a message, cut to 100 bytes.
func quoteClip(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return strconv.Quote(s)
}

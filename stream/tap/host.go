package tap

import (
	"fmt"
	"net"
	"net/http"

	"toolscope/decoder/jsonrpc"
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
	if !ok || local == nil || !model.IsLoopback(local.String()) || model.IsLoopback(r.Host) {
		return false
	}
	msg := fmt.Sprintf("Host %.100q is not a loopback name on a loopback listener (DNS rebinding): refused by the tap", r.Host)
	jsonrpc.WriteResponse(w, http.StatusForbidden, jsonrpc.ErrorResponse(nil, jsonrpc.CodeInvalidRequest, "Forbidden: invalid Host header"))
	t.runners.aside(t, func() {
		t.emit(model.Event{Kind: model.KindWarning, Code: string(model.WarnHostRejected), Message: msg})
	})
	return true
}

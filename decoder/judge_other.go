package decoder

import (
	"fmt"
	"net/http"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// A request that holds no tools/call owes the platform's context nothing:
// the platform sends it only on tools/call.

// contextOnOtherMethods warns of AgentArea context (the token, or
// agentarea/* keys in _meta) on a request that holds no tools/call.
func (j *Judge) contextOnOtherMethods(r Request, body *jsonrpc.Body) []model.Warning {
	token := r.Header.Get(contextHeader) != ""
	if r.Method != "" && r.Method != http.MethodPost {
		if why := ContextOnOtherMethod(r.Method, token, nil); why != "" {
			return []model.Warning{{Code: model.WarnContextOnOtherMethod, Message: why}}
		}
		return nil
	}
	for _, m := range body.Messages {
		if m.Kind != jsonrpc.KindRequest && m.Kind != jsonrpc.KindNotification {
			continue
		}
		if why := ContextOnOtherMethod(m.Method, token, m.Meta.AgentArea); why != "" {
			return []model.Warning{{Code: model.WarnContextOnOtherMethod, Message: why}}
		}
	}
	return nil
}

// ContextOnOtherMethod says why a request that is not a tools/call carries
// AgentArea context ("" when it does not): the platform sends context only
// on tools/call.
func ContextOnOtherMethod(method string, tokenPresent bool, meta map[string]any) string {
	if method == jsonrpc.MethodToolsCall {
		return ""
	}
	if method == "" {
		method = "a request without a method"
	}
	switch {
	case tokenPresent:
		return fmt.Sprintf("%.80s carries an %s token; AgentArea sends context only on tools/call", method, model.ContextHeader)
	case len(meta) > 0:
		return fmt.Sprintf("%.80s carries agentarea/* _meta keys; AgentArea sends context only on tools/call", method)
	}
	return ""
}

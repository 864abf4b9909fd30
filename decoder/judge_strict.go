package decoder

import (
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// strict is the first reason servers could read the request differently: a
// header that makes the body mean different things, else the body's own.
func (j *Judge) strict(r Request, body *jsonrpc.Body) *jsonrpc.Ambiguity {
	if r.Method != "" && r.Method != http.MethodPost {
		if len(r.Body) == 0 {
			return nil
		}
		// MCP sends calls only by POST and the tap reads only POST bodies;
		// a server that reads any method's body would run what it did not see.
		return &jsonrpc.Ambiguity{RPCCode: jsonrpc.CodeInvalidRequest,
			Reason: fmt.Sprintf("a %.20q request with a body, which the tap reads only on POST", r.Method)}
	}
	if a := headerProblem(r.Header); a != nil {
		if msgs := body.Messages; len(msgs) > 0 && msgs[0].Kind == jsonrpc.KindRequest && body.Strict == nil {
			a.ID = msgs[0].ID // the body itself is clear
		}
		return a
	}
	return body.Strict
}

// headerProblem is a request header that makes the body mean different
// things to different servers, or nil.
func headerProblem(h http.Header) *jsonrpc.Ambiguity {
	for _, v := range h.Values("Content-Encoding") {
		for _, coding := range strings.Split(v, ",") {
			if c := strings.TrimSpace(coding); c != "" && !strings.EqualFold(c, "identity") {
				return &jsonrpc.Ambiguity{RPCCode: jsonrpc.CodeInvalidRequest,
					Reason: fmt.Sprintf("the request body has Content-Encoding %.40q, which the tap does not decode and a server may", c)}
			}
		}
	}
	if ct := h.Get("Content-Type"); strings.IndexByte(ct, ';') >= 0 {
		_, params, _ := mime.ParseMediaType(ct)
		if cs := params["charset"]; cs != "" && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
			return &jsonrpc.Ambiguity{RPCCode: jsonrpc.CodeInvalidRequest,
				Reason: fmt.Sprintf("the request body is declared charset %.40q: the tap reads UTF-8, a server may decode it", cs)}
		}
	}
	if n := len(h.Values(contextHeader)); n > 1 {
		return &jsonrpc.Ambiguity{RPCCode: jsonrpc.CodeInvalidRequest,
			Reason: "the request has " + model.ContextHeader + " " + strconv.Itoa(n) + " times; servers take the first, the last or all of them"}
	}
	return nil
}

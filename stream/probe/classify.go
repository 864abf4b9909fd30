package probe

import (
	"bytes"
	"encoding/json"
	"fmt"

	"toolscope/decoder/jsonrpc"
	"toolscope/model"
)

// verdict is a case's answer judged against the contract's.
type verdict struct {
	actual  Answer
	pass    bool
	ran     bool // the server answered with a result: the tool ran
	echoed  bool // the answer carries the request id
	message string
}

// judge compares one reply with the case's expected answer.
func judge(cs Case, r reply) verdict {
	if r.err != nil && r.status == 0 {
		cause, _ := transportCause(r.err, 0)
		return verdict{message: "no answer: " + cause}
	}
	v := verdict{actual: Answer{HTTPStatus: r.status}}
	m, echoed := r.response()
	v.echoed = echoed
	if m != nil {
		if m.Error != nil {
			v.actual.RPCCode = m.Error.Code
		}
		v.ran = m.Result != nil
	}
	if cs.Accept() {
		return judgeAccepted(v, m, r)
	}
	return judgeRejected(cs, v, m, r)
}

func judgeAccepted(v verdict, m *jsonrpc.Message, r reply) verdict {
	switch {
	case m == nil:
		v.message = fmt.Sprintf("HTTP %d with no JSON-RPC response%s: the tool must run", r.status, readProblem(r))
	case !v.ran:
		v.message = fmt.Sprintf("refused with HTTP %d, JSON-RPC %d: %s; the tool must run", r.status, m.Error.Code, model.Clip(m.Error.Message, maxShownBytes))
	case !v.echoed:
		v.message = "a result that does not carry the request id"
	case r.status != 200:
		v.message = fmt.Sprintf("a result with HTTP %d (want 200)", r.status)
	default:
		v.pass = true
		v.message = "the tool ran"
		if m.Summary != nil && m.Summary.IsError {
			v.message = "the tool ran and reported isError (check --args)"
		}
	}
	return v
}

func judgeRejected(cs Case, v verdict, m *jsonrpc.Message, r reply) verdict {
	want := cs.Expect.String()
	if cs.Also != nil {
		want += " or " + cs.Also.String()
	}
	matches := v.actual == cs.Expect || (cs.Also != nil && v.actual == *cs.Also)
	switch {
	case v.ran:
		v.message = fmt.Sprintf("the tool ran: a result with HTTP %d where the contract says %s", r.status, want)
	case m == nil:
		v.message = fmt.Sprintf("HTTP %d with no JSON-RPC error%s; the contract says %s", r.status, readProblem(r), want)
	case !matches:
		v.message = fmt.Sprintf("answered HTTP %d, JSON-RPC %d (%s); the contract says %s", r.status, m.Error.Code, model.Clip(m.Error.Message, maxShownBytes), want)
	case !v.echoed:
		v.message = fmt.Sprintf("answered %s but without the request id %d (the error carries %s)", v.actual, r.requestID, idText(m.ID))
	default:
		v.pass = true
		v.message = fmt.Sprintf("refused with %s: %s", v.actual, model.Clip(m.Error.Message, maxShownBytes))
		if cs.Also != nil {
			v.message = fmt.Sprintf("refused with %s (the contract's table allows %s): %s", v.actual, want, model.Clip(m.Error.Message, maxShownBytes))
		}
	}
	return v
}

func readProblem(r reply) string {
	if r.err != nil {
		return " (" + model.Sanitize(r.err.Error()) + ")"
	}
	return ""
}

func idText(id json.RawMessage) string {
	if len(bytes.TrimSpace(id)) == 0 {
		return "no id"
	}
	return "id " + model.Clip(string(id), maxShownBytes)
}

// maxShownBytes bounds the server text a one-line message quotes.
const maxShownBytes = 200

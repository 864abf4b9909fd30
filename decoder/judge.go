package decoder

import (
	"net/http"
	"net/textproto"
	"sync"
	"sync/atomic"
	"time"

	"toolscope/decoder/jsonrpc"
	"toolscope/decoder/soat"
	"toolscope/model"
)

// Judge judges requests against the contracts, as one function over what
// jsonrpc.Read read: the token's steps and verdict, _meta against the
// claims, the keys and claims AgentArea always sends, tool names, sessions,
// batches, MCP and SOAT headers, what servers could read differently, and
// the rules across calls (retries, token reuse, end users). One Judge
// serves a tap (HTTP and stdio alike); `decode --call` judges its one call
// with a Judge of its own. Safe for concurrent use.
type Judge struct {
	Secrets    [][]byte
	InstanceID string // the aud a token must name ("": not compared)
	// InstanceName is the server instance's name: a call's agent-facing
	// name is QualifiedName(InstanceName, tool) ("": not known).
	InstanceName string
	// CredentialHeader is the static credential's header when one is
	// required (--credential-header); Authorization is always a credential
	// header for the rule that a credential is never the context secret.
	CredentialHeader string
	SoatPrefix       string // "": soat.DefaultPrefix
	// Enforce: an ambiguous request is refused, not forwarded (its warning
	// says so), and a judgment names the Answer a server following the
	// contracts gives instead of running the request.
	Enforce bool
	// MaxParseBytes is the parse limit a body over it was not read under
	// (--max-parse-bytes), named in its Answer.
	MaxParseBytes int64
	// RelayInterval is the platform's relay rate a feed is held to (0:
	// model.RelayInterval; the demo runs its clock faster).
	RelayInterval time.Duration

	cross crossIndex
	// contextSeen: a call came with AgentArea context, so the calls this
	// judge serves are AgentArea's, and one without context misses it.
	contextSeen atomic.Bool
	mu          sync.Mutex // guards gaps
	gaps        relayGaps
}

// The token's and the MCP version's headers as http.Header keys them (Get
// would make them canonical, a new string, every call).
var (
	contextHeader         = textproto.CanonicalMIMEHeaderKey(model.ContextHeader)
	protocolVersionHeader = textproto.CanonicalMIMEHeaderKey(HeaderProtocolVersion)
)

// Request is one request body and what came with it.
type Request struct {
	// Method is the HTTP method ("" over stdio); a request by another
	// method than POST has no body the judgment reads.
	Method string
	// Body is the body as received; Whole says it is all of it (a body over
	// the parse limit is not read: what the tap cannot read, it cannot
	// judge).
	Body  []byte
	Whole bool
	// Header is the request's header as the tap received it, nil over
	// stdio: then a token comes in _meta (jsonrpc.MetaContextToken) and
	// no header rule applies.
	Header http.Header
	// SoatHeader holds the SOAT fields with their names as they arrived,
	// SoatOrder those names in order (nil: read from Header, whose names
	// net/http made canonical).
	SoatHeader http.Header
	SoatOrder  []string
	// Exchange names the request in the rules across calls ("12"; a batch's
	// second call is "12.2").
	Exchange string
	Now      time.Time

	dropped map[string]bool // the headers the client names in Connection
}

// Judgment is what the contracts say of one request.
type Judgment struct {
	// Body is the body as read, once (empty when it was not).
	Body  jsonrpc.Body
	Calls []CallJudgment // one per tools/call request, in the body's order
	// Warnings are about the request, not a call (context on tools/list).
	Warnings []model.Warning
	// Strict is why servers could read the request differently (the body,
	// or a header: Content-Encoding, a charset, two tokens), nil when
	// every server reads it alike. --enforce refuses such a request.
	Strict *jsonrpc.Ambiguity
	// Answer is the error to answer with instead of running the request
	// (Enforce), nil when it may run.
	Answer *Answer
}

// CallJudgment is what the contracts say of one tools/call.
type CallJudgment struct {
	Message  *jsonrpc.Message
	Exchange string
	// Context is the token's verdict, steps and claims.
	Context model.Context
	// AgentArea: the call came with AgentArea context (a token, even one
	// the server never receives, or agentarea/* keys): AgentArea's contract
	// applies to it, the platform's result limits included
	// (model.Call.AgentArea is the same notion).
	AgentArea bool
	// Plain: no AgentArea context on the call nor on any call the judge saw
	// before it, and no secret or credential header that requires it:
	// plain MCP, with no token to miss, so its tool.call carries no
	// context verdict.
	Plain    bool
	Warnings []model.Warning
	// Soat is the SOAT context bag the call came with, keys as received.
	Soat map[string]string
	// AgentName is the tool's agent-facing name ("" when the instance's name
	// is not known).
	AgentName string
}

// Request reads one request's body (jsonrpc.Read, the one reading) and
// judges the request; with Enforce, the judgment names its Answer.
func (j *Judge) Request(r Request) Judgment {
	out := j.judge(r)
	if j.Enforce {
		out.Answer = j.answer(r, &out)
	}
	return out
}

func (j *Judge) judge(r Request) Judgment {
	var out Judgment
	r.dropped = connectionListed(r.Header)
	post := r.Method == "" || r.Method == http.MethodPost
	if post && r.Whole {
		out.Body = jsonrpc.Read(r.Body)
	}
	out.Strict = j.strict(r, &out.Body)
	body := &out.Body
	if body.Err != nil {
		return out
	}
	for i := range body.Messages {
		if m := &body.Messages[i]; m.IsCall() {
			out.Calls = append(out.Calls, j.call(r, body.Batch, m, len(out.Calls)))
		}
	}
	if len(out.Calls) == 0 {
		out.Warnings = append(out.Warnings, j.contextOnOtherMethods(r, body)...)
	}
	j.headerRules(r, &out)
	if body.Batch {
		for i := range out.Calls {
			out.Calls[i].warn(model.WarnToolsCallInBatch, "tools/call inside a JSON-RPC batch")
		}
	}
	if a := out.Strict; a != nil && a.RPCCode != jsonrpc.CodeParseError {
		// A body that is not JSON already has its malformed_request.
		w := j.Ambiguous(a)
		if len(out.Calls) == 0 {
			out.Warnings = append(out.Warnings, w)
		}
		for i := range out.Calls {
			out.Calls[i].Warnings = append(out.Calls[i].Warnings, w)
		}
	}
	return out
}

// Ambiguous is the ambiguous_json warning of a request servers can read
// differently.
func (j *Judge) Ambiguous(a *jsonrpc.Ambiguity) model.Warning {
	msg := "servers can read this request differently: " + a.Reason
	if j.Enforce {
		msg += "; refused (--enforce)"
	} else {
		msg += "; what is shown may not be what the server ran"
	}
	return model.Warning{Code: model.WarnAmbiguousJSON, Message: msg}
}

// Prefix is the SOAT header prefix the judge reads.
func (j *Judge) Prefix() string {
	if j.SoatPrefix == "" {
		return soat.DefaultPrefix
	}
	return j.SoatPrefix
}

package demo

import "encoding/json"

// Server is the demo's MCP server ("Demo Sheets") started alone on
// loopback, with what a platform needs to call it: `toolscope probe --demo`
// checks it against the contract.
type Server struct {
	URL        string
	InstanceID string
	Secret     []byte // context_secret
	Credential string // the static credential, sent as Authorization: Bearer
	// Tool and Args are a harmless call: a lookup that changes nothing.
	Tool string
	Args json.RawMessage

	s *demoServer
}

// StartServer starts the demo's MCP server alone. speed scales its tools'
// pace as in Options (1, or 0, is real time).
func StartServer(speed float64) *Server {
	clk := newPace(speed)
	id, secret, credential := newUUID(), newSecret(), newID("demo_", 16)
	s := startDemoServer(clk, id, secret, credential, max(clk.d(instanceTimeout), minInstanceTimeout), newPlannedTimes())
	return &Server{URL: s.URL(), InstanceID: id, Secret: secret, Credential: credential,
		Tool: toolLookupCustomer, Args: json.RawMessage(`{"customer_id":"C-1042"}`), s: s}
}

// Close stops the server once every request has ended.
func (s *Server) Close() { s.s.Close() }

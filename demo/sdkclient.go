package demo

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerTransport adds fixed headers to every request: the static credential
// a platform stores for an instance, or a SOAT-style tool context bag.
type headerTransport struct {
	base   http.RoundTripper
	header http.Header
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.header {
		r.Header[k] = vs // exact key spelling: SOAT keys are forwarded verbatim
	}
	return t.base.RoundTrip(r)
}

// sdkSession connects the official Go SDK client (with these options) to
// endpoint with these headers, on connections of its own.
func sdkSession(ctx context.Context, name, endpoint string, header http.Header, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0.0"}, opts)
	tr := &mcp.StreamableClientTransport{
		Endpoint:             endpoint,
		HTTPClient:           &http.Client{Transport: headerTransport{base: &http.Transport{DisableKeepAlives: true}, header: header}},
		MaxRetries:           -1,
		DisableStandaloneSSE: true,
	}
	return client.Connect(ctx, tr, nil)
}

// registerInstance is what AgentArea does when an instance is added: list
// its tools (no context token: tools/list never carries one).
func (p *platform) registerInstance(ctx context.Context) ([]string, error) {
	hdr := http.Header{}
	hdr.Set("Authorization", "Bearer "+p.inst.Credential)
	cs, err := sdkSession(ctx, "agentarea", p.inst.URL, hdr, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", p.inst.Name, err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("listing the tools of %s: %w", p.inst.Name, err)
	}
	names := make([]string, len(res.Tools))
	for i, t := range res.Tools {
		names[i] = t.Name
	}
	return names, nil
}

// soatContext is the tool context a SOAT session forwards: the session's
// identity keys (actor_external_id is a phone number: personal data in a
// header) and a caller key.
func soatContext() http.Header {
	return http.Header{
		"X-Soat-Context-session_id":        {"sess_01J9ZQ4M2C"},
		"X-Soat-Context-actor_id":          {"act_7Q2M"},
		"X-Soat-Context-actor_external_id": {"+5511999999999"},
		"X-Soat-Context-tenantId":          {"acme"},
	}
}

// soatCall is a SOAT-style platform calling get_order with its context bag as
// X-Soat-Context-* headers, through the official SDK client.
func soatCall(ctx context.Context, endpoint string) error {
	cs, err := sdkSession(ctx, "soat", endpoint, soatContext(), nil)
	if err != nil {
		return fmt.Errorf("SOAT call: connecting: %w", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: toolGetOrder, Arguments: map[string]any{"order_id": "ord_42"}})
	if err != nil {
		return fmt.Errorf("SOAT call: %w", err)
	}
	if res.IsError {
		return fmt.Errorf("SOAT call: get_order failed")
	}
	return nil
}

// userThinks is how long the demo's user takes to confirm, at speed 1: the
// call shows needs input meanwhile.
const userThinks = 1500 * time.Millisecond

// confirmedCall is the SOAT-style platform calling cancel_order, a tool
// that asks its user to confirm (MCP 2026-07-28 input_required with an
// elicitation): the go-sdk client hands the question to the user, who
// confirms after a moment, and sends the call again with the answer.
func confirmedCall(ctx context.Context, clk pace, endpoint string) error {
	opts := &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		if err := clk.sleep(ctx, userThinks); err != nil {
			return nil, err
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
	}}
	cs, err := sdkSession(ctx, "soat", endpoint, http.Header{"X-Soat-Context-tenantId": {"acme"}}, opts)
	if err != nil {
		return fmt.Errorf("confirmed call: connecting: %w", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: toolCancelOrder, Arguments: map[string]any{"order_id": "ord_42"}})
	if err != nil {
		return fmt.Errorf("confirmed call: %w", err)
	}
	if res.IsError {
		return fmt.Errorf("confirmed call: cancel_order failed")
	}
	return nil
}

package demo

import (
	"context"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// demoServer is the demo's MCP server on loopback, built on the official Go
// SDK in stateless Streamable HTTP mode:
//   - /mcp is the "Demo Sheets" instance the simulated AgentArea platform
//     calls. A guard in front of the SDK checks the static credential and the
//     X-AgentArea-Context token of every tools/call exactly as the contract
//     says, and every tool keeps its results in an idempotency store.
//   - /soat/mcp is a small orders server a SOAT-style platform calls with
//     X-Soat-Context-* headers.
type demoServer struct {
	clk        pace
	instanceID string
	secrets    [][]byte
	credential string // the static bearer credential the instance stores
	idem       *idempotencyStore
	drops      *dropPlan
	http       *httptest.Server
	// exportSteps sizes export_ledger to outlast the instance's timeout by
	// half; exportStep is its real pace, a tenth of the timeout in force, so
	// the export gets as far at every speed (even when the timeout is floored).
	exportSteps int
	exportStep  time.Duration
	planned     *plannedTimes
}

// connKey carries the request's net.Conn in its context, so a tool can drop
// the connection mid-stream (the retry scenario's broken stream).
type connKey struct{}

// startDemoServer starts the server for an instance whose calls time out
// after timeout.
func startDemoServer(clk pace, instanceID string, secret []byte, credential string, timeout time.Duration, planned *plannedTimes) *demoServer {
	s := &demoServer{
		planned:     planned,
		clk:         clk,
		instanceID:  instanceID,
		secrets:     [][]byte{secret},
		credential:  credential,
		idem:        newIdempotencyStore(),
		drops:       newDropPlan(toolPostLedgerEntry),
		exportSteps: int(math.Ceil(1.5 * float64(instanceTimeout) / float64(exportStepInterval))),
		exportStep:  time.Duration(float64(timeout) * float64(exportStepInterval) / float64(instanceTimeout)),
	}
	sheets := mcp.NewServer(&mcp.Implementation{Name: "demo-sheets", Title: "Demo Sheets", Version: "1.0.0"}, nil)
	s.addSheetTools(sheets)
	orders := mcp.NewServer(&mcp.Implementation{Name: "demo-orders", Title: "Demo Orders", Version: "1.0.0"}, nil)
	s.addOrderTools(orders)

	// Stateless: every POST stands alone (AgentArea opens a new connection
	// per call). Closing the response stream cancels the tool's context, which
	// is how a timed-out call stops on the server.
	opts := &mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true}
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.guard(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return sheets }, opts)))
	mux.Handle("/soat/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return orders }, opts))

	hs := httptest.NewUnstartedServer(mux)
	hs.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c)
	}
	hs.Start()
	s.http = hs
	return s
}

// URL of the AgentArea instance endpoint.
func (s *demoServer) URL() string { return s.http.URL + "/mcp" }

// SoatURL of the SOAT-style orders endpoint.
func (s *demoServer) SoatURL() string { return s.http.URL + "/soat/mcp" }

// Close stops the server once every request has ended.
func (s *demoServer) Close() { s.http.Close() }

// dropConnection closes the connection that carries the current request, as a
// crashing load balancer would: the client sees its stream end mid-way.
func dropConnection(ctx context.Context) {
	if c, ok := ctx.Value(connKey{}).(net.Conn); ok {
		_ = c.Close()
	}
}

// Command stdioserver is a real MCP server on stdio (the official Go SDK)
// that the stdio tap's tests run as its child.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type countInput struct {
	Steps int `json:"steps"`
}

type echoInput struct {
	Text   string `json:"text"`
	Repeat int    `json:"repeat,omitempty"`
}

type deployInput struct {
	Env string `json:"env"`
}

type crashInput struct {
	Code int `json:"code"`
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-cat" {
		// Byte-exactness tests: whatever comes in goes back out.
		if _, err := io.Copy(os.Stdout, os.Stdin); err != nil {
			os.Exit(1)
		}
		return
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "stdioserver", Version: "v1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "count", Description: "counts, reporting progress"},
		func(ctx context.Context, req *mcp.CallToolRequest, in countInput) (*mcp.CallToolResult, any, error) {
			tok := req.Params.GetProgressToken()
			for i := 1; i <= in.Steps; i++ {
				if tok != nil {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
						ProgressToken: tok, Progress: float64(i), Total: float64(in.Steps), Message: fmt.Sprintf("step %d of %d", i, in.Steps)})
				}
				time.Sleep(2 * time.Millisecond)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("counted to %d", in.Steps)}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "answers its text in upper case, repeated"},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoInput) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat(strings.ToUpper(in.Text), max(in.Repeat, 1))}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "crash", Description: "reports progress, then exits with code"},
		func(ctx context.Context, req *mcp.CallToolRequest, in crashInput) (*mcp.CallToolResult, any, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Message: "about to crash"})
			}
			time.Sleep(20 * time.Millisecond) // the progress reaches the client first
			fmt.Fprintln(os.Stderr, "stdioserver: crashing on purpose")
			os.Exit(in.Code)
			return nil, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "deploy", Description: "deploys, once the user confirms (a multi-round call)"},
		func(ctx context.Context, req *mcp.CallToolRequest, in deployInput) (*mcp.CallToolResult, any, error) {
			resp, ok := req.Params.InputResponses["confirm"].(*mcp.ElicitResult)
			switch {
			case !ok:
				return &mcp.CallToolResult{
					InputRequests: mcp.InputRequestMap{"confirm": &mcp.ElicitParams{Message: "Deploy to " + in.Env + "?",
						RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"note": map[string]any{"type": "string"}}}}},
					RequestState: "deploy-" + in.Env,
				}, nil, nil
			case req.Params.RequestState != "deploy-"+in.Env || resp.Action != "accept":
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "not deployed"}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deployed to " + in.Env}}}, nil, nil
		})
	fmt.Fprintln(os.Stderr, "stdioserver: ready")
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Printf("stdioserver: %v", err)
	}
	fmt.Fprintln(os.Stderr, "stdioserver: stdin closed, exiting")
	os.Exit(7)
}

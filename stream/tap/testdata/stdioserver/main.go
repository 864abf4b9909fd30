// Command stdioserver is a real MCP server on stdio (the official Go SDK)
// that the stdio tap's tests run as its child.
package main

import (
	"context"
	"fmt"
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
	Text string `json:"text"`
}

type crashInput struct {
	Code int `json:"code"`
}

func main() {
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
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "answers its text, reversed in case"},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoInput) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.ToUpper(in.Text)}}}, nil, nil
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
	fmt.Fprintln(os.Stderr, "stdioserver: ready")
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Printf("stdioserver: %v", err)
	}
	fmt.Fprintln(os.Stderr, "stdioserver: stdin closed, exiting")
	os.Exit(7)
}

package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"toolscope/decoder"
	"toolscope/decoder/jsonrpc"
	"toolscope/decoder/sse"
)

// maxResponseBytes bounds one response body or SSE event the platform reads.
const maxResponseBytes = 16 << 20

// errStreamBroken says the response ended before its JSON-RPC response: the
// failure a retry is for.
var errStreamBroken = errors.New("the response stream ended before the result")

// rpcClient is the platform's MCP client for tools/call: raw Streamable HTTP
// POSTs, because the platform needs what a generic client hides: its own
// token per call, its own request id, every progress notification as it
// arrives, and a broken stream told apart from an answer.
type rpcClient struct {
	http *http.Client
}

// newRPCClient opens a new connection for every request, as AgentArea does.
func newRPCClient() *rpcClient {
	return &rpcClient{http: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}}
}

// rpcRequest is one JSON-RPC message to POST.
type rpcRequest struct {
	URL    string
	ID     int64 // 0 for a notification
	Method string
	Name   string // the Mcp-Name header (tools/call)
	Params any
	Header http.Header // credential, context token
}

// rpcOutcome is what came back.
type rpcOutcome struct {
	HTTPStatus int
	Result     json.RawMessage
	Summary    *jsonrpc.Result // Result read as a CallToolResult (nil: not an object)
	Err        *jsonrpc.RPCError
}

func (c *rpcClient) post(ctx context.Context, r rpcRequest) (*http.Response, error) {
	msg := map[string]any{"jsonrpc": "2.0", "method": r.Method, "params": r.Params}
	if r.ID != 0 {
		msg["id"] = r.ID
	}
	body, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = decoder.PlatformHeaders(r.Method, r.Name)
	for k, vs := range r.Header {
		req.Header[k] = vs
	}
	return c.http.Do(req)
}

// call POSTs a request and reads its answer: one JSON body, or an SSE stream
// whose progress notifications go to onProgress as they arrive.
func (c *rpcClient) call(ctx context.Context, r rpcRequest, onProgress func(jsonrpc.Progress)) (rpcOutcome, error) {
	resp, err := c.post(ctx, r)
	if err != nil {
		if ctx.Err() != nil {
			return rpcOutcome{}, ctx.Err()
		}
		return rpcOutcome{}, err
	}
	defer resp.Body.Close()
	out := rpcOutcome{HTTPStatus: resp.StatusCode}
	id := strconv.FormatInt(r.ID, 10)
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct == "text/event-stream" {
		return c.readStream(ctx, resp.Body, id, out, onProgress)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		return out, fmt.Errorf("%w: %v", errStreamBroken, err)
	}
	if found := pickResponse(body, id, &out, onProgress); !found {
		if resp.StatusCode >= 400 {
			return out, fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
		}
		return out, fmt.Errorf("%w: no JSON-RPC response in the body", errStreamBroken)
	}
	return out, nil
}

func (c *rpcClient) readStream(ctx context.Context, body io.Reader, id string, out rpcOutcome, onProgress func(jsonrpc.Progress)) (rpcOutcome, error) {
	found := false
	err := sse.Read(body, maxResponseBytes, func(e sse.Event) bool {
		found = len(e.Data) > 0 && pickResponse(e.Data, id, &out, onProgress)
		return found
	})
	switch {
	case found:
		return out, nil
	case ctx.Err() != nil:
		return out, ctx.Err()
	case err != nil:
		return out, fmt.Errorf("%w: %v", errStreamBroken, err)
	}
	return out, errStreamBroken
}

// pickResponse handles the messages of one body or SSE event; it reports
// whether the response to id was among them.
func pickResponse(payload []byte, id string, out *rpcOutcome, onProgress func(jsonrpc.Progress)) bool {
	body := jsonrpc.Read(payload)
	if body.Err != nil {
		return false
	}
	for _, m := range body.Messages {
		switch {
		case m.Kind == jsonrpc.KindNotification && m.Method == jsonrpc.MethodProgress:
			if m.ProgressErr == nil && onProgress != nil {
				onProgress(m.Progress)
			}
		case m.Kind == jsonrpc.KindResponse && m.Key == jsonrpc.IDKey([]byte(id)):
			out.Result, out.Summary, out.Err = m.Result, m.Summary, m.Error
			return true
		}
	}
	return false
}

// notify POSTs a notification (notifications/cancelled); the server answers
// 202 Accepted.
func (c *rpcClient) notify(ctx context.Context, r rpcRequest) error {
	resp, err := c.post(ctx, r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: HTTP %d", r.Method, resp.StatusCode)
	}
	return nil
}

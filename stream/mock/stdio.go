package mock

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	"toolscope/decoder/jsonrpc"
)

// ServeStdio serves the script as a stdio MCP server: a JSON-RPC message a
// line on r, answers (and progress at its recorded times) on w, each
// request on its own so a long call does not hold the others; a
// notifications/cancelled stops the call it names. It returns when r ends
// and every answer under way is written.
func (sv *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	var mu sync.Mutex // one line at a time on w
	send := func(msg json.RawMessage) error {
		mu.Lock()
		defer mu.Unlock()
		_, err := w.Write(append(append([]byte(nil), msg...), '\n'))
		return err
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	inflight := map[string]context.CancelFunc{}
	var imu sync.Mutex
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 64<<10), maxRequestBytes)
	for lines.Scan() {
		start := time.Now()
		body := jsonrpc.Read(bytes.Clone(lines.Bytes())) // the scanner reuses its buffer; the reply keeps parts of the line
		if body.Err != nil || body.Batch {
			if len(lines.Bytes()) > 0 {
				send(jsonrpc.ErrorResponse(nil, jsonrpc.CodeInvalidRequest, "toolscope mock: not one JSON-RPC message"))
			}
			continue
		}
		m := body.Messages[0]
		if m.Kind == jsonrpc.KindNotification && m.Method == jsonrpc.MethodCancelled {
			imu.Lock()
			if cancel := inflight[m.Cancel.Key]; cancel != nil {
				cancel()
			}
			imu.Unlock()
			continue
		}
		if m.Kind != jsonrpc.KindRequest {
			continue
		}
		key := m.Key
		callCtx, cancel := context.WithCancel(ctx)
		imu.Lock()
		inflight[key] = cancel
		imu.Unlock()
		rep := sv.replyTo(m) // planned in arrival order: repeated calls get the recorded answers in order
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer cancel()
			rep.play(callCtx, start, send)
			imu.Lock()
			delete(inflight, key)
			imu.Unlock()
		}()
	}
	return lines.Err()
}

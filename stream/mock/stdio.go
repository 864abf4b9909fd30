package mock

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	"toolscope/decoder"
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
		msgs, batch, err := decoder.ParseMessages(lines.Bytes())
		if err != nil || batch {
			if len(lines.Bytes()) > 0 {
				send(decoder.ErrorResponse(nil, decoder.CodeInvalidRequest, "toolscope mock: not one JSON-RPC message"))
			}
			continue
		}
		m := msgs[0]
		if m.Kind == decoder.KindNotification && m.Method == "notifications/cancelled" {
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			json.Unmarshal(m.Params, &p)
			imu.Lock()
			if cancel := inflight[decoder.IDKey(p.RequestID)]; cancel != nil {
				cancel()
			}
			imu.Unlock()
			continue
		}
		if m.Kind != decoder.KindRequest {
			continue
		}
		key := decoder.IDKey(m.ID)
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

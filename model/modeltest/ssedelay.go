package modeltest

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"time"
)

// SSEDelays reads an event stream whose events carry `"t=<unix ns>"` (the
// time the upstream wrote them) and returns, per event, how long it took to
// reach this reader. It fails unless want events arrived.
func SSEDelays(r io.Reader, name string, want int) ([]time.Duration, error) {
	br := bufio.NewReader(r)
	var out []time.Duration
	for {
		line, err := br.ReadSlice('\n')
		now := time.Now()
		if i := bytes.Index(line, []byte(`"t=`)); i >= 0 {
			end := bytes.IndexByte(line[i+3:], '"')
			ns, perr := strconv.ParseInt(string(line[i+3:i+3+end]), 10, 64)
			if perr != nil {
				return nil, perr
			}
			out = append(out, now.Sub(time.Unix(0, ns)))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: after %d events: %w", name, len(out), err)
		}
	}
	if len(out) != want {
		return nil, fmt.Errorf("%s: %d progress events, want %d", name, len(out), want)
	}
	return out, nil
}

package probe

import (
	"strings"
	"testing"

	"toolscope/decoder/jsonrpc"
)

// An accepted call whose result says isError passes, saying so: the tool
// ran but may have been given the wrong arguments.
func TestAcceptedSaysIsError(t *testing.T) {
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`:  "reported isError",
		`{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}`: "the tool ran",
		`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`:                 "the tool ran",
	} {
		m := jsonrpc.Read([]byte(body)).Messages[0]
		v := judgeAccepted(verdict{ran: true, echoed: true}, &m, reply{status: 200})
		if !v.pass || !strings.HasSuffix(strings.TrimSuffix(v.message, " (check --args)"), want) {
			t.Errorf("%s: pass %v, %q; want it to end %q", body, v.pass, v.message, want)
		}
	}
}

package cli

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"toolscope/decoder/token"
	"toolscope/model"
)

const decodeUsage = `Usage: toolscope decode [TOKEN|-] [--call FILE [--header 'Name: value']...] [--instance-id ID] [--secret-file F]... [--output text|json]

Decodes one X-AgentArea-Context token and, with a secret, verifies it as the
contract says: each of the four steps passed or failed, the verdict, and the
answer (HTTP status and JSON-RPC code) a server must give. With --call, the
call is judged as the tap judges that body with this token (and the headers
given with --header): the same verdict and the same warnings. The token
comes as the argument, or from standard input with - (or when no argument is
given). Secrets come from {{secret_env}} or --secret-file, never
from arguments. The signature is never printed.

Exit status: 0 valid (or unverified, without a secret), 1 rejected, 2 usage.

{{flags}}
Examples:
  {{secret_env}}=... toolscope decode eyJhbGciOi... --instance-id 3f6e... --call call.json
  pbpaste | toolscope decode - --output json
`

// decodeCommand is `toolscope decode`: one context token, decoded and
// verified (decoder.Decode), printed (RunDecode).
type decodeCommand struct {
	fs          *flagSet
	secretFiles multiFlag
	callFile    string
	headers     multiFlag
	instanceID  string
	output      string
}

func newDecodeCommand() *decodeCommand {
	c := &decodeCommand{fs: newFlagSet("decode")}
	c.fs.StringVar(&c.callFile, "call", "", "judge this tools/call body (JSON) in `FILE` with the token, as the tap does")
	c.fs.Var(&c.headers, "header", "a request header sent with the call, `'Name: value'` (repeatable; with --call)")
	c.fs.StringVar(&c.instanceID, "instance-id", "", "the MCP server instance `ID` a token's aud must name")
	c.fs.StringVar(&c.output, "output", "text", "`MODE`: text or json")
	c.fs.Var(&c.secretFiles, "secret-file", "read a context secret from `FILE` (repeatable, for rotation)")
	return c
}

func (c *decodeCommand) flags() *flagSet { return c.fs }

// maxTokenInput bounds a token read from standard input (a context token
// is a few KiB).
const maxTokenInput = 1 << 20

// readToken reads a token from r; a longer input is refused as cut rather
// than decoded from its first megabyte.
func readToken(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxTokenInput+1))
	if err != nil {
		return "", fmt.Errorf("reading the token: %v", err)
	}
	if len(b) > maxTokenInput {
		return "", fmt.Errorf("standard input is over %d bytes: cut there, so not decoded (a context token is a few KiB)", maxTokenInput)
	}
	return string(b), nil
}

// Run decodes the token: 0 valid or unverified, 1 rejected, 2 usage.
func (c *decodeCommand) Run(args []string) int {
	pos, code, ok := c.fs.parse(decodeUsage, args)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		return usageError("decode", "want one TOKEN (or -), got %d arguments", len(pos))
	}
	if c.output != "text" && c.output != "json" {
		return usageError("decode", "--output must be text or json, not %q", c.output)
	}
	tok, code := c.token(pos)
	if code != 0 {
		return code
	}
	secrets, err := token.LoadSecrets(os.Getenv(token.SecretEnv), c.secretFiles)
	if err != nil {
		fmt.Fprintf(os.Stderr, "toolscope decode: %v\n", err)
		return 2
	}
	var call []byte
	if c.callFile != "" {
		if call, err = os.ReadFile(c.callFile); err != nil {
			fmt.Fprintf(os.Stderr, "toolscope decode: --call: %v\n", err)
			return 2
		}
	}
	header := http.Header{}
	for _, h := range c.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return usageError("decode", "--header %q is not 'Name: value'", h)
		}
		header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	if len(header) > 0 && call == nil {
		return usageError("decode", "--header goes with --call: headers are judged with the call they came with")
	}
	return RunDecode(DecodeArgs{Token: tok, Call: call, Header: header, InstanceID: c.instanceID,
		Secrets: secrets, Output: c.output, Now: time.Now(), Stderr: os.Stderr}, os.Stdout)
}

// token is the token to decode: the argument, or standard input for "-"
// or no argument. code is non-zero when there is none.
func (c *decodeCommand) token(pos []string) (token string, code int) {
	token = "-"
	if len(pos) == 1 {
		token = pos[0]
	}
	if len(pos) == 0 && stdinIsTerminal() {
		// Waiting silently for a paste is a trap: say how instead.
		fmt.Fprint(os.Stderr, commandHelp(c.fs, decodeUsage))
		return "", 2
	}
	if token == "-" {
		var err error
		if token, err = readToken(os.Stdin); err != nil {
			fmt.Fprintf(os.Stderr, "toolscope decode: %v\n", err)
			return "", 2
		}
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return "", usageError("decode", "no token given")
	}
	if strings.HasSuffix(token, "."+model.Redacted) {
		fmt.Fprintln(os.Stderr, "toolscope decode: this token's signature was redacted by toolscope (recordings, copies and the screen never keep it): its header and claims can be read, it cannot be verified")
	}
	return token, 0
}

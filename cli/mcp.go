package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"toolscope/model"
	"toolscope/output/mcpserver"
)

// mcpFlags serve what toolscope saw as an MCP server (--mcp-listen).
type mcpFlags struct {
	listen      string
	allowRemote bool
}

func (m *mcpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.listen, "mcp-listen", "", "also serve what toolscope sees as an MCP server (Streamable HTTP, at http://`ADDR`/mcp) for a coding agent: list_calls, get_call, explain_call, list_warnings, sources; loopback only unless --mcp-allow-remote")
	fs.BoolVar(&m.allowRemote, "mcp-allow-remote", false, "let --mcp-listen be an address beyond loopback; clients must then send Authorization: Bearer $"+mcpserver.TokenEnv)
}

// check says, before anything starts, why the flags cannot serve.
func (m *mcpFlags) check() error {
	if m.listen == "" {
		if m.allowRemote {
			return fmt.Errorf("--mcp-allow-remote needs --mcp-listen ADDR")
		}
		return nil
	}
	return mcpserver.CheckListen(m.listen, m.allowRemote, os.Getenv(mcpserver.TokenEnv))
}

// start serves the store when --mcp-listen asks (nil otherwise).
func (m *mcpFlags) start(store *model.Store) (*mcpserver.Server, error) {
	if m.listen == "" {
		return nil, nil
	}
	s, err := mcpserver.New(store, mcpserver.Config{Listen: m.listen, AllowRemote: m.allowRemote,
		Token: os.Getenv(mcpserver.TokenEnv), Version: version()})
	if err != nil {
		return nil, err
	}
	if err := s.Start(); err != nil {
		return nil, err
	}
	return s, nil
}

// serveUntilInterrupted keeps a command whose work ended (a replay played,
// the demo's scenarios done, every feed ended) serving its MCP endpoint
// until SIGINT or SIGTERM: an agent may still be asking about what it saw.
func (p *pipeline) serveUntilInterrupted(ctx context.Context, cmd string) {
	if p.mcp == nil || ctx.Err() != nil {
		return
	}
	fmt.Fprintf(os.Stderr, "toolscope %s: done; still serving MCP at %s until interrupted (Ctrl-C)\n", cmd, p.mcp.URL())
	<-ctx.Done()
}

// closeMCP stops the endpoint, before the outputs close.
func (p *pipeline) closeMCP() {
	if p.mcp == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = p.mcp.Shutdown(ctx)
	p.mcp = nil
}

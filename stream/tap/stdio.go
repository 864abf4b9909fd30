package tap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"toolscope/model"
)

// stdioScope is the one session of a stdio server: ids and progress tokens
// are unique within it.
var stdioScope = scope{session: "stdio", conn: "stdio"}

// stopGrace is how long a child has to exit after SIGTERM (ctx ended, or
// the tap was sent SIGTERM or SIGHUP) before it is killed, and how long
// what is left of its process group has once the tap is done or dead. A
// variable for tests.
var stopGrace = 5 * time.Second

// drainAfterExit bounds the wait for the child's stdout to end once the
// child has exited: a grandchild may still hold it open.
const drainAfterExit = 500 * time.Millisecond

// Once the child has exited, the parser has exitDrain to finish its
// backlog; past it only the newest exitBacklog bytes (where the last
// results are) are still parsed, so a backlog never holds the exit back
// for long.
const (
	exitDrain   = 2 * time.Second
	exitBacklog = 1 << 20
)

// minSideBytes is the least the side queue holds for the parser (both
// directions): a burst of messages while the parser steps aside fits.
const minSideBytes = 16 << 20

// RunStdio runs command as a child and stands between the MCP client on
// stdin/stdout and the child's stdin/stdout: every byte passes unchanged
// both ways while a copy is parsed off to the side, with the HTTP tap's
// calls, summaries and warnings. The child's stderr goes to stderr.
// SIGINT is forwarded to the child; SIGTERM and SIGHUP to its process
// group, as SIGTERM is when ctx ends, SIGKILL following in 5 s. The child's
// process group ends with the tap, however the tap ends (see child).
// RunStdio returns once the child has exited and every event has been
// emitted, with the child's exit code (128+N when signal N killed it).
func RunStdio(ctx context.Context, cfg Config, command []string, stdin io.Reader, stdout, stderr io.Writer, sink model.Sink) (exitCode int, err error) {
	if len(command) == 0 || command[0] == "" {
		return 0, errors.New("tap: a COMMAND to run is required after --")
	}
	if sink == nil {
		return 0, errors.New("tap: a sink is required")
	}
	if cfg.Name == "" {
		cfg.Name = filepath.Base(command[0])
	}
	cfg, err = cfg.withLimits()
	if err != nil {
		return 0, err
	}
	if cfg.Enforce {
		return 0, errors.New("tap: --enforce is not available for a stdio server: the tap only watches its pipes")
	}
	s := newStdioSession(&Tap{cfg: cfg, sink: sink, calls: newRegistry(), runners: newRunners(),
		budget: &byteBudget{limit: cfg.MaxBufferedBytes}, judge: newJudge(cfg)})
	return s.run(ctx, command, stdin, stdout, stderr)
}

// stdioSession is one child and its two pipes.
type stdioSession struct {
	t     *Tap
	side  *stdioSide
	split [2]lineSplitter
	// laggingSaid is when parse_lagging was last said, per direction.
	laggingSaid [2]time.Time
	// pending are the client's requests other than tools/call awaiting
	// their answer, by id key (see stdio_msgs.go).
	pending map[string]*stdioPlain
	order   []string

	mu          sync.Mutex
	stdinClosed time.Time // when the client closed its stdin
}

func newStdioSession(t *Tap) *stdioSession {
	s := &stdioSession{t: t, side: newStdioSide(max(2*t.cfg.MaxParseBytes, minSideBytes)), pending: make(map[string]*stdioPlain)}
	for i := range s.split {
		s.split[i].max = int(t.cfg.MaxParseBytes)
	}
	return s
}

func (s *stdioSession) run(ctx context.Context, command []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	childIn, toChild, err := os.Pipe()
	if err != nil {
		return 0, fmt.Errorf("tap: %w", err)
	}
	fromChild, childOut, err := os.Pipe()
	if err != nil {
		childIn.Close()
		toChild.Close()
		return 0, fmt.Errorf("tap: %w", err)
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = childIn, childOut, stderr
	// A grandchild holding the child's stderr must not hold the tap once
	// the child has exited.
	cmd.WaitDelay = drainAfterExit
	ch, err := startChild(cmd)
	childIn.Close()
	childOut.Close()
	if err != nil {
		toChild.Close()
		fromChild.Close()
		return 0, fmt.Errorf("tap: start %s: %w", command[0], err)
	}
	defer ch.release() // what is left of the child's group goes with it
	s.t.emit(model.Event{Kind: model.KindSourceStatus, State: model.StateConnected,
		Detail: fmt.Sprintf("running %s (pid %d) on stdio", model.Sanitize(strings.Join(model.RedactArgs(command), " ")), cmd.Process.Pid)})

	parsed := make(chan struct{})
	go func() { defer close(parsed); s.parse() }()
	stopSignals := forwardSignals(ch)
	defer stopSignals()
	go s.stopOnCancel(ctx, ch)
	go s.copyToChild(stdin, toChild)
	go func() {
		<-ch.exited
		// Whatever the child wrote is in the pipe: read it, but do not wait
		// on a grandchild that kept the pipe open.
		fromChild.SetReadDeadline(time.Now().Add(drainAfterExit))
	}()
	s.copyFromChild(fromChild, stdout)
	<-ch.exited
	exitAt := ch.exitAt
	fromChild.Close()
	toChild.Close() // the copy from stdin may still be blocked reading: it ends at its next write
	s.side.end()
	s.awaitParser(parsed)
	s.sayLagging(fromClient, true)
	s.sayLagging(fromServer, true)
	code := exitCodeOf(cmd.ProcessState)
	s.concludeOpen(exitAt, code)
	s.t.calls.stopTimers()
	s.t.emit(model.Event{Kind: model.KindSourceStatus, State: model.StateEnded,
		Detail: fmt.Sprintf("%s exited with code %d", filepath.Base(command[0]), code)})
	return code, nil
}

// awaitParser waits for the parser to finish, trimming its backlog after
// exitDrain.
func (s *stdioSession) awaitParser(parsed <-chan struct{}) {
	t := time.NewTimer(exitDrain)
	defer t.Stop()
	select {
	case <-parsed:
		return
	case <-t.C:
	}
	s.side.trim(exitBacklog)
	<-parsed
}

// copyToChild forwards the client's bytes, a copy queued for the parser
// before the child can react to them. The client closing its stdin closes
// the child's.
func (s *stdioSession) copyToChild(stdin io.Reader, toChild *os.File) {
	defer toChild.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := stdin.Read(buf)
		if n > 0 {
			s.side.put(fromClient, buf[:n], time.Now())
			if _, werr := toChild.Write(buf[:n]); werr != nil {
				return // the child closed its stdin or is gone
			}
		}
		if err != nil {
			s.mu.Lock()
			s.stdinClosed = time.Now()
			s.mu.Unlock()
			return
		}
	}
}

// copyFromChild forwards the child's stdout until it ends. Should the
// client stop reading, the pipe is closed: the child sees EPIPE, as it
// would talking to the client directly.
func (s *stdioSession) copyFromChild(fromChild *os.File, stdout io.Writer) {
	buf := make([]byte, 32<<10)
	for {
		n, err := fromChild.Read(buf)
		if n > 0 {
			s.side.put(fromServer, buf[:n], time.Now())
			if _, werr := stdout.Write(buf[:n]); werr != nil {
				s.t.emit(model.Event{Kind: model.KindWarning, Code: string(model.WarnStdoutClosed),
					Message: "the client stopped reading the server's output (" + werr.Error() + "): the server's stdout is closed"})
				fromChild.Close()
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// stopOnCancel ends the child's group when ctx ends: SIGTERM, then SIGKILL.
func (s *stdioSession) stopOnCancel(ctx context.Context, ch *child) {
	select {
	case <-ch.exited:
	case <-ctx.Done():
		ch.stop(syscall.SIGTERM)
	}
}

// forwardSignals passes SIGINT on to the child, which then decides when
// toolscope exits: with it. SIGTERM and SIGHUP go to the child's process
// group, and what of it has not exited stopGrace later is killed. SIGPIPE
// is caught so a client that closed its end makes writes fail instead of
// killing the tap.
func forwardSignals(ch *child) (stop func()) {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-sigs:
				switch sig {
				case syscall.SIGPIPE:
				case syscall.SIGINT:
					ch.signal(sig)
				default:
					ch.stop(sig.(syscall.Signal))
				}
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(sigs); close(done) }
}

// exitCodeOf is the child's exit code as a shell reports it.
func exitCodeOf(ps *os.ProcessState) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	if code := ps.ExitCode(); code >= 0 {
		return code
	}
	return 1
}

// concludeOpen ends the calls still open when the child exited: cancelled
// when the client had closed its stdin (it left), failed otherwise.
func (s *stdioSession) concludeOpen(at time.Time, code int) {
	s.mu.Lock()
	closed := s.stdinClosed
	s.mu.Unlock()
	for _, c := range s.t.calls.open() {
		if !closed.IsZero() && !closed.After(at) {
			c.onCancel(closed, "the client closed its stdin")
			continue
		}
		c.onFailure(at, 0, 0, fmt.Sprintf("the server exited (code %d) before answering", code))
	}
	s.flushPending(at)
}

// open lists the calls in flight.
func (r *registry) open() []*call {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := make(map[*call]bool)
	var all []*call
	for _, list := range r.byID {
		for _, c := range list {
			if !seen[c] {
				seen[c] = true
				all = append(all, c)
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].start.Before(all[j].start) })
	return all
}

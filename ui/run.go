package ui

import (
	"context"
	"os"
	"strings"
	"sync"

	tea "github.com/charmbracelet/bubbletea"

	"toolscope/model"
	"toolscope/model/userfiles"
)

// lockedFile is the terminal as Bubble Tea's output: still an *os.File (so
// Bubble Tea sees a TTY and its size), with writes serialised so an OSC 52
// copy never lands inside a frame the renderer is writing.
type lockedFile struct {
	*os.File
	mu sync.Mutex
}

func (f *lockedFile) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.File.Write(p)
}

// Run shows the screen on the terminal (alternate screen, mouse wheel) until
// the user quits or ctx is done; both return nil.
func Run(ctx context.Context, store *model.Store, opts Options) error {
	out := &lockedFile{File: os.Stdout}
	if opts.Clipboard == nil {
		opts.Clipboard = out
	}
	if opts.ClipboardMode == "" {
		opts.ClipboardMode = clipboardModeFromEnv(os.Getenv("TMUX"), os.Getenv("TERM"))
	}
	if opts.CopyDir == "" {
		// A directory of the user's own (checked at each copy), never a
		// predictable one in a shared place.
		opts.CopyDir, _ = userfiles.RuntimeDir("copies") // "" without a home: no file, the clipboard only
	}
	p := tea.NewProgram(newModel(store, opts),
		tea.WithContext(ctx),
		tea.WithOutput(out),
		tea.WithAltScreen(),
		tea.WithMouseCellMotion(),
	)
	if _, err := p.Run(); err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// clipboardModeFromEnv: inside tmux ($TMUX set) or GNU screen ($TERM
// screen*, outside tmux) the OSC 52 copy is wrapped to pass through.
func clipboardModeFromEnv(tmux, term string) string {
	switch {
	case tmux != "":
		return ClipboardTmux
	case strings.HasPrefix(term, "screen"):
		return ClipboardScreen
	}
	return ""
}

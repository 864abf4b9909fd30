package ui

import (
	"context"
	"os/exec"
	"strings"
	"time"
)

// A terminal never answers an OSC 52 "set clipboard": `y` cannot know the
// copy arrived, so it never says it did. It says what it knows: that the
// sequence was sent, and, inside tmux, whether tmux lets it through
// (tmux's default, set-clipboard external, drops an application's copy
// unless allow-passthrough is on for the wrapped one).

// clipboardNote is what `y` can say of its OSC 52 copy, for a mode
// (ClipboardTmux, ClipboardScreen or "").
func clipboardNote(mode string) string {
	switch mode {
	case ClipboardTmux:
		setClipboard := tmuxOption("-gv", "set-clipboard")
		passthrough := tmuxOption("-pv", "allow-passthrough")
		if setClipboard == "on" || passthrough == "on" || passthrough == "all" {
			return "clipboard: sent through tmux, unconfirmed"
		}
		return "clipboard may be blocked by tmux (tmux set -g set-clipboard on lets it through)"
	case ClipboardScreen:
		return "clipboard: sent through screen, unconfirmed"
	}
	return "clipboard: sent (OSC 52), unconfirmed by the terminal"
}

// tmuxOption reads one tmux option of the session the screen runs in ("" when
// tmux cannot say: an old tmux, no server).
func tmuxOption(scope, name string) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", "show-options", scope, name).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

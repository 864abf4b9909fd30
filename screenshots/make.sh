#!/usr/bin/env bash
# Makes screenshots/calls.png, screenshots/detail.png, screenshots/tasks.png
# (160x45), screenshots/calls-80x24.png and screenshots/probe.png (120x32) from the real
# program, and screenshots/rounds.png (160x45): builds toolscope, records the
# demo as it runs now (or takes SESSION), replays the recording with the
# screen in a detached tmux pane of that size (or probes the demo's MCP
# server), captures the pane with its colours and renders each capture with
# freeze.
#
#   screenshots/make.sh                  # a fresh recording of 'toolscope demo'
#   SESSION=x.jsonl CALL=call_x screenshots/make.sh
#
# Without CALL the detail shows the call with the most progress notifications;
# rounds.png shows the first call of more than one round.
#
# Needs: go, tmux. freeze (pinned) is built unless FREEZE names one: with
# wazero v1.12.0, since the v1.8.0 freeze v0.2.2 asks for crashes under Go
# 1.26 ("split stack overflow" rendering the PNG).
set -euo pipefail

cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
name="toolscope-shot-$$"
cleanup() {
	tmux kill-session -t "$name" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/toolscope" .
if [ -z "${SESSION:-}" ]; then
	SESSION="$tmp/demo.jsonl"
	"$tmp/toolscope" demo --speed 10 --output json --record "$SESSION" >/dev/null
fi
SESSION=$(realpath "$SESSION")
ROUNDS_CALL=$(grep '"kind":"tool.result"' "$SESSION" | grep '"round":2' | head -n 1 |
	sed 's/.*"call":"\([^"]*\)".*/\1/')
CALL=${CALL:-$(grep '"kind":"tool.progress"' "$SESSION" | grep -o '"tool_call_id":"[^"]*"' |
	sort | uniq -c | sort -rn | head -n 1 | sed 's/.*"tool_call_id":"\([^"]*\)"/\1/')}
[ -n "$CALL" ] || { echo "make.sh: no call with progress in $SESSION; set CALL" >&2; exit 1; }
SETTLE=${SETTLE:-2}   # seconds for the replay to land and a frame to draw

command -v tmux >/dev/null || { echo "make.sh: tmux is required" >&2; exit 1; }

if [ -z "${FREEZE:-}" ]; then
	mkdir "$tmp/freeze"
	printf 'module freezebuild\n\ngo 1.26\n' >"$tmp/freeze/go.mod"
	(cd "$tmp/freeze" &&
		go get github.com/charmbracelet/freeze@v0.2.2 github.com/tetratelabs/wazero@v1.12.0 &&
		go build -o "$tmp/freeze/freeze" github.com/charmbracelet/freeze)
	FREEZE="$tmp/freeze/freeze"
fi

# shot OUT WIDTHxHEIGHT [toolscope args...]: run the screen, let it settle
# (and, with UNTIL set, wait up to 30 s more for that text on it), press
# KEYS if set (tmux key names), capture, render.
shot() {
	local out=$1 width=${2%x*} height=${2#*x} tries=0
	shift 2
	# COLORTERM: the program inside tmux picks true colour; tmux keeps it in
	# the capture. `; sleep` keeps the pane alive if the program exits early,
	# so its error is captured instead of lost.
	# The pane starts in SESSION's directory and names it by its base name, so
	# the header shows demo.jsonl, not a temporary path.
	tmux new-session -d -s "$name" -x "$width" -y "$height" -c "$(dirname "$SESSION")" \
		"COLORTERM=truecolor TERM=xterm-256color $(printf '%q ' "$tmp/toolscope" "$@"); sleep 30"
	sleep "$SETTLE"
	while [ -n "${UNTIL:-}" ] && ! tmux capture-pane -t "$name" -p | grep -qF "$UNTIL" && [ $((tries += 1)) -le 60 ]; do
		sleep 0.5
	done
	if [ -n "${KEYS:-}" ]; then
		for k in $KEYS; do
			tmux send-keys -t "$name" "$k"
			sleep 0.3
		done
	fi
	tmux capture-pane -t "$name" -p -e >"$tmp/$out.ansi"
	tmux send-keys -t "$name" q
	sleep 0.3
	tmux kill-session -t "$name" 2>/dev/null || true
	if ! grep -q "toolscope" "$tmp/$out.ansi"; then
		echo "make.sh: the screen did not come up; the pane showed:" >&2
		sed 's/\x1b\[[0-9;]*m//g' "$tmp/$out.ansi" >&2
		exit 1
	fi
	# freeze keeps the previous colour on SGR 39 (default foreground), which
	# tmux writes after every coloured span: spell the default out.
	sed -e 's/\x1b\[39m/\x1b[38;2;192;202;245m/g' "$tmp/$out.ansi" |
		$FREEZE --language ansi --window --padding 20 --margin 0 \
			--background "#1a1b26" --border.radius 8 --font.size 14 \
			-o "screenshots/$out.png"
	echo "wrote screenshots/$out.png"
}

shot calls 160x45 replay "$(basename "$SESSION")" --speed 0 --output tui
shot detail 160x45 replay "$(basename "$SESSION")" --speed 0 --output tui --call "$CALL"
# the task view mid-session: the replay at the demo's own pace (it was recorded
# at --speed 10), tasks still running
KEYS=t SETTLE=5 shot tasks 160x45 replay "$(basename "$SESSION")" --speed 0.1 --output tui
if [ -n "$ROUNDS_CALL" ]; then
	shot rounds 160x45 replay "$(basename "$SESSION")" --speed 0 --output tui --call "$ROUNDS_CALL"
fi
shot calls-80x24 80x24 replay "$(basename "$SESSION")" --speed 0 --output tui
# the probe against the demo's own server, once every case has its verdict
UNTIL="· exit " shot probe 120x32 probe --demo
